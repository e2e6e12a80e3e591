import { createHash } from "node:crypto";
import { z } from "zod";
import type { GroundfixConfig } from "../config/schema.js";
import { repoOf, type Decision, type WebhookPayload } from "./types.js";
import { zodIssueLines } from "../config/zod-issues.js";

/**
 * `client_payload` of a groundfix `repository_dispatch` (sent by a monitoring system with
 * `POST /repos/{o}/{r}/dispatches {event_type, client_payload}`). Extra keys are ignored.
 */
export const dispatchPayloadSchema = z.object({
  title: z.string().trim().min(1).max(256),
  message: z.string().trim().min(1).max(65_536),
  stacktrace: z.string().max(65_536).optional(),
  issue_number: z.number().int().positive().optional(),
});

/**
 * `repository_dispatch` → a run when `action` (the event type) is `alerts.dispatch_event_type` and
 * `client_payload` fits {@link dispatchPayloadSchema}; a bad payload is skipped with the reason (`key: problem`).
 *
 * With `issue_number` the task is that issue's (key `owner/repo#issue-N`, status comment there, branch
 * `issue-N`); without it the key and branch use the first 8 hex of SHA-256(title) (`dispatch-1a2b3c4d`) so a
 * repeated alert coalesces, and the run is logged only (no comment, no new issue).
 */
export function requestFromDispatch(payload: WebhookPayload<"repository_dispatch">, config: GroundfixConfig): Decision {
  if (payload.action !== config.alerts.dispatch_event_type) {
    return { skip: `event type "${payload.action}" is not "${config.alerts.dispatch_event_type}"` };
  }
  const parsed = dispatchPayloadSchema.safeParse(payload.client_payload ?? {});
  if (!parsed.success) {
    return {
      skip:
        `invalid dispatch payload: ` +
        `${zodIssueLines(parsed.error, { prefix: "client_payload.", root: "" }).join("; ")}`,
    };
  }
  const p = parsed.data;
  const repo = repoOf(payload);
  const body = [p.message, p.stacktrace ? `\nStack trace:\n${p.stacktrace}` : ""].join("");
  const id = p.issue_number
    ? `issue-${p.issue_number}`
    : `dispatch-${createHash("sha256").update(p.title).digest("hex").slice(0, 8)}`;
  return {
    run: {
      task: {
        source: "dispatch",
        key: `${repo.owner}/${repo.name}#${id}`,
        title: p.title,
        body,
        repo,
        ...(p.issue_number ? { number: p.issue_number } : {}),
      },
      mode: "run",
      statusIssue: p.issue_number ?? null,
      branchSuffix: id,
    },
  };
}
