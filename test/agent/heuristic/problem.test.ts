import { describe, expect, it } from "vitest";
import {
  cutAtWord,
  extractErrorMessages,
  extractMentionedPaths,
  extractQuotedIdentifiers,
  headlineOf,
  parseProblem,
} from "../../../src/agent/models/heuristic/problem.js";
import { clauseAbout, nounPhrase } from "../../../src/agent/models/heuristic/wording.js";
import {
  classifyEditRejection,
  coversWholeFile,
  definitionSites,
  grepHits,
  knownLines,
  listedPaths,
} from "../../../src/agent/models/heuristic/results.js";
import { readHistory } from "../../../src/agent/models/heuristic/history.js";
import type { Message } from "../../../src/agent/models/types.js";
import { createReadLog, readTools, runTool } from "../../../src/tools/index.js";
import { buildSnapshot } from "../helpers.js";
import { declarationPattern } from "../../../src/agent/models/heuristic/locate.js";
import { RE2JS } from "re2js";

describe("parseProblem", () => {
  it("splits the task message and reads the alert location", () => {
    const p = parseProblem(
      [
        "Problem title: SQL built from user input",
        "Source: code_scanning",
        "Alert location: src/db/query.js:42",
        "<problem>",
        "Rule js/sql-injection: This query depends on a user-provided value.",
        "</problem>",
      ].join("\n"),
    );
    expect(p).toMatchObject({
      title: "SQL built from user input",
      source: "code_scanning",
      alert: { path: "src/db/query.js", line: 42 },
      body: "Rule js/sql-injection: This query depends on a user-provided value.",
    });
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

  it("finds a crash message quoted inside a sentence, cut where the sentence goes on", () => {
    const v8 = "TypeError: Cannot read properties of undefined (reading 'name')";
    expect(extractErrorMessages(`it fails with ${v8} when the user is gone, and then it hangs.`)).toEqual([v8]);
    expect(extractErrorMessages(`Loading fails with \`${v8} in load\` after a while`)).toEqual([`${v8} in load`]);
    expect(extractErrorMessages("the call raises KeyError: 'email' if the form is empty")).toEqual([
      "KeyError: 'email'",
    ]);
    // a `because` that belongs to the message (Java's helpful NullPointerException) is kept; the clause after is not
    expect(
      extractErrorMessages(
        'Run fails with java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null ' +
          "when no name is set.",
      ),
    ).toEqual(['java.lang.NullPointerException: Cannot invoke "String.length()" because "name" is null']);
    expect(extractErrorMessages("Calling it gives NoMethodError: undefined method `title' for nil, so I stop")).toEqual(
      ["NoMethodError: undefined method `title' for nil"],
    );
    // an error named in passing (no missing value, no value of the wrong kind) is prose
    expect(extractErrorMessages("it fails with ValueError: bad input when the user is gone")).toEqual([]);
    expect(extractErrorMessages("we saw TypeError: something broke and restarted")).toEqual([]);
  });

  it("collects quoted identifiers (backticks first) and paths named in prose", () => {
    expect(
      extractQuotedIdentifiers("Field `errors` and 'user_id' in \"Order.total\"; not 'two words' nor `src/a.js`"),
    ).toEqual(["errors", "user_id", "Order.total"]);
    expect(
      extractMentionedPaths(
        "I think src/models/user.js:12 or `lib/util.py` is wrong, see README.md.\n    at x (/app/b.js:1:1)",
      ),
    ).toEqual(["src/models/user.js", "lib/util.py", "README.md"]);
  });
});

describe("shortening text for a reader", () => {
  const warning =
    "Warning: `errors` is a reserved schema pathname and may break some " +
    "functionality. You are allowed to use it, but use at your own risk.";

  it("cuts at a sentence end when one is far enough in, else between words, never inside a word", () => {
    expect(headlineOf(warning, 120)).toBe(
      "Warning: `errors` is a reserved schema pathname and may break some functionality…",
    );
    expect(
      headlineOf("TypeError: Cannot read properties of undefined (reading 'items') while rendering the cart", 60),
    ).toBe("TypeError: Cannot read properties of undefined (reading…");
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
  it("reads the structured answers of the read tools, not their text", async () => {
    const snapshot = await buildSnapshot({
      "src/a.js": `const a = 1;\n\n${"x".repeat(1200)}\n`,
      "lib/a.js": "function save() {\n  return 1;\n}\n",
    });
    const calls: [string, Record<string, unknown>][] = [
      ["get_file_contents", { path: "src/a.js" }],
      ["list_files", { glob: "a.js" }],
      ["grep_codebase", { pattern: "return" }],
      ["verify_symbol_in_repo", { name: "save" }],
      ["verify_symbol_in_repo", { name: "load" }],
    ];
    const messages: Message[] = [
      { role: "user", content: "x" },
      {
        role: "assistant",
        content: "",
        tool_calls: calls.map(([name, args], i) => ({ id: `c${i}`, name, arguments: args })),
      },
    ];
    for (const [i, [name, args]] of calls.entries()) {
      const result = await runTool(
        readTools.find((t) => t.name === name)!,
        args,
        { snapshot, reads: createReadLog() },
      );
      // the text is what any model reads; garble it to show the heuristic does not parse it back
      messages.push({
        role: "tool",
        tool_call_id: `c${i}`,
        name,
        content: "(text not parsed)",
        ...(result.data ? { data: result.data } : {}),
      });
    }
    const { steps } = readHistory(messages);
    const w = knownLines(steps, "src/a.js");
    expect([...w.lines.entries()].map(([n, t]) => [n, t.slice(0, 12)])).toEqual([
      [1, "const a = 1;"],
      [2, ""],
      [3, "xxxxxxxxxxxx"],
    ]);
    expect([...w.clipped]).toEqual([3]); // cut at the line cap: never an anchor
    expect(w.totalLines).toBe(3);
    expect(coversWholeFile(w)).toBe(true);
    expect(listedPaths(steps, { glob: "a.js" })?.sort()).toEqual(["lib/a.js", "src/a.js"]);
    expect(listedPaths(steps, { glob: "b.js" })).toBeNull(); // never called
    expect(grepHits(steps, { pattern: "return" })).toEqual({
      hits: [{ path: "lib/a.js", line: 2, text: "  return 1;" }],
      total: 1,
    });
    expect(definitionSites(steps, { name: "save" })).toEqual([
      { path: "lib/a.js", line: 1, endLine: 3, kind: "function" },
    ]);
    expect(definitionSites(steps, { name: "load" })).toEqual([]);
  });

  it("a secret in a file window is redacted in the data too, and a multi-line one is never an anchor", async () => {
    const pem = [
      "-----BEGIN RSA PRIVATE KEY-----",
      "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun",
      "-----END RSA PRIVATE KEY-----",
    ];
    const snapshot = await buildSnapshot({
      "src/k.js": ["const k = `", ...pem, "`;", 'const token = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";', ""].join(
        "\n",
      ),
    });
    const result = await runTool(
      readTools.find((t) => t.name === "get_file_contents")!,
      { path: "src/k.js" },
      { snapshot, reads: createReadLog() },
    );
    const data = result.data?.tool === "get_file_contents" ? result.data : null;
    expect(data?.lines.slice(1, 4).map((l) => [l.text, l.clipped])).toEqual([
      ["[redacted]", true],
      ["[redacted]", true],
      ["[redacted]", true],
    ]);
    expect(JSON.stringify(data)).not.toMatch(/ghp_abcdefghij|MIIEow/);
  });

  it("classifies edit rejections into what to do next", () => {
    expect(classifyEditRejection('REJECTED: src/a.js may not be edited: it matches the deny rule "src/**".')).toBe(
      "policy",
    );
    expect(
      classifyEditRejection(
        "REJECTED: code_before anchors on lines 3-4 of a.js, but you have not read line(s) 3-4 of it",
      ),
    ).toBe("unread");
    expect(classifyEditRejection("REJECTED: code_before occurs 2 times in a.js (lines 3, 9)")).toBe("ambiguous");
    expect(
      classifyEditRejection(
        "REJECTED: code_before was not found in a.js. The closest text is lines 12-14; it differs only in indentation",
      ),
    ).toBe("not_found");
  });
});

describe("declarationPattern", () => {
  it("matches declarations of a field and not its uses (RE2 syntax, as grep_codebase compiles it)", () => {
    const re = RE2JS.compile(declarationPattern("errors"));
    for (const line of [
      "  errors: { type: Array },",
      "errors = Column(JSON)",
      "    self.errors = []",
      "def errors(self):",
      "function errors() {",
      "const errors = [];",
    ]) {
      expect(re.matcher(line).find(), line).toBe(true);
    }
    for (const line of [
      "if (errors == null) {",
      "return this.errors;",
      "validationErrors: { type: Array },",
      "x.errors.push(e)",
      "errors.forEach(f)",
    ]) {
      expect(re.matcher(line).find(), line).toBe(false);
    }
  });
});
