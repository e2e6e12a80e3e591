import type { EmitterWebhookEvent, EmitterWebhookEventName } from "@octokit/webhooks/types";
import type { Task } from "../types.js";

/** A task before its base is pinned: the job resolves `baseSha` once, at its start. */
export type TaskDraft = Omit<Task, "baseSha">;

/**
 * What a trigger asks the queued job to do.
 * - `run`: a first run (label, alert, dispatch).
 * - `retry`: `/groundfix retry`, a new base; the job may force-update the existing branch.
 * - `approve`: `/groundfix approve`, a rerun in which the pull-request confidence threshold is lowered to the
 *   comment threshold; every gate and the verbatim rule still apply (nothing unverified gets through).
 */
export interface RunRequest {
  task: TaskDraft;
  mode: "run" | "retry" | "approve";
  /** Issue that receives the status comment; null: log only (code-scanning alerts, dispatch without issue_number). */
  statusIssue: number | null;
  /** The branch name after the config's prefix: `issue-12`, `alert-3` or `dispatch-<8 hex>`. */
  branchSuffix: string;
}

/** A trigger's decision: run this, or skip it for a reason that is logged (never posted). */
export type Decision = { run: RunRequest } | { skip: string };

/** The payload type of a webhook event name, e.g. `WebhookPayload<"issues.labeled">`. */
export type WebhookPayload<N extends EmitterWebhookEventName> = EmitterWebhookEvent<N>["payload"];

/** `owner/repo` of a payload's repository. */
export function repoOf(payload: { repository: { name: string; owner: { login: string } } }): {
  owner: string;
  name: string;
} {
  return { owner: payload.repository.owner.login, name: payload.repository.name };
}
