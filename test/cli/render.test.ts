import { describe, expect, it } from "vitest";
import type { FixReport } from "../../src/cli/fix.js";
import { fixToJson } from "../../src/cli/json.js";
import { renderFixReport, renderReview } from "../../src/cli/render.js";
import { applyVerbatimEdit } from "../../src/grounding/index.js";
import { styleFor } from "../../src/cli/style.js";
import { escapeControls, isBlankText } from "../../src/cli/terminal.js";
import type { ReviewReport } from "../../src/types.js";

const plain = styleFor({ isTTY: false });
const colour = styleFor({ isTTY: true }, { TERM: "xterm" });
/**
 * Every raw control a hostile text might use: CSI colour, OSC window title (BEL), 8-bit CSI, CR, backspace, bidi
 * override.
 */
const HOSTILE = "\u001b[2J\u001b]0;pwned\u0007\u009b31m\r\b\u202e";
const ESCAPED = "\\x1b[2J\\x1b]0;pwned\\x07\\x9b31m\\x0d\\x08\\u202e";

function review(message: string): ReviewReport {
  return {
    conclusion: "failure",
    title: "t",
    summary: "s",
    rulesChecked: ["grounded_hunks"],
    findings: [
      { rule: "grounded_hunks", path: `src/${HOSTILE}.js`, start_line: 3, end_line: 3, level: "failure", message },
    ],
  };
}

function report(): FixReport {
  const edit = {
    path: `src/a${HOSTILE}.js`,
    code_before: "x",
    code_after: "y",
    rationale: HOSTILE,
    startLine: 2,
    endLine: 2,
    kind: "addition" as const,
    diff: `--- a/src/a.js\n+++ b/src/a.js\n@@ -1,2 +1,3 @@\n context ${HOSTILE}\n+added ${HOSTILE}\n`,
  };
  return {
    task: {
      source: "local",
      key: "local:x",
      title: HOSTILE,
      body: HOSTILE,
      repo: { owner: "local", name: "r" },
      baseSha: "a".repeat(40),
    },
    baseSha: "a".repeat(40),
    ref: `v1${HOSTILE}`,
    baseMoved: null,
    model: "heuristic",
    status: "pr_ready",
    result: {
      outcome: "pr_ready",
      reason: null,
      diagnosis: {
        summary: `The issue says ${HOSTILE}`,
        affected_file: `src/a${HOSTILE}.js`,
        affected_function: HOSTILE,
        root_cause_snippet: `  code ${HOSTILE}`,
        confidence: 0.9,
        citations: [{ path: `src/a${HOSTILE}.js`, start_line: 1, end_line: 2 }],
      },
      edits: [edit],
      files: [],
      gates: {
        rejections: [{ gate: "claims", message: `not in the file: ${HOSTILE}`, step: 1 }],
        observations_stripped: 0,
        input_removed: {},
      },
      usage: { model_calls: 1, tool_calls: 1, input_tokens: 1, output_tokens: 1 },
      trace: {},
      transcript: {},
    } as unknown as FixReport["result"],
    delivery: null,
    deliveryNote: `branch groundfix/${HOSTILE} already exists at abc; left untouched; rerun with --force to replace it`,
    held: null,
    review: review(`quoted ${HOSTILE}`),
    noFix: null,
    notes: [],
    warnings: [],
  };
}

describe("the readable report shows untrusted text with control characters escaped", () => {
  it("escapes every control in issue, model, file and branch text, with and without colour", () => {
    for (const style of [plain, colour]) {
      const text = renderFixReport(report(), style);
      // The only raw ESC left are the report's own SGR colour codes (ESC [ digits m).
      expect(text.replace(/\u001b\[\d+m/g, "")).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202e]/);
      for (const where of [
        "The issue says ",
        "added ",
        "context ",
        "not in the file: ",
        "src/a",
        ": branch groundfix/",
      ]) {
        expect(text).toContain(`${where}${ESCAPED}`);
      }
    }
  });

  it("says when the token counts are estimates (the model reported none)", () => {
    const r = report();
    expect(renderFixReport(r, plain)).toMatch(/1 input \/ 1 output tokens$/m);
    r.result.usage = { ...r.result.usage, estimated: true };
    expect(renderFixReport(r, plain)).toMatch(
      /1 input \/ 1 output tokens \(estimated from characters: the model reported none\)$/m,
    );
  });

  it("says that a gate's rejection text was addressed to the model, not to the user", () => {
    const text = renderFixReport(report(), plain);
    expect(text).toMatch(/^ {2}claims \(step 1\) refused a call; the model was told:\n {4}not in the file: /m);
  });

  it("escapes C0/C1 controls and bidi overrides but keeps newlines, tabs and other text; idempotent", () => {
    expect(escapeControls("a\tb\nc é ✓")).toBe("a\tb\nc é ✓");
    expect(escapeControls(HOSTILE)).toBe(ESCAPED);
    expect(escapeControls(escapeControls(HOSTILE))).toBe(ESCAPED);
  });

  it("treats text of only whitespace and invisible characters as blank", () => {
    expect(isBlankText(" \u200b\u200d\u2060\ufeff\u202e\u2066\u00ad\n\t\u3000")).toBe(true);
    expect(isBlankText("\u200bx")).toBe(false);
  });
});

describe("renderReview", () => {
  it("names evidence when it did not run, and why, so review and fix list the same eight rules", () => {
    const names = ["grounded_hunks", "edit_policy", "paths", "size", "syntax", "imports", "secrets"] as const;
    const without = renderReview({ ...review("m"), rulesChecked: [...names] }, plain);
    expect(without.split("\n")[0]).toContain(
      `(rules: ${names.join(", ")}; not checked: evidence, which needs a groundfix run's record)`,
    );
    const withIt = renderReview({ ...review("m"), rulesChecked: [...names, "evidence"] }, plain);
    expect(withIt.split("\n")[0]).toContain(`(rules: ${names.join(", ")}, evidence)`);
  });

  it("keeps the leading spaces of quoted lines and puts further message lines under the finding", () => {
    const text = renderReview(
      {
        ...review('line 3 is "    return x;" in the diff but "\treturn y;" at base\n  expected:\n      return x;'),
        findings: [],
      },
      plain,
    );
    expect(text).toMatch(/^Review\s+failure — no findings/);
    const one = renderReview(
      review('line 3 is "    return x;" in the diff but "  return y;" at base\n      return x;'),
      plain,
    );
    expect(one).toContain('line 3 is "    return x;" in the diff but "  return y;" at base\n            return x;');
  });
});

describe("fix --json", () => {
  it("gives a CRLF file's edit diff with its \\r (git apply takes it); an LF file's diff is unchanged", () => {
    for (const [content, crlf] of [
      ["a\r\nb\r\n", true],
      ["a\nb\n", false],
    ] as const) {
      const applied = applyVerbatimEdit(content, { code_before: "a\n", code_after: "a\nz\n" }, { path: "w.txt" });
      if (!applied.ok) throw new Error(applied.message);
      const r = report();
      const edit = { ...r.result.edits[0]!, path: "w.txt", diff: applied.diff };
      r.result = { ...r.result, edits: [edit], files: [{ path: "w.txt", content: applied.content, mode: "100644" }] };
      const diff = fixToJson(r).edits[0]!.diff;
      expect(diff).toContain(crlf ? " a\r\n+z\r\n b\r\n" : " a\n+z\n b\n");
    }
  });
});
