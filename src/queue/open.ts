/**
 * Pick the job queue of this process: the durable one on Redis when `GROUNDFIX_REDIS_URL` is set, else the
 * in-process queue (`queue/index.ts`), which loses its waiting jobs on a restart and is not shared between processes.
 */
import { createQueue, type QueueLogger } from "./index.js";
import { createRedisQueue, type ReadyState, type RedisQueueOptions } from "./redis.js";
import type { JobQueue } from "./types.js";

export { RedisUnavailableError } from "./redis.js";

/** The queue {@link openQueue} returns: which backend it is and a readiness probe (always ok in-process). */
export interface OpenQueue extends JobQueue {
  readonly backend: "redis" | "memory";
  ready(): Promise<ReadyState>;
}

/** Options of {@link openQueue}. */
export interface OpenQueueOptions {
  /** `GROUNDFIX_REDIS_URL`; empty or undefined selects the in-process queue. */
  redisUrl?: string;
  /** `GROUNDFIX_CONCURRENCY`: jobs this process runs at once. */
  concurrency: number;
  log?: QueueLogger;
  /** Test knobs of the Redis backend (lock duration, backoff, prefix). */
  redis?: Omit<RedisQueueOptions, "url" | "concurrency" | "log">;
}

/**
 * The in-process queue (`queue/index.ts`, which implements the {@link JobQueue} contract itself: the same
 * coalescing rules, one attempt per job, delivery ids in a bounded LRU), with its backend name and readiness.
 */
export function inProcessJobQueue(options: { concurrency: number; log?: QueueLogger }): OpenQueue {
  const queue = createQueue({ concurrency: options.concurrency, ...(options.log ? { log: options.log } : {}) });
  return Object.assign(queue, {
    backend: "memory" as const,
    ready: async (): Promise<ReadyState> => ({ ok: true, detail: "in-process queue" }),
  });
}

/**
 * Open the queue `options` select. A `redisUrl` that is not `redis://…`/`rediss://…`, or a Redis that does not
 * answer, is a {@link RedisUnavailableError} whose message is one line (the caller prints it and exits).
 */
export async function openQueue(options: OpenQueueOptions): Promise<OpenQueue> {
  const url = options.redisUrl?.trim();
  if (!url) return inProcessJobQueue(options);
  return createRedisQueue({ ...options.redis, url, concurrency: options.concurrency, log: options.log });
}
