import { describe, expect, it } from "vitest";
import { planNextTurn, type PlannedCall } from "../../../src/agent/models/heuristic/plan.js";
import { createHeuristicModel } from "../../../src/agent/models/heuristic.js";
import type { Message } from "../../../src/agent/models/types.js";

const FILE = [
  "function total(items) {",
  "  let sum = 0;",
  "  for (const item of items) {",
  "    sum += item.price;",
  "  }",
  "  return sum;",
  "}",
  "",
  "function average(items) {",
  "  let sum = 0;",
  "  return total(items) / items.length;",
  "}",
].join("\n");

const PROBLEM = [
  "Problem title: Crash in checkout",
  "Source: issue",
  "<problem>",
  "TypeError: Cannot read properties of undefined (reading 'length')",
  "    at average (/app/src/cart.js:10:7)",
  "</problem>",
].join("\n");

/** Answers like the read tools do, for one file `src/cart.js`; `edit` scripts the suggest_addition answers. */
function answer(c: PlannedCall, edit: string[]): string {
  const args = c.arguments as Record<string, any>;
  switch (c.name) {
    case "describe_repo":
      return "Repository at 0123456: 1 file\nsrc/ (1 file)";
    case "list_files":
      return args.glob === "cart.js" ? "1 paths match 'cart.js' (showing 1-1):\nsrc/cart.js" : `0 paths match '${args.glob}'.`;
    case "get_file_contents": {
      const lines = FILE.split("\n");
      const start = args.start_line ?? 1;
      const end = Math.min(args.end_line ?? lines.length, lines.length);
      const body = lines.slice(start - 1, end).map((l, i) => `${String(start + i).padStart(4)}| ${l}`);
      return [`src/cart.js (lines ${start}-${end} of ${lines.length})`, ...body].join("\n");
    }
    case "grep_codebase":
      return `0 matches for ${JSON.stringify(args.pattern)}.`;
    case "verify_symbol_in_repo":
      return args.name === "average" ? "FOUND: average is defined 1 time(s) under src/cart.js:\nsrc/cart.js:9-12 function average" : `NOT_FOUND: no definition of ${args.name}.`;
    case "suggest_addition":
      return edit.shift() ?? "APPLIED: edit 1 to src/cart.js (addition, anchored on lines 10-10).\n@@ -10,1 +10,3 @@";
    default:
      return "REJECTED: unexpected";
  }
}

/** Drive the planner against {@link answer} until it submits (or `max` turns); returns every call in order. */
function drive(edit: string[], submitAnswers: string[] = [], max = 12): PlannedCall[] {
  const messages: Message[] = [{ role: "system", content: "rules" }, { role: "user", content: PROBLEM }];
  const all: PlannedCall[] = [];
  for (let turn = 1; turn <= max; turn++) {
    const plan = planNextTurn(messages, new Set());
    const calls = plan.calls.map((c, i) => ({ id: `c${turn}_${i}`, name: c.name, arguments: c.arguments }));
    messages.push({ role: "assistant", content: plan.text, tool_calls: calls });
    all.push(...plan.calls);
    for (const c of calls) {
      if (c.name === "submit_answer") {
        const next = submitAnswers.shift();
        if (next === undefined) return all;
        messages.push({ role: "tool", tool_call_id: c.id, name: c.name, content: next });
      } else messages.push({ role: "tool", tool_call_id: c.id, name: c.name, content: answer(c, edit) });
    }
  }
  return all;
}

const of = (calls: PlannedCall[], name: string) => calls.filter((c) => c.name === name).map((c) => c.arguments as Record<string, any>);

describe("planNextTurn", () => {
  it("reads before it edits, anchors on a line unique in the file, and inserts before the frame's statement", () => {
    const calls = drive([]);
    const names = calls.map((c) => c.name);
    expect(names.indexOf("get_file_contents")).toBeLessThan(names.indexOf("suggest_addition"));
    const [edit] = of(calls, "suggest_addition");
    // the frame line "  let sum = 0;" occurs twice in the file: the anchor grows until it is unique
    expect(edit?.code_before).toBe("  let sum = 0;\n  return total(items) / items.length;");
    expect(edit?.code_after).toBe(
      [
        "  // groundfix: TypeError: Cannot read properties of undefined (reading 'length'); the issue's trace points here.",
        "  console.error(\"[groundfix] average(): TypeError: Cannot read properties of undefined (reading 'length')\");",
        "  let sum = 0;",
        "  return total(items) / items.length;",
      ].join("\n"),
    );
    const [answerArgs] = of(calls, "submit_answer");
    expect(answerArgs).toMatchObject({ affected_file: "src/cart.js", affected_function: "average", root_cause_snippet: "  let sum = 0;", confidence: 0.85 });
    expect(answerArgs?.summary).toBe(
      "The issue reports \"TypeError: Cannot read properties of undefined (reading 'length')\". The stack trace enters the repository at src/cart.js:10 in `average`. A comment and a log line were added before line 10.",
    );
  });

  it("widens the anchor after an ambiguity rejection and re-reads after a read-before-edit rejection", () => {
    const calls = drive([
      "REJECTED: code_before occurs 2 times in src/cart.js (lines 2, 10); add surrounding lines so it occurs exactly once.",
      "REJECTED: code_before anchors on lines 9-11 of src/cart.js, but you have not read line(s) 9-11 of it in this run. Call get_file_contents on src/cart.js covering lines 9-11, then call suggest_addition again.",
    ]);
    const edits = of(calls, "suggest_addition");
    expect(edits).toHaveLength(3);
    expect((edits[1]?.code_before as string).split("\n").length).toBeGreaterThan((edits[0]?.code_before as string).split("\n").length);
    const names = calls.map((c) => c.name);
    const second = names.indexOf("suggest_addition", names.indexOf("suggest_addition") + 1);
    const third = names.indexOf("suggest_addition", second + 1);
    expect(names.slice(second + 1, third)).toContain("get_file_contents");
  });

  it("gives up the edit after a path-policy rejection and answers with a lower confidence", () => {
    const calls = drive(["REJECTED: src/cart.js may not be edited: it matches the deny rule \"src/**\". Put the addition in another file."]);
    expect(of(calls, "suggest_addition")).toHaveLength(1);
    const [answerArgs] = of(calls, "submit_answer");
    expect(answerArgs?.affected_file).toBe("src/cart.js");
    expect(answerArgs?.confidence).toBeLessThan(0.7);
  });

  it("drops a rejected claim and lowers the confidence on the next answer", () => {
    const calls = drive([], ["REJECTED: affected_function \"average\" is not defined in src/cart.js; it defines total, average2."]);
    const answers = of(calls, "submit_answer");
    expect(answers).toHaveLength(2);
    expect(answers[1]?.affected_function).toBeNull();
    expect(answers[1]?.confidence).toBeLessThan(answers[0]?.confidence);
  });

  it("returns the same turn for the same messages", async () => {
    const messages: Message[] = [{ role: "system", content: "rules" }, { role: "user", content: PROBLEM }];
    const model = createHeuristicModel();
    const a = await model.next({ messages, tools: [] });
    const b = await createHeuristicModel().next({ messages, tools: [] });
    expect(b).toEqual(a);
    expect(a.tool_calls[0]).toMatchObject({ id: "h1_1", name: "describe_repo" });
  });

  it("only calls tools that are offered", () => {
    const messages: Message[] = [{ role: "system", content: "rules" }, { role: "user", content: PROBLEM }];
    const plan = planNextTurn(messages, new Set(["list_files", "get_file_contents", "suggest_addition", "submit_answer"]));
    expect(plan.calls.map((c) => c.name)).toEqual(["list_files"]);
  });
});
