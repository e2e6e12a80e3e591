import type { ApplicationFunction, Probot } from "probot";
import { checkOperatorStart, loadOperatorEnv } from "./config/env.js";
import { requestFromCodeScanningAlert } from "./events/code-scanning.js";
import { requestFromCommand } from "./events/command.js";
import { lookupConfig } from "./events/config-lookup.js";
import { requestFromDispatch } from "./events/dispatch.js";
import { labeledIssuePrecheck, requestFromLabeledIssue } from "./events/issue.js";
import { malformedPayload } from "./events/payload.js";
import { createReplyOnce } from "./events/reply-once.js";
import { reviewEventOf } from "./events/review-trigger.js";
import { createAccept } from "./host/github/accept.js";
import { createBotLogin } from "./host/github/app-login.js";
import { createJobProcessor } from "./host/github/jobs.js";
import type { Octokit } from "./host/github/octokit.js";
import { createReviewClaims } from "./host/github/review-claims.js";
import { createStatusCommentIds } from "./host/github/status-comment.js";
import { createQueue } from "./queue/index.js";
import type { JobQueue } from "./queue/types.js";

/** Options of {@link createApp}; every one has a production default. */
export interface AppOptions {
  /** The job queue (tests pass their own to await `queue.idle()`); default: in process, GROUNDFIX_CONCURRENCY. */
  queue?: JobQueue;
  /** Where GROUNDFIX_* and model keys are read (default `process.env`, read when the app is loaded). */
  env?: NodeJS.ProcessEnv;
}

/** The review triggers (each parsed by `reviewEventOf`, decided in the job with the repository's config). */
const REVIEW_EVENTS = ["pull_request.opened", "pull_request.reopened", "pull_request.synchronize", "check_run.rerequested", "check_suite.requested", "check_suite.rerequested"] as const;

/**
 * The groundfix Probot app: each handler maps one event to a queued job in a few lines — claim the delivery id
 * (a redelivery is dropped before any call), drop a malformed payload, read the config without throwing
 * (`events/config-lookup.ts`), decide (pure functions of `events/`), then `host/github/accept.ts` (sender
 * permission, `eyes` reaction, a queued `run` job) or, for review events, a queued `review` job. Jobs are JSON
 * (`queue/types.ts`); this process runs them with `host/github/jobs.ts`, which rebuilds an installation Octokit
 * (`app.auth(installationId)`) and one GitHub host per job. No handler awaits a run (GitHub waits 10 s for the answer)
 * and none throws for a failed GitHub lookup.
 */
export function createApp(options: AppOptions = {}): ApplicationFunction {
  return (app: Probot) => {
    const env = options.env ?? process.env;
    const operator = loadOperatorEnv(env);
    const queue = options.queue ?? createQueue({ concurrency: operator.concurrency, log: app.log });
    const accept = createAccept({ queue, replyOnce: createReplyOnce() });
    queue.process(
      createJobProcessor({
        auth: async (installationId) => (await app.auth(installationId)) as unknown as Octokit,
        log: app.log,
        operator,
        env,
        botLogin: createBotLogin(app),
        claimReview: createReviewClaims(),
        commentIds: createStatusCommentIds(),
      }),
    );
    const claim = (id: string) => queue.claimDelivery(id);

    app.on("issues.labeled", async (context) => {
      if (!(await claim(context.id)) || malformedPayload(context, ["issue", "sender"]) || labeledIssuePrecheck(context.payload)) return;
      const found = await lookupConfig(context);
      const react = () => context.octokit.rest.reactions.createForIssue(context.issue({ content: "eyes" as const }));
      await accept(context, requestFromLabeledIssue(context.payload, found.config), found, { react });
    });

    app.on("issue_comment.created", async (context) => {
      if (!(await claim(context.id)) || malformedPayload(context, ["issue", "sender", "comment"])) return;
      const command = requestFromCommand(context.payload);
      if (!command) return;
      const found = await lookupConfig(context);
      const react = () => context.octokit.rest.reactions.createForIssueComment(context.repo({ comment_id: context.payload.comment.id, content: "eyes" as const }));
      const reply = (text: string) => context.octokit.rest.issues.createComment(context.issue({ body: text }));
      await accept(context, { run: command.request }, found, { react, reply });
    });

    app.on(["code_scanning_alert.created", "code_scanning_alert.appeared_in_branch", "code_scanning_alert.reopened"], async (context) => {
      if (!(await claim(context.id)) || malformedPayload(context, [])) return;
      const found = await lookupConfig(context);
      if (found.error) return void context.log.warn({ issues: found.error.issues }, "groundfix: invalid .github/groundfix.yml; code-scanning alert ignored");
      if (found.unreadable) return void context.log.warn({ id: context.id }, "groundfix: .github/groundfix.yml unreadable; code-scanning alert ignored (opt-in unknown)");
      await accept(context, requestFromCodeScanningAlert(context.payload, found.config), found);
    });

    app.on("repository_dispatch", async (context) => {
      if (!(await claim(context.id)) || malformedPayload(context, ["sender"])) return;
      const found = await lookupConfig(context);
      await accept(context, requestFromDispatch(context.payload, found.config), found);
    });

    app.on([...REVIEW_EVENTS], async (context) => {
      if (!(await claim(context.id))) return;
      const event = reviewEventOf(context.name, context.payload);
      if (!event) return;
      const installationId = (context.payload as { installation?: { id?: number } }).installation?.id ?? 0;
      const key = `${event.owner}/${event.repo}#review-${event.pulls[0]!.number}@${event.headSha}`;
      await queue.enqueue({ kind: "review", key, installationId, deliveryId: context.id, payload: { event } });
    });
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
