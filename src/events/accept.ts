import type { OperatorEnv } from "../config/env.js";
import type { Delay } from "../host/github/retry.js";
import type { ReviewClaims } from "../host/github/review-claims.js";
import type { StatusCommentIds } from "../host/github/status-comment.js";
import { commentOptions, reportConfigError, reportLookupFailure, runTask, type RunLogger } from "../host/github/run-task.js";
import type { Octokit } from "../host/github/octokit.js";
import type { TaskQueue } from "../queue/index.js";
import type { ConfigLookup } from "./config-lookup.js";
import { mayTrigger } from "./permission.js";
import type { createReplyOnce } from "./reply-once.js";
import type { Decision } from "./types.js";

/** What {@link createAccept} shares across deliveries. */
export interface AcceptDeps {
  queue: TaskQueue;
  operator: OperatorEnv;
  env: NodeJS.ProcessEnv;
  /** The app's bot login (memoised `GET /app`). */
  botLogin: () => Promise<string | undefined>;
  replyOnce: ReturnType<typeof createReplyOnce>;
  /** The process's review claims, handed to {@link runTask}. */
  claimReview: ReviewClaims;
  /** The process's status-comment ids (one comment per issue, edited without listing again). */
  commentIds: StatusCommentIds;
  delay?: Delay;
}

/** The webhook as {@link createAccept}'s function reads it (a Probot context fits). */
export interface AcceptContext {
  id: string;
  name: string;
  payload: unknown;
  octokit: Octokit;
  log: RunLogger;
}

/** Optional acknowledgements of a trigger: the `eyes` reaction, and the reply a refused command gets. */
export interface AcceptHooks {
  react?: () => Promise<unknown>;
  reply?: (text: string) => Promise<unknown>;
}

/**
 * The step every run trigger shares after its pure decision (issue #5, "Who may trigger" and "Acknowledge fast"):
 * 1. a `skip` decision is logged and ends here;
 * 2. except for code-scanning alerts (no human sender), the sender must reach `trigger_permission` ({@link mayTrigger});
 *    a payload without a sender is dropped; a permission lookup that fails (5xx/429) enqueues one neutral status
 *    comment and nothing else; a refused sender is logged, and a refused human's command (`hooks.reply`) gets one
 *    reply per issue per process (bots never);
 * 3. the `eyes` reaction (`hooks.react`; a failure is logged) and the queued job: the status comment for an unreadable
 *    or invalid config, else {@link runTask}. Returns without awaiting the run.
 */
export function createAccept(deps: AcceptDeps): (context: AcceptContext, decision: Decision, found: ConfigLookup, hooks?: AcceptHooks) => Promise<void> {
  const { queue } = deps;
  const run = { botLogin: deps.botLogin, commentIds: deps.commentIds, ...(deps.delay ? { delay: deps.delay } : {}) };
  return async (context, decision, found, hooks = {}) => {
    const { octokit, log } = context;
    if ("skip" in decision) return void log.info({ id: context.id, reason: decision.skip }, "groundfix: not a trigger");
    const request = decision.run;
    const { config, error, unreadable } = found;
    const payload = context.payload as { sender?: { login?: string; type?: string }; repository?: { default_branch?: string } };
    if (context.name !== "code_scanning_alert") {
      const sender = payload.sender;
      if (!sender?.login) return void log.warn({ id: context.id, key: request.task.key }, "groundfix: payload without a sender; dropped");
      let verdict: Awaited<ReturnType<typeof mayTrigger>>;
      try {
        verdict = await mayTrigger(octokit, request.task.repo, { login: sender.login, type: sender.type ?? "User" }, config);
      } catch (failure) {
        // Unknown whether the sender may trigger: a neutral comment, no reaction, no run.
        queue.enqueue({ key: request.task.key, run: async () => reportLookupFailure(octokit, log, request, "permission", failure, await commentOptions(run)) });
        return;
      }
      if (!verdict.allowed) {
        log.info({ id: context.id, key: request.task.key, reason: verdict.reason }, "groundfix: trigger refused");
        if (hooks.reply && sender.type !== "Bot") await deps.replyOnce(request.task.key, hooks.reply, `groundfix: ${verdict.reason}, so this command was ignored.`, log);
        return;
      }
    }
    if (hooks.react) await hooks.react().catch((e: unknown) => log.warn({ err: e }, "could not add the eyes reaction"));
    const baseBranch = payload.repository?.default_branch;
    const result = queue.enqueue({
      key: request.task.key,
      rerun: request.mode !== "run",
      run: async () => {
        if (unreadable) await reportLookupFailure(octokit, log, request, "config", unreadable, await commentOptions(run));
        else if (error) await reportConfigError(octokit, log, request, error, await commentOptions(run));
        else await runTask({ octokit, log, request, config, operator: deps.operator, env: deps.env, claimReview: deps.claimReview, ...run, ...(baseBranch ? { baseBranch } : {}) });
      },
    });
    log.info({ id: context.id, key: request.task.key, queue: result }, "groundfix: enqueued");
  };
}
