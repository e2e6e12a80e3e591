import { expect, test } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { reviewChange } from "../../src/review/index.js";
import { gitChange } from "./helpers.js";

// This file runs in its own module state: the Python grammar is never loaded here (reviewCommit would load it).
test("without the Python grammar, .py syntax is skipped with one notice and the check still passes", () => {
  const change = gitChange(
    { "a.py": "x = 1\n", "b.py": "y = 2\n" },
    { "a.py": "x = 1\ndef (:\n", "b.py": "y = 2\nz = 3\n" },
  );
  const report = reviewChange({ ...change, config: defaultConfig() });
  const syntax = report.findings.filter((f) => f.rule === "syntax");
  expect(syntax).toEqual([
    expect.objectContaining({
      level: "notice",
      path: "a.py",
      message: expect.stringContaining("syntax of .py files was not checked"),
    }),
  ]);
  expect(report.conclusion).toBe("success");
});
