import { describe, expect, it } from "vitest";
import { runTool, searchCodebase, verifySymbolInRepo } from "../../src/tools/index.js";
import { makeContext } from "./fixture.js";

describe("search_codebase expansions", () => {
  it("lists the closest expansion of a word the repository lacks first in why a file matched", async () => {
    const ctx = await makeContext({
      "src/parse.js":
        "export function parseConfigurationFile(p) {}\nexport function parser(p) {}\nexport function parseAll(p) {}\n",
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
    const body =
      Array.from({ length: 300 }, (_, i) => `export function handleAudit${i}_1(x) {}\n`).join("") +
      "export function handleAuditLog(x) {}\n";
    const ctx = await makeContext({ "src/audit.js": body });
    const r = await runTool(verifySymbolInRepo, { name: "handleAuditLgo" }, ctx);
    expect(r.status).toBe("not_found");
    expect(r.text).toMatch(/Similar defined names: function handleAuditLog \(src\/audit\.js:301\)/);
  });
});

/** The ranked paths of a search_codebase answer, best first. */
function rankedFiles(text: string): string[] {
  return (text.split("\nSymbols")[0] ?? "").split("\n").flatMap((l) => /^\d+\. (\S+) — /.exec(l)?.[1] ?? []);
}

describe("search_codebase without an index", () => {
  it("finds a word the query misspells through a fuzzy expansion, and says which word matched", async () => {
    const ctx = await makeContext({
      "src/config.js": "export function loadConfiguration(path) { return readConfiguration(path); }\n",
      "src/other.js": "export function unrelated() {}\n",
    });
    const r = await runTool(searchCodebase, { query: "configuraton" }, ctx);
    expect(rankedFiles(r.text)).toEqual(["src/config.js"]);
    expect(r.text).toContain('"configuration" in symbols, text');
  });

  it("ranks files holding more of the query's words first, and matches words whatever their case", async () => {
    const ctx = await makeContext({
      "src/a.js": "const RESOLVE_CACHE = {};\nexport function resolveModule(name) { return RESOLVE_CACHE[name]; }\n",
      "src/b.js": "export function resolve(x) { return x; }\n",
      "src/c.js": "export const nothing = 1;\n",
    });
    const r = await runTool(searchCodebase, { query: "resolve module cache" }, ctx);
    expect(rankedFiles(r.text)).toEqual(["src/a.js", "src/b.js"]);
    expect(r.text).toMatch(
      /1\. src\/a\.js — "cache" in symbols, text; .*\(symbols: RESOLVE_CACHE:1, resolveModule:2\)/,
    );
    expect(r.text).toContain("function resolveModule src/a.js:2");
  });

  it("takes $ and other regular-expression characters of a query as text", async () => {
    const ctx = await makeContext({
      "src/app.js": "angular.module('x').config(function($httpProvider) {});\n",
      "src/b.js": "const httpx = 1;\n",
    });
    const r = await runTool(searchCodebase, { query: "$httpProvider (.*) [a-z]+" }, ctx);
    expect(r.status).toBe("ok");
    expect(rankedFiles(r.text)[0]).toBe("src/app.js");
    expect(r.text).toContain('"$httpprovider" in text');
  });

  it("does not rank files by the text of secret files", async () => {
    const ctx = await makeContext({
      ".env": "STRIPE_WEBHOOK_SIGNING=whsec_x\n",
      "src/pay.js": "export const x = 1;\n",
    });
    const r = await runTool(searchCodebase, { query: "stripe webhook signing" }, ctx);
    expect(r.text).not.toContain(".env");
  });

  it("ranks the names holding a term in any case or starting a longer word, and only those", async () => {
    const ctx = await makeContext({
      "src/net.js":
        "export class HTTPServer {}\nexport function parseHttp(x) {}\nexport function createServer() {}\n" +
        "export function http() {}\nexport function unrelated() {}\n",
    });
    const r = await runTool(searchCodebase, { query: "http server pars" }, ctx);
    expect(r.text.slice(r.text.indexOf("Symbols"))).toBe(
      [
        "Symbols (best 4):",
        "1. function http src/net.js:4 — name words: http",
        "2. class HTTPServer src/net.js:1 — name words: http, server",
        "3. function parseHttp src/net.js:2 — name words: http, pars",
        "4. function createServer src/net.js:3 — name words: server",
      ].join("\n"),
    );
  });

  it("expands a word no file holds to the longer path words it starts, in folders at any depth", async () => {
    const ctx = await makeContext({
      "src/deep/parsers/json.js": "export const a = 1;\n",
      "lib/parsers.js": "export const b = 2;\n",
      parsers: "plain\n",
      "other/x.js": "export const parse = 3;\n",
    });
    const r = await runTool(searchCodebase, { query: "parser" }, ctx);
    expect(r.text.split("\nSymbols")[0]).toBe(
      [
        "Files (4 of 4 matching):",
        '1. other/x.js — "parse" in symbols, text',
        '2. parsers — "parsers" in path',
        '3. lib/parsers.js — "parsers" in path',
        '4. src/deep/parsers/json.js — "parsers" in path',
      ].join("\n"),
    );
  });

  // A word only paths hold is not scored (no file's text holds it): lib/PARSE.js holds it in its text.
  it("finds a word in folder and file names of any case and depth, counting it each time a path holds it", async () => {
    const ctx = await makeContext({
      "src/MyParsers/index.js": "export const a = 1;\n",
      "parsers/deep/parsers/parsers.js": "export const b = 2;\n",
      "lib/parsers.js": "export const c = 3;\n",
      "lib/PARSE.js": "// the parsers\n",
    });
    const r = await runTool(searchCodebase, { query: "parsers" }, ctx);
    expect(r.text.split("\nSymbols")[0]).toBe(
      [
        "Files (4 of 4 matching):",
        '1. lib/PARSE.js — "parsers" in text',
        '2. parsers/deep/parsers/parsers.js — "parsers" in path',
        '3. lib/parsers.js — "parsers" in path',
        '4. src/MyParsers/index.js — "parsers" in path',
      ].join("\n"),
    );
  });

  it("lists every definition of a name among the ranked files in path order", async () => {
    const ctx = await makeContext({
      "src/z.js": "export function parseRow(r) {}\n",
      "src/a.js": "export function parseRow(r) {}\n",
    });
    const r = await runTool(searchCodebase, { query: "parseRow" }, ctx);
    expect(r.text).toContain(
      "1. function parseRow src/a.js:1 (+1 more definitions in the files ranked) — name words: parserow",
    );
  });
});

describe("verify_symbol_in_repo without an index", () => {
  it("suggests a one-word name one letter away, found through pieces of the name", async () => {
    const ctx = await makeContext({
      "src/jobs.py": "def processing(job):\n    return job\n",
      "src/x.py": "def other():\n    pass\n",
    });
    const r = await runTool(verifySymbolInRepo, { name: "procesing" }, ctx);
    expect(r.status).toBe("not_found");
    expect(r.text).toContain("Similar defined names: function processing (src/jobs.py:1)");
  });

  it("finds every definition of a name, also in files that only hold it once", async () => {
    const filler = Array.from({ length: 50 }, (_, i) => `export const v${i} = ${i};\n`).join("");
    const ctx = await makeContext({
      "src/a.js": filler + "export function target() {}\n",
      "src/b.ts": "class K {\n  target() {}\n}\n",
      "src/c.js": "target();\n",
    });
    const r = await runTool(verifySymbolInRepo, { name: "target" }, ctx);
    expect(r.text).toBe("FOUND: target is defined 2 time(s):\nsrc/a.js:51 function target\nsrc/b.ts:2 method K.target");
  });

  it("says where an undefined word is used", async () => {
    const ctx = await makeContext({
      "src/a.js": "import { helper } from 'lib';\nhelper();\n",
      "src/b.js": "export function helpers() {}\n",
    });
    const r = await runTool(verifySymbolInRepo, { name: "helper" }, ctx);
    expect(r.status).toBe("not_found");
    expect(r.text).toContain("Similar defined names: function helpers (src/b.js:1)");
    expect(r.text).toContain("The word helper appears in 1 file(s) (e.g. src/a.js)");
  });
});

describe("search and verify do not spell out secrets", () => {
  const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
  it("does not show a secret as an expansion of a query word, nor list a file for it", async () => {
    const ctx = await makeContext({
      "src/config.js": `export const token = '${token}';\n`,
      "src/other.js": "export function ghpHelper() {}\n",
    });
    const r = await runTool(searchCodebase, { query: "ghp_a1b2" }, ctx);
    expect(r.text.toLowerCase()).not.toContain("c3d4e5");
    expect(rankedFiles(r.text)).not.toContain("src/config.js");
  });

  it("does not say a word is used in a file holding it only inside a secret (a password, a .env line)", async () => {
    const ctx = await makeContext({
      "src/c.js": 'const password = "Sup3rSecretValue";\r\nexport function connect() {}\r\n',
      "src/db.sh": "#!/bin/sh\nexport DB_PASSWORD=hunter2xyz9\n",
      "src/notes.md": "The old value Sup3rSecretValue was rotated.\n",
    });
    const pw = await runTool(verifySymbolInRepo, { name: "Sup3rSecretValue" }, ctx);
    expect(pw.status).toBe("not_found");
    // The file that shows the word is named; the one holding it only as a password's value is not.
    expect(pw.text).toContain("The word Sup3rSecretValue appears in 1 file(s) (e.g. src/notes.md)");
    const env = await runTool(verifySymbolInRepo, { name: "hunter2xyz9" }, ctx);
    expect(env.text).not.toContain("src/db.sh");
    expect(env.text).not.toContain("appears in");
  });

  it("names no symbol whose name is a secret: no FOUND, similar name or ranked symbol for it", async () => {
    const ctx = await makeContext({
      "src/x.js": `export function ${token}() {}\nexport function $${token}() {}\nexport function ghpHelper() {}\n`,
    });
    const found = await runTool(verifySymbolInRepo, { name: token }, ctx);
    expect(found.status).toBe("not_found");
    const near = await runTool(verifySymbolInRepo, { name: `${token.slice(0, -1)}9` }, ctx);
    expect(near.text).toContain("Similar defined names: function ghpHelper (src/x.js:3)");
    expect(near.text).not.toContain("[redacted] (src/x.js");
    // A prefix of the token must not pick out a symbol (it would spell the token out a character at a time).
    const right = await runTool(searchCodebase, { query: "ghp_a1b2" }, ctx);
    const wrong = await runTool(searchCodebase, { query: "ghp_a1b3" }, ctx);
    expect(right.text).not.toContain("[redacted]");
    expect(right.text).not.toContain("ghp_a1b2,");
    expect(right.text.replace("ghp_a1b2", "ghp_a1b3")).toBe(wrong.text);
  });

  it("answers a prefix of a password like a prefix nothing holds (no file count confirms the guess)", async () => {
    const ctx = await makeContext({
      "src/db.js": 'const password = "qwertyzx91";\nexport function connect() {}\n',
      "src/app.js": "export function start() {}\n",
    });
    const right = await runTool(searchCodebase, { query: "qwerty" }, ctx);
    const wrong = await runTool(searchCodebase, { query: "qwertz" }, ctx);
    expect(right.text).toBe(
      'No file or symbol matches "qwerty". Try other words, grep_codebase for an exact string, or describe_repo.',
    );
    expect(right.text.replace("qwerty", "qwertz")).toBe(wrong.text);
  });

  it("does not say where a secret-shaped name is used", async () => {
    const ctx = await makeContext({ "src/config.js": `export const token = '${token}';\n` });
    const r = await runTool(verifySymbolInRepo, { name: token }, ctx);
    expect(r.status).toBe("not_found");
    expect(r.text).not.toContain("src/config.js");
  });
});
