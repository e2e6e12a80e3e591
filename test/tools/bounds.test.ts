import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { getFileContents, grepCodebase, runTool, searchCodebase, verifySymbolInRepo } from "../../src/tools/index.js";
import { checkClaims } from "../../src/tools/submit-answer.js";
import { createEditSession, runSuggestAddition } from "../../src/tools/suggest-addition.js";
import { makeContext } from "./fixture.js";

const FILES = { "a/small.js": "const a = 1;\n", "z/big.js": "const b = 2;\n".repeat(400) };

describe("a file the snapshot's total cap left out is present but too large, never 'no such file'", () => {
  it("get_file_contents, suggest_addition and submit_answer all say so", async () => {
    const ctx = await makeContext(FILES, { maxTotalBytes: 2000 });
    expect(ctx.snapshot.stats.leftOut.map((l) => l.path)).toEqual(["z/big.js"]);
    const read = await runTool(getFileContents, { path: "z/big.js" }, ctx);
    expect(read.text).toMatch(
      /^NOT_FOUND: z\/big\.js exists at 0123456 but is too large for the snapshot \(total size cap/,
    );
    const edit = runSuggestAddition(
      { path: "z/big.js", code_before: "const b = 2;\n", code_after: "const b = 2;\n// x\n", rationale: "r" },
      { ...ctx, config: defaultConfig(), session: createEditSession() },
    );
    expect(edit.result.text).toMatch(/^REJECTED: z\/big\.js exists at 0123456 but is too large/);
    const claims = checkClaims(
      { summary: "s", affected_file: "z/big.js", affected_function: null, root_cause_snippet: null, confidence: 0.5 },
      ctx.snapshot,
    );
    expect(claims.failures[0]).toMatch(
      /^z\/big\.js exists at 0123456 but is too large for the snapshot .*groundfix cannot cite it/,
    );
  });
});

describe("names and queries from a model have a length cap", () => {
  it.each([
    ["verify_symbol_in_repo", verifySymbolInRepo, { name: "x".repeat(100_000) }],
    ["search_codebase", searchCodebase, { query: "word ".repeat(100_000) }],
    ["grep_codebase", grepCodebase, { pattern: "a".repeat(100_000) }],
    ["get_file_contents", getFileContents, { path: "a/".repeat(50_000) }],
  ])("%s refuses an oversized argument as INVALID", async (_name, tool, args) => {
    const ctx = await makeContext(FILES);
    const result = await runTool(tool, args, ctx);
    expect(result.status).toBe("invalid");
    expect(result.text.length).toBeLessThan(1000);
  });
});
