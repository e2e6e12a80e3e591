import type { ApplicationFunction, Probot } from "probot";
import { acknowledge, eventJob, type WebhookContext } from "./app/acknowledge.js";
import { createEventJob } from "./app/event-job.js";
import { checkOperatorStart, loadOperatorEnv } from "./config/env.js";
import { requestFromCommand } from "./events/command.js";
import { labeledIssuePrecheck } from "./events/issue.js";
import { malformedPayload } from "./events/payload.js";
import { createReplyOnce } from "./events/reply-once.js";
import { reviewEventOf } from "./events/review-trigger.js";
import { createAccept } from "./host/github/accept.js";
import { createBotLogin } from "./host/github/app-login.js";
import { createGaveUp, createJobProcessor, type JobDeps } from "./host/github/jobs.js";
import { prepareInstallationOctokit } from "./host/github/installation.js";
import type { Octokit } from "./host/github/octokit.js";
import { createReviewClaims, type ReviewClaims } from "./host/github/review-claims.js";
import { createStatusCommentIds } from "./host/github/status-comment.js";
import { openQueue } from "./queue/open.js";
import type { JobData, JobQueue } from "./queue/types.js";

/**
 * What a process does: `all` handles webhooks and runs jobs (the default), `web` only the former, `worker` only the
 * latter.
 */
export type Role = "all" | "web" | "worker";

/** Options of {@link createApp}; every one has a production default. */
export interface AppOptions {
  /**
   * The job queue (tests pass their own to await `queue.idle()`); default: `queue/open.ts` from the environment
   * (Redis when GROUNDFIX_REDIS_URL is set, else in process), GROUNDFIX_CONCURRENCY jobs at once.
   */
  queue?: JobQueue;
  /** Where GROUNDFIX_* and model keys are read (default `process.env`, read when the app is loaded). */
  env?: NodeJS.ProcessEnv;
  /** Default `all`. A `web` process never runs a job; a `worker` registers no webhook handler. */
  role?: Role;
}

/** The run triggers: acknowledged as `event` jobs, looked at in the worker (`app/event-job.ts`). */
const RUN_EVENTS = [
  "issues.labeled",
  "issue_comment.created",
  "code_scanning_alert.created",
  "code_scanning_alert.appeared_in_branch",
  "code_scanning_alert.reopened",
  "repository_dispatch",
] as const;

/** The review triggers (each parsed by `reviewEventOf`, decided in the job with the repository's config). */
const REVIEW_EVENTS = [
  "pull_request.opened",
  "pull_request.reopened",
  "pull_request.synchronize",
  "pull_request.edited",
  "check_run.rerequested",
  "check_suite.requested",
  "check_suite.rerequested",
] as const;

type Log = { warn(obj: object, msg?: string): void };

/** The pure checks a run trigger passes before it is queued (no config, no API call). */
function runJobOf(context: WebhookContext, log: Log): JobData | null {
  const c = { ...context, log };
  const p = context.payload as any;
  if (context.name === "issues") {
    if (malformedPayload(c, ["issue", "sender"]) || labeledIssuePrecheck(p)) return null;
  } else if (context.name === "issue_comment") {
    if (malformedPayload(c, ["issue", "sender", "comment"]) || !requestFromCommand(p)) return null;
  } else if (malformedPayload(c, context.name === "repository_dispatch" ? ["sender"] : [])) {
    return null;
  }
  return eventJob(context);
}

/** Review claims kept in the queue's Redis (`claimDelivery`, `releaseDelivery`), shared by every process. */
function sharedReviewClaims(queue: JobQueue): ReviewClaims {
  const keyOf = (o: string, r: string, key: string) => `review-${o}/${r}`.toLowerCase() + `@${key}`;
  const claim: ReviewClaims = (o, r, key) => queue.claimDelivery(keyOf(o, r, key));
  claim.release = (o, r, key) => queue.releaseDelivery(keyOf(o, r, key));
  return claim;
}

/** A review trigger's `review` job, keyed by pull request, head and base. */
function reviewJobOf(context: WebhookContext): JobData | null {
  const event = reviewEventOf(context.name, context.payload);
  if (!event) return null;
  const installationId = (context.payload as { installation?: { id?: number } }).installation?.id ?? 0;
  // The base is part of the key: a base change arriving while the push's review runs is another review, not the same.
  const pr = event.pulls[0]!;
  const key = `${event.owner}/${event.repo}#review-${pr.number}@${event.headSha}~${pr.baseSha}`;
  return { kind: "review", key, installationId, deliveryId: context.id, payload: { event } };
}

/**
 * The groundfix Probot app, acknowledge first: a webhook handler claims the delivery, runs the pure payload checks
 * and enqueues a JSON job (`app/acknowledge.ts`), making no GitHub call, so its answer never waits on Octokit's
 * write limiter; when the queue is unreachable it answers 503. The worker side runs the jobs: `event` jobs read the
 * config, check the sender's permission, react and enqueue the `run` (`app/event-job.ts`, `host/github/accept.ts`);
 * `run` and `review` jobs go to `host/github/jobs.ts`, which rebuilds an installation Octokit
 * (`app.auth(installationId)`) and one GitHub host per job. With Redis, any process sharing it may run any job.
 */
export function createApp(options: AppOptions = {}): ApplicationFunction {
  return async (app: Probot) => {
    const env = options.env ?? process.env;
    const operator = loadOperatorEnv(env);
    const role = options.role ?? "all";
    const queue =
      options.queue ??
      (await openQueue({ redisUrl: env.GROUNDFIX_REDIS_URL, concurrency: operator.concurrency, log: app.log }));
    if (role !== "web") {
      // The token first, and the job's signal on every request (`host/github/installation.ts`).
      const auth = async (installationId: number, signal?: AbortSignal) =>
        prepareInstallationOctokit((await app.auth(installationId)) as unknown as Octokit, installationId, signal);
      // One reply per issue to a refused command, across every process sharing the queue (30 days).
      const replyOnce = createReplyOnce((key) => queue.claimOnce(`reply-${key}`, 30 * 24 * 3600));
      const accept = createAccept({ queue, replyOnce });
      const onEvent = createEventJob({ auth, accept, log: app.log });
      // Review claims live in Redis with the queue, so a PR's own webhooks reaching another process skip its review.
      const sharedClaims = (queue as { backend?: string }).backend === "redis";
      const jobDeps: JobDeps = {
        auth,
        log: app.log,
        operator,
        env,
        botLogin: createBotLogin(app),
        claimReview: sharedClaims ? sharedReviewClaims(queue) : createReviewClaims(),
        commentIds: createStatusCommentIds(),
      };
      const jobs = createJobProcessor(jobDeps);
      const gaveUp = createGaveUp(jobDeps);
      queue.process((job, attempt) => (job.kind === "event" ? onEvent(job, attempt) : jobs(job, attempt)), gaveUp);
    }
    if (role === "worker") return;
    app.on([...RUN_EVENTS], async (context) => {
      const result = await acknowledge(queue, context, (c) => runJobOf(c, context.log));
      context.log.info({ id: context.id, result }, "groundfix: acknowledged");
    });
    app.on([...REVIEW_EVENTS], async (context) => void (await acknowledge(queue, context, reviewJobOf)));
  };
}

/**
 * The default app: `probot run ./dist/index.js` loads this (queue and operator env from `process.env`). It first
 * checks GROUNDFIX_MODEL, GROUNDFIX_ALLOWED_MODELS and their providers' variables: on a problem it writes one line
 * to stderr and exits 1; otherwise it logs the model it uses.
 */
const groundfix: ApplicationFunction = (app, options) => {
  const start = checkOperatorStart(process.env);
  if (!start.ok) {
    process.stderr.write(`${start.line}\n`);
    process.exit(1);
  }
  app.log.info({ model: start.operator.model }, `groundfix: model ${start.operator.model}`);
  return createApp()(app, options);
};
export default groundfix;
