import type { ConfigLookup } from "../../events/config-lookup.js";
import { mayTrigger } from "../../events/permission.js";
import type { createReplyOnce } from "../../events/reply-once.js";
import type { Decision } from "../../events/types.js";
import type { JobQueue } from "../../queue/types.js";
import type { HostLogger } from "./host.js";
import type { RunJobPayload } from "./jobs.js";
import { asTokenError, isTokenFailure } from "./installation.js";
import { describeFailure, type Octokit } from "./octokit.js";

/** What {@link createAccept} shares across deliveries. */
export interface AcceptDeps {
  queue: JobQueue;
  replyOnce: ReturnType<typeof createReplyOnce>;
}

/** The webhook as {@link createAccept}'s function reads it (a Probot context fits). */
export interface AcceptContext {
  id: string;
  name: string;
  payload: unknown;
  octokit: Octokit;
  log: HostLogger;
}

/** Optional acknowledgements of a trigger: the `eyes` reaction, and the reply a refused command gets. */
export interface AcceptHooks {
  react?: () => Promise<unknown>;
  reply?: (text: string) => Promise<unknown>;
}

/**
 * The step every run trigger shares after its pure decision (who may trigger, acknowledge fast):
 * 1. a `skip` decision is logged and ends here;
 * 2. except for code-scanning alerts (no human sender), the sender must reach `trigger_permission` ({@link
 * mayTrigger});
 *    a payload without a sender is dropped; a permission lookup that fails (5xx/429) enqueues one neutral status
 *    comment and nothing else, unless it was the installation token that failed (then it throws
 *    `InstallationTokenError`: nothing can be posted, the queue retries the job); a refused sender is logged,
 *    and a refused human's command (`hooks.reply`) gets one reply per issue per process (bots never);
 * 3. the `eyes` reaction (`hooks.react`; a failure is logged) and the queued `run` job (JSON, {@link RunJobPayload}):
 *    the status comment for an unreadable or invalid config, else the pipeline. Returns without awaiting the run.
 * An archived repository (`repository.archived`) is logged and left before step 2: GitHub refuses every write to it
 * (403 "Repository was archived so is read-only."), so there is no reaction, no reply, no comment and no run.
 */
export function createAccept(
  deps: AcceptDeps,
): (context: AcceptContext, decision: Decision, found: ConfigLookup, hooks?: AcceptHooks) => Promise<void> {
  const { queue } = deps;
  return async (context, decision, found, hooks = {}) => {
    const { octokit, log } = context;
    if ("skip" in decision) return void log.info({ id: context.id, reason: decision.skip }, "groundfix: not a trigger");
    const request = decision.run;
    const { config, error, unreadable } = found;
    const payload = context.payload as {
      sender?: { login?: string; type?: string };
      repository?: { default_branch?: string; archived?: boolean };
      installation?: { id?: number };
    };
    const job = (data: RunJobPayload, rerun = false) =>
      queue.enqueue({
        kind: "run",
        key: request.task.key,
        installationId: payload.installation?.id ?? 0,
        deliveryId: context.id,
        ...(rerun ? { rerun } : {}),
        payload: data,
      });
    if (payload.repository?.archived) {
      // Read-only: GitHub refuses every write to it, comments and reactions included. Logged; nothing is posted.
      return void log.warn({ id: context.id, key: request.task.key }, "groundfix: repository is archived; not run");
    }
    if (context.name !== "code_scanning_alert") {
      const sender = payload.sender;
      if (!sender?.login)
        return void log.warn({ id: context.id, key: request.task.key }, "groundfix: payload without a sender; dropped");
      let verdict: Awaited<ReturnType<typeof mayTrigger>>;
      try {
        verdict = await mayTrigger(
          octokit,
          request.task.repo,
          { login: sender.login, type: sender.type ?? "User" },
          config,
        );
      } catch (failure) {
        // No token: nothing can be posted either; the job fails and the queue retries it.
        if (isTokenFailure(failure)) throw asTokenError(failure, payload.installation?.id ?? 0);
        // Unknown whether the sender may trigger: a neutral comment, no reaction, no run.
        log.warn({ key: request.task.key, err: failure }, "groundfix: could not read the sender's permission");
        await job({ type: "lookup_failure", request, lookup: "permission", message: describeFailure(failure) });
        return;
      }
      if (!verdict.allowed) {
        log.info({ id: context.id, key: request.task.key, reason: verdict.reason }, "groundfix: trigger refused");
        if (hooks.reply && sender.type !== "Bot")
          await deps.replyOnce(
            request.task.key,
            hooks.reply,
            `groundfix: ${verdict.reason}, so this command was ignored.`,
            log,
          );
        return;
      }
    }
    if (hooks.react) await hooks.react().catch((e: unknown) => log.warn({ err: e }, "could not add the eyes reaction"));
    const baseBranch = payload.repository?.default_branch;
    const data: RunJobPayload = unreadable
      ? { type: "lookup_failure", request, lookup: "config", message: describeFailure(unreadable) }
      : error
        ? { type: "config_error", request, issues: error.issues }
        : { type: "run", request, config, ...(baseBranch ? { baseBranch } : {}) };
    const result = await job(data, request.mode !== "run");
    log.info({ id: context.id, key: request.task.key, queue: result }, "groundfix: enqueued");
  };
}
