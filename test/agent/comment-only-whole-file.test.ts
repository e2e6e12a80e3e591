import { describe, expect, it } from "vitest";
import { COMMENT_ONLY_REASON, HIDDEN_CODE_REASON } from "../../src/agent/outcome.js";
import { isCommentOnly, sameCode } from "../../src/lang/comments.js";
import { commentOnlyNote } from "../../src/pipeline/describe.js";
import { statusCommentBody } from "../../src/host/github/status.js";
import { commitMessage, pullRequestTitle } from "../../src/pipeline/record.js";
import { config, runOneEdit, task } from "./helpers.js";

/**
 * A confident model's edit inside a block comment or docstring opened further above than its hunk's context shows:
 * the hunk alone reads the added line as code, the whole file as the comment it is. No pull request without a
 * maintainer's approval.
 */
const JS = [
  "/*",
  "  Formats one log entry.",
  "",
  "  Entries come from the queue;",
  "  the user may be absent for system entries",
  "  and for entries written before version 2.",
  "  Keep this in sync with the reader.",
  "",
  "  The reader parses the same fields,",
  "  in the same order, and rejects",
  "  entries it cannot read.",
  "*/",
  "function formatEntry(entry) {",
  "  return entry.user.name;",
  "}",
  "",
  "module.exports = { formatEntry };",
  "",
].join("\n");
const PY = [
  "def format_entry(entry):",
  '    """Format one log entry.',
  "",
  "    Entries come from the queue;",
  "    the user may be absent for system entries",
  "    and for entries written before version 2.",
  "    Keep this in sync with the reader.",
  '    """',
  "    return entry.user.name",
  "",
].join("\n");

async function run(path: string, content: string, before: string, after: string, approved?: boolean) {
  return runOneEdit({ [path]: content }, path, before, after, {
    confidence: 0.95,
    ...(approved === undefined ? {} : { approved }),
  });
}

describe("comment-only by the whole file, not only by the hunk", () => {
  it("JavaScript: a code-looking line added inside a block comment far below its /*: no pull request", async () => {
    const result = await run(
      "src/log.js",
      JS,
      "  Keep this in sync with the reader.\n",
      "  Keep this in sync with the reader.\n  if (!entry.user) return '';\n",
    );
    expect(result.edits).toHaveLength(1);
    expect(result.outcome).toBe("diagnosis_only");
    expect(result.reason).toBe("every edit only adds comments, which change nothing at run time");
  });

  it("Python: a line added inside a docstring is refused by the edit gate (it changes a string's value)", async () => {
    const result = await run(
      "app/log.py",
      PY,
      "    Keep this in sync with the reader.\n",
      "    Keep this in sync with the reader.\n    if entry.user is None: return ''\n",
    );
    expect(result.edits).toHaveLength(0);
    expect(result.gates.rejections[0]?.message).toContain("lies inside the existing string at line 2");
    expect(result.outcome).not.toBe("pr_ready");
  });

  it("attacker: a real guard after the comment is still code, and approval still commits a comment", async () => {
    const guard = await run(
      "src/log.js",
      JS,
      "function formatEntry(entry) {\n",
      "function formatEntry(entry) {\n  if (!entry.user) return '';\n",
    );
    expect(guard.outcome).toBe("pr_ready");
    const approved = await run(
      "src/log.js",
      JS,
      "  Keep this in sync with the reader.\n",
      "  Keep this in sync with the reader.\n  See reader.js.\n",
      true,
    );
    expect(approved.outcome).toBe("pr_ready");
  });
});

describe("sameCode", () => {
  it("reads whole files: code put into or taken out of a far comment is a change; CRLF is the same text", () => {
    const closed = JS.replace("  entries it cannot read.\n*/\n", "*/\n  entries it cannot read.\n");
    expect(sameCode("src/log.js", JS, closed)).toBe(false);
    expect(sameCode("src/log.js", JS, JS.replace(/\n/g, "\r\n"))).toBe(true);
    expect(sameCode("src/log.js", JS, JS.replace("  return entry.user.name;", "  return entry.user?.name;"))).toBe(
      false,
    );
    expect(sameCode("app/log.py", PY, PY.replace("Keep this", "Keep this (see reader.py)"))).toBe(true);
  });
});

/**
 * What a maintainer reads (the outcome's reason, the note shown in place of a fix, the commit subject and the pull
 * request title of an approved run) says what the outcome was decided on: the whole file's reading of each edit, not
 * its hunk's alone.
 */
async function labelled(
  files: Record<string, string>,
  path: string,
  before: string,
  after: string,
  approved?: boolean,
  allow?: "modifications",
) {
  const result = await runOneEdit(files, path, before, after, {
    confidence: 0.95,
    ...(approved === undefined ? {} : { approved }),
    ...(allow === undefined ? {} : { config: { edits: { allow } } }),
  });
  expect(result.edits).toHaveLength(1);
  const read = (p: string) => files[p];
  const message = commitMessage(task(), result, config(), "run-1", read);
  return { result, subject: message.split("\n")[0], title: pullRequestTitle(result, read), message };
}

// A here-document whose `<<~SQL` is further above the added line than a hunk's context shows.
const RB = [
  "def active_users_sql",
  "  <<~SQL",
  "    SELECT id",
  "    FROM users",
  "    WHERE active",
  "    AND verified",
  "    AND NOT banned",
  "  SQL",
  "end",
  "",
].join("\n");
const IN_HEREDOC = ["    AND verified\n", "    AND verified\n    # OR 1=1\n"] as const;
/** The added line of the first test above: a guard's text, inside the block comment. */
const IN_COMMENT = [
  "  Keep this in sync with the reader.\n",
  "  Keep this in sync with the reader.\n  if (!entry.user) return '';\n",
] as const;

describe("the labels a maintainer reads agree with the comment-only decision", () => {
  it("a code-looking line in a far block comment: the approved commit is 'add a comment', not a guard", async () => {
    const held = await labelled({ "src/log.js": JS }, "src/log.js", ...IN_COMMENT);
    expect([held.result.outcome, held.result.reason]).toEqual(["diagnosis_only", COMMENT_ONLY_REASON]);
    expect(commentOnlyNote(held.result)).toContain("the only edit groundfix could ground is a comment");
    const approved = await labelled({ "src/log.js": JS }, "src/log.js", ...IN_COMMENT, true);
    expect(approved.result.outcome).toBe("pr_ready");
    expect(approved.subject).toBe("groundfix: add a comment to log.js");
    expect(approved.title).toBe(approved.subject);
    expect(approved.message).toContain("): add a comment\n");
  });

  it("attacker: a `#` line in a far here-document is never called a comment, and waits for a maintainer", async () => {
    // (under the default edits.allow: additions the addition rule refuses a line put inside an existing here-document)
    const held = await labelled({ "db/users.rb": RB }, "db/users.rb", ...IN_HEREDOC, undefined, "modifications");
    // the diff shows a comment line; the file a line of the query
    expect(held.result.edits[0]?.diff).not.toContain("<<~SQL");
    expect([held.result.outcome, held.result.reason]).toEqual(["diagnosis_only", HIDDEN_CODE_REASON]);
    expect(held.result.commentOnly).toBe(false);
    expect(commentOnlyNote(held.result)).toBeNull();
    // the issue's status comment says why, and how a maintainer opens the pull request anyway
    const request = { task: task(), mode: "run" as const, statusIssue: 7, branchSuffix: "issue-7" };
    const report = { host: "github" as const, runId: "r", status: "comment" as const, request, written: {} };
    const done = { kind: "done" as const, report: { ...report, task: task(), result: held.result } };
    const status = statusCommentBody(done, { owner: "acme", name: "logdemo" });
    expect(status).toContain("changes code in the file");
    expect(status).toContain("Comment `/groundfix approve` to open a pull request with it anyway");
    expect(status).not.toContain("only edit groundfix could ground is a comment");
    const approved = await labelled({ "db/users.rb": RB }, "db/users.rb", ...IN_HEREDOC, true, "modifications");
    expect(approved.result.outcome).toBe("pr_ready");
    expect(approved.subject).toBe("groundfix: add 1 line to active_users_sql()");
    expect(approved.title).toBe(approved.subject);
    expect(approved.message).not.toContain("comment");
  });

  it("attacker: the shebang far above the hunk names the language: a Node `#n = 0;` field is code", async () => {
    const cli = [
      "#!/usr/bin/env node",
      ...Array.from({ length: 8 }, (_, i) => `step${i}();`),
      "class Counter {",
      "  total = 1;",
      "}",
      "",
    ].join("\n");
    // (a field added to an existing class is refused under the default edits.allow: additions, as in a .js file)
    const field = await labelled(
      { "bin/count": cli },
      "bin/count",
      "  total = 1;\n",
      "  #n = 0;\n  total = 1;\n",
      undefined,
      "modifications",
    );
    expect(field.result.edits[0]?.diff).not.toContain("#!");
    expect(isCommentOnly(field.result.edits[0]!, "#!/usr/bin/env node")).toBe(false);
    // without the file, a script of no known language reads `#` as a comment: a comment is never taken for code
    expect(isCommentOnly(field.result.edits[0]!)).toBe(true);
    expect(field.result.outcome).toBe("pr_ready");
    expect(field.subject).toBe("groundfix: add 1 line to count");
    // and a `//` comment there is a comment, by the hunk and by the file
    const note = await labelled({ "bin/count": cli }, "bin/count", "  total = 1;\n", "  // may be 0\n  total = 1;\n");
    expect([note.result.outcome, note.result.reason]).toEqual(["diagnosis_only", COMMENT_ONLY_REASON]);
  });
});
