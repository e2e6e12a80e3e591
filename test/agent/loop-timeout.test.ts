import { describe, expect, it, vi } from "vitest";
import { runAgent } from "../../src/agent/index.js";
import type { Model, ModelTurn } from "../../src/agent/models/types.js";
import { buildSnapshot, config, task } from "./helpers.js";

// suggest_addition's preparation (loading a grammar) made slow: it finishes after the tool time limit.
vi.mock("../../src/tools/suggest-addition.js", async (importOriginal) => {
  const real = await importOriginal<typeof import("../../src/tools/suggest-addition.js")>();
  return { ...real, prepareSuggestAddition: () => new Promise<void>((resolve) => setTimeout(resolve, 100)) };
});

describe("runAgent: an edit that outlives the tool time limit", () => {
  it("is answered TIMEOUT and never applied later, even when its preparation finishes during the run", async () => {
    const read = { id: "r", name: "get_file_contents", arguments: { path: "src/models/log.js" } };
    const edit = {
      id: "e",
      name: "suggest_addition",
      arguments: {
        path: "src/models/log.js",
        code_before: "function writeLog(entries) {\n",
        code_after: "function writeLog(entries) {\n  logger.info(`writing ${entries.length} entries`);\n",
        rationale: "r",
      },
    };
    const answer = {
      id: "a",
      name: "submit_answer",
      arguments: {
        summary: "s",
        affected_file: "src/models/log.js",
        affected_function: null,
        root_cause_snippet: null,
        confidence: 0.9,
      },
    };
    const turns: ModelTurn[] = [
      { text: "", tool_calls: [read, edit] },
      { text: "", tool_calls: [answer] },
    ];
    let n = 0;
    // The second turn comes after the preparation would have finished.
    const model: Model = {
      spec: "slow",
      next: () => new Promise((r) => setTimeout(() => r(turns[n++]!), n === 0 ? 0 : 300)),
    };
    const result = await runAgent({
      task: task(),
      snapshot: await buildSnapshot(),
      model,
      config: config(),
      limits: { toolTimeoutMs: 20 },
    });
    expect(result.trace.steps[0]!.tool_calls[1]!.result).toMatch(/^TIMEOUT: suggest_addition did not finish/);
    expect(result.edits).toEqual([]);
    expect(result.outcome).toBe("diagnosis_only");
  });
});
