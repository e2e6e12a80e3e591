import { beforeAll, describe, expect, it } from "vitest";
import { defaultConfig, parseConfig } from "../../src/config/schema.js";
import { loadGrammar } from "../../src/lang/tree-sitter.js";
import { reviewChange } from "../../src/review/index.js";
import type { RunRecord } from "../../src/types.js";
import { gitChange, type TestTree } from "./helpers.js";

/**
 * The review of a change to a file that starts with a byte-order mark, on the diff git (and GitHub's compare API)
 * gives for it: a line added before line 1 shows there as `-\uFEFFa` `+\uFEFFnew` `+a` (the mark's bytes move to the
 * new first line). The review reads the mark as the file's, so that is one added line; a mark added or removed is
 * its own finding.
 */
const BOM = "\uFEFF";
const BASE = `${BOM}const a = 1;\nrun(a);\n`;
const HEAD = `${BOM}check(a);\nconst a = 1;\nrun(a);\n`;

function review(base: TestTree, head: TestTree, options: { allow?: string; record?: RunRecord } = {}) {
  const change = gitChange(base, head);
  const config = options.allow ? parseConfig({ edits: { allow: options.allow } }) : defaultConfig();
  return { change, report: reviewChange({ ...change, config, record: options.record ?? null }) };
}

beforeAll(async () => {
  await loadGrammar("python");
});

describe("review of a file with a byte-order mark", () => {
  it("a line added before line 1 is one added line: no removed line, no U+FEFF on an added line", () => {
    const { change, report } = review({ "src/a.js": BASE }, { "src/a.js": HEAD });
    // git's own diff shows line 1 removed and added again (the mark moves to the new first line) ...
    expect(change.patches[0]!.patch).toContain(`-${BOM}const a = 1;`);
    // ... the review does not.
    expect(report.findings).toEqual([]);
    expect(report.conclusion).toBe("success");
    expect(report.summary).toContain("+1 −0 lines");
  });

  it("the evidence rule matches that line to the run record's edit", () => {
    const record: RunRecord = {
      version: 1,
      run_id: "r",
      base_sha: "b",
      edits: [
        {
          path: "src/a.js",
          start_line: 1,
          end_line: 1,
          code_before: "const a = 1;",
          code_after: "check(a);\nconst a = 1;",
        },
      ],
    };
    const { report } = review({ "src/a.js": BASE }, { "src/a.js": HEAD }, { record });
    expect(report.findings).toEqual([]);
  });

  it("a Python or CRLF file too, and the parse comparison sees an unchanged line 1", () => {
    const py = review({ "a.py": `${BOM}import os\nrun()\n` }, { "a.py": `${BOM}import sys\nimport os\nrun()\n` });
    expect(py.report.findings).toEqual([]);
    const crlf = review({ "a.js": `${BOM}a();\r\nb();\r\n` }, { "a.js": `${BOM}x();\r\na();\r\nb();\r\n` });
    expect(crlf.report.findings).toEqual([]);
  });

  it("a removed line is still a removed line", () => {
    const { report } = review({ "src/a.js": BASE }, { "src/a.js": `${BOM}check(a);\nrun(a);\n` });
    const policy = report.findings.filter((f) => f.rule === "edit_policy");
    expect(policy).toHaveLength(1);
    expect(policy[0]!.message).toContain("removes 1 line of the base file (line 1");
    expect(policy[0]!.message).not.toContain(BOM);
  });

  it("a mark removed fails under edits.allow: additions, named as the mark", () => {
    const { report } = review({ "src/a.js": BASE }, { "src/a.js": BASE.slice(1) });
    const policy = report.findings.filter((f) => f.rule === "edit_policy");
    expect(policy.map((f) => f.message)).toEqual([
      expect.stringContaining("removes the byte-order mark (U+FEFF) at the start of src/a.js"),
    ]);
    expect(
      review({ "src/a.js": BASE }, { "src/a.js": BASE.slice(1) }, { allow: "modifications" }).report.findings,
    ).toEqual([]);
  });

  it("a mark added fails in every mode, also when lines are added with it", () => {
    for (const allow of ["additions", "modifications"]) {
      for (const head of [`${BOM}const a = 1;\n`, `${BOM}check(a);\nconst a = 1;\n`]) {
        const { report } = review({ "src/a.js": "const a = 1;\n" }, { "src/a.js": head }, { allow });
        const messages = report.findings.filter((f) => f.rule === "edit_policy").map((f) => f.message);
        expect(messages, `${allow}: ${JSON.stringify(head)}`).toContainEqual(
          expect.stringContaining("adds a byte-order mark (U+FEFF) at the start of src/a.js"),
        );
      }
    }
  });
});
