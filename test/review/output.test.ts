import { describe, expect, test } from "vitest";
import { toCheckRunOutputs, ANNOTATIONS_PER_REQUEST } from "../../src/review/index.js";
import type { Finding, ReviewReport } from "../../src/types.js";

function finding(k: number, level: Finding["level"] = "failure"): Finding {
  return {
    rule: "edit_policy",
    path: `src/f${k}.ts`,
    start_line: k + 1,
    end_line: k + 1,
    level,
    message: `removes line ${k + 1}`,
  };
}

function report(findings: Finding[], summary = "## ✖ groundfix review failed"): ReviewReport {
  return {
    conclusion: "failure",
    title: `groundfix review: ${findings.length} failures`,
    summary,
    findings,
    rulesChecked: ["edit_policy"],
  };
}

describe("toCheckRunOutputs", () => {
  test("120 findings give three annotation batches of at most 50, each with title and summary", () => {
    const outputs = toCheckRunOutputs(report(Array.from({ length: 120 }, (_, k) => finding(k))));
    expect(outputs.map((o) => o.annotations.length)).toEqual([50, 50, 20]);
    expect(ANNOTATIONS_PER_REQUEST).toBe(50);
    for (const o of outputs) {
      expect(o.title).toBe("groundfix review: 120 failures");
      expect(o.summary.length).toBeGreaterThan(0);
    }
    const all = outputs.flatMap((o) => o.annotations);
    expect(new Set(all.map((a) => a.path)).size).toBe(120);
    expect(all[119]).toMatchObject({
      path: "src/f119.ts",
      start_line: 120,
      end_line: 120,
      annotation_level: "failure",
      title: "groundfix/edit_policy",
    });
  });

  test("no findings still gives one output, without annotations or text", () => {
    const outputs = toCheckRunOutputs({
      ...report([]),
      conclusion: "success",
      title: "groundfix review: passed 7 rules",
    });
    expect(outputs).toHaveLength(1);
    expect(outputs[0]!.annotations).toEqual([]);
    expect(outputs[0]!.text).toBeUndefined();
  });

  test("an oversized summary and text are truncated under 65,535 characters with a visible note", () => {
    const huge = "| row |\n".repeat(20_000);
    const long = Array.from({ length: 300 }, (_, k) => ({ ...finding(k, "warning"), message: "x".repeat(10_000) }));
    const [first] = toCheckRunOutputs(report(long, huge));
    expect(first!.summary.length).toBeLessThanOrEqual(65_535);
    expect(first!.summary).toMatch(/truncated: [\d,]+ more characters not shown/);
    expect(first!.text!.length).toBeLessThanOrEqual(65_535);
    expect(first!.text).toContain("truncated");
    expect(first!.annotations[0]!.message.length).toBeLessThanOrEqual(4000);
    expect(first!.annotations[0]!.annotation_level).toBe("warning");
  });

  test("annotation lines are at least 1 and end is never before start; long titles are cut to 255", () => {
    const bad: Finding = { rule: "size", path: "a", start_line: 0, end_line: -3, level: "notice", message: "" };
    const [o] = toCheckRunOutputs({ ...report([bad]), title: "t".repeat(400) });
    expect(o!.title.length).toBeLessThanOrEqual(255);
    expect(o!.annotations[0]).toMatchObject({
      start_line: 1,
      end_line: 1,
      annotation_level: "notice",
      message: "size",
    });
  });
  test('a finding that names no file (path "") is in the text, not an annotation without a path', () => {
    const whole: Finding = {
      ...finding(0),
      rule: "evidence",
      path: "",
      message: "The pull request body holds no run record",
    };
    const [out] = toCheckRunOutputs(report([whole, finding(1)]));
    expect(out!.annotations.map((a) => a.path)).toEqual(["src/f1.ts"]);
    expect(out!.text).toContain("The pull request body holds no run record");
  });
});
