import { describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/index.js";
import { createModel } from "../../src/agent/models/index.js";
import { STRIPPED_MARKER } from "../../src/agent/hygiene.js";
import type { Snapshot } from "../../src/types.js";
import { buildSnapshot, config, spy, task, transcriptPath } from "./helpers.js";

let snap: Snapshot;
async function run(name: string, raw: Record<string, unknown> = {}) {
  snap ??= await buildSnapshot();
  const model = spy(createModel(`replay:${transcriptPath(name)}`));
  const result = await runAgent({ task: task(), snapshot: snap, model, config: config(raw) });
  const toolTexts = result.trace.steps.flatMap((s) =>
    s.tool_calls.map((c) => ({ name: c.name, status: c.status, gate: c.gate, text: c.result })),
  );
  return { result, model, toolTexts };
}

describe("replayed confabulations are caught by the gates (issue 4, Done when)", () => {
  it(
    "(a) an answer after only non-reading tools is rejected " +
      "by the tool-name gate, then accepted after a real read",
    async () => {
      const { result, toolTexts } = await run("a-answer-after-non-reading-tools.json");
      expect(result.gates.rejections).toHaveLength(1);
      expect(result.gates.rejections[0]).toMatchObject({ gate: "tool_name", step: 2 });
      const told = toolTexts.find((t) => t.gate === "tool_name")!.text;
      expect(told).toBe(
        "REJECTED: you must call at least one of [get_file_contents, grep_codebase, search_codebase] " +
          "before answering; you have called [describe_repo, list_files], which include none of " +
          "them. Read the code, then call submit_answer again. (answer attempt 1 of 3)",
      );
      expect(result.outcome).toBe("diagnosis_only");
      expect(result.diagnosis).toMatchObject({
        affected_file: "src/models/log.js",
        affected_function: "formatEntry",
        confidence: 0.6,
      });
      expect(result.diagnosis!.citations).toEqual([{ path: "src/models/log.js", start_line: 6, end_line: 6 }]);
    },
  );

  it("(b) an agent that never reads fails closed after the attempt limit", async () => {
    const { result, toolTexts } = await run("b-never-reads.json");
    expect(result.outcome).toBe("failed_closed");
    expect(result.gates.rejections.map((r) => r.gate)).toEqual(["tool_name", "tool_name", "tool_name"]);
    expect(result.reason).toMatch(/rejected 3 time\(s\) by the tool_name gate/);
    expect(toolTexts.at(-1)!.text).toMatch(/answer attempt 3 of 3\) No attempts left: the run fails closed\.$/);
    // The run stopped at the limit: the fifth recorded turn (a read) was never asked for.
    expect(result.trace.steps).toHaveLength(4);
    expect(result.diagnosis).toBeNull();
    expect(result.edits).toEqual([]);
  });

  it("(c) a fabricated code_before is rejected with the nearest real region, the corrected edit applies", async () => {
    const { result, toolTexts } = await run("c-fabricated-code-before.json");
    const rejection = toolTexts.find((t) => t.gate === "verbatim_edit")!;
    expect(rejection.status).toBe("rejected");
    expect(rejection.text).toMatch(
      new RegExp(
        String.raw`^REJECTED: code_before was not found in src\/models\/log\.js\. ` +
          String.raw`The closest text is lines 4-5; it differs only in indentation`,
      ),
    );
    expect(rejection.text).toContain("  5|   const when = formatDate(entry.at);");
    expect(result.edits).toHaveLength(1);
    expect(result.edits[0]).toMatchObject({
      path: "src/models/log.js",
      startLine: 4,
      endLine: 5,
      baseStartLine: 4,
      baseEndLine: 5,
      kind: "addition",
    });
    expect(result.files).toHaveLength(1);
    expect(result.files[0]!.mode).toBe("100644");
    expect(result.files[0]!.content).toBe(
      snap
        .read("src/models/log.js")!
        .replace(
          "function formatEntry(entry) {\n",
          "function formatEntry(entry) {\n  if (!entry.user) {\n    " +
            "logger.info(`log entry without a user: ${JSON.stringify(entry)}`);\n  }\n",
        ),
    );
    expect(result.outcome).toBe("pr_ready");
    expect(result.diagnosis!.citations).toEqual([
      { path: "src/models/log.js", start_line: 6, end_line: 6 },
      { path: "src/models/log.js", start_line: 4, end_line: 5 },
    ]);
  });

  it(
    "(d) a plausible sibling of the real file is rejected with the real " +
      "path; after the last attempt the field is null and confidence capped",
    async () => {
      const { result, toolTexts } = await run("d-nonexistent-file.json");
      const claims = toolTexts.filter((t) => t.name === "submit_answer");
      expect(result.gates.rejections.map((r) => r.gate)).toEqual(["claims", "claims", "claims"]);
      expect(claims[0]!.text).toMatch(
        new RegExp(
          String.raw`^REJECTED: affected_file "src\/model\/log\.js" does not exist in ` +
            String.raw`the repository at 0123456\. Nearest real paths: src\/models\/log\.js`,
        ),
      );
      expect(claims[2]!.text).toMatch(
        new RegExp(
          String.raw`^ACCEPTED WITH UNVERIFIED CLAIMS REMOVED: .*affected_file, affected_function, ` +
            String.raw`root_cause_snippet set to null and confidence capped at 0\.3`,
        ),
      );
      expect(result.diagnosis).toMatchObject({
        affected_file: null,
        affected_function: null,
        root_cause_snippet: null,
        confidence: 0.3,
        citations: [],
      });
      expect(result.outcome).toBe("needs_information");
    },
  );

  it("(d') a capped answer never becomes pr_ready, even with thresholds at zero", async () => {
    const { result } = await run("d-nonexistent-file.json", { thresholds: { comment: 0, pull_request: 0 } });
    expect(result.diagnosis!.confidence).toBe(0.3);
    expect(result.outcome).not.toBe("pr_ready");
  });

  it("(e) a self-written Observation block is stripped before the turn enters the history, and counted", async () => {
    const { result, model } = await run("e-self-written-observation.json");
    expect(result.gates.observations_stripped).toBe(1);
    expect(result.trace.steps[0]!.observations_stripped).toBe(1);
    const assistant = model.seen[1]!.find((m) => m.role === "assistant")!;
    expect(assistant.content).not.toContain("already checks entry.user");
    expect(assistant.content).not.toContain("The bug must be in the logger");
    expect(assistant.content).toContain(STRIPPED_MARKER);
    expect(assistant.content).toContain("Thought: I will confirm with a real read.");
    expect(result.trace.steps[0]!.text).not.toContain("Observation:");
    // The recorded transcript keeps the raw turn, so a replay strips it again.
    expect(result.transcript.turns[0]!.text).toContain("Observation:");
    expect(result.outcome).toBe("diagnosis_only");
  });

  it("(f) with an empty tool-name set the same answer is accepted as before the gate existed", async () => {
    const gated = await run("f-empty-tool-name-set.json");
    expect(gated.result.gates.rejections[0]!.gate).toBe("tool_name");
    expect(gated.result.outcome).toBe("failed_closed");
    expect(gated.result.reason).toBe("model error: replay transcript exhausted");

    const open = await run("f-empty-tool-name-set.json", { agent: { required_tools: [] } });
    expect(open.result.gates.rejections).toEqual([]);
    expect(open.result.outcome).toBe("diagnosis_only");
    expect(open.result.diagnosis!.affected_file).toBe("src/models/log.js");
  });

  it("(g) with both the tool-name gate and the count floor unmet, the message names the tool-name gate", async () => {
    const { result, toolTexts } = await run("g-both-gates-unmet.json", { agent: { min_tool_calls: 2 } });
    expect(result.gates.rejections[0]!.gate).toBe("tool_name");
    expect(toolTexts[0]!.text).toBe(
      "REJECTED: you must call at least one of [get_file_contents, grep_codebase, search_codebase] " +
        "before answering; you have not called any tool yet. You also need at least 2 tool call(s); " +
        "you have made 0. Read the code, then call submit_answer again. (answer attempt 1 of 3)",
    );
    expect(result.outcome).toBe("diagnosis_only");
  });

  it("(g') the count floor alone names itself", async () => {
    const { result, toolTexts } = await run("g-both-gates-unmet.json", { agent: { min_tool_calls: 3 } });
    expect(result.gates.rejections.map((r) => r.gate)).toEqual(["tool_name", "count_floor"]);
    expect(toolTexts.at(-1)!.text).toBe(
      "REJECTED: you must make at least 3 tool call(s) before answering; you have made " +
        "2. Read more of the code, then call submit_answer again. (answer attempt 2 of 3)",
    );
    expect(result.outcome).toBe("failed_closed");
  });

  it("(h) an edit on lines never read is rejected by read-before-edit, and applies after reading them", async () => {
    const { result, toolTexts } = await run("h-edit-on-unread-lines.json");
    const rejection = toolTexts.find((t) => t.gate === "read_before_edit")!;
    expect(rejection.text).toBe(
      "REJECTED: code_before anchors on lines 10-11 of src/models/log.js, but you have not read " +
        "line(s) 10-11 of it in this run (you have read lines 1-5). Call get_file_contents with " +
        'path "src/models/log.js", start_line 10, end_line 11, then call suggest_addition again.',
    );
    expect(result.gates.rejections.map((r) => r.gate)).toEqual(["read_before_edit"]);
    expect(result.edits).toHaveLength(1);
    expect(result.edits[0]).toMatchObject({ startLine: 10, endLine: 11 });
    expect(result.outcome).toBe("pr_ready");
  });
});
