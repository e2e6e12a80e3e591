import { repoOf, type RunRequest, type WebhookPayload } from "./types.js";

/** The commands groundfix answers in an issue comment. */
export type Command = "retry" | "approve";

/**
 * The command in a comment body: a line that is exactly `/groundfix retry` or `/groundfix approve` (surrounding
 * spaces allowed, case-insensitive). Lines inside a `>` quote do not count. Null when there is none.
 */
export function parseCommand(body: string | null | undefined): Command | null {
  for (const line of (body ?? "").split(/\r?\n/)) {
    const match = /^\s*\/groundfix\s+(retry|approve)\s*$/i.exec(line);
    if (match) return match[1]!.toLowerCase() as Command;
  }
  return null;
}

/**
 * `issue_comment.created` → the command and the run it asks for, or null when the comment is no command, is on a
 * pull request, or the issue is closed or locked. The permission check is the caller's (commands get a reply).
 */
export function requestFromCommand(
  payload: WebhookPayload<"issue_comment.created">,
): { command: Command; request: RunRequest } | null {
  const command = parseCommand(payload.comment.body);
  if (!command) return null;
  const issue = payload.issue;
  if (issue.pull_request || issue.state !== "open" || issue.locked) return null;
  const repo = repoOf(payload);
  return {
    command,
    request: {
      task: { source: "issue", key: `${repo.owner}/${repo.name}#issue-${issue.number}`, title: issue.title, body: issue.body ?? "", repo, number: issue.number },
      mode: command,
      statusIssue: issue.number,
      branchSuffix: `issue-${issue.number}`,
    },
  };
}
