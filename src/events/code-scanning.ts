import type { GroundfixConfig } from "../config/schema.js";
import { repoOf, type Decision, type WebhookPayload } from "./types.js";

/** The `code_scanning_alert` actions that start a run (GitHub docs: webhook events, code_scanning_alert). */
export const CODE_SCANNING_ACTIONS = ["created", "appeared_in_branch", "reopened"] as const;

interface Instance {
  ref?: string | null;
  message?: { text?: string | null } | null;
  location?: { path?: string | null; start_line?: number | null; end_line?: number | null } | null;
}

type AlertPayload = WebhookPayload<"code_scanning_alert">;

/**
 * `code_scanning_alert` → a run when the repository opted in (`alerts.code_scanning: true`), the action is one of
 * {@link CODE_SCANNING_ACTIONS} and the alert is on the default branch (the run pins the default branch head; an
 * alert on a feature branch may point at code that is not there).
 *
 * The location and message come from `alert.most_recent_instance` (current payloads) or, for older payloads, the
 * first of `alert.instances[]` that has them. An absolute path (container scans) is not a repository path and is
 * kept only as text. Task: source `code_scanning`, key `owner/repo#alert-N`, no status issue (log only).
 */
export function requestFromCodeScanningAlert(payload: AlertPayload, config: GroundfixConfig): Decision {
  if (!config.alerts.code_scanning) return { skip: "alerts.code_scanning is off in .github/groundfix.yml" };
  if (!(CODE_SCANNING_ACTIONS as readonly string[]).includes(payload.action))
    return { skip: `action ${payload.action} does not start a run` };
  const alert = payload.alert as unknown as {
    number: number;
    rule?: { id?: string | null; severity?: string | null; description?: string | null } | null;
    tool?: { name?: string | null } | null;
    most_recent_instance?: Instance | null;
    instances?: Instance[] | null;
  };
  const instances = [alert.most_recent_instance, ...(alert.instances ?? [])].filter((i): i is Instance => !!i);
  const ref = (payload as { ref?: string | null }).ref ?? instances[0]?.ref ?? null;
  const defaultRef = `refs/heads/${payload.repository.default_branch}`;
  if (ref && ref !== defaultRef) return { skip: `alert is on ${ref}, not on the default branch ${defaultRef}` };

  const located = instances.find((i) => i.location?.path);
  const message = instances.map((i) => i.message?.text?.trim()).find((t) => !!t) ?? "";
  const loc = located?.location;
  // A repository path, relative, without `..` and without controls (a line break would write lines of its own into
  // the model's first message).
  const repoPath =
    loc?.path &&
    !loc.path.startsWith("/") &&
    !loc.path.split("/").includes("..") &&
    !/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(loc.path)
      ? loc.path
      : null;

  const repo = repoOf(payload);
  const rule = alert.rule ?? {};
  const lines = [
    `Code scanning alert #${alert.number}${alert.tool?.name ? ` from ${alert.tool.name}` : ""}`,
    `Rule: ${rule.id ?? "unknown"}${rule.severity ? ` (severity ${rule.severity})` : ""}`,
    rule.description ? `Rule description: ${rule.description}` : "",
    message ? `Message: ${message}` : "",
    loc?.path
      ? `Location: ${loc.path}:${loc.start_line ?? 1}` +
        `${loc.end_line && loc.end_line !== loc.start_line ? `-${loc.end_line}` : ""}`
      : "",
  ].filter(Boolean);
  return {
    run: {
      task: {
        source: "code_scanning",
        key: `${repo.owner}/${repo.name}#alert-${alert.number}`,
        title: `${rule.id ?? "Code scanning alert"}: ${rule.description ?? message ?? ""}`.trim(),
        body: lines.join("\n"),
        repo,
        number: alert.number,
        ...(repoPath && loc
          ? {
              location: {
                path: repoPath,
                startLine: loc.start_line ?? 1,
                ...(loc.end_line ? { endLine: loc.end_line } : {}),
                ...(message ? { message } : {}),
              },
            }
          : {}),
      },
      mode: "run",
      statusIssue: null,
      branchSuffix: `alert-${alert.number}`,
    },
  };
}
