import { describe, expect, it } from "vitest";
import { answerGate } from "../../src/agent/gates.js";
import { config } from "./helpers.js";

const call = (name: string, status: "ok" | "not_found" | "rejected" = "ok", readsCode = true) => ({
  name,
  status,
  readsCode,
});

describe("answerGate (tool-name gate and count floor)", () => {
  it("does not count a NOT_FOUND read, and says so", () => {
    const gated = answerGate([call("list_files"), call("get_file_contents", "not_found")], config());
    expect(gated).toEqual({
      gate: "tool_name",
      message:
        "REJECTED: you must call at least one of [get_file_contents, grep_codebase, " +
        "search_codebase] before answering; you have called [list_files, get_file_contents], " +
        "but get_file_contents never answered successfully (a NOT_FOUND or rejected " +
        "call does not count). Read the code, then call submit_answer again.",
    });
  });

  it("lets an answer through after one successful read with the default config", () => {
    expect(answerGate([call("grep_codebase")], config())).toBeNull();
  });

  it("honours a repository's own required set", () => {
    const cfg = config({ agent: { required_tools: ["verify_symbol_in_repo"] } });
    expect(answerGate([call("get_file_contents")], cfg)!.message).toMatch(
      /^REJECTED: you must call at least one of \[verify_symbol_in_repo\]/,
    );
    expect(answerGate([call("verify_symbol_in_repo")], cfg)).toBeNull();
  });

  it("counts only code-reading calls toward the floor", () => {
    const cfg = config({ agent: { min_tool_calls: 2 } });
    expect(answerGate([call("get_file_contents"), call("suggest_addition", "ok", false)], cfg)!.gate).toBe(
      "count_floor",
    );
    expect(answerGate([call("get_file_contents"), call("list_files", "not_found")], cfg)).toBeNull();
  });

  it("is open with an empty required set and a zero floor", () => {
    expect(answerGate([], config({ agent: { required_tools: [], min_tool_calls: 0 } }))).toBeNull();
  });

  it(
    "an empty search or grep never lets an answer that " + "names code through; one that names nothing may follow it",
    () => {
      const empty = [
        { ...call("search_codebase"), empty: true },
        { ...call("grep_codebase"), empty: true },
      ];
      expect(answerGate(empty, config())!.gate).toBe("tool_name");
      expect(answerGate(empty, config(), true)!.message).toContain(
        "nor a search_codebase that listed no file or grep_codebase with 0 matches: it showed no code",
      );
      // A needs-information answer (no file, function or snippet): the model looked, and cites nothing.
      expect(answerGate(empty, config(), false)).toBeNull();
      // …but not without having looked at all.
      expect(answerGate([call("list_files")], config(), false)!.gate).toBe("tool_name");
    },
  );
});
