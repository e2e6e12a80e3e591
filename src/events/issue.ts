import type { GroundfixConfig } from "../config/schema.js";
import { repoOf, type Decision, type WebhookPayload } from "./types.js";

type LabeledPayload = WebhookPayload<"issues.labeled">;

/**
 * Checks that need no config and no API call: a pull request arrives as an issue with `issue.pull_request` set
 * (its labels are `pull_request.labeled` events), and closed or locked issues are left alone.
 * @returns the reason to skip, or null
 */
export function labeledIssuePrecheck(payload: LabeledPayload): string | null {
  if (payload.issue.pull_request) return "labeled item is a pull request";
  if (payload.issue.state !== "open") return "issue is closed";
  if (payload.issue.locked) return "issue is locked";
  return null;
}

/**
 * Whether two label names are the same label. GitHub treats label names case-insensitively (a repository cannot
 * hold both `bug` and `Bug`; `GET /repos/{owner}/{repo}/labels/{name}` finds either spelling), so the comparison
 * ignores case.
 */
export function sameLabel(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * `issues.labeled` → a run when the label is the config's `trigger_label` or one of `alsoLabels` (compared as
 * GitHub does, {@link sameLabel}) and the precheck passes. `alsoLabels`: with an invalid config, every label the
 * broken file could have meant as the trigger (`RepoConfigError.labels` of config/load.ts), so the error is reported.
 * Task: source `issue`, key `owner/repo#issue-N`, title and body of the issue (untrusted data).
 */
export function requestFromLabeledIssue(
  payload: LabeledPayload,
  config: GroundfixConfig,
  alsoLabels: readonly string[] = [],
): Decision {
  const pre = labeledIssuePrecheck(payload);
  if (pre) return { skip: pre };
  const name = payload.label?.name ?? "";
  if (![config.trigger_label, ...alsoLabels].some((label) => sameLabel(name, label))) {
    return { skip: `label "${payload.label?.name ?? ""}" is not the trigger label "${config.trigger_label}"` };
  }
  const repo = repoOf(payload);
  const n = payload.issue.number;
  return {
    run: {
      task: {
        source: "issue",
        key: `${repo.owner}/${repo.name}#issue-${n}`,
        title: payload.issue.title,
        body: payload.issue.body ?? "",
        repo,
        number: n,
      },
      mode: "run",
      statusIssue: n,
      branchSuffix: `issue-${n}`,
    },
  };
}
