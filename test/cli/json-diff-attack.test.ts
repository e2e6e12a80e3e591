import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixToJson } from "../../src/cli/json.js";
import type { FixReport } from "../../src/cli/fix.js";
import { runOneEdit } from "../agent/helpers.js";

/**
 * Attacks on `fix --json` edits[].diff (src/cli/json.ts): the diff is a plain unified diff that `git apply` takes on
 * the base commit and that gives the run's file, whatever the file's line endings, last line or path.
 */
async function jsonEdits(path: string, content: string, before: string, after: string) {
  const result = await runOneEdit({ [path]: content, "README.md": "# x\n" }, path, before, after);
  const report = { result, status: result.outcome, notes: [], warnings: [] } as unknown as FixReport;
  return { doc: fixToJson(report), files: result.files };
}

/** Apply `diff` with `git apply` in a fresh repository holding `path` as `content`; the file's bytes after. */
function gitApply(path: string, content: string, diff: string): string {
  const dir = mkdtempSync(join(tmpdir(), "gf-apply-"));
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { stdio: "pipe" });
  git("init", "-q");
  git("config", "core.autocrlf", "false");
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
  writeFileSync(join(dir, "edit.diff"), diff);
  git("apply", "edit.diff");
  return readFileSync(join(dir, path), "utf8");
}

describe("attacker: fix --json diffs apply with git apply on the base", () => {
  const cases: [string, string, string, string, string][] = [
    ["CRLF", "src/a.js", "const a = 1;\r\nrun(a);\r\nstop();\r\n", "run(a);", "check(a);\r\nrun(a);"],
    ["no final newline", "src/a.js", "const a = 1;\nrun(a);", "run(a);", "check(a);\nrun(a);"],
    ["CRLF, no final newline", "src/a.js", "const a = 1;\r\nrun(a);", "run(a);", "check(a);\r\nrun(a);"],
    ["mixed endings", "src/a.js", "const a = 1;\r\nrun(a);\nstop();\r\n", "run(a);", "check(a);\nrun(a);"],
    ["a space in the path", "src/my file.js", "run(a);\n", "run(a);", "check(a);\nrun(a);"],
    ["a unicode path", "src/café/ünï.js", "run(a);\n", "run(a);", "check(a);\nrun(a);"],
    [
      "CRLF, the model writes LF",
      "src/a.js",
      "const a = 1;\r\nrun(a);\r\nstop();\r\n",
      "run(a);",
      "check(a);\nrun(a);",
    ],
    ["a byte order mark", "src/a.js", "\ufeffconst a = 1;\nrun(a);\n", "run(a);", "check(a);\nrun(a);"],
    ["lines that look like headers", "q.sql", "-- a\n++ b\nSELECT 1;\n", "SELECT 1;", "-- c\nSELECT 1;"],
  ];
  for (const [name, path, content, before, after] of cases) {
    it(name, async () => {
      const { doc, files } = await jsonEdits(path, content, before, after);
      expect(doc.edits.length, name).toBe(1);
      const edit = doc.edits[0]!;
      expect(edit.diff.split("\n")[0]).toBe(`--- a/${path}`);
      expect(gitApply(path, content, edit.diff)).toBe(files.find((f) => f.path === path)?.content);
    });
  }
});

describe("a file that starts with a byte order mark", () => {
  // A line added before line 1 of a file starting with a UTF-8 BOM goes after the BOM (the BOM is the file's, not
  // text of line 1: applyVerbatimEdit); the --json diff puts the BOM back on line 1 so git apply takes it.
  it("accepts a line added before the first line, and the --json diff applies", async () => {
    const content = "\ufeffrun(a);\n";
    const { doc, files } = await jsonEdits("src/a.js", content, "run(a);", "check(a);\nrun(a);");
    expect(doc.edits.length).toBe(1);
    expect(gitApply("src/a.js", content, doc.edits[0]!.diff)).toBe(files[0]?.content);
  });
});
