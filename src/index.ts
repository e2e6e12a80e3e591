import type { ApplicationFunction, Probot } from "probot";
import { loadOperatorEnv } from "./config/env.js";
import { createAccept } from "./events/accept.js";
import { requestFromCodeScanningAlert } from "./events/code-scanning.js";
import { requestFromCommand } from "./events/command.js";
import { lookupConfig } from "./events/config-lookup.js";
import { requestFromDispatch } from "./events/dispatch.js";
import { labeledIssuePrecheck, requestFromLabeledIssue } from "./events/issue.js";
import { malformedPayload } from "./events/payload.js";
import { createReplyOnce } from "./events/reply-once.js";
import { reviewRequestFromEvent } from "./events/review-trigger.js";
import { createBotLogin } from "./host/github/app-login.js";
import { createReviewClaims } from "./host/github/review-claims.js";
import { reviewOnEvent } from "./host/github/review-handler.js";
import { createStatusCommentIds } from "./host/github/status-comment.js";
import type { Delay } from "./host/github/retry.js";
import { createQueue, type TaskQueue } from "./queue/index.js";

/** Options of {@link createApp}; every one has a production default. */
export interface AppOptions {
  /** The run queue (tests pass their own to await `queue.idle()`); default: concurrency GROUNDFIX_CONCURRENCY. */
  queue?: TaskQueue;
  /** Where GROUNDFIX_* and model keys are read (default `process.env`, read when the app is loaded). */
  env?: NodeJS.ProcessEnv;
  /** The wait before the one retry of a status-comment or check-run write on 5xx/429 (tests pass an instant one). */
  delay?: Delay;
}

/** The review triggers of issue 6 (each filtered further by {@link reviewRequestFromEvent}). */
const REVIEW_EVENTS = ["pull_request.opened", "pull_request.reopened", "pull_request.synchronize", "check_run.rerequested", "check_suite.requested", "check_suite.rerequested"] as const;

/**
 * The groundfix Probot app: each handler maps one event to the pipeline in a few lines — claim the delivery id
 * (a redelivery is dropped before any call), drop a malformed payload, read the config without throwing
 * (`events/config-lookup.ts`), decide (pure functions of `events/`), then `events/accept.ts` (sender permission,
 * `eyes` reaction, queued `runTask`) or, for review events, the queued `reviewOnEvent` (`host/github/review-handler.ts`).
 * No handler awaits a run (GitHub waits 10 s for the answer) and none throws for a failed GitHub lookup.
 */
export function createApp(options: AppOptions = {}): ApplicationFunction {
  return (app: Probot) => {
    const env = options.env ?? process.env;
    const operator = loadOperatorEnv(env);
    const queue = options.queue ?? createQueue({ concurrency: operator.concurrency, log: app.log });
    const delay = options.delay ? { delay: options.delay } : {};
    const claimReview = createReviewClaims();
    const accept = createAccept({ queue, operator, env, botLogin: createBotLogin(app), replyOnce: createReplyOnce(), claimReview, commentIds: createStatusCommentIds(), ...delay });

    app.on("issues.labeled", async (context) => {
      if (!queue.claim(context.id) || malformedPayload(context, ["issue", "sender"]) || labeledIssuePrecheck(context.payload)) return;
      const found = await lookupConfig(context);
      const react = () => context.octokit.rest.reactions.createForIssue(context.issue({ content: "eyes" as const }));
      await accept(context, requestFromLabeledIssue(context.payload, found.config), found, { react });
    });

    app.on("issue_comment.created", async (context) => {
      if (!queue.claim(context.id) || malformedPayload(context, ["issue", "sender", "comment"])) return;
      const command = requestFromCommand(context.payload);
      if (!command) return;
      const found = await lookupConfig(context);
      const react = () => context.octokit.rest.reactions.createForIssueComment(context.repo({ comment_id: context.payload.comment.id, content: "eyes" as const }));
      const reply = (text: string) => context.octokit.rest.issues.createComment(context.issue({ body: text }));
      await accept(context, { run: command.request }, found, { react, reply });
    });

    app.on(["code_scanning_alert.created", "code_scanning_alert.appeared_in_branch", "code_scanning_alert.reopened"], async (context) => {
      if (!queue.claim(context.id) || malformedPayload(context, [])) return;
      const found = await lookupConfig(context);
      if (found.error) return void context.log.warn({ issues: found.error.issues }, "groundfix: invalid .github/groundfix.yml; code-scanning alert ignored");
      if (found.unreadable) return void context.log.warn({ id: context.id }, "groundfix: .github/groundfix.yml unreadable; code-scanning alert ignored (opt-in unknown)");
      await accept(context, requestFromCodeScanningAlert(context.payload, found.config), found);
    });

    app.on("repository_dispatch", async (context) => {
      if (!queue.claim(context.id) || malformedPayload(context, ["sender"])) return;
      const found = await lookupConfig(context);
      await accept(context, requestFromDispatch(context.payload, found.config), found);
    });

    app.on([...REVIEW_EVENTS], async (context) => {
      const review = queue.claim(context.id) ? reviewRequestFromEvent(context.name, context.payload, "") : null;
      if (!review) return;
      const { octokit, log, name, payload } = context;
      queue.enqueue({
        key: `${review.owner}/${review.repo}#review-${review.prNumber}@${review.headSha}`,
        run: async () => void (await reviewOnEvent({ octokit, log, name, payload, config: () => lookupConfig(context), claimReview, ...delay })),
      });
    });
  };
}

/** The default app: `probot run ./dist/index.js` loads this (queue and operator env from `process.env`). */
const groundfix: ApplicationFunction = (app, options) => createApp()(app, options);
export default groundfix;
