import { createPrivateKey } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { parseEnv } from "node:util";
import type { Redis } from "ioredis";
import type { ApplicationFunction } from "probot";
import { checkOperatorStart } from "../config/env.js";
import type { Role } from "../index.js";
import type { QueueLogger } from "../queue/index.js";
import { openQueue, type OpenQueue } from "../queue/open.js";
import { connectRedis, RedisUnavailableError } from "../queue/redis.js";
import { groundfixOctokit } from "../server/octokit.js";
import { readyHandler } from "../server/ready.js";
import { missingValueMessage, UsageError, unknownOptionMessage } from "./errors.js";

/** Streams and environment of the `groundfix` command (the subset `serve` uses). */
export interface ServeIO {
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
}

const ROLES: readonly Role[] = ["all", "web", "worker"];

/**
 * The arguments of `groundfix serve` (`command` "serve": `[--role all|web|worker]`, also `--role=web`; default `all`)
 * or of `groundfix worker` (`command` "worker": no options, the role is `worker`). Every error names the command the
 * user typed and its help (`worker: unknown option --foo (see groundfix worker --help)`).
 * @throws UsageError for anything else
 */
export function parseServeArgs(args: readonly string[], command: "serve" | "worker" = "serve"): { role: Role } {
  let role: Role = command === "worker" ? "worker" : "all";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (command === "worker" && (arg === "--role" || arg.startsWith("--role="))) {
      throw new UsageError(
        "worker: takes no --role (groundfix worker is serve --role worker; " +
          "for another role run groundfix serve --role)",
      );
    }
    if (arg === "--role" && (args[i + 1] === undefined || args[i + 1]!.startsWith("-")))
      throw new UsageError(missingValueMessage(command, "--role", "all, web or worker"));
    const value = arg === "--role" ? args[++i] : arg.startsWith("--role=") ? arg.slice("--role=".length) : undefined;
    if (value === undefined) {
      throw new UsageError(
        arg.startsWith("-")
          ? unknownOptionMessage(command, arg, command === "worker" ? ["help"] : ["role", "help"])
          : `${command}: unexpected argument ${arg} (see groundfix ${command} --help)`,
      );
    }
    if (!ROLES.includes(value as Role))
      throw new UsageError(`${command}: --role must be all, web or worker (got "${value}")`);
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

/** True when `pem` is a private key node:crypto can read (PKCS#1 or PKCS#8 PEM). */
function isPrivateKey(pem: string): boolean {
  try {
    createPrivateKey(pem);
    return true;
  } catch {
    return false;
  }
}

/**
 * The first problem with the GitHub App's settings that would make Probot fail with a stack, or run unsafely, as one
 * line naming the variable, or null. Read as Probot's `@probot/get-private-key` reads them: PRIVATE_KEY (PEM,
 * `\n`-escaped or base64) wins over PRIVATE_KEY_PATH (relative to the working directory). Without APP_ID outside
 * production Probot starts its setup flow instead, which is allowed; but once the App is configured (APP_ID set, or
 * NODE_ENV=production):
 * - APP_ID must be the App's numeric id;
 * - WEBHOOK_SECRET must be set and not Probot's public fallback `development`: without it Probot verifies every
 *   delivery against that well-known secret, so anyone could post a forged webhook (GitHub signs each delivery with
 *   the App's secret in `X-Hub-Signature-256`: GitHub Docs, "Validating webhook deliveries");
 * - in production a private key must be given (PRIVATE_KEY or PRIVATE_KEY_PATH).
 */
export function appSettingsProblem(env: NodeJS.ProcessEnv, cwd = process.cwd()): string | null {
  const production = env.NODE_ENV === "production";
  const appId = env.APP_ID?.trim();
  if (production && !appId) {
    return "APP_ID is not set (NODE_ENV=production needs the GitHub App's id)";
  }
  if (!appId) return null;
  if (!/^\d+$/.test(appId)) return `APP_ID must be the GitHub App's numeric id (got "${appId.slice(0, 40)}")`;
  const secret = env.WEBHOOK_SECRET?.trim();
  if (!secret) {
    return "WEBHOOK_SECRET is not set (without it forged webhooks would be accepted; use the App's webhook secret)";
  }
  if (secret === "development") {
    return "WEBHOOK_SECRET is \"development\", Probot's public default; use the App's own webhook secret";
  }
  if (!env.PRIVATE_KEY && !env.PRIVATE_KEY_PATH && !hasPemFile(cwd)) {
    // Probot also takes the one *.pem file of the working directory; without any key it would run its setup app.
    return production
      ? "PRIVATE_KEY or PRIVATE_KEY_PATH is not set (NODE_ENV=production needs the GitHub App's private key)"
      : "PRIVATE_KEY or PRIVATE_KEY_PATH is not set (APP_ID is set, so the GitHub App's private key is needed)";
  }
  if (env.PRIVATE_KEY) {
    let key = env.PRIVATE_KEY;
    if (!key.includes("-----BEGIN")) key = Buffer.from(key, "base64").toString();
    key = key.replace(/\\n/g, "\n");
    // BEGIN and END must name the same kind (PKCS#1 "RSA PRIVATE KEY" or PKCS#8 "PRIVATE KEY"), as Probot checks.
    const kind = /-----BEGIN ((?:RSA )?PRIVATE KEY)-----/.exec(key)?.[1];
    const pem = kind !== undefined && new RegExp(`-----END ${kind}-----`).test(key);
    // A one-line PEM is re-wrapped by Probot; only a key that has its line breaks can be parsed here.
    if (!pem || (key.includes("\n") && !isPrivateKey(key))) return "PRIVATE_KEY is not a valid PEM private key";
    return null;
  }
  if (env.PRIVATE_KEY_PATH) {
    const file = resolve(cwd, env.PRIVATE_KEY_PATH);
    if (!existsSync(file)) return `PRIVATE_KEY_PATH ${env.PRIVATE_KEY_PATH} does not exist`;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      return (
        `PRIVATE_KEY_PATH ${env.PRIVATE_KEY_PATH} cannot be read: ` +
        `${(error as NodeJS.ErrnoException).code ?? "unreadable"}`
      );
    }
    if (!isPrivateKey(text)) return `PRIVATE_KEY_PATH ${env.PRIVATE_KEY_PATH} is not a valid PEM private key`;
  }
  return null;
}

/** True when the directory holds a `*.pem` file (Probot's last place to look for the App's private key). */
function hasPemFile(dir: string): boolean {
  try {
    return readdirSync(dir).some((name) => name.endsWith(".pem"));
  } catch {
    return false;
  }
}

/** How long a stop may take once SIGTERM or SIGINT came (ms); then the process exits 1. */
const STOP_LIMIT_MS = 15_000;

/** Whether something already listens on `port` at `host` (Probot's PORT and HOST, default 3000 on all interfaces). */
function portInUse(port: number, host: string | undefined): Promise<boolean> {
  return new Promise((done) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => done(error.code === "EADDRINUSE"));
    probe.listen({ port, ...(host ? { host } : {}) }, () => probe.close(() => done(false)));
  });
}

/**
 * `groundfix serve [--role all|web|worker]` and `groundfix worker` (`command` "worker": the same as
 * `serve --role worker`, its argument errors named `worker:`): run the GitHub App in this process. APP_ID,
 * PRIVATE_KEY, WEBHOOK_SECRET, PORT… come from the environment or `.env`, as for `probot run`.
 * - `all` (default): Probot's server (webhooks, `GET /ping`, `GET /ready`) and the worker, in one process;
 * - `web`: the server only; its jobs go to Redis for the workers (needs GROUNDFIX_REDIS_URL);
 * - `worker`: runs the jobs of the Redis queue, no HTTP server (needs GROUNDFIX_REDIS_URL).
 * Octokit throttles per installation, through Redis when it is configured (`server/octokit.ts`), and bounds each
 * GitHub request (`host/github/requests.ts`: 4 tries, 30 s per try, a log line per retry). SIGTERM or SIGINT says
 * so in one line (`groundfix: SIGTERM: stopping; …`), stops taking webhooks and jobs, aborts the running jobs'
 * network waits (`JobQueue.close`: on Redis each goes back to waiting, no attempt spent; in process it is dropped),
 * names the jobs it stopped in one line, then resolves 0; when that takes over 15 s it exits 1 with one line. When
 * Redis is unreachable by then it says so in one line and stops without waiting (BullMQ's close would wait forever).
 * The queue's log lines (a job's failed attempt: `failed on attempt 1 of 4 (…); retried in 10 s`) go to Probot's
 * logger.
 *
 * @returns the exit code when the process should stop: 2 at once (one line on stderr) when Redis is configured but
 *   unreachable (`groundfix: cannot reach Redis at …: ECONNREFUSED`), and 2 with one line for a setting that
 *   cannot work (`groundfix: cannot start: …`): an invalid operator environment, a GitHub App setting
 *   ({@link appSettingsProblem}), a PORT that is not a port number 1-65535 or a PORT in use
 * @throws UsageError for an unknown argument, or a split role without GROUNDFIX_REDIS_URL
 */
export async function serve(args: string[], io: ServeIO, command: "serve" | "worker" = "serve"): Promise<number> {
  const { role } = parseServeArgs(args, command);
  applyDotEnv(io.env);
  const url = io.env.GROUNDFIX_REDIS_URL?.trim();
  if (role !== "all" && !url) {
    // Named as the user started it: `groundfix worker` is `serve --role worker`.
    const command = role === "worker" ? "worker" : `serve --role ${role}`;
    throw new UsageError(
      `${command} needs GROUNDFIX_REDIS_URL (redis://host:port): web and worker processes share jobs through Redis`,
    );
  }
  const start = checkOperatorStart(io.env);
  if (!start.ok) {
    io.stderr.write(`${start.line}\n`);
    return 2;
  }
  const problem = appSettingsProblem(io.env);
  if (problem) {
    io.stderr.write(`groundfix: cannot start: ${problem}\n`);
    return 2;
  }
  const given = io.env.PORT?.trim() || "3000";
  const port = /^\d{1,5}$/.test(given) ? Number(given) : NaN;
  if (role !== "worker" && !(port >= 1 && port <= 65535)) {
    // Probot's parseInt would listen on 3000 for "abc" and on 80 for "80x", silently.
    io.stderr.write(`groundfix: cannot start: PORT must be a port number 1-65535 (got ${JSON.stringify(given)})\n`);
    return 2;
  }
  if (role !== "worker" && (await portInUse(port, io.env.HOST))) {
    io.stderr.write(`groundfix: cannot start: port ${port} is already in use (PORT)\n`);
    return 2;
  }
  let redis: Redis | undefined;
  let queue: OpenQueue;
  // The queue logs (a job's failed attempt, a job handed back) through Probot's logger once it exists.
  let logTo: QueueLogger | undefined;
  const queueLog: QueueLogger = {
    info: (obj, msg) => logTo?.info(obj, msg),
    error: (obj, msg) => logTo?.error(obj, msg),
  };
  try {
    redis = url ? await connectRedis(url) : undefined;
    queue = await openQueue({ redisUrl: url, concurrency: start.operator.concurrency, log: queueLog });
  } catch (error) {
    redis?.disconnect();
    if (!(error instanceof RedisUnavailableError)) throw error;
    // An environment the process cannot work in, as a bad setting is: exit 2 (README, "Exit codes").
    io.stderr.write(`groundfix: ${error.message}\n`);
    return 2;
  }
  const probot = await import("probot");
  const { createApp } = await import("../index.js");
  const Octokit = groundfixOctokit({ redis });
  const app = createApp({ queue, env: io.env, role });
  let stopServer = async () => {};
  if (role === "worker") {
    const instance = probot.createProbot({ env: io.env, overrides: { Octokit } });
    await instance.load(app);
    logTo = instance.log; // Probot 14 makes its logger in load()
    instance.log.info(
      `groundfix worker: running jobs of ${queue.backend === "redis" ? "the Redis queue" : "this process"}`,
    );
  } else {
    const withReady: ApplicationFunction = async (instance, options) => {
      logTo = instance.log;
      options.addHandler(readyHandler(queue));
      instance.log.info(
        { model: start.operator.model, role },
        `groundfix: model ${start.operator.model}, role ${role}`,
      );
      await app(instance, options);
    };
    const server = await probot.run(withReady, { Octokit });
    stopServer = () => server.stop();
  }
  return new Promise((resolve) => {
    let said = false;
    const sayOnce = (line: string) => {
      if (!said) io.stderr.write(`groundfix: ${line}\n`);
      said = true;
    };
    const stop = (signal: NodeJS.Signals) => {
      process.off("SIGTERM", stop);
      process.off("SIGINT", stop);
      // With Redis gone, BullMQ's close waits forever and its clients reject on quit ("Stream isn't writeable…"):
      // say so in one line and stop without waiting for the queue.
      process.on("unhandledRejection", (error) => sayOnce(`while stopping: ${(error as Error)?.message ?? error}`));
      const redisDown = redis !== undefined && redis.status !== "ready";
      const kept = queue.backend === "redis";
      const fate = kept ? "handed back to the queue" : "dropped (the in-process queue keeps nothing)";
      if (redisDown) sayOnce("Redis is unreachable; stopping without waiting for the queue's jobs");
      else io.stderr.write(`groundfix: ${signal}: stopping; no new jobs, the running ones are stopped and ${fate}\n`);
      // The running jobs' network waits are aborted (queue.close), so this is a bound, not the usual wait.
      const late = setTimeout(() => {
        io.stderr.write(
          `groundfix: not stopped within ${STOP_LIMIT_MS / 1000} s; exiting now` +
            `${kept ? " (a running job's lock lapses and another worker takes it)" : ""}\n`,
        );
        process.exit(1);
      }, STOP_LIMIT_MS);
      late.unref();
      const drain = (): Promise<string[]> =>
        redisDown ? (void queue.close().catch(() => {}), Promise.resolve([])) : queue.close();
      void stopServer()
        .catch(() => {})
        .then(drain)
        .then(async (stopped) => {
          if (stopped.length > 0)
            io.stderr.write(`groundfix: ${stopped.length} running job(s) ${fate}: ${stopped.join(", ")}\n`);
          if (redisDown) redis?.disconnect();
          else await redis?.quit();
        })
        .catch((error: unknown) => sayOnce(`while stopping: ${(error as Error).message}`))
        .finally(() => {
          clearTimeout(late);
          resolve(0);
          setTimeout(() => process.exit(0), 1_000).unref(); // a library handle left open must not keep it alive
        });
    };
    process.removeAllListeners("SIGINT"); // probot's run() exits on SIGINT without waiting for the running jobs
    process.on("SIGTERM", stop);
    process.on("SIGINT", stop);
  });
}
