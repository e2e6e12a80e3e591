/**
 * The job-queue contract shared by the in-process queue (`queue/index.ts`, the default) and the durable one on
 * Redis (BullMQ, when `GROUNDFIX_REDIS_URL` is set). A job is plain JSON data, never a closure, so that any process
 * sharing the Redis can run it: the worker rebuilds what it needs (an installation Octokit from `installationId`,
 * the host, the config) from the data.
 */

/** One queued unit of work, serialisable with `JSON.stringify`. */
export interface JobData {
  /**
   * `event`: a webhook acknowledged but not yet looked at (config, permission, reaction), which may enqueue a `run`;
   * `run`: a fix run for a task; `review`: the review check of one pull-request head.
   */
  kind: "event" | "run" | "review";
  /**
   * Coalescing key (on Redis, the job's deduplication id): `owner/repo#issue-12`, `owner/repo#alert-3`,
   * `owner/repo#dispatch-<hash>`, `owner/repo#review-<pr>@<headSha>~<baseSha>`, `owner/repo#event-<fingerprint>`.
   * One key is queued once across every process.
   */
  key: string;
  /** The GitHub App installation the job acts for (0 for local runs). */
  installationId: number;
  /** `X-GitHub-Delivery` of the webhook that created the job, for logs. */
  deliveryId?: string;
  /** A forced rerun (`/groundfix retry`, `/groundfix approve`): runs once after a running job of the same key. */
  rerun?: boolean;
  /** What the processor needs, as JSON (the task, the event name and payload subset, …). */
  payload: unknown;
}

/** What {@link JobQueue.enqueue} did with a job. */
export type EnqueueResult = "queued" | "coalesced" | "queued_after_running" | "closed";

/**
 * One attempt at a job: its number (1 for the first), whether no retry follows a failure, and the signal that
 * aborts when the process stops ({@link JobQueue.close}; its reason is a {@link JobStoppedError}): a processor
 * passes it to its network calls, so a stop does not wait on them.
 */
export interface Attempt {
  number: number;
  final: boolean;
  signal?: AbortSignal;
}

/** Runs one job; a throw is a failed attempt (a durable queue may retry it), except after its signal aborted. */
export type JobProcessor = (job: JobData, attempt: Attempt) => Promise<void>;

/** The reason a running job's {@link Attempt.signal} aborts with when its process stops (SIGTERM, SIGINT). */
export class JobStoppedError extends Error {
  constructor() {
    super("the worker is stopping");
    this.name = "JobStoppedError";
  }
}

/** Called when a job's last attempt threw: the job and that attempt's error. */
export type GaveUp = (job: JobData, error: unknown) => Promise<void>;

/** A queue both backends implement. Every method may reject when the backend (Redis) is unreachable. */
export interface JobQueue {
  /** Accept `job` without running it now. */
  enqueue(job: JobData): Promise<EnqueueResult>;
  /**
   * Record a webhook delivery id at the start of a handler: true the first time, false for a redelivery (the
   * same id, also after its run finished, within the retention window), so a copy is dropped before any API call.
   */
  claimDelivery(deliveryId: string): Promise<boolean>;
  /**
   * Claim `key` once for `ttlSeconds` across every process sharing the queue: true the first time, false after (the
   * in-process queue: this process, at most 5,000 keys). For one-time acts such as the reply to a refused command.
   */
  claimOnce(key: string, ttlSeconds: number): Promise<boolean>;
  /** Forget a claim whose delivery could not be enqueued, so GitHub's redelivery of it is not taken for a copy. */
  releaseDelivery(deliveryId: string): Promise<void>;
  /**
   * Start running jobs in this process with `processor` (a web-only process never calls it). `gaveUp` is called
   * once for a job whose last attempt threw (no further retry), to leave a final word; its own failure is logged.
   */
  process(processor: JobProcessor, gaveUp?: GaveUp): void;
  /** Resolves when nothing is waiting or running (tests). */
  idle(): Promise<void>;
  /**
   * Stop: take no new job, abort the running ones' {@link Attempt.signal}, wait for them to return, release the
   * connections. A job stopped so is not a failed attempt: on Redis it goes back to waiting, for this or another
   * worker (nothing is lost); the in-process queue keeps nothing across a restart, so its stopped and waiting jobs
   * are dropped (logged by key). Resolves to the keys of the running jobs it stopped.
   */
  close(): Promise<string[]>;
}
