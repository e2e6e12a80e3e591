import ts from "typescript";
import { expect } from "vitest";
import { runAgent, type RunResult } from "../../../src/agent/index.js";
import { createHeuristicModel } from "../../../src/agent/models/heuristic.js";
import { buildSnapshot, config, SHA } from "../helpers.js";

/** The lines a run added (every diff line starting with "+", headers excluded). */
export function addedLines(result: RunResult): string[] {
  return result.edits.flatMap((e) =>
    e.diff
      .split("\n")
      .filter((l) => l.startsWith("+") && !l.startsWith("+++"))
      .map((l) => l.slice(1)),
  );
}

/**
 * What a reader sees is readable:
 * - the summary is whole sentences: it ends with a full stop, has no doubled or dangling punctuation, and the problem
 *   it quotes (`reports "…"` / `is titled "…"`) is a prefix of `quoted` (whitespace collapsed) that ends at a word
 *   boundary, with "…" only where it was cut, and at most ~120 characters;
 * - every added line is at most 120 characters after its indentation.
 */
export function expectReadable(result: RunResult, quoted: string): void {
  const summary = result.diagnosis?.summary ?? "";
  expect(summary).toMatch(/\.$/);
  expect(summary).not.toMatch(/\.\.|\s[.,;]|[,;]\.|\.\s*\.|…\.(?!")/);
  const m = /(?:reports|is titled) "(.*?)"\./.exec(summary);
  expect(m, `the summary quotes the problem: ${summary}`).not.toBeNull();
  const quote = m?.[1] ?? "";
  expect(quote.length).toBeLessThanOrEqual(120);
  const original = quoted.replace(/\s+/g, " ").trim();
  if (quote.endsWith("…")) {
    const kept = quote.slice(0, -1);
    expect(original.startsWith(kept), `"${kept}" is a prefix of "${original}"`).toBe(true);
    expect(original.charAt(kept.length)).toMatch(/[^\w$'`]/); // cut between words, never inside one
  } else {
    expect(quote).toBe(original);
  }
  for (const line of addedLines(result)) expect(line.trimStart().length, line).toBeLessThanOrEqual(120);
}

/** The TypeScript compiler's syntax errors for `content` read as the file `path` (.js/.ts); [] when it parses. */
export function syntaxErrors(path: string, content: string): string[] {
  const out = ts.transpileModule(content, {
    fileName: path,
    reportDiagnostics: true,
    compilerOptions: { target: ts.ScriptTarget.ES2022 },
  });
  return (out.diagnostics ?? []).map((d) => ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

/** The default model on a snapshot of `files`, for an issue with `title` and `body` (default config). */
export async function runHeuristic(files: Record<string, string>, title: string, body: string): Promise<RunResult> {
  return runAgent({
    task: {
      source: "issue",
      key: "acme/x#issue-9",
      title,
      body,
      repo: { owner: "acme", name: "x" },
      baseSha: SHA,
    },
    snapshot: await buildSnapshot(files),
    model: createHeuristicModel(),
    config: config(),
  });
}

/** lib/users.rb: `Users.load` returns nil; `Users.label(id)` sets `user = load(id)` and then runs `body`. */
export function rubyUsers(body: readonly string[]): string {
  const head = [
    "class Users",
    "  def self.load(id)",
    "    nil",
    "  end",
    "",
    "  def self.label(id)",
    "    user = load(id)",
  ];
  return [...head, ...body, "  end", "end", ""].join("\n");
}

/** The issue of a JS crash reading `name` of an undefined `user` in `getUserName` ({@link userNameRepo}). */
export const USER_NAME_ISSUE = "TypeError: Cannot read properties of undefined (reading 'name') in getUserName";

/** src/db.js of {@link userNameRepo}: `find` returns undefined. */
export const USER_NAME_DB = "module.exports = { find: (id) => undefined };\n";

/**
 * src/db.js ({@link USER_NAME_DB}) and src/user.js, whose `getUserName(id)` sets `user = db.find(id)`, then runs
 * `line`, then returns `user.fullName`: a repository where only `line` can read `user.name`.
 */
export function userNameRepo(line: string): Record<string, string> {
  const user = [
    'const db = require("./db");',
    "function getUserName(id) {",
    "  const user = db.find(id);",
    line,
    "  return user.fullName;",
    "}",
    "module.exports = { getUserName };",
    "",
  ];
  return { "src/db.js": USER_NAME_DB, "src/user.js": user.join("\n") };
}

/**
 * A CommonJS `lib/resolver.js` whose `Resolver.resolve(element, file)` reads `element.target` on its third line (the
 * frame a relayed missing value crashes in), shared by the locating and relay-guard tests.
 */
export const RESOLVER_JS = [
  "class Resolver {",
  "  resolve(element, file) {",
  "    const target = element.target ?? element.type;",
  "    return `${file}:${target}`;",
  "  }",
  "}",
  "module.exports = { Resolver };",
  "",
].join("\n");
