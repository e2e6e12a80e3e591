import { beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/index.js";
import { createModel } from "../../src/agent/models/index.js";
import { extractSymbols } from "../../src/grounding/symbols.js";
import { checkClaims, isMeaningfulSnippet } from "../../src/tools/submit-answer.js";
import type { Snapshot } from "../../src/types.js";
import { buildSnapshot, claimAnswer as answer, config, task, transcriptPath } from "./helpers.js";

let snap: Snapshot;
beforeAll(async () => {
  snap = await buildSnapshot();
});

describe("a verified snippet identifies code", () => {
  it.each(["}", "  }", "}\n", "return", "  for (", ";", "} else {", "  }\n}", "if (x) {", "   "])(
    "refuses %j although it occurs in the file, and says the rule",
    (snippet) => {
      const out = checkClaims(answer({ affected_function: "writeLog", root_cause_snippet: snippet }), snap);
      expect(out.root_cause_snippet).toBeNull();
      expect(out.citation).toBeNull();
      expect(out.failures).toHaveLength(1);
      expect(out.failures[0]).toMatch(
        new RegExp(
          String.raw`^root_cause_snippet ".*" does not identify code: a cited snippet must ` +
            String.raw`hold at least one name of 3 or more characters that is not a keyword`,
        ),
      );
      // The function claim itself still holds.
      expect(out.affected_function).toBe("writeLog");
    },
  );

  it("a brace that closes the named function is refused, the line that shows the cause is accepted", () => {
    expect(
      checkClaims(answer({ affected_function: "formatEntry", root_cause_snippet: "}" }), snap).failures,
    ).toHaveLength(1);
    const ok = checkClaims(
      answer({ affected_function: "formatEntry", root_cause_snippet: "  const when = formatDate(entry.at);" }),
      snap,
    );
    expect(ok.failures).toEqual([]);
    expect(ok.citation).toEqual({ path: "src/models/log.js", start_line: 5, end_line: 5 });
  });

  it("the rule: a name of 3+ characters that is not a keyword, in any language groundfix reads", () => {
    expect(isMeaningfulSnippet("return total;")).toBe(true);
    expect(isMeaningfulSnippet("  }\n  x.id = 1;")).toBe(false);
    expect(isMeaningfulSnippet("if err != nil {")).toBe(true); // `err`: 3 characters, not a keyword
    expect(isMeaningfulSnippet("if ok != nil {")).toBe(false);
    expect(isMeaningfulSnippet("    return None")).toBe(false);
    expect(isMeaningfulSnippet("end")).toBe(false);
    expect(isMeaningfulSnippet("} catch (e) {")).toBe(false);
    expect(isMeaningfulSnippet("  raise")).toBe(false);
    expect(isMeaningfulSnippet("def __init__(self):")).toBe(true);
    expect(isMeaningfulSnippet("RETURN THIS NULL")).toBe(false);
  });
});

describe("a verified snippet lies inside the named function", () => {
  it("a real line of another function is refused, with both line ranges", () => {
    const out = checkClaims(
      answer({ affected_function: "formatEntry", root_cause_snippet: "    logger.info(formatEntry(entry));" }),
      snap,
    );
    expect(out.failures).toEqual([
      'root_cause_snippet is at lines 11-11 of src/models/log.js, outside affected_function "formatEntry" ' +
        "(lines 4-7). Cite lines of that function, or name the function that holds the snippet.",
    ]);
    expect(out.affected_function).toBe("formatEntry");
    expect(out.root_cause_snippet).toBeNull();
    expect(out.citation).toBeNull();
  });

  it("a module-level line is not inside any function it is cited for", () => {
    const out = checkClaims(
      answer({ affected_function: "writeLog", root_cause_snippet: "module.exports = { formatEntry, writeLog };" }),
      snap,
    );
    expect(out.failures[0]).toMatch(/outside affected_function "writeLog" \(lines 9-13\)/);
  });

  it("a snippet that occurs twice is cited at its occurrence inside the named function", async () => {
    const twice = await buildSnapshot({
      "a.js": "function one(x) {\n  return x.total;\n}\n\nfunction two(x) {\n  return x.total;\n}\n",
    });
    const out = checkClaims(
      { ...answer({}), affected_file: "a.js", affected_function: "two", root_cause_snippet: "  return x.total;" },
      twice,
    );
    expect(out.failures).toEqual([]);
    expect(out.citation).toEqual({ path: "a.js", start_line: 6, end_line: 6 });
  });

  it(
    "a Python method with a multi-line signature spans its " + "whole body (symbols end at the dedent after the body)",
    async () => {
      const app = [
        "class App:",
        "    def add_rule(",
        "        self,",
        "        endpoint: str,",
        "    ) -> None:",
        "        if endpoint in self.rules:",
        "            raise AssertionError(endpoint)",
        "        self.rules[endpoint] = 1",
        "",
        "def other(",
        "    amount,",
        "):",
        "    return amount",
        "",
      ].join("\n");
      const syms = extractSymbols("app.py", app);
      expect(syms.find((s) => s.name === "add_rule")).toMatchObject({ line: 2, endLine: 8 });
      expect(syms.find((s) => s.name === "other")).toMatchObject({ line: 10, endLine: 13 });
      const py = await buildSnapshot({ "app.py": app });
      const out = checkClaims(
        {
          ...answer({}),
          affected_file: "app.py",
          affected_function: "App.add_rule",
          root_cause_snippet: "        self.rules[endpoint] = 1",
        },
        py,
      );
      expect(out.failures).toEqual([]);
      const outside = checkClaims(
        {
          ...answer({}),
          affected_file: "app.py",
          affected_function: "add_rule",
          root_cause_snippet: "    return amount",
        },
        py,
      );
      expect(outside.failures[0]).toMatch(/outside affected_function "add_rule" \(lines 2-8\)/);
    },
  );
});

describe("a grep with zero hits is not having read code (replayed)", () => {
  it(
    "an answer after only a 0-match grep is rejected by the " + "tool-name gate, and says why; a real read then passes",
    async () => {
      const model = createModel(`replay:${transcriptPath("j-empty-grep-is-no-read.json")}`);
      const result = await runAgent({ task: task(), snapshot: snap, model, config: config() });
      const texts = result.trace.steps.flatMap((s) =>
        s.tool_calls.map((c) => ({ name: c.name, gate: c.gate, text: c.result })),
      );
      expect(texts[0]!.text).toMatch(/^0 matches for "entry\.usr\.name"/);
      expect(result.gates.rejections).toHaveLength(1);
      expect(result.gates.rejections[0]).toMatchObject({ gate: "tool_name" });
      expect(texts.find((t) => t.gate === "tool_name")!.text).toBe(
        "REJECTED: you must call at least one of [get_file_contents, grep_codebase, search_codebase] " +
          "before answering; you have called [grep_codebase], but grep_codebase never answered " +
          "successfully (a NOT_FOUND or rejected call does not count, nor a grep_codebase with 0 " +
          "matches: it showed no code). Read the code, then call submit_answer again. (answer attempt 1 of 3)",
      );
      expect(result.diagnosis).toMatchObject({ affected_file: "src/models/log.js", affected_function: "formatEntry" });
      expect(result.diagnosis!.citations).toEqual([{ path: "src/models/log.js", start_line: 6, end_line: 6 }]);
    },
  );

  it("a grep with hits does count", async () => {
    const model = createModel(`replay:${transcriptPath("j-empty-grep-is-no-read.json")}`);
    const result = await runAgent({
      task: task(),
      snapshot: snap,
      model,
      config: config({ agent: { required_tools: ["grep_codebase"] } }),
    });
    // The second grep (entry.user.name) has hits: the second answer passes the gate, the first does not.
    expect(result.gates.rejections.map((r) => r.gate)).toEqual(["tool_name"]);
    expect(result.diagnosis?.affected_function).toBe("formatEntry");
  });
});

describe("a search with no hits is not having read code (replayed)", () => {
  it(
    "an answer after only an empty search_codebase is rejected by " +
      "the tool-name gate, and says why; a search with hits then passes",
    async () => {
      const model = createModel(`replay:${transcriptPath("k-empty-search-is-no-read.json")}`);
      const result = await runAgent({ task: task(), snapshot: snap, model, config: config() });
      const texts = result.trace.steps.flatMap((s) =>
        s.tool_calls.map((c) => ({ name: c.name, gate: c.gate, text: c.result })),
      );
      expect(texts[0]!.text).toMatch(/^No file or symbol matches/);
      expect(result.gates.rejections.map((r) => r.gate)).toEqual(["tool_name"]);
      expect(texts.find((t) => t.gate === "tool_name")!.text).toBe(
        "REJECTED: you must call at least one of [get_file_contents, grep_codebase, search_codebase] " +
          "before answering; you have called [search_codebase], but search_codebase never answered " +
          "successfully (a NOT_FOUND or rejected call does not count, nor a search_codebase that listed " +
          "no file: it showed no code). Read the code, then call submit_answer again. (answer attempt 1 of 3)",
      );
      // The second search lists src/models/log.js: the same answer then passes the gate.
      expect(texts[2]!.text).toContain("src/models/log.js");
      expect(result.diagnosis).toMatchObject({ affected_file: "src/models/log.js", affected_function: "formatEntry" });
    },
  );

  it("an empty search still counts toward the call floor (it was a call that answered)", async () => {
    const model = createModel(`replay:${transcriptPath("k-empty-search-is-no-read.json")}`);
    const result = await runAgent({
      task: task(),
      snapshot: snap,
      model,
      config: config({ agent: { required_tools: [], min_tool_calls: 1 } }),
    });
    // No tool-name gate and a floor of one: the empty search meets the floor, so the first answer passes.
    expect(result.gates.rejections).toEqual([]);
    expect(result.diagnosis?.affected_function).toBe("formatEntry");
  });
});
