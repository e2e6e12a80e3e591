import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { reviewChange } from "../../src/review/index.js";
import type { Finding, RunRecord } from "../../src/types.js";
import { gitChange } from "./helpers.js";

/**
 * Attack on the review's evidence rule (target: a pull request head that passes `groundfix/review` while holding an
 * edit no recorded `suggest_addition` produced). The rule checks each added line against a bag of the lines the run
 * record's edits add in that file (src/review/rules/evidence.ts: `take` from `pool.added`), not where the edit was
 * anchored: the recorded guard's line put into ANOTHER function of the same file passes. Here the run guarded
 * `label(u)`; the head puts the guard before `checkAuth` in `charge(u)` and never guards `label`. Every other rule
 * passes too (a guard that tests a value and returns is an allowed addition).
 *
 * Fixed: evidence.ts replays the record (each recorded edit applied to the base file in order, with
 * `applyVerbatimEdit` of src/grounding/apply.ts, the rule `suggest_addition` uses) and compares the result with the
 * head's file; every place they differ fails. The variants below try to get around that rule.
 */
const BASE = "function label(u) {\n  return u.name;\n}\n\nfunction charge(u) {\n  checkAuth(u);\n  return pay(u);\n}\n";
const RECORD: RunRecord = {
  version: 1,
  run_id: "r1",
  base_sha: "b".repeat(40),
  edits: [
    {
      path: "src/pay.js",
      start_line: 1,
      end_line: 1,
      code_before: "function label(u) {\n",
      code_after: "function label(u) {\n  if (!u) return null;\n",
    },
  ],
};

describe("the evidence rule and where a recorded line was added", () => {
  it("the recorded edit where it was anchored passes", () => {
    const head = BASE.replace("function label(u) {\n", "function label(u) {\n  if (!u) return null;\n");
    const change = gitChange({ "src/pay.js": BASE }, { "src/pay.js": head });
    const report = reviewChange({ ...change, config: defaultConfig(), record: RECORD });
    expect(report.conclusion).toBe("success");
    expect(report.rulesChecked).toContain("evidence");
  });

  it("the recorded line moved into another function fails the evidence rule", () => {
    const head = BASE.replace("  checkAuth(u);\n", "  if (!u) return null;\n  checkAuth(u);\n");
    const change = gitChange({ "src/pay.js": BASE }, { "src/pay.js": head });
    const report = reviewChange({ ...change, config: defaultConfig(), record: RECORD });
    expect(report.findings.filter((f) => f.rule === "evidence")).not.toEqual([]);
    expect(report.conclusion).toBe("failure");
  });
});

const evidence = (findings: Finding[]) => findings.filter((f) => f.rule === "evidence");

function reviewWith(base: string, head: string, record: RunRecord = RECORD, path = "src/pay.js") {
  const change = gitChange({ [path]: base }, { [path]: head });
  return reviewChange({ ...change, config: defaultConfig(), record });
}

describe("getting a recorded line somewhere else past the replay", () => {
  it("the moved line fails at the line it was put on, and the finding says where the record put it", () => {
    const head = BASE.replace("  checkAuth(u);\n", "  if (!u) return null;\n  checkAuth(u);\n");
    const found = evidence(reviewWith(BASE, head).findings);
    expect(found.map((f) => [f.path, f.start_line])).toEqual([
      ["src/pay.js", 2],
      ["src/pay.js", 6],
    ]);
    expect(found[0]!.message).toContain('lacks "  if (!u) return null;"');
    expect(found[1]!.message).toContain('adds "  if (!u) return null;"');
  });

  it("the recorded line one line further down in the same function fails", () => {
    const head = BASE.replace("  return u.name;\n", "  return u.name;\n  if (!u) return null;\n");
    expect(reviewWith(BASE, head).conclusion).toBe("failure");
  });

  it("two recorded lines swapped between their functions fail, though each line is recorded once", () => {
    const record: RunRecord = {
      ...RECORD,
      edits: [
        ...RECORD.edits,
        {
          path: "src/pay.js",
          start_line: 5,
          end_line: 5,
          code_before: "function charge(u) {\n",
          code_after: "function charge(u) {\n  if (!u.card) throw new Error('no card');\n",
        },
      ],
    };
    const legit = BASE.replace("function label(u) {\n", "function label(u) {\n  if (!u) return null;\n").replace(
      "function charge(u) {\n",
      "function charge(u) {\n  if (!u.card) throw new Error('no card');\n",
    );
    expect(evidence(reviewWith(BASE, legit, record).findings)).toEqual([]);
    const swapped = BASE.replace(
      "function label(u) {\n",
      "function label(u) {\n  if (!u.card) throw new Error('no card');\n",
    ).replace("function charge(u) {\n", "function charge(u) {\n  if (!u) return null;\n");
    expect(evidence(reviewWith(BASE, swapped, record).findings).map((f) => f.start_line)).toEqual([2, 7]);
  });

  it("a recorded edit the head does not hold fails (the record cannot claim more than the commit made)", () => {
    const other = "export const x = 1;\n";
    const change = gitChange(
      { "src/pay.js": BASE, "src/x.js": other },
      { "src/pay.js": BASE, "src/x.js": other + "x;\n" },
    );
    const record: RunRecord = {
      ...RECORD,
      edits: [
        ...RECORD.edits,
        { path: "src/x.js", start_line: 1, end_line: 1, code_before: other, code_after: other + "x;\n" },
      ],
    };
    const found = evidence(reviewChange({ ...change, config: defaultConfig(), record }).findings);
    expect(found).toEqual([expect.objectContaining({ path: "src/pay.js", start_line: 2, level: "failure" })]);
    expect(found[0]!.message).toContain("lacks");
  });

  it("a recorded edit whose code_before occurs twice in the base cannot be replayed and fails", () => {
    const base = `${BASE}function label(u) {\n  return u.id;\n}\n`;
    const head = base.replace("function label(u) {\n", "function label(u) {\n  if (!u) return null;\n");
    const found = evidence(reviewWith(base, head).findings);
    expect(found).toHaveLength(1);
    expect(found[0]!.message).toContain("cannot be replayed");
    expect(found[0]!.message).toContain("occurs more than once");
  });

  it("a CRLF file: the edit replayed with CRLF passes; the same line moved, or written with LF, fails", () => {
    const crlf = BASE.replaceAll("\n", "\r\n");
    const at = (s: string) => s.replaceAll("\n", "\r\n");
    const legit = crlf.replace(at("function label(u) {\n"), at("function label(u) {\n  if (!u) return null;\n"));
    expect(reviewWith(crlf, legit).conclusion).toBe("success");
    const moved = crlf.replace(at("  checkAuth(u);\n"), at("  if (!u) return null;\n  checkAuth(u);\n"));
    expect(evidence(reviewWith(crlf, moved).findings).map((f) => f.start_line)).toEqual([2, 6]);
    const lf = crlf.replace(at("function label(u) {\n"), "function label(u) {\r\n  if (!u) return null;\n");
    expect(evidence(reviewWith(crlf, lf).findings).map((f) => f.start_line)).toEqual([2]);
  });

  it("a file with a byte-order mark: the edit at its anchor passes; the line moved fails", () => {
    const bom = `\uFEFF${BASE}`;
    const legit = bom.replace("function label(u) {\n", "function label(u) {\n  if (!u) return null;\n");
    expect(reviewWith(bom, legit).conclusion).toBe("success");
    const moved = bom.replace("  checkAuth(u);\n", "  if (!u) return null;\n  checkAuth(u);\n");
    expect(reviewWith(bom, moved).conclusion).toBe("failure");
  });

  it("dropping the final newline besides the recorded edit fails at the last line", () => {
    const head = BASE.replace("function label(u) {\n", "function label(u) {\n  if (!u) return null;\n").slice(0, -1);
    const found = evidence(reviewWith(BASE, head).findings);
    expect(found.map((f) => f.start_line)).toEqual([9]);
    expect(found[0]!.message).toContain("no newline at end of file");
  });

  it("a NUL and a final newline added after a last line that had none fail: the head is a binary file", () => {
    // differences() tells a last line without a final newline apart by a NUL appended to it, so a head that ends the
    // same line with a NUL and a line break would compare equal there; a NUL makes the file binary first.
    const base = BASE.slice(0, -1);
    const replay = base.replace("function label(u) {\n", "function label(u) {\n  if (!u) return null;\n");
    expect(reviewWith(base, replay).conclusion).toBe("success");
    const report = reviewWith(base, `${replay}\u0000\n`);
    expect(report.conclusion).toBe("failure");
    expect(evidence(report.findings).map((f) => f.message)).toEqual([
      "src/pay.js changed as a binary file; the run record has no such edit",
    ]);
  });

  it("a head that differs from the replay in many places gets a bounded number of findings that says so", () => {
    const base = Array.from({ length: 200 }, (_, i) => `f${i}();\n`).join("");
    const record: RunRecord = { ...RECORD, edits: [] };
    const head = base.replace(/\);\n/g, ");\n// x\n");
    const found = evidence(reviewWith(base, head, record, "src/many.js").findings);
    expect(found).toHaveLength(20);
    expect(found.at(-1)!.message).toContain("and 180 more place(s) in this file");
  });
});

/**
 * Attack: files the run record has no edit for. No recorded edit can create a file (`code_before` must be in the
 * base file: `applyVerbatimEdit` refuses an empty one), so a file the head has and the base lacks is never the
 * record's. An EMPTY new file compared as "" against the replay of no edits on no file ("") and passed evidence; under
 * `edits.allow: modifications` (where edit_policy allows new files) the whole review passed, and an empty file still
 * changes what runs: `json.py` next to a script shadows Python's stdlib module, an empty `__init__.py` makes a
 * package, an empty `.npmrc`/`conftest.py` is picked up by tools. Fixed in `compareWithRecord` (evidence.ts).
 */
describe("files the run record has no edit for", () => {
  const AFTER = BASE.replace("function label(u) {\n", "function label(u) {\n  if (!u) return null;\n");
  const modifications = () => {
    const config = defaultConfig();
    config.edits.allow = "modifications";
    return config;
  };
  const review = (extraBase: Record<string, string>, extraHead: Record<string, string>) => {
    const change = gitChange({ "src/pay.js": BASE, ...extraBase }, { "src/pay.js": AFTER, ...extraHead });
    return reviewChange({ ...change, config: modifications(), record: RECORD });
  };

  it("the recorded edit alone passes under edits.allow: modifications (the legit flow)", () => {
    expect(review({}, {}).conclusion).toBe("success");
  });

  it("an empty new file beside the recorded edit fails evidence, and so the review", () => {
    const report = review({}, { "src/json.py": "" });
    expect(evidence(report.findings)).toEqual([
      expect.objectContaining({ path: "src/json.py", message: expect.stringContaining("src/json.py is a new file") }),
    ]);
    expect(report.conclusion).toBe("failure");
  });

  it("a new file with content fails as a new file, once, over its lines", () => {
    const found = evidence(review({}, { "src/extra.js": "a();\nb();\n" }).findings);
    expect(found.map((f) => [f.path, f.start_line, f.end_line])).toEqual([["src/extra.js", 1, 2]]);
    expect(found[0]!.message).toContain("no recorded edit creates a file");
  });

  it("an empty file moved to another name fails at its old name (deleted) and its new one (new)", () => {
    const found = evidence(review({ "pkg/a.py": "" }, { "pkg/__init__.py": "" }).findings);
    expect(found.map((f) => f.path).sort()).toEqual(["pkg/__init__.py", "pkg/a.py"]);
  });
});
