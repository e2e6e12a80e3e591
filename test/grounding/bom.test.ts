import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addedLineNumbers, addedLinesBetween, lostLines } from "../../src/grounding/additive.js";
import { applyVerbatimEdit, type VerbatimEditResult } from "../../src/grounding/index.js";
import { plainDiff, withBom, withCrlfLines } from "../../src/grounding/unified-diff.js";

/**
 * A file that starts with a UTF-8 byte-order mark (U+FEFF at offset 0 of the decoded snapshot text) on the write
 * path: the mark is the file's, not text of line 1. An edit anywhere — before line 1 included — is applied after
 * it, the file keeps exactly one mark at offset 0, and the diff shows only the added lines.
 */
const BOM = "\uFEFF";
const FILE = `${BOM}const a = 1;\nrun(a);\nstop();\n`;

function ok(r: VerbatimEditResult) {
  if (!r.ok) throw new Error(`expected ok, got ${r.reason}: ${r.message}`);
  return r;
}

/** The count of U+FEFF in a text. */
const marks = (s: string) => [...s].filter((c) => c === BOM).length;

/** The hunk lines of a diff that remove (`-`) or add (`+`) a line, without the file headers. */
function changed(diff: string): string[] {
  return diff.split("\n").filter((l) => /^[+-]/.test(l) && !/^(?:---|\+\+\+) /.test(l));
}

/** `git apply` of `diff` on a file holding `content` (bytes as UTF-8); the file's text after. */
function gitApply(content: string, diff: string): string {
  const dir = mkdtempSync(join(tmpdir(), "gf-bom-apply-"));
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { stdio: "pipe" });
  git("init", "-q");
  git("config", "core.autocrlf", "false");
  writeFileSync(join(dir, "file"), content);
  writeFileSync(join(dir, "edit.diff"), diff);
  git("apply", "edit.diff");
  return readFileSync(join(dir, "file"), "utf8");
}

describe("applyVerbatimEdit on a file with a byte-order mark", () => {
  const cases: [string, string, { code_before: string; code_after: string }, string, string[]][] = [
    [
      "before line 1",
      FILE,
      { code_before: "const a = 1;", code_after: "check();\nconst a = 1;" },
      `${BOM}check();\nconst a = 1;\nrun(a);\nstop();\n`,
      ["+check();"],
    ],
    [
      "after line 1",
      FILE,
      { code_before: "const a = 1;\n", code_after: "const a = 1;\ncheck(a);\n" },
      `${BOM}const a = 1;\ncheck(a);\nrun(a);\nstop();\n`,
      ["+check(a);"],
    ],
    [
      "in the middle",
      FILE,
      { code_before: "run(a);", code_after: "check(a);\nrun(a);" },
      `${BOM}const a = 1;\ncheck(a);\nrun(a);\nstop();\n`,
      ["+check(a);"],
    ],
    [
      "at the end",
      FILE,
      { code_before: "stop();\n", code_after: "stop();\ndone();\n" },
      `${BOM}const a = 1;\nrun(a);\nstop();\ndone();\n`,
      ["+done();"],
    ],
    [
      "before line 1 of a one-line file without a final newline",
      `${BOM}run(a);`,
      { code_before: "run(a);", code_after: "check(a);\nrun(a);" },
      `${BOM}check(a);\nrun(a);`,
      ["+check(a);"],
    ],
    [
      "before line 1 of a CRLF file (the model writes LF)",
      `${BOM}const a = 1;\r\nrun(a);\r\n`,
      { code_before: "const a = 1;", code_after: "check();\nconst a = 1;" },
      `${BOM}check();\r\nconst a = 1;\r\nrun(a);\r\n`,
      ["+check();"],
    ],
    [
      // The neutral case: a code_before copied with the file's mark is read without it; code_after's one copy at the
      // start of a line is the same mark. The BOM stays at offset 0, never moves to line 2, never doubles.
      "code_before copies the BOM, code_after keeps it in front of the new first line",
      FILE,
      { code_before: `${BOM}const a = 1;`, code_after: `${BOM}check();\nconst a = 1;` },
      `${BOM}check();\nconst a = 1;\nrun(a);\nstop();\n`,
      ["+check();"],
    ],
    [
      "code_before copies the BOM, code_after moves it to line 2 (the copied line)",
      FILE,
      { code_before: `${BOM}const a = 1;`, code_after: `check();\n${BOM}const a = 1;` },
      `${BOM}check();\nconst a = 1;\nrun(a);\nstop();\n`,
      ["+check();"],
    ],
    [
      "code_before copies the BOM, code_after drops it (the BOM is kept)",
      FILE,
      { code_before: `${BOM}const a = 1;\n`, code_after: "const a = 1;\ncheck(a);\n" },
      `${BOM}const a = 1;\ncheck(a);\nrun(a);\nstop();\n`,
      ["+check(a);"],
    ],
  ];
  for (const [name, content, edit, expected, diffLines] of cases) {
    it(name, () => {
      const r = ok(applyVerbatimEdit(content, edit, { path: "file" }));
      expect(r.content).toBe(expected);
      expect(r.content.indexOf(BOM)).toBe(0);
      expect(marks(r.content)).toBe(1);
      expect(r.kind).toBe("addition");
      // The diff a reader (and the model) sees: only the added lines, the BOM on none of them.
      expect(changed(r.diff)).toEqual(diffLines);
      expect(r.diff).not.toContain(BOM);
      // The diff with the file's bytes put back (as `fix --json` hands it out) applies with git.
      const bytes = content.includes("\r\n") ? withCrlfLines(withBom(plainDiff(r.diff))) : withBom(plainDiff(r.diff));
      expect(gitApply(content, bytes)).toBe(expected);
      // The recorded edit is the one applied: no copy of the BOM left in it.
      expect(r.edit.code_before + r.edit.code_after).not.toContain(BOM);
    });
  }

  it("refuses removing the BOM: code_before with it, code_after the same line without it, changes nothing", () => {
    const r = applyVerbatimEdit(FILE, { code_before: `${BOM}const a = 1;`, code_after: "const a = 1;" });
    expect(r).toMatchObject({ ok: false, reason: "no_change" });
  });

  it("keeps a second U+FEFF in code_after as text of the line it is on (the added-text check then refuses it)", () => {
    const r = ok(applyVerbatimEdit(FILE, { code_before: "const a = 1;", code_after: `${BOM}check();\nconst a = 1;` }));
    expect(r.content).toBe(`${BOM}${BOM}check();\nconst a = 1;\nrun(a);\nstop();\n`);
    expect(changed(r.diff)).toEqual([`+${BOM}check();`]);
  });

  it("refuses putting U+FEFF into an existing line: it changes that line", () => {
    const r = applyVerbatimEdit(FILE, { code_before: "run(a);", code_after: `run${BOM}(a);` });
    expect(r).toMatchObject({ ok: false, reason: "not_additive" });
  });

  it("refuses a code_before with a U+FEFF the file has only at offset 0, naming the mark", () => {
    const r = applyVerbatimEdit(FILE, { code_before: `${BOM}run(a);`, code_after: `${BOM}check(a);\nrun(a);` });
    expect(r).toMatchObject({ ok: false, reason: "not_found" });
    if (!r.ok) expect(r.message).toContain("byte-order mark");
  });

  it("a file without a BOM: code_after cannot add one in front of line 1", () => {
    const plain = "const a = 1;\nrun(a);\n";
    expect(applyVerbatimEdit(plain, { code_before: "const a = 1;", code_after: `${BOM}const a = 1;` })).toMatchObject({
      ok: false,
      reason: "not_additive",
    });
  });

  it("only one mark is the file's: a second U+FEFF is text of line 1, which a line inserted after it changes", () => {
    const twice = `${BOM}${BOM}run(a);\n`;
    expect(lostLines(twice, 2, 0, "check(a);\n")).toEqual([{ line: 1, text: `${BOM}run(a);` }]);
    expect(applyVerbatimEdit(twice, { code_before: "run(a);", code_after: "check(a);\nrun(a);" })).toMatchObject({
      ok: false,
      reason: "not_additive",
    });
    const r = ok(applyVerbatimEdit(twice, { code_before: `${BOM}run(a);`, code_after: `check(a);\n${BOM}run(a);` }));
    expect(r.content).toBe(`${BOM}check(a);\n${BOM}run(a);\n`);
  });

  it("a BOM-only file has no line to anchor on", () => {
    for (const before of [BOM, `${BOM}\n`, "x"]) {
      expect(applyVerbatimEdit(BOM, { code_before: before, code_after: `${before}\nrun();` }).ok).toBe(false);
    }
  });

  it("the lines an edit adds before line 1 are added lines, not a changed line 1", () => {
    const after = `${BOM}check();\nconst a = 1;\nrun(a);\nstop();\n`;
    expect(lostLines(FILE, 1, 0, "check();\n")).toEqual([]);
    expect(addedLineNumbers(FILE, 1, 0, "check();\n")).toEqual([1]);
    expect(addedLinesBetween(FILE, after, 1, 1)).toEqual([1]);
    // A BOM only one side has is text of its line 1: gaining or losing one changes line 1.
    expect(addedLinesBetween("const a = 1;\n", `${BOM}const a = 1;\n`, 1, 1)).toEqual([1]);
    expect(addedLinesBetween(FILE, FILE.slice(1), 1, 1)).toEqual([1]);
  });
});
