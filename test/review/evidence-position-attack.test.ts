import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { reviewChange } from "../../src/review/index.js";
import type { RunRecord } from "../../src/types.js";
import { gitChange } from "./helpers.js";

/**
 * Attack on the review's evidence rule (target: a pull request head that passes `groundfix/review` while holding an
 * edit no recorded `suggest_addition` produced). The rule checks each added line against a bag of the lines the run
 * record's edits add in that file (src/review/rules/evidence.ts: `take` from `pool.added`), not where the edit was
 * anchored: the recorded guard's line put into ANOTHER function of the same file passes. Here the run guarded
 * `label(u)`; the head puts the guard before `checkAuth` in `charge(u)` and never guards `label`. Every other rule
 * passes too (a guard that tests a value and returns is an allowed addition).
 *
 * TRACKED (it.fails): where a fix starts: in evidence.ts, replay the record instead of pooling lines: apply each
 * recorded edit to the base file in order (`applyVerbatimEdit`, src/grounding/apply.ts, the rule `suggest_addition`
 * uses; or at least require each hunk to touch the recorded `start_line..end_line`) and compare the result with the
 * head's file, failing at the first line that differs.
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

  it.fails("the recorded line moved into another function fails the evidence rule", () => {
    const head = BASE.replace("  checkAuth(u);\n", "  if (!u) return null;\n  checkAuth(u);\n");
    const change = gitChange({ "src/pay.js": BASE }, { "src/pay.js": head });
    const report = reviewChange({ ...change, config: defaultConfig(), record: RECORD });
    expect(report.findings.filter((f) => f.rule === "evidence")).not.toEqual([]);
    expect(report.conclusion).toBe("failure");
  });
});
