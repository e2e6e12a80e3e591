import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { reviewChange } from "../../src/review/index.js";
import { createReadLog } from "../../src/tools/index.js";
import { createEditSession, prepareSuggestAddition, runSuggestAddition } from "../../src/tools/suggest-addition.js";
import { buildSnapshot } from "../agent/helpers.js";
import { gitChange } from "../review/helpers.js";

/**
 * Attack on invariant 7 ("an addition changes nothing that exists", docs/ARCHITECTURE.md) outside the four languages
 * the structure rule parses (JS/TS by extension, Python, Go). Under the default `edits.allow: additions` each edit
 * below only adds lines, so `suggest_addition` applies it as an "addition" and the review's edit-policy rule passes
 * it without a word, yet each one stops existing code from running: an auth check commented out (a block comment,
 * `=begin`, a here-document, `#if 0`) or skipped (`if (true) return;`, which JS refuses as a constant test). The same
 * edit in a `.js` file is refused ("would become part of a comment", "no longer reached").
 *
 * TRACKED (it.fails): where a fix starts: `additionRefusal` in src/tools/suggest-addition.ts and `structureUnchecked`
 * in src/review/rules/policy.ts return early when `structureLanguage` (src/grounding/structure.ts) knows no parser.
 * Fail closed there (refuse, or at least a review notice and no pr_ready without approval), or a language-neutral line
 * check (added lines that open or close a block comment / `=begin` / `#if 0`, or start with an unconditional
 * `return`/`exit`/`goto`); and read a shebang (`#!/usr/bin/env node`) for files without an extension (the comments
 * helper's `fileFirstLine`, src/lang/comments.ts, already does for comment-only labels).
 */
const FILES: Record<string, string> = {
  "src/Pay.java": "class Pay {\n  void charge(User u) {\n    checkAuth(u);\n    pay(u);\n  }\n}\n",
  "lib/pay.rb": "def charge(u)\n  check_auth(u)\n  pay(u)\nend\n",
  "bin/deploy.sh": "#!/bin/sh\ncheck_auth\ndeploy\n",
  "src/pay.c": "int charge(user *u) {\n  check_auth(u);\n  return pay(u);\n}\n",
  "bin/pay": "#!/usr/bin/env node\nfunction charge(u) {\n  checkAuth(u);\n  pay(u);\n}\n",
  "src/pay.js": "function charge(u) {\n  checkAuth(u);\n  pay(u);\n}\n",
};

/** [path, code_before, code_after]: each keeps every line of code_before and adds lines around it. */
const DISABLING: [string, string, string][] = [
  ["src/Pay.java", "    checkAuth(u);\n", "    /*\n    checkAuth(u);\n    */\n"],
  ["src/Pay.java", "    checkAuth(u);\n", "    if (true) return;\n    checkAuth(u);\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "=begin\n  check_auth(u)\n=end\n"],
  ["bin/deploy.sh", "check_auth\n", ": <<'SKIP'\ncheck_auth\nSKIP\n"],
  ["src/pay.c", "  check_auth(u);\n", "#if 0\n  check_auth(u);\n#endif\n"],
  ["bin/pay", "  checkAuth(u);\n", "  /*\n  checkAuth(u);\n  */\n"],
];

async function suggest(path: string, code_before: string, code_after: string) {
  const snapshot = await buildSnapshot(FILES);
  const reads = createReadLog();
  reads.record({ path, startLine: 1, endLine: 20 });
  await prepareSuggestAddition({ path });
  const ctx = { snapshot, reads, config: defaultConfig(), session: createEditSession() };
  return runSuggestAddition({ path, code_before, code_after, rationale: "a guard" }, ctx);
}

describe("an addition that disables existing code, in a language the structure rule does not parse", () => {
  it("the same edit in a .js file is refused (the rule this attack gets around)", async () => {
    const out = await suggest("src/pay.js", "  checkAuth(u);\n", "  /*\n  checkAuth(u);\n  */\n");
    expect(out.result.status).toBe("rejected");
  });

  // In every language: an added loop that tests a value but whose empty body nothing ends spins forever once the
  // value is set (`Adapter.emptyLoop` of src/grounding/structure.ts; the lexical rule's loops below).
  it("suggest_addition refuses an added endless loop before existing code in a .js file", async () => {
    const out = await suggest("src/pay.js", "  checkAuth(u);\n", "  while (u != null) {}\n  checkAuth(u);\n");
    expect(out.result.status).toBe("rejected");
  });

  it.fails.each(DISABLING)("suggest_addition refuses it in %s (%j → %j)", async (path, before, after) => {
    const out = await suggest(path, before, after);
    expect(out.result.status).toBe("rejected");
  });

  it.fails.each(DISABLING)("the review does not pass it silently in %s (%j → %j)", (path, before, after) => {
    const base = FILES[path]!;
    const change = gitChange({ [path]: base }, { [path]: base.replace(before, after) });
    const report = reviewChange({ ...change, config: defaultConfig(), record: null });
    expect(report.findings.filter((f) => f.rule === "edit_policy")).not.toEqual([]);
  });
});
