import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { applyVerbatimEdit, type VerbatimEditResult } from "../../src/grounding/index.js";
import { withCrlfLines } from "../../src/grounding/unified-diff.js";

type Edit = { code_before: string; code_after: string };
interface OkCase {
  name: string;
  content: string;
  edit: Edit;
  allow?: "additions" | "modifications";
  expected: string;
  lines: [number, number];
  kind?: "addition" | "modification";
}

const ok = (r: VerbatimEditResult) => {
  if (!r.ok) throw new Error(`expected ok, got ${r.reason}: ${r.message}`);
  return r;
};

describe("applyVerbatimEdit: successful edits keep every byte outside the span", () => {
  const cases: OkCase[] = [
    {
      name: "LF file, addition after a line",
      content: "a\nb\nc\n",
      edit: { code_before: "b\n", code_after: "b\nlog(b)\n" },
      expected: "a\nb\nlog(b)\nc\n",
      lines: [2, 2],
    },
    {
      name: "CRLF file, LF code_before: matches, inserted text written with CRLF",
      content: "one\r\ntwo\r\nthree\r\n",
      edit: { code_before: "one\ntwo\n", code_after: "one\ntwo\nextra\n" },
      expected: "one\r\ntwo\r\nextra\r\nthree\r\n",
      lines: [1, 2],
    },
    {
      name: "CRLF file, CRLF code_before matches too",
      content: "one\r\ntwo\r\n",
      edit: { code_before: "two\r\n", code_after: "two\r\nmore\n" },
      expected: "one\r\ntwo\r\nmore\r\n",
      lines: [2, 2],
    },
    {
      name: "mixed line endings match raw and insert raw",
      content: "one\r\ntwo\nthree\n",
      edit: { code_before: "one\r\ntwo\n", code_after: "one\r\ntwo\nadded\n" },
      expected: "one\r\ntwo\nadded\nthree\n",
      lines: [1, 2],
    },
    {
      name: "BOM kept and line 1 counted with it",
      content: "\uFEFFfirst\nsecond\n",
      edit: { code_before: "first\n", code_after: "first\nnew\n" },
      expected: "\uFEFFfirst\nnew\nsecond\n",
      lines: [1, 1],
    },
    {
      name: "file without a final newline stays without one",
      content: "x = 1\ny = 2",
      edit: { code_before: "x = 1", code_after: "x = 1\nprint(x)" },
      expected: "x = 1\nprint(x)\ny = 2",
      lines: [1, 1],
    },
    {
      name: "last line without final newline, addition after it",
      content: "x = 1\ny = 2",
      edit: { code_before: "y = 2", code_after: "y = 2\nz = 3" },
      expected: "x = 1\ny = 2\nz = 3",
      lines: [2, 2],
    },
    {
      name: "tabs and unicode around the span are untouched",
      content: "\tif (ok) {\n\t\treturn \u00ABé\u00BB;\n\t}\n",
      edit: { code_before: "\t}\n", code_after: "\t}\n\t// ✓\n" },
      expected: "\tif (ok) {\n\t\treturn \u00ABé\u00BB;\n\t}\n\t// ✓\n",
      lines: [3, 3],
    },
    {
      name: "$& $' $` $$ inserted literally",
      content: "const a = 1;\n",
      edit: { code_before: "const a = 1;\n", code_after: 'const a = 1;\nconst s = "$& $\' $` $$ $1";\n' },
      expected: 'const a = 1;\nconst s = "$& $\' $` $$ $1";\n',
      lines: [1, 1],
    },
    {
      name: "backslashes inserted literally",
      content: "p = 'x'\n",
      edit: { code_before: "p = 'x'\n", code_after: "p = 'x'\nq = 'C:\\\\dir\\\\n\\t'\n" },
      expected: "p = 'x'\nq = 'C:\\\\dir\\\\n\\t'\n",
      lines: [1, 1],
    },
    {
      name: "text appended inside a line is a modification, allowed with allow: modifications",
      content: "call(a);\n",
      edit: { code_before: "call(a);", code_after: "call(a); // checked" },
      allow: "modifications",
      expected: "call(a); // checked\n",
      lines: [1, 1],
      kind: "modification",
    },
    {
      name: "modification allowed with allow: modifications",
      content: "let x = 1;\nlet y = 2;\n",
      edit: { code_before: "let x = 1;\n", code_after: "let x = 2;\n" },
      allow: "modifications",
      expected: "let x = 2;\nlet y = 2;\n",
      lines: [1, 1],
      kind: "modification",
    },
    {
      name: "addition between kept lines",
      content: "a\nb\nc\n",
      edit: { code_before: "a\nb\nc\n", code_after: "a\nnew1\nb\nnew2\nc\n" },
      expected: "a\nnew1\nb\nnew2\nc\n",
      lines: [1, 3],
      kind: "addition",
    },
  ];
  it.each(cases)("$name", ({ content, edit, allow, expected, lines, kind }) => {
    const r = ok(applyVerbatimEdit(content, edit, allow ? { allow } : {}));
    expect(r.content).toBe(expected);
    expect([r.startLine, r.endLine]).toEqual(lines);
    expect(r.kind).toBe(kind ?? "addition");
  });
});

interface RejectCase {
  name: string;
  content: string;
  edit: Edit;
  reason: string;
  check?: (r: Extract<VerbatimEditResult, { ok: false }>) => void;
}

describe("applyVerbatimEdit: rejections", () => {
  const cases: RejectCase[] = [
    { name: "empty code_before", content: "a\n", edit: { code_before: "", code_after: "x" }, reason: "empty" },
    {
      name: "whitespace-only code_before",
      content: "a\n  \n",
      edit: { code_before: " \n\t ", code_after: "x" },
      reason: "empty",
    },
    {
      name: "no-op edit (nothing was applied before, so nothing is present)",
      content: "a\nb\n",
      edit: { code_before: "a\n", code_after: "a\n" },
      reason: "no_change",
      check: (r) => expect(r.present).toBeUndefined(),
    },
    {
      name: "no-op in a CRLF file once line endings are applied",
      content: "a\r\nb\r\n",
      edit: { code_before: "a\n", code_after: "a\r\n" },
      reason: "no_change",
    },
    {
      name: "NUL bytes mean binary",
      content: "PK\u0003\u0004\u0000\u0000abc",
      edit: { code_before: "abc", code_after: "abcd" },
      reason: "binary",
    },
    {
      name: "two occurrences list both start lines",
      content: "x();\ny();\nx();\n",
      edit: { code_before: "x();", code_after: "x();\nz();" },
      reason: "ambiguous",
      check: (r) => expect(r.occurrences).toEqual([1, 3]),
    },
    {
      name: "three occurrences list every start line",
      content: "log()\nfoo\nlog()\nbar\nlog()\n",
      edit: { code_before: "log()\n", code_after: "log()\nmore()\n" },
      reason: "ambiguous",
      check: (r) => {
        expect(r.occurrences).toEqual([1, 3, 5]);
        expect(r.message).toContain("occurs 3 times");
        expect(r.message).toContain("1, 3, 5");
      },
    },
    {
      name: "overlapping occurrences count",
      content: "a\na\na\n",
      edit: { code_before: "a\na\n", code_after: "a\na\nb\n" },
      reason: "ambiguous",
      check: (r) => expect(r.occurrences).toEqual([1, 2]),
    },
    {
      name: "not_additive names the lost lines",
      content: "function f() {\n  return 1;\n}\n",
      edit: { code_before: "function f() {\n  return 1;\n}", code_after: "function f() {\n  return 2;\n}" },
      reason: "not_additive",
      check: (r) => {
        expect(r.lostLines).toEqual(["  return 1;"]);
        expect(r.message).toContain("2|   return 1;");
      },
    },
    {
      name: "a partial-line edit that rewrites the rest of its line is not additive",
      content: "call(a);\n",
      edit: { code_before: "call(a);", code_after: "call(a); // checked" },
      reason: "not_additive",
      check: (r) => expect(r.lostLines).toEqual(["call(a);"]),
    },
    {
      name: "an addition that joins the next line onto it is not additive",
      content: "a\nb\nc\n",
      edit: { code_before: "a\n", code_after: "a\nnew" },
      reason: "not_additive",
      check: (r) => expect(r.lostLines).toEqual(["b"]),
    },
    {
      name: "reordering lines is not additive",
      content: "first\nsecond\n",
      edit: { code_before: "first\nsecond\n", code_after: "second\nfirst\n" },
      reason: "not_additive",
    },
    {
      name: "code_after already present (edit already applied), code_before gone",
      content: "function f(a, b) {\n  return compute(a, b);\n}\n",
      edit: { code_before: "  return compute(a);\n", code_after: "  return compute(a, b);\n" },
      reason: "not_found",
      check: (r) => {
        expect(r.nearest?.cause).toContain("code_after is already present");
        expect(r.nearest?.startLine).toBe(2);
        expect(r.message).toContain("already applied");
        expect(r.present).toEqual({ startLine: 2, endLine: 2 });
      },
    },
    {
      name: "a short code_after that occurs by chance is not taken for an applied edit",
      content: "export x\n",
      edit: { code_before: "y", code_after: "x" },
      reason: "not_found",
      check: (r) => {
        expect(r.message).not.toContain("already");
        expect(r.present).toBeUndefined();
      },
    },
    {
      name: "addition already applied (code_before still there inside code_after)",
      content: "open()\nlog('opened')\nclose()\n",
      edit: { code_before: "open()\n", code_after: "open()\nlog('opened')\n" },
      reason: "no_change",
      check: (r) => {
        expect(r.message).toContain("already present in x.js at lines 1-2");
        expect(r.present).toEqual({ startLine: 1, endLine: 2 });
      },
    },
  ];
  it.each(cases)("$name", ({ content, edit, reason, check }) => {
    const r = applyVerbatimEdit(content, edit, { path: "x.js" });
    if (r.ok) throw new Error("expected a rejection");
    expect(r.reason).toBe(reason);
    expect(r.message).toMatch(/^REJECTED: /);
    check?.(r);
  });
});

describe("applyVerbatimEdit: unified diff", () => {
  it("equals jsdiff createTwoFilesPatch with a/ b/ headers and 3 lines of context", () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
    const content = lines.join("\n") + "\n";
    const r = ok(
      applyVerbatimEdit(content, { code_before: "line 15\n", code_after: "line 15\ninserted\n" }, { path: "src/a.ts" }),
    );
    expect(r.diff).toBe(
      createTwoFilesPatch("a/src/a.ts", "b/src/a.ts", content, r.content, undefined, undefined, { context: 3 }),
    );
    expect(r.diff).toContain("@@ -13,6 +13,7 @@");
  });

  it.each([
    ["start of file", "line 1\n", "line 1\nX\n"],
    ["end of file without final newline", "line 9", "line 9\nX"],
    ["two lines before the end", "line 7\n", "line 7\nX\n"],
  ])("matches jsdiff near the %s", (_where, before, after) => {
    const content = Array.from({ length: 9 }, (_, i) => `line ${i + 1}`).join("\n");
    const r = ok(applyVerbatimEdit(content, { code_before: before, code_after: after }, { path: "f" }));
    expect(r.diff).toBe(createTwoFilesPatch("a/f", "b/f", content, r.content, undefined, undefined, { context: 3 }));
  });

  it.each([
    ["ending in CRLF", "a\r\nb\r\nc\r\n"],
    ["without a final line break", "a\r\nb\r\nc"],
  ])("withCrlfLines gives the diff of a CRLF file %s that git apply --check takes", (_name, content) => {
    const dir = mkdtempSync(join(tmpdir(), "gf-crlf-"));
    execFileSync("git", ["init", "-q", dir]);
    writeFileSync(join(dir, "w.txt"), content);
    for (const edit of [
      { code_before: "b\n", code_after: "b\nz\n" },
      { code_before: "c", code_after: "C" },
    ]) {
      const r = ok(applyVerbatimEdit(content, edit, { path: "w.txt", allow: "modifications" }));
      const patch = withCrlfLines(r.diff);
      writeFileSync(join(dir, "p.diff"), patch);
      expect(
        () => execFileSync("git", ["-C", dir, "apply", "--check", "p.diff"], { stdio: "pipe" }),
        patch,
      ).not.toThrow();
      writeFileSync(join(dir, "lf.diff"), r.diff);
      expect(() => execFileSync("git", ["-C", dir, "apply", "--check", "lf.diff"], { stdio: "pipe" })).toThrow();
    }
  });

  it("shows a CRLF file's lines without \\r", () => {
    const r = ok(applyVerbatimEdit("a\r\nb\r\n", { code_before: "a\n", code_after: "a\nz\n" }, { path: "w.txt" }));
    expect(r.diff).not.toContain("\r");
    expect(r.diff).toContain("+z\n");
  });
});
