import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { reviewChange, toCheckRunOutputs } from "../../src/review/index.js";
import type { RunRecord } from "../../src/types.js";
import { gitChange } from "./helpers.js";

const APP = "export function add(a: number, b: number): number {\n  return a + b;\n}\n";
const RECORD: RunRecord = {
  version: 1,
  run_id: "r1",
  base_sha: "b".repeat(40),
  edits: [{ path: "src/math.ts", start_line: 3, end_line: 3, code_before: "}\n", code_after: "}\n// sum\n" }],
};

/**
 * Attack on the `groundfix/review` check run's text: its findings quote lines of the reviewed diff (an added line no
 * recorded edit made, a removed base line), and those lines are hostile (a push on groundfix's branch, a base file).
 * The check run's summary and text are Markdown on the pull request: a quoted line may not write HTML there (a fake
 * "✔ groundfix review passed" heading inside a failing check, a hidden `<details>`), a link to another host, or a
 * mention.
 */
describe("the check run's text quotes hostile lines inert", () => {
  const line =
    '// </code><h2>✔ groundfix review passed</h2><img src="https://evil.example/ok.svg"> ' +
    "[approve](https://evil.example/login) @octocat _https://evil.example/x_";
  const change = gitChange({ "src/math.ts": APP }, { "src/math.ts": `${APP}// sum\n${line}\n` });
  const report = reviewChange({ ...change, config: defaultConfig(), record: RECORD });

  it("the unrecorded line fails the evidence rule, and its quote is plain text in the summary and the text", () => {
    expect(report.conclusion).toBe("failure");
    const [out] = toCheckRunOutputs(report);
    for (const text of [out!.summary, out!.text!]) {
      expect(text).toContain("groundfix review passed"); // quoted, as text
      expect(text).not.toMatch(/<h2|<img|<\/code>/i);
      expect(text).not.toContain("](https://evil.example");
      expect(text).not.toMatch(/(^|[\s*_~(])https:\/\/evil\.example/m);
      expect(text).not.toMatch(/@octocat/);
    }
  });

  it("a path cannot close the code span it is shown in", () => {
    const path = "src/a`<h2>x</h2>`.ts";
    const hostile = gitChange({ [path]: APP }, { [path]: `${APP}export const X = 1;\n` });
    const r = reviewChange({ ...hostile, config: defaultConfig(), record: RECORD });
    const [out] = toCheckRunOutputs(r);
    for (const text of [out!.summary, out!.text!]) {
      expect(text).toContain("`src/a'<h2>x</h2>'.ts:4`"); // one code span: shown as text
      expect(text.replace(/`[^`\n]*`/g, "")).not.toMatch(/<h2/);
    }
  });
});
