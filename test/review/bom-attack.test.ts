import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/schema.js";
import { reviewChange } from "../../src/review/index.js";
import { gitChange, type TestTree } from "./helpers.js";

/**
 * Attacks on the review of byte-order marks (ad75e78: a mark is the file's, not text of line 1; a mark added or
 * removed is edit_policy's own finding). A mark at the start of a new file is as invisible as one added to an
 * existing file, and it breaks the file: a shell script's `#!` is no longer its first bytes, PHP sends the mark
 * before its headers.
 */
const BOM = "\uFEFF";
const SCRIPT = `${BOM}#!/bin/sh\nrm -rf "$1"\n`;

function review(base: TestTree, head: TestTree, options: { omitPatch?: boolean } = {}) {
  const change = gitChange(base, head);
  // GitHub's compare API leaves `patch` out of large diffs: the review computes the hunks itself.
  const patches = options.omitPatch ? change.patches.map((p) => ({ ...p, patch: "" })) : change.patches;
  const config = parseConfig({ edits: { allow: "modifications" } });
  return reviewChange({ ...change, patches, config, record: null });
}

describe("attacker: a byte-order mark at the start of a new file", () => {
  it("is an invisible character on added line 1 (edits.allow: modifications), with or without git's patch", () => {
    for (const omitPatch of [false, true]) {
      const report = review({ "a.js": "x();\n" }, { "a.js": "x();\n", "bin/run": SCRIPT }, { omitPatch });
      expect(report.conclusion, `omitPatch ${omitPatch}`).toBe("failure");
      expect(report.findings.map((f) => `${f.rule} ${f.path} ${f.message}`).join("\n")).toMatch(
        /^edit_policy bin\/run .*U\+FEFF/m,
      );
    }
  });

  it("a new file without one passes (the finding is the mark's); a removed file with one is read as the base's", () => {
    expect(review({ "a.js": "x();\n" }, { "a.js": "x();\n", "bin/run": SCRIPT.slice(1) }).findings).toEqual([]);
    // its removed lines are git's, mark included, and grounded_hunks reads the base without the mark
    expect(review({ "a.js": "x();\n", "bin/run": SCRIPT }, { "a.js": "x();\n" }).findings).toEqual([]);
  });
});
