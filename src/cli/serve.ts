import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import type { Redis } from "ioredis";
import type { ApplicationFunction } from "probot";
import { checkOperatorStart } from "../config/env.js";
import type { Role } from "../index.js";
import { openQueue, type OpenQueue } from "../queue/open.js";
import { connectRedis, RedisUnavailableError } from "../queue/redis.js";
import { groundfixOctokit } from "../server/octokit.js";
import { readyHandler } from "../server/ready.js";
import { UsageError } from "./errors.js";

/** Streams and environment of the `groundfix` command (the subset `serve` uses). */
export interface ServeIO {
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
}

const ROLES: readonly Role[] = ["all", "web", "worker"];

/** `[--role all|web|worker]` (also `--role=web`); default `all`. @throws UsageError for anything else */
export function parseServeArgs(args: readonly string[]): { role: Role } {
  let role: Role = "all";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = arg === "--role" ? args[++i] : arg.startsWith("--role=") ? arg.slice("--role=".length) : undefined;
    if (value === undefined) {
      throw new UsageError(`serve: unexpected argument ${arg} (see groundfix serve --help)`);
    }
    if (!ROLES.includes(value as Role)) throw new UsageError(`serve: --role must be all, web or worker (got "${value}")`);
    role = value as Role;
  }
  return { role };
}

/** `.env` of the working directory into `env`, as `probot run` does (its values win over the environment's). */
function applyDotEnv(env: NodeJS.ProcessEnv): void {
  try {
    Object.assign(env, parseEnv(readFileSync(join(process.cwd(), ".env"), "utf8")));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/**
 * `groundfix serve [--role all|web|worker]` and `groundfix worker` (= `--role worker`): run the GitHub App in this
 * process. APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, PORT… come from the environment or `.env`, as for `probot run`.
 * - `all` (default): Probot's server (webhooks, `GET /ping`, `GET /ready`) and the worker, in one process;
 * - `web`: the server only; its jobs go to Redis for the workers (needs GROUNDFIX_REDIS_URL);
 * - `worker`: runs the jobs of the Redis queue, no HTTP server (needs GROUNDFIX_REDIS_URL).
 * Octokit throttles per installation, through Redis when it is configured (`server/octokit.ts`). SIGTERM or SIGINT
 * stops taking webhooks and jobs, waits for the running jobs, then resolves 0.
 *
 * @returns the exit code when the process should stop: 1 at once (one line on stderr) when the operator
 *   environment is invalid or Redis is configured but unreachable (`groundfix: cannot reach Redis at …: ECONNREFUSED`)
 * @throws UsageError for an unknown argument, or a split role without GROUNDFIX_REDIS_URL
 */
export async function serve(args: string[], io: ServeIO): Promise<number> {
  const { role } = parseServeArgs(args);
  applyDotEnv(io.env);
  const url = io.env.GROUNDFIX_REDIS_URL?.trim();
  if (role !== "all" && !url) {
    throw new UsageError(`--role ${role} needs GROUNDFIX_REDIS_URL: web and worker processes share jobs through Redis`);
  }
  const start = checkOperatorStart(io.env);
  if (!start.ok) {
    io.stderr.write(`${start.line}\n`);
    return 1;
  }
  let redis: Redis | undefined;
  let queue: OpenQueue;
  try {
    redis = url ? await connectRedis(url) : undefined;
    queue = await openQueue({ redisUrl: url, concurrency: start.operator.concurrency });
  } catch (error) {
    redis?.disconnect();
    if (!(error instanceof RedisUnavailableError)) throw error;
    io.stderr.write(`groundfix: ${error.message}\n`);
    return 1;
  }
  const probot = await import("probot");
  const { createApp } = await import("../index.js");
  const Octokit = groundfixOctokit({ redis });
  const app = createApp({ queue, env: io.env, role });
  let stopServer = async () => {};
  if (role === "worker") {
    const instance = probot.createProbot({ env: io.env, overrides: { Octokit } });
    await instance.load(app);
    instance.log.info(`groundfix worker: running jobs of ${queue.backend === "redis" ? "the Redis queue" : "this process"}`);
  } else {
    const withReady: ApplicationFunction = async (instance, options) => {
      options.addHandler(readyHandler(queue));
      instance.log.info({ model: start.operator.model, role }, `groundfix: model ${start.operator.model}, role ${role}`);
      await app(instance, options);
    };
    const server = await probot.run(withReady, { Octokit });
    stopServer = () => server.stop();
  }
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      void stopServer()
        .catch(() => {})
        .then(() => queue.close())
        .then(() => redis?.quit())
        .catch(() => {})
        .finally(() => {
          resolve(0);
          setTimeout(() => process.exit(0), 1_000).unref(); // a library handle left open must not keep it alive
        });
    };
    process.removeAllListeners("SIGINT"); // probot's run() exits on SIGINT without waiting for the running jobs
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
}
