import { describe, expect, it } from "vitest";
import { planNextTurn, type PlannedCall } from "../../../src/agent/models/heuristic/plan.js";
import { createHeuristicModel } from "../../../src/agent/models/heuristic.js";
import type { Message } from "../../../src/agent/models/types.js";
import { createReadLog, readTools, runTool } from "../../../src/tools/index.js";
import type { ToolData } from "../../../src/tools/results.js";
import type { Snapshot } from "../../../src/types.js";
import { buildSnapshot } from "../helpers.js";

const FILE = [
  "function total(items) {",
  "  let sum = 0;",
  "  for (const item of items) {",
  "    sum += item.price;",
  "  }",
  "  return sum / items.length;",
  "}",
  "",
  "function average(items) {",
  "  let sum = 0;",
  "  return sum / items.length;",
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

/** The read tools' real answers (text and data) over `src/cart.js`; `edit` scripts the suggest_addition answers. */
async function answer(
  c: PlannedCall,
  edit: string[],
  snapshot: Snapshot,
): Promise<{ content: string; data?: ToolData }> {
  if (c.name === "suggest_addition")
    return {
      content: edit.shift() ?? "APPLIED: edit 1 to src/cart.js (addition, anchored on lines 10-10).\n@@ -10,1 +10,3 @@",
    };
  const tool = readTools.find((t) => t.name === c.name);
  if (!tool) return { content: "REJECTED: unexpected" };
  const result = await runTool(tool, c.arguments, { snapshot, reads: createReadLog() });
  return { content: result.text, ...(result.data ? { data: result.data } : {}) };
}

/** Drive the planner against the real read tools until it submits (or `max` turns); returns every call in order. */
async function drive(
  edit: string[],
  submitAnswers: string[] = [],
  max = 12,
  problem = PROBLEM,
): Promise<PlannedCall[]> {
  const snapshot = await buildSnapshot({ "src/cart.js": FILE });
  const messages: Message[] = [
    { role: "system", content: "rules" },
    { role: "user", content: problem },
  ];
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
      } else messages.push({ role: "tool", tool_call_id: c.id, name: c.name, ...(await answer(c, edit, snapshot)) });
    }
  }
  return all;
}

const of = (calls: PlannedCall[], name: string) =>
  calls.filter((c) => c.name === name).map((c) => c.arguments as Record<string, any>);

describe("planNextTurn", () => {
  it("reads before it edits, anchors on a line unique in the file, and guards the value the crash names", async () => {
    const calls = await drive([], [], 12, PROBLEM.replace("cart.js:10:7", "cart.js:11:20"));
    const names = calls.map((c) => c.name);
    expect(names.indexOf("get_file_contents")).toBeLessThan(names.indexOf("suggest_addition"));
    const [edit] = of(calls, "suggest_addition");
    // the frame line "  return sum / items.length;" occurs twice in the file: the anchor grows until it is unique
    const before = edit?.code_before as string;
    expect(before).toContain("  return sum / items.length;\n}");
    expect(FILE.split(before).length).toBe(2);
    expect(edit?.code_after).toBe(
      before.replace(
        "  return sum / items.length;",
        [
          "  if (items == null) {",
          "    throw new TypeError(`average(): items is null or undefined before reading 'length'`);",
          "  }",
          "  return sum / items.length;",
        ].join("\n"),
      ),
    );
    const [answerArgs] = of(calls, "submit_answer");
    expect(answerArgs).toMatchObject({
      affected_file: "src/cart.js",
      affected_function: "average",
      root_cause_snippet: "  return sum / items.length;",
      // `items` is the parameter itself: the caller passed it missing, the guard is a proposal
      confidence: 0.65,
    });
    expect(answerArgs?.summary).toBe(
      'The issue reports "TypeError: Cannot read properties of undefined (reading ' +
        "'length')\". The stack trace enters the repository at src/cart.js:11 in `average`. " +
        "A guard that fails with a clear error when `items` is missing is proposed before line 11. " +
        "It fails on the parameter `items` itself, which arrived missing: the cause is in the caller that passed it, " +
        "so this is a proposal, not the fix.",
    );
  });

  it(
    "re-anchors a frame line that does not read what the crash " +
      "names to the line of the same function that does, and says so",
    async () => {
      const calls = await drive([]);
      const [edit] = of(calls, "suggest_addition");
      expect(edit?.code_after).toContain(
        "  if (items == null) {\n    throw new TypeError(`average(): items is null " +
          "or undefined before reading 'length'`);\n  }\n  return sum / items.length;",
      );
      const [answerArgs] = of(calls, "submit_answer");
      expect(answerArgs?.root_cause_snippet).toBe("  return sum / items.length;");
      expect(answerArgs?.summary).toContain(
        "Line 10 of the trace does not read the member the error names (the " +
          "reporter's version may differ); line 11 of `average`, which does, was used.",
      );
    },
  );

  it("widens the anchor after an ambiguity rejection and re-reads after a read-before-edit rejection", async () => {
    const calls = await drive([
      "REJECTED: code_before occurs 2 times in src/cart.js (lines " +
        "2, 10); add surrounding lines so it occurs exactly once.",
      "REJECTED: code_before anchors on lines 9-11 of src/cart.js, but you " +
        "have not read line(s) 9-11 of it in this run. Call get_file_contents " +
        "on src/cart.js covering lines 9-11, then call suggest_addition again.",
    ]);
    const edits = of(calls, "suggest_addition");
    expect(edits).toHaveLength(3);
    expect((edits[1]?.code_before as string).split("\n").length).toBeGreaterThan(
      (edits[0]?.code_before as string).split("\n").length,
    );
    const names = calls.map((c) => c.name);
    const second = names.indexOf("suggest_addition", names.indexOf("suggest_addition") + 1);
    const third = names.indexOf("suggest_addition", second + 1);
    expect(names.slice(second + 1, third)).toContain("get_file_contents");
  });

  it("gives up the edit after a path-policy rejection and answers with a lower confidence", async () => {
    const calls = await drive([
      'REJECTED: src/cart.js may not be edited: it matches the deny rule "src/**". Put the addition in another file.',
    ]);
    expect(of(calls, "suggest_addition")).toHaveLength(1);
    const [answerArgs] = of(calls, "submit_answer");
    expect(answerArgs?.affected_file).toBe("src/cart.js");
    expect(answerArgs?.confidence).toBeLessThan(0.7);
  });

  it("drops a rejected claim and lowers the confidence on the next answer", async () => {
    const calls = await drive(
      [],
      ['REJECTED: affected_function "average" is not defined in src/cart.js; it defines total, average2.'],
    );
    const answers = of(calls, "submit_answer");
    expect(answers).toHaveLength(2);
    expect(answers[1]?.affected_function).toBeNull();
    expect(answers[1]?.confidence).toBeLessThan(answers[0]?.confidence);
  });

  it("returns the same turn for the same messages", async () => {
    const messages: Message[] = [
      { role: "system", content: "rules" },
      { role: "user", content: PROBLEM },
    ];
    const model = createHeuristicModel();
    const a = await model.next({ messages, tools: [] });
    const b = await createHeuristicModel().next({ messages, tools: [] });
    expect(b).toEqual(a);
    expect(a.tool_calls[0]).toMatchObject({ id: "h1_1", name: "describe_repo" });
  });

  it("only calls tools that are offered", () => {
    const messages: Message[] = [
      { role: "system", content: "rules" },
      { role: "user", content: PROBLEM },
    ];
    const plan = planNextTurn(
      messages,
      new Set(["list_files", "get_file_contents", "suggest_addition", "submit_answer"]),
    );
    expect(plan.calls.map((c) => c.name)).toEqual(["list_files"]);
  });
});
