/**
 * A bounded in-process task queue: accept a task fast, run it later (DESIGN.md "queue/").
 *
 * - At most `concurrency` jobs run at once; the rest wait in arrival order.
 * - Coalescing by `key` (repo + issue or alert): a job whose key is already waiting is merged into the waiting
 *   one; a job whose key is running is dropped, unless it is a `rerun` (`/groundfix retry`), which then runs once
 *   after the running one ends (further reruns meanwhile merge into that one).
 * - A webhook delivery id (`X-GitHub-Delivery`, the same on a manual redelivery) is accepted once; the ids seen
 *   are kept in a bounded LRU (`maxDeliveries`) so memory stays flat.
 * - A job's error is caught and logged; the job itself is expected to have told the user (status comment).
 */

/** A unit of work. `run` must not rely on the webhook handler still being active. */
export interface QueueJob {
  /** Coalescing key, e.g. `owner/repo#issue-12` (Task.key). */
  key: string;
  /** Webhook delivery id; a second job with the same id is dropped. */
  deliveryId?: string;
  /** Run after a running job of the same key instead of being dropped (a forced rerun). */
  rerun?: boolean;
  run(): Promise<void>;
}

/** What {@link TaskQueue.enqueue} did with a job. */
export type EnqueueResult = "queued" | "coalesced" | "queued_after_running" | "duplicate_delivery" | "closed";

/** Logger subset (Probot's pino logger fits). */
export interface QueueLogger {
  info(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The queue {@link createQueue} returns: one per app, shared by every webhook handler. */
export interface TaskQueue {
  /** Accept `job` without running it now; never throws (a failing `run` is logged). */
  enqueue(job: QueueJob): EnqueueResult;
  /** True when this delivery id was already accepted (lets a handler skip its API calls for a redelivery). */
  seen(deliveryId: string): boolean;
  /**
   * Record a delivery id at the START of a handler: true the first time, false for a redelivery — also one that
   * arrives while the first is still being handled (so two concurrent copies cannot both react and enqueue).
   */
  claim(deliveryId: string): boolean;
  /** Resolves when nothing is waiting or running (jobs added meanwhile are awaited too). */
  idle(): Promise<void>;
  /** Stop accepting jobs (enqueue answers "closed"), then resolve when the accepted ones have finished. */
  drain(): Promise<void>;
  /** Jobs running now and waiting now. */
  stats(): { running: number; waiting: number };
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

/** Create a queue. See the module comment for the coalescing and dedupe rules. */
export function createQueue(options: QueueOptions = {}): TaskQueue {
  const concurrency = Math.max(1, options.concurrency ?? 2);
  const maxDeliveries = Math.max(1, options.maxDeliveries ?? 5000);
  const log = options.log ?? silent;
  const waiting: QueueJob[] = [];
  const running = new Set<string>();
  const after = new Map<string, QueueJob>();
  const deliveries = new Map<string, true>();
  let idleWaiters: (() => void)[] = [];
  let closed = false;

  function remember(id: string): void {
    deliveries.set(id, true);
    if (deliveries.size > maxDeliveries) deliveries.delete(deliveries.keys().next().value as string);
  }

  function settleIdle(): void {
    if (running.size > 0 || waiting.length > 0 || after.size > 0) return;
    const waiters = idleWaiters;
    idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  function pump(): void {
    while (running.size < concurrency) {
      const index = waiting.findIndex((job) => !running.has(job.key));
      if (index < 0) break;
      const [job] = waiting.splice(index, 1);
      start(job!);
    }
    settleIdle();
  }

  function start(job: QueueJob): void {
    running.add(job.key);
    void Promise.resolve()
      .then(() => job.run())
      .catch((error: unknown) => {
        log.error({ err: error, key: job.key }, `groundfix job ${job.key} failed`);
      })
      .finally(() => {
        running.delete(job.key);
        const next = after.get(job.key);
        if (next) {
          after.delete(job.key);
          waiting.push(next);
        }
        pump();
      });
  }

  return {
    enqueue(job) {
      if (closed) return "closed";
      if (job.deliveryId !== undefined) {
        const duplicate = deliveries.has(job.deliveryId);
        deliveries.delete(job.deliveryId); // most recently seen moves to the end of the LRU
        remember(job.deliveryId);
        if (duplicate) return "duplicate_delivery";
      }
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
    },
    seen(deliveryId) {
      return deliveries.has(deliveryId);
    },
    claim(deliveryId) {
      if (deliveries.has(deliveryId)) return false;
      remember(deliveryId);
      return true;
    },
    idle() {
      return new Promise<void>((resolve) => {
        idleWaiters.push(resolve);
        settleIdle();
      });
    },
    drain() {
      closed = true;
      return this.idle();
    },
    stats() {
      return { running: running.size, waiting: waiting.length + after.size };
    },
  };
}
