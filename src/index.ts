import type { ApplicationFunction, Context, Probot } from "probot";
import { loadOperatorEnv } from "./config/env.js";
import { loadRepoConfig, RepoConfigError } from "./config/load.js";
import type { GroundfixConfig } from "./config/schema.js";
import { requestFromCodeScanningAlert } from "./events/code-scanning.js";
import { requestFromCommand } from "./events/command.js";
import { requestFromDispatch } from "./events/dispatch.js";
import { labeledIssuePrecheck, requestFromLabeledIssue } from "./events/issue.js";
import { mayTrigger } from "./events/permission.js";
import { reviewRequestFromEvent } from "./events/review-trigger.js";
import type { Decision, RunRequest } from "./events/types.js";
import { reviewPullRequest } from "./host/github/review-handler.js";
import { reportConfigError, runTask } from "./host/github/run-task.js";
import { createQueue, type TaskQueue } from "./queue/index.js";

/** Options of {@link createApp}; every one has a production default. */
export interface AppOptions {
  /** The run queue (tests pass their own to await `queue.idle()`); default: concurrency GROUNDFIX_CONCURRENCY. */
  queue?: TaskQueue;
  /** Where GROUNDFIX_* and model keys are read (default `process.env`, read when the app is loaded). */
  env?: NodeJS.ProcessEnv;
}

type AnyContext = Context<"issues.labeled" | "issue_comment.created" | "code_scanning_alert" | "repository_dispatch">;

/**
 * The groundfix Probot app. Each handler is thin: decide (pure functions of `events/`), check the sender, add an
 * `eyes` reaction, enqueue `runTask` and return without awaiting the run (GitHub waits 10 s for the answer).
 * A delivery id already seen (a manual redelivery carries the same `X-GitHub-Delivery`) is dropped before any call.
 */
export function createApp(options: AppOptions = {}): ApplicationFunction {
  return (app: Probot) => {
    const env = options.env ?? process.env;
    const operator = loadOperatorEnv(env);
    const queue = options.queue ?? createQueue({ concurrency: operator.concurrency, log: app.log });

    /** Config or, when it is invalid, the error (with the still-valid trigger keys to decide on). */
    async function configOf(context: AnyContext): Promise<{ config: GroundfixConfig; error?: RepoConfigError }> {
      try {
        return { config: await loadRepoConfig(context) };
      } catch (error) {
        if (error instanceof RepoConfigError) return { config: error.fallback, error };
        throw error;
      }
    }

    /** Permission check, reaction, enqueue. `reply` answers a refused command; triggers are refused silently. */
    async function accept(context: AnyContext, decision: Decision, error: RepoConfigError | undefined, config: GroundfixConfig, react?: () => Promise<unknown>, reply?: (text: string) => Promise<unknown>): Promise<void> {
      if ("skip" in decision) return void context.log.info({ id: context.id, reason: decision.skip }, "groundfix: not a trigger");
      const request: RunRequest = decision.run;
      const sender = context.payload.sender;
      if (context.name !== "code_scanning_alert") {
        const verdict = await mayTrigger(context.octokit, request.task.repo, { login: sender?.login ?? "", type: sender?.type ?? "User" }, config);
        if (!verdict.allowed) {
          context.log.info({ id: context.id, key: request.task.key, reason: verdict.reason }, "groundfix: trigger refused");
          if (reply) await reply(`groundfix: ${verdict.reason}, so this command was ignored.`);
          return;
        }
      }
      if (react) await react().catch((e: unknown) => context.log.warn({ err: e }, "could not add the eyes reaction"));
      const octokit = context.octokit;
      const log = context.log;
      const baseBranch = (context.payload.repository as { default_branch?: string }).default_branch;
      const result = queue.enqueue({
        key: request.task.key,
        deliveryId: context.id,
        rerun: request.mode !== "run",
        run: async () => {
          if (error) await reportConfigError(octokit, log, request, error);
          else await runTask({ octokit, log, request, config, operator, env, ...(baseBranch ? { baseBranch } : {}) });
        },
      });
      context.log.info({ id: context.id, key: request.task.key, queue: result }, "groundfix: enqueued");
    }

    app.on("issues.labeled", async (context) => {
      if (queue.seen(context.id) || labeledIssuePrecheck(context.payload)) return;
      const { config, error } = await configOf(context);
      const react = () => context.octokit.rest.reactions.createForIssue(context.issue({ content: "eyes" as const }));
      await accept(context, requestFromLabeledIssue(context.payload, config), error, config, react);
    });

    app.on("issue_comment.created", async (context) => {
      if (queue.seen(context.id)) return;
      const command = requestFromCommand(context.payload);
      if (!command) return;
      const { config, error } = await configOf(context);
      const react = () => context.octokit.rest.reactions.createForIssueComment(context.repo({ comment_id: context.payload.comment.id, content: "eyes" as const }));
      const reply = (text: string) => context.octokit.rest.issues.createComment(context.issue({ body: text }));
      await accept(context, { run: command.request }, error, config, react, reply);
    });

    app.on(["code_scanning_alert.created", "code_scanning_alert.appeared_in_branch", "code_scanning_alert.reopened"], async (context) => {
      if (queue.seen(context.id)) return;
      const { config, error } = await configOf(context);
      if (error) return void context.log.warn({ issues: error.issues }, "groundfix: invalid .github/groundfix.yml; code-scanning alert ignored");
      await accept(context, requestFromCodeScanningAlert(context.payload, config), undefined, config);
    });

    app.on("repository_dispatch", async (context) => {
      if (queue.seen(context.id)) return;
      const { config, error } = await configOf(context);
      await accept(context, requestFromDispatch(context.payload, config), error, config);
    });

    app.on(
      ["pull_request.opened", "pull_request.reopened", "pull_request.synchronize", "check_run.rerequested", "check_suite.requested", "check_suite.rerequested"],
      async (context) => {
        if (queue.seen(context.id) || !reviewRequestFromEvent(context.name, context.payload, "")) return;
        const config = await loadRepoConfig(context).catch((e: unknown) => (e instanceof RepoConfigError ? e.fallback : Promise.reject(e)));
        const review = reviewRequestFromEvent(context.name, context.payload, config.pull_request.branch_prefix);
        if (!review) return;
        const octokit = context.octokit;
        const log = context.log;
        queue.enqueue({
          key: `${review.owner}/${review.repo}#review-${review.prNumber}@${review.headSha}`,
          deliveryId: context.id,
          run: async () => {
            const done = await reviewPullRequest(octokit, review, config, prBodyOf(context.payload));
            log.info({ pr: review.prNumber, status: done.status }, "groundfix review job finished");
          },
        });
      },
    );
  };
}

/** The default app: `probot run ./dist/index.js` loads this (queue and operator env from `process.env`). */
const groundfix: ApplicationFunction = (app, options) => createApp()(app, options);
export default groundfix;

/** The PR body of a `pull_request` payload, or undefined for check_run/check_suite (the job then asks GitHub). */
function prBodyOf(payload: unknown): string | null | undefined {
  const pr = (payload as { pull_request?: { body?: string | null } }).pull_request;
  return pr ? (pr.body ?? null) : undefined;
}
