/**
 * Pick the job queue of this process: the durable one on Redis when `GROUNDFIX_REDIS_URL` is set, else the
 * in-process queue (`queue/index.ts`), which loses its waiting jobs on a restart and is not shared between processes.
 */
import { createQueue, type QueueLogger } from "./index.js";
import { createRedisQueue, type ReadyState, type RedisQueueOptions } from "./redis.js";
import type { JobData, JobProcessor, JobQueue } from "./types.js";

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
 * The in-process queue behind the {@link JobQueue} contract: the same coalescing rules, one attempt per job (a
 * throw is logged), delivery ids in a bounded LRU. Jobs accepted before {@link JobQueue.process} wait for it.
 */
export function inProcessJobQueue(options: { concurrency: number; log?: QueueLogger }): OpenQueue {
  const tasks = createQueue({ concurrency: options.concurrency, log: options.log });
  let setProcessor!: (p: JobProcessor) => void;
  const processor = new Promise<JobProcessor>((resolve) => (setProcessor = resolve));
  return {
    backend: "memory",
    async enqueue(job: JobData) {
      // The delivery id was claimed already (claimDelivery); passing it again would read as a redelivery.
      const run = async () => (await processor)(job, { number: 1, final: true });
      const result = tasks.enqueue({ key: job.key, rerun: job.rerun, run });
      return result === "duplicate_delivery" ? "coalesced" : result;
    },
    async claimDelivery(deliveryId) {
      return tasks.claim(deliveryId);
    },
    process(p) {
      setProcessor(p);
    },
    idle: () => tasks.idle(),
    close: () => tasks.drain(),
    ready: async () => ({ ok: true, detail: "in-process queue" }),
  };
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
