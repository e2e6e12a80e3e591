import { describe, expect, it } from "vitest";
import { cutAtWord, extractErrorMessages, extractMentionedPaths, extractQuotedIdentifiers, headlineOf, parseProblem } from "../../../src/agent/models/heuristic/problem.js";
import { clauseAbout, nounPhrase } from "../../../src/agent/models/heuristic/wording.js";
import { classifyEditRejection, coversWholeFile, parseFileWindow, parseGrepHits, parseListedPaths, parsePaths, parseSearchFiles, parseVerify } from "../../../src/agent/models/heuristic/results.js";
import { declarationPattern } from "../../../src/agent/models/heuristic/plan.js";
import { RE2JS } from "re2js";

describe("parseProblem", () => {
  it("splits the task message and reads the alert location", () => {
    const p = parseProblem(
      ["Problem title: SQL built from user input", "Source: code_scanning", "Alert location: src/db/query.js:42", "<problem>", "Rule js/sql-injection: This query depends on a user-provided value.", "</problem>"].join("\n"),
    );
    expect(p).toMatchObject({ title: "SQL built from user input", source: "code_scanning", alert: { path: "src/db/query.js", line: 42 }, body: "Rule js/sql-injection: This query depends on a user-provided value." });
  });

  it("finds error messages of several runtimes, one line each", () => {
    const text = [
      "(node:1) [MONGOOSE] Warning: `errors` is a reserved schema pathname.",
      "TypeError: Cannot read properties of undefined (reading 'map')",
      "    at f (/app/a.js:1:1)",
      'Exception in thread "main" java.lang.IllegalStateException: not started',
      "panic: runtime error: index out of range [3] with length 3",
      "app/models/user.rb:12:in 'User#name': undefined method 'upcase' for nil (NoMethodError)",
      "NoMethodError (undefined method `name' for nil):",
      "Some prose that is not an error.",
    ].join("\n");
    expect(extractErrorMessages(text)).toEqual([
      "[MONGOOSE] Warning: `errors` is a reserved schema pathname.",
      "TypeError: Cannot read properties of undefined (reading 'map')",
      "java.lang.IllegalStateException: not started",
      "panic: runtime error: index out of range [3] with length 3",
      "undefined method 'upcase' for nil (NoMethodError)",
      "NoMethodError: undefined method `name' for nil",
    ]);
  });

  it("collects quoted identifiers (backticks first) and paths named in prose", () => {
    expect(extractQuotedIdentifiers("Field `errors` and 'user_id' in \"Order.total\"; not 'two words' nor `src/a.js`")).toEqual(["errors", "user_id", "Order.total"]);
    expect(extractMentionedPaths("I think src/models/user.js:12 or `lib/util.py` is wrong, see README.md.\n    at x (/app/b.js:1:1)")).toEqual(["src/models/user.js", "lib/util.py", "README.md"]);
  });
});

describe("shortening text for a reader", () => {
  const warning = "Warning: `errors` is a reserved schema pathname and may break some functionality. You are allowed to use it, but use at your own risk.";

  it("cuts at a sentence end when one is far enough in, else between words, never inside a word", () => {
    expect(headlineOf(warning, 120)).toBe("Warning: `errors` is a reserved schema pathname and may break some functionality…");
    expect(headlineOf("TypeError: Cannot read properties of undefined (reading 'items') while rendering the cart", 60)).toBe("TypeError: Cannot read properties of undefined (reading…");
    expect(headlineOf("short message.", 120)).toBe("short message.");
    expect(cutAtWord("alpha beta, gamma delta", 13)).toBe("alpha beta…"); // the comma before the cut is dropped
    expect(cutAtWord("a-very-long-identifier-without-spaces", 10)).toBe("a-very-lo…");
  });

  it("finds the clause of a message about a quoted name and its noun phrase", () => {
    const clause = clauseAbout(`(node:1) [MONGOOSE] ${warning}`, "errors");
    expect(clause).toBe("`errors` is a reserved schema pathname");
    expect(nounPhrase(clause ?? "", "errors")).toBe("reserved schema pathname");
    expect(clauseAbout("KeyError: 'user_id'", "user_id")).toBe("'user_id'");
    expect(nounPhrase("'user_id'", "user_id")).toBeNull();
    expect(clauseAbout("TypeError: x is not a function", "errors")).toBeNull();
  });
});

describe("tool answers", () => {
  it("reads numbered lines, the total, and clipped lines of get_file_contents", () => {
    const w = parseFileWindow(["src/a.js (lines 1-3 of 3)", "   1| const a = 1;", "   2| ", `   3| ${"x".repeat(5)} … (12 more characters)`].join("\n"));
    expect([...w.lines.entries()]).toEqual([[1, "const a = 1;"], [2, ""], [3, "xxxxx … (12 more characters)"]]);
    expect(w.totalLines).toBe(3);
    expect([...w.clipped]).toEqual([3]);
    expect(coversWholeFile(w)).toBe(true);
    expect(coversWholeFile(parseFileWindow("src/a.js (lines 1-2 of 90)\n   1| a\n   2| b\n… 88 more lines not shown"))).toBe(false);
  });

  it("reads grep hits, listed paths and verify answers", () => {
    expect(parseGrepHits('2 matching line(s) in 2 file(s) for "x":\nmodels/a.js:4: errors: { type: Array },\nlib/b.py:10: x = 1')).toEqual([
      { path: "models/a.js", line: 4, text: "errors: { type: Array }," },
      { path: "lib/b.py", line: 10, text: "x = 1" },
    ]);
    expect(parseListedPaths("3 paths match 'a.js' (showing 1-3):\nsrc/a.js\nlegacy/a.js [binary, 1.2 KB]\na.js\n… 2 more not shown; call again with offset=3")).toEqual(["src/a.js", "legacy/a.js", "a.js"]);
    expect(parseSearchFiles("Files (2 of 2 matching):\n1. models/log.js — \"errors\" in text\n2. lib/x.js — \"log\" in path\nSymbols (best 1):\n1. function log lib/y.js:3")).toEqual(["models/log.js", "lib/x.js"]);
    expect(parsePaths("see src/a.js, v1.2.3 and (lib/b.py)")).toEqual(["src/a.js", "lib/b.py"]);
    expect(parseVerify("FOUND: save is defined 1 time(s):\nsrc/a.js:3-9 function save").found).toBe(true);
    expect(parseVerify("NOT_FOUND: no definition of save. Similar defined names: saved (src/b.js:1)").found).toBe(false);
  });

  it("classifies edit rejections into what to do next", () => {
    expect(classifyEditRejection("REJECTED: src/a.js may not be edited: it matches the deny rule \"src/**\".")).toBe("policy");
    expect(classifyEditRejection("REJECTED: code_before anchors on lines 3-4 of a.js, but you have not read line(s) 3-4 of it")).toBe("unread");
    expect(classifyEditRejection("REJECTED: code_before occurs 2 times in a.js (lines 3, 9)")).toBe("ambiguous");
    expect(classifyEditRejection("REJECTED: code_before was not found in a.js. The closest text is lines 12-14; it differs only in indentation")).toBe("not_found");
  });
});

describe("declarationPattern", () => {
  it("matches declarations of a field and not its uses (RE2 syntax, as grep_codebase compiles it)", () => {
    const re = RE2JS.compile(declarationPattern("errors"));
    for (const line of ["  errors: { type: Array },", "errors = Column(JSON)", "    self.errors = []", "def errors(self):", "function errors() {", "const errors = [];"]) {
      expect(re.matcher(line).find(), line).toBe(true);
    }
    for (const line of ["if (errors == null) {", "return this.errors;", "validationErrors: { type: Array },", "x.errors.push(e)", "errors.forEach(f)"]) {
      expect(re.matcher(line).find(), line).toBe(false);
    }
  });
});
