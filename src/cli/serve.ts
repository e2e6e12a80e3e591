import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";
import type { Redis } from "ioredis";
import type { ApplicationFunction } from "probot";
import { connectRedis, pingRedis, redactRedisUrl, RedisUnavailableError } from "../queue/redis.js";
import { groundfixOctokit } from "../server/octokit.js";
import { readyHandler } from "../server/ready.js";
import { UsageError } from "./errors.js";

/** Streams and environment of the `groundfix` command (the subset `serve` uses). */
export interface ServeIO {
  stderr: { write(text: string): unknown };
  env: NodeJS.ProcessEnv;
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
 * `groundfix serve`: run the GitHub App in this process with Probot's server (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET,
 * PORT… from the environment or `.env`, as `probot run`), with Octokit's throttling per installation and, when
 * `GROUNDFIX_REDIS_URL` is set, shared through that Redis (`server/octokit.ts`). Adds `GET /ready`
 * (`server/ready.ts`) next to Probot's `GET /ping`.
 *
 * @returns a promise that settles when the server stopped (SIGINT/SIGTERM: 0), or 1 at once when Redis is configured
 *   but unreachable (one line on stderr: `groundfix: cannot reach Redis at redis://host:port …: ECONNREFUSED`)
 * @throws UsageError for an unknown argument
 */
export async function serve(args: string[], io: ServeIO): Promise<number> {
  if (args.length > 0) throw new UsageError(`serve: unexpected argument ${args[0]} (see groundfix serve --help)`);
  applyDotEnv(io.env);
  const url = io.env.GROUNDFIX_REDIS_URL?.trim();
  let redis: Redis | undefined;
  if (url) {
    try {
      redis = await connectRedis(url);
    } catch (error) {
      if (!(error instanceof RedisUnavailableError)) throw error;
      io.stderr.write(`groundfix: ${error.message}\n`);
      return 1;
    }
  }
  const probot = await import("probot");
  const app = (await import("../index.js")).default;
  const Octokit = groundfixOctokit({ redis });
  const shown = url ? redactRedisUrl(url) : "";
  const ready = readyHandler({
    backend: redis ? "redis" : "memory",
    ready: async () => (redis ? pingRedis(redis, shown) : { ok: true, detail: "in-process queue" }),
  });
  const withReady: ApplicationFunction = async (instance, options) => {
    options.addHandler(ready);
    await app(instance, options);
  };
  const server = await probot.run(withReady, { Octokit });
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGTERM", stop);
      void server
        .stop()
        .catch(() => {})
        .then(() => redis?.quit())
        .finally(() => resolve(0));
    };
    process.on("SIGTERM", stop);
  });
}
