/**
 * The durable job queue on Redis (BullMQ), used when `GROUNDFIX_REDIS_URL` is set; every app process sharing the
 * Redis sees the same queue, so a task is queued once however many replicas received its webhook.
 *
 * How the in-process rules map onto BullMQ (https://docs.bullmq.io/guide/jobs/deduplication):
 * - The task key is the job's **deduplication id**: while a job of that key is waiting, delayed (a retry's backoff)
 *   or active, adding the key again is a no-op ("coalesced"). The job id is the key plus a unique suffix, so a
 *   finished job kept for inspection never blocks the next run of the same key.
 * - A `rerun` added while its key is active uses `keepLastIfActive`: BullMQ stores it and enqueues it when the
 *   active one finishes (later reruns meanwhile replace it: "runs once after"). A rerun added while its key is still
 *   waiting replaces the waiting job's data, as the in-process queue does.
 * - A throw is a failed attempt, retried with exponential backoff (`attempts`, `backoffMs`); a worker that died
 *   mid-run stops renewing its lock and BullMQ's stalled-job check hands the job to another worker after
 *   `lockDurationMs` (https://docs.bullmq.io/guide/workers/stalled-jobs).
 * - `close()` (SIGTERM) stops fetching jobs and aborts the running jobs' signals; a job that then returns or throws
 *   is moved back to waiting (`Job.moveToWait`, then BullMQ's `WaitingError`), not failed: no attempt is spent, and
 *   this or another worker runs it again.
 * - Each failed attempt is logged with its number, the attempts in all, and when the retry comes (or that none does).
 * - Completed jobs are kept 24 h (at most 1000), failed ones 7 days (at most 5000).
 * - A webhook delivery id is claimed with `SET NX`: for `pendingDeliverySeconds` until its job is enqueued, then for
 *   `deliveryTtlSeconds` (3 days by default, the window in which GitHub lets a delivery be redelivered: "Redelivering
 *   webhooks", GitHub Docs). A process that claimed and then died before enqueueing thus lets a redelivery through.
 */
import { randomUUID } from "node:crypto";
import { Job, Queue, WaitingError, Worker } from "bullmq";
import { Redis } from "ioredis";
import { JobStoppedError } from "./types.js";
import type { EnqueueResult, GaveUp, JobData, JobProcessor, JobQueue } from "./types.js";

/** Options of {@link createRedisQueue}; only `url` is required. */
export interface RedisQueueOptions {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…` (TLS). */
  url: string;
  /** Jobs this process runs at once (default 2). */
  concurrency?: number;
  /** Key prefix and queue name; replicas must agree (default `groundfix`, queue `tasks`). */
  prefix?: string;
  queueName?: string;
  /** Attempts per job, the first included (default 4). */
  attempts?: number;
  /** First retry delay in ms, doubled for each further attempt (default 10,000). */
  backoffMs?: number;
  /**
   * A worker's lock on a running job, renewed at half this period; a dead worker's job moves on after it
   * (ms, default 30,000).
   */
  lockDurationMs?: number;
  /** How often a worker looks for jobs whose worker died (ms, default `lockDurationMs`). */
  stalledIntervalMs?: number;
  /** How long a finished delivery id is remembered (s, default 259,200 = 3 days). */
  deliveryTtlSeconds?: number;
  /** How long a claimed but not yet enqueued delivery id is held (s, default 300). */
  pendingDeliverySeconds?: number;
  /** Start-up connection timeout (ms, default 5,000). */
  connectTimeoutMs?: number;
  log?: { info(obj: object, msg?: string): void; error(obj: object, msg?: string): void };
}

/**
 * Redis could not be used when the queue was opened (unreachable, refused, bad URL); `message` is one line naming
 * the address without its password, e.g.
 * `cannot reach Redis at redis://10.0.0.5:6379 (GROUNDFIX_REDIS_URL): ECONNREFUSED`.
 */
export class RedisUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RedisUnavailableError";
  }

  /** The message for a Redis at `shownUrl` (already redacted) that failed with `reason`. */
  static unreachable(shownUrl: string, reason: string): RedisUnavailableError {
    return new RedisUnavailableError(`cannot reach Redis at ${shownUrl} (GROUNDFIX_REDIS_URL): ${reason}`);
  }
}

/** What a readiness probe learns from {@link RedisJobQueue.ready}. */
export interface ReadyState {
  ok: boolean;
  /** `ok`, or why not (one line). */
  detail: string;
}

/** A {@link JobQueue} on Redis, plus a readiness probe. */
export interface RedisJobQueue extends JobQueue {
  readonly backend: "redis";
  /** PING with a 1 s budget. */
  ready(): Promise<ReadyState>;
}

/** `url` with any password replaced by `***`, for messages and logs. */
export function redactRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.toString().replace(/\/$/, "");
  } catch {
    return "(unparsable URL)";
  }
}

function reasonOf(error: unknown): string {
  const e = error as { code?: string; message?: string };
  return e?.code ?? e?.message?.split("\n")[0] ?? String(error);
}

const silent = { info() {}, error() {} };

/**
 * An ioredis client connected to `url` that fails fast while Redis is away (no offline queue, one retry per
 * command), so a caller can answer 503 at once; it reconnects by itself (every 200 ms up to 2 s).
 * @throws RedisUnavailableError when `url` is not `redis://…`/`rediss://…`, or Redis does not answer a PING within
 *   `connectTimeoutMs` (default 5,000)
 */
export async function connectRedis(url: string, connectTimeoutMs = 5_000): Promise<Redis> {
  if (!/^rediss?:\/\//i.test(url)) {
    throw new RedisUnavailableError("GROUNDFIX_REDIS_URL must look like redis://host:6379 or rediss://host:6380");
  }
  const shown = redactRedisUrl(url);
  let client: Redis;
  try {
    client = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: connectTimeoutMs,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    });
  } catch (error) {
    throw RedisUnavailableError.unreachable(shown, reasonOf(error));
  }
  // Errors surface through failed commands and ready(). At start the socket error (ECONNREFUSED, ENOTFOUND, a TLS
  // failure) is the reason worth showing; connect() itself only says "Connection is closed".
  let socketError: unknown;
  client.on("error", (error) => (socketError ??= error));
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw RedisUnavailableError.unreachable(shown, reasonOf(socketError ?? error));
  }
  return client;
}

/** PING `client` with a 1 s budget; `shownUrl` (redacted) names it in the reason. */
export async function pingRedis(client: Redis, shownUrl: string): Promise<ReadyState> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const answer = await Promise.race([
      client.ping(),
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no answer within 1 s")), 1_000))),
    ]);
    return answer === "PONG" ? { ok: true, detail: "ok" } : { ok: false, detail: `unexpected answer ${answer}` };
  } catch (error) {
    return { ok: false, detail: `Redis at ${shownUrl}: ${reasonOf(error)}` };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Connect to Redis and return the queue. No job runs in this process until {@link JobQueue.process} is called
 * (a web-only process never calls it).
 * @throws RedisUnavailableError when Redis does not answer within `connectTimeoutMs` (or the URL is invalid)
 */
export async function createRedisQueue(options: RedisQueueOptions): Promise<RedisJobQueue> {
  const shown = redactRedisUrl(options.url);
  const prefix = options.prefix ?? "groundfix";
  const queueName = options.queueName ?? "tasks";
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const attempts = Math.max(1, options.attempts ?? 4);
  const lockDuration = options.lockDurationMs ?? 30_000;
  const deliveryTtl = options.deliveryTtlSeconds ?? 259_200;
  const pendingTtl = options.pendingDeliverySeconds ?? 300;
  const log = options.log ?? silent;
  const backoffMs = options.backoffMs ?? 10_000;
  const deliveryKey = (id: string) => `${prefix}:${queueName}:delivery:${id}`;

  const producer = await connectRedis(options.url, options.connectTimeoutMs);
  const queue = new Queue<JobData>(queueName, {
    connection: producer,
    prefix,
    defaultJobOptions: {
      attempts,
      backoff: { type: "exponential", delay: backoffMs },
      removeOnComplete: { age: 24 * 3600, count: 1000 },
      removeOnFail: { age: 7 * 24 * 3600, count: 5000 },
    },
  });
  queue.on("error", (error) => log.error({ err: error }, "groundfix: Redis queue error"));
  let worker: Worker<JobData> | undefined;
  let workerConnection: Redis | undefined;
  let closed = false;
  /** The running jobs' abort controllers, by BullMQ job id. */
  const controllers = new Map<string, { key: string; controller: AbortController }>();

  /** Add `job`; `stored` is false when BullMQ deduplicated it (`id` is then the existing job's). */
  async function add(job: JobData, keepLastIfActive: boolean): Promise<{ id: string; stored: boolean }> {
    // BullMQ rejects a custom id with ":" (its key separator).
    const jobId = `${job.key.replaceAll(":", "_")}@${randomUUID()}`;
    const added = await queue.add(job.kind, job, { jobId, deduplication: { id: job.key, keepLastIfActive } });
    return { id: added.id ?? jobId, stored: added.id === jobId };
  }

  /** After a deduplicated rerun: give its data to the job of the same key that has not started yet. */
  async function supersede(existingId: string, job: JobData): Promise<EnqueueResult> {
    const existing = await Job.fromId<JobData>(queue, existingId);
    const state = existing ? await existing.getState() : "unknown";
    if (state === "active") return "queued_after_running"; // stored by keepLastIfActive
    if (!existing || !["waiting", "delayed", "prioritized"].includes(state)) {
      // Finished between the add and now: the key is free again.
      return (await add(job, true)).stored ? "queued" : "coalesced";
    }
    await existing.updateData(job);
    // A worker may have taken it between getState and updateData: then it may run the old data, so keep the
    // rerun for after it (a possibly redundant run is better than a lost rerun).
    if ((await existing.getState()) === "active") await add(job, true);
    return "coalesced";
  }

  return {
    backend: "redis",
    async enqueue(job) {
      if (closed) return "closed";
      const added = await add(job, job.rerun === true);
      if (job.deliveryId) await producer.set(deliveryKey(job.deliveryId), "queued", "EX", deliveryTtl);
      if (added.stored) return "queued";
      log.info({ key: job.key, existing: added.id }, "coalesced with a queued or running job");
      return job.rerun ? supersede(added.id, job) : "coalesced";
    },
    async claimDelivery(deliveryId) {
      return (await producer.set(deliveryKey(deliveryId), "claimed", "EX", pendingTtl, "NX")) === "OK";
    },
    async claimOnce(key, ttlSeconds) {
      return (await producer.set(`${prefix}:${queueName}:once:${key}`, "1", "EX", ttlSeconds, "NX")) === "OK";
    },
    async releaseDelivery(deliveryId) {
      await producer.del(deliveryKey(deliveryId));
    },
    process(processor: JobProcessor, gaveUp?: GaveUp) {
      if (worker || closed) return;
      workerConnection = new Redis(options.url, { maxRetriesPerRequest: null });
      workerConnection.on("error", () => {});
      worker = new Worker<JobData>(
        queueName,
        async (job, token) => {
          const handBack = async () => {
            await job.moveToWait(token);
            log.info({ key: job.data.key }, `groundfix job ${job.data.key} handed back to the queue`);
            // BullMQ leaves a job alone after WaitingError (it was moved already).
            return new WaitingError();
          };
          // A fetch in flight when close() began can still deliver a job (even the one just handed back).
          if (closed) throw await handBack();
          const number = Math.max(1, job.attemptsStarted);
          const controller = new AbortController();
          const id = job.id ?? job.data.key;
          controllers.set(id, { key: job.data.key, controller });
          try {
            await processor(job.data, {
              number,
              final: job.attemptsMade + 1 >= (job.opts.attempts ?? 1),
              signal: controller.signal,
            });
          } catch (error) {
            if (!controller.signal.aborted) throw error;
            // Stopped by close(): back to waiting, no attempt spent.
            throw await handBack();
          } finally {
            controllers.delete(id);
          }
        },
        {
          connection: workerConnection,
          prefix,
          concurrency,
          lockDuration,
          stalledInterval: options.stalledIntervalMs ?? lockDuration,
          maxStalledCount: 2,
        },
      );
      worker.on("error", (error) => log.error({ err: error }, "groundfix: Redis worker error"));
      worker.on("failed", (job, error) => {
        const made = job?.attemptsMade ?? 0;
        const all = job?.opts.attempts ?? 1;
        const next =
          made < all ? `retried in ${Math.round((backoffMs * 2 ** (made - 1)) / 1000)} s` : "no attempts left";
        log.error(
          { err: error, key: job?.data.key, attempt: made, attempts: all },
          `groundfix job ${job?.data.key} failed on attempt ${made} of ${all} ` +
            `(${(error?.message ?? String(error)).split("\n")[0]}); ${next}`,
        );
        // The last attempt threw: no retry follows, so leave the final word now.
        if (job && gaveUp && job.attemptsMade >= (job.opts.attempts ?? 1))
          void gaveUp(job.data, error).catch((e: unknown) =>
            log.error({ err: e, key: job.data.key }, "gave-up hook failed"),
          );
      });
    },
    async idle() {
      for (;;) {
        const counts = await queue.getJobCounts("waiting", "active", "delayed", "prioritized", "paused");
        if (Object.values(counts).every((n) => n === 0)) return;
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    ready: () => pingRedis(producer, shown),
    async close() {
      if (closed) return [];
      closed = true;
      // Stop fetching first, then abort what runs: each stopped job goes back to waiting (see the module comment).
      const closing = worker?.close(); // waits for the running jobs
      const stopped = [...controllers.values()].map(({ key }) => key);
      for (const { controller } of controllers.values()) controller.abort(new JobStoppedError());
      await closing;
      // BullMQ's close can wait on a connection that Redis dropped: give it 5 s, then cut the sockets.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, 5_000)));
      await Promise.race([queue.close().catch(() => {}), late]);
      clearTimeout(timer);
      producer.disconnect();
      workerConnection?.disconnect();
      return stopped;
    },
  };
}
