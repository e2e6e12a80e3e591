import { describe, expect, it } from "vitest";
import { runTool, searchCodebase, verifySymbolInRepo } from "../../src/tools/index.js";
import { makeContext } from "./fixture.js";

describe("search_codebase expansions", () => {
  it("lists the closest expansion of a word the repository lacks first in why a file matched", async () => {
    const ctx = await makeContext({
      "src/parse.js": "export function parseConfigurationFile(p) {}\nexport function parser(p) {}\nexport function parseAll(p) {}\n",
    });
    const r = await runTool(searchCodebase, { query: "pars" }, ctx);
    const line = r.text.split("\n").find((l) => l.startsWith("1. src/parse.js — "));
    expect(line).toBeDefined();
    const words = [...(line ?? "").matchAll(/"([a-z]+)" in/g)].map((m) => m[1]);
    expect(words.slice(0, 2)).toEqual(["parse", "parser"]);
  });
});

describe("verify_symbol_in_repo similar names", () => {
  it("finds a one-letter typo among many names that share its words, closest first", async () => {
    const body = Array.from({ length: 300 }, (_, i) => `export function handleAudit${i}_1(x) {}\n`).join("") + "export function handleAuditLog(x) {}\n";
    const ctx = await makeContext({ "src/audit.js": body });
    const r = await runTool(verifySymbolInRepo, { name: "handleAuditLgo" }, ctx);
    expect(r.status).toBe("not_found");
    expect(r.text).toMatch(/Similar defined names: function handleAuditLog \(src\/audit\.js:301\)/);
  });
});
