import { LRUCache } from "lru-cache";
import { JobStoppedError } from "./types.js";
import type { EnqueueResult, GaveUp, JobData, JobProcessor, JobQueue } from "./types.js";

export type { EnqueueResult, JobData, JobProcessor, JobQueue } from "./types.js";

/**
 * The in-process {@link JobQueue} (the default): accept a job fast, run it later in this process.
 *
 * - At most `concurrency` jobs run at once; the rest wait in arrival order. Jobs enqueued before
 *   {@link JobQueue.process} wait for it.
 * - Coalescing by `key` (repo + issue or alert): a job whose key is already waiting is merged into the waiting
 *   one; a job whose key is running is dropped, unless it is a `rerun` (`/groundfix retry`), which then runs once
 *   after the running one ends (further reruns meanwhile merge into that one).
 * - A webhook delivery id (`X-GitHub-Delivery`, the same on a manual redelivery) is claimed once; the ids seen are
 *   kept in a bounded LRU (`maxDeliveries`) so memory stays flat.
 * - A job's error is caught and logged (one attempt: a restart drops what is queued) and handed to `gaveUp`, which
 *   leaves the final word (status comment) the job could not.
 * - `close()` aborts the running jobs' signals and waits for them; they and the waiting jobs are dropped, each
 *   logged by key (nothing here survives the process), and no `gaveUp` is called for them.
 */
export interface InProcessQueue extends JobQueue {
  /** Jobs running now and waiting now. */
  stats(): { running: number; waiting: number };
}

/** Logger subset (Probot's pino logger fits). */
export interface QueueLogger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Options of {@link createQueue}. */
export interface QueueOptions {
  /** Jobs at once (default 2). */
  concurrency?: number;
  /** Delivery ids remembered (default 5000). */
  maxDeliveries?: number;
  log?: QueueLogger;
}

const silent: QueueLogger = { info() {}, error() {} };

/** Create the in-process queue. See {@link InProcessQueue} for the coalescing and dedupe rules. */
export function createQueue(options: QueueOptions = {}): InProcessQueue {
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const log = options.log ?? silent;
  const waiting: JobData[] = [];
  const running = new Set<string>();
  const controllers = new Map<string, AbortController>();
  const after = new Map<string, JobData>();
  const deliveries = new LRUCache<string, true>({ max: Math.max(1, options.maxDeliveries ?? 5000) });
  const once = new LRUCache<string, true>({ max: 5000 });
  let processor: JobProcessor | undefined;
  let gaveUp: GaveUp | undefined;
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  function settleIdle(): void {
    if (running.size > 0 || waiting.length > 0 || after.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function pump(): void {
    while (processor && !closed && running.size < concurrency) {
      const index = waiting.findIndex((job) => !running.has(job.key));
      if (index < 0) break;
      const [job] = waiting.splice(index, 1);
      start(job!, processor);
    }
    settleIdle();
  }

  function start(job: JobData, run: JobProcessor): void {
    running.add(job.key);
    const controller = new AbortController();
    controllers.set(job.key, controller);
    void Promise.resolve()
      .then(() => run(job, { number: 1, final: true, signal: controller.signal }))
      .catch(async (error: unknown) => {
        if (controller.signal.aborted) {
          return log.error({ key: job.key }, `groundfix job ${job.key} stopped by the shutdown and dropped`);
        }
        log.error({ err: error, key: job.key }, `groundfix job ${job.key} failed`);
        await gaveUp?.(job, error).catch((e: unknown) => log.error({ err: e, key: job.key }, "gave-up hook failed"));
      })
      .finally(() => {
        running.delete(job.key);
        controllers.delete(job.key);
        const next = after.get(job.key);
        if (next) {
          after.delete(job.key);
          waiting.push(next);
        }
        pump();
      });
  }

  function enqueue(job: JobData): EnqueueResult {
    if (closed) return "closed";
    const queued = waiting.findIndex((w) => w.key === job.key);
    if (queued >= 0) {
      // A forced rerun supersedes a plain run that has not started yet.
      if (job.rerun) waiting[queued] = job;
      log.info({ key: job.key }, "coalesced with a waiting job");
      return "coalesced";
    }
    if (running.has(job.key)) {
      if (!job.rerun) {
        log.info({ key: job.key }, "coalesced with a running job");
        return "coalesced";
      }
      const had = after.has(job.key);
      after.set(job.key, job);
      return had ? "coalesced" : "queued_after_running";
    }
    waiting.push(job);
    pump();
    return "queued";
  }

  return {
    enqueue: async (job) => enqueue(job),
    async claimDelivery(deliveryId) {
      if (deliveries.has(deliveryId)) return false;
      deliveries.set(deliveryId, true);
      return true;
    },
    async claimOnce(key) {
      if (once.has(key)) return false;
      once.set(key, true);
      return true;
    },
    async releaseDelivery(deliveryId) {
      deliveries.delete(deliveryId);
    },
    process(run, onGaveUp) {
      processor = run;
      gaveUp = onGaveUp;
      pump();
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      });
    },
    async close() {
      closed = true;
      for (const job of [...waiting.splice(0), ...after.values()])
        log.error({ key: job.key }, `groundfix job ${job.key} dropped by the shutdown before it ran`);
      after.clear();
      const stopped = [...controllers.keys()];
      for (const controller of controllers.values()) controller.abort(new JobStoppedError());
      await this.idle();
      return stopped;
    },
    stats() {
      return { running: running.size, waiting: waiting.length + after.size };
    },
  };
}
