import { describe, expect, it } from "vitest";
import { sameCode } from "../../src/lang/comments.js";
import { runOneEdit } from "./helpers.js";

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
