import { describe, expect, it } from "vitest";
import { renderTraceMarkdown, type Trace } from "../../src/agent/trace.js";

function trace(steps: number): Trace {
  return {
    model: "replay:x.json",
    started_at: "2025-01-01T00:00:00.000Z",
    steps: Array.from({ length: steps }, (_, i) => ({
      step: i + 1,
      text: "",
      observations_stripped: i === 0 ? 1 : 0,
      model_ms: 1,
      tool_calls: [
        i === 1
          ? {
              id: "c",
              name: "submit_answer",
              arguments: { summary: "s", affected_file: "src/a.js", confidence: 0.9 },
              status: "rejected" as const,
              gate: "tool_name" as const,
              result:
                "REJECTED: you must call at least one of [get_file_contents] before " +
                "answering; you have called [list_files], which include none of them.",
              result_chars: 120,
              ms: 0,
            }
          : {
              id: "c",
              name: "get_file_contents",
              arguments: { path: "src/a.js", start_line: 1 },
              status: "ok" as const,
              result: "src/a.js (lines 1-3 of 3)\n  1| const a = 1;",
              result_chars: 40,
              ms: 0,
            },
      ],
    })),
    input_removed: { html_comments: 1, invisible_chars: 0, secrets: 0 },
    observations_stripped: 1,
    outcome: "diagnosis_only",
    reason: "no edit was applied",
    total_ms: 12,
  };
}

describe("renderTraceMarkdown", () => {
  it("lists each tool call with its arguments, status and first result line; rejections in bold", () => {
    const md = renderTraceMarkdown(trace(3));
    expect(md).toContain(
      '1. `get_file_contents(path="src/a.js", start_line=1)` → ' +
        "ok: src/a.js (lines 1-3 of 3) _(removed 1 fake tool result)_",
    );
    expect(md).toContain(
      '2. **tool_name: `submit_answer(affected_file="src/a.js", confidence=0.9)` → ' +
        "rejected: REJECTED: you must call at least one of \\[get_file_contents\\] before " +
        "answering; you have called \\[list_files\\], which include none of them.**",
    );
    expect(md).toContain("Input hygiene removed 1 hidden comment(s), 0 invisible character(s), 0 secret(s).");
    expect(md).toMatch(/Outcome: \*\*diagnosis_only\*\* — no edit was applied$/);
  });

  it("stays under maxChars and says how many steps it left out", () => {
    const md = renderTraceMarkdown(trace(200), { maxChars: 1500 });
    expect(md.length).toBeLessThanOrEqual(1500);
    const left = /_… (\d+) more step\(s\) left out \(trace capped at 1500 characters\)_/.exec(md);
    expect(left).not.toBeNull();
    const shown = md.split("\n").filter((l) => /^\d+\. /.test(l)).length;
    expect(shown + Number(left![1])).toBe(200);
    expect(md).toContain("Outcome: **diagnosis_only**");
  });
});
