import { repoOf, type RunRequest, type WebhookPayload } from "./types.js";

/** The commands groundfix answers in an issue comment. */
export type Command = "retry" | "approve";

/**
 * The command in a comment body: a line that is exactly `/groundfix retry` or `/groundfix approve` (surrounding
 * spaces allowed, case-insensitive) in the comment's prose. Lines that are not prose do not count, as GitHub renders
 * them (CommonMark): inside a `>` quote, a fenced code block (``` or ~~~, closed by a fence of the same character at
 * least as long, or open to the end), an indented code block (4+ spaces, not continuing a paragraph; a leading tab
 * is tolerated as prose), or an HTML comment `<!-- … -->` (to its end, across lines). Null when there is none.
 */
export function parseCommand(body: string | null | undefined): Command | null {
  for (const line of proseLines(body ?? "")) {
    const match = /^\s*\/groundfix[ \t\u00a0]+(retry|approve)\s*$/i.exec(line);
    if (match) return match[1]!.toLowerCase() as Command;
  }
  return null;
}

/** The lines of a Markdown comment that render as prose (see {@link parseCommand}); others are left out. */
function proseLines(body: string): string[] {
  const out: string[] = [];
  let fence: { char: string; length: number } | null = null;
  let inParagraph = false;
  const text = body.replace(/<!--[\s\S]*?(-->|$)/g, (comment) => comment.replace(/[^\n]/g, " "));
  for (const line of text.split(/\r?\n/)) {
    const blank = line.trim() === "";
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const closer = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
      if (closer && closer[1]![0] === fence.char && closer[1]!.length >= fence.length) fence = null;
    } else if (opener) {
      fence = { char: opener[1]![0]!, length: opener[1]!.length };
      inParagraph = false;
    } else if (/^ {4,}\S/.test(line) && !inParagraph) {
      // an indented code block: it cannot interrupt a paragraph (CommonMark 4.4)
    } else if (/^\s*>/.test(line)) {
      inParagraph = false;
    } else if (!blank) {
      out.push(line);
      inParagraph = true;
    } else {
      inParagraph = false;
    }
  }
  return out;
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
      task: {
        source: "issue",
        key: `${repo.owner}/${repo.name}#issue-${issue.number}`,
        title: issue.title,
        body: issue.body ?? "",
        repo,
        number: issue.number,
      },
      mode: command,
      statusIssue: issue.number,
      branchSuffix: `issue-${issue.number}`,
    },
  };
}
