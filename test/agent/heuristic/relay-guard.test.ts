import { describe, expect, it } from "vitest";
import { calleeName, missingParameterIndex, relayedArgument } from "../../../src/agent/models/heuristic/relay-guard.js";
import { addedLines, RESOLVER_JS, syntaxErrors, runHeuristic as run } from "./readable.js";

describe("the caller of a frame that only received the missing value: a guard on the argument it passes", () => {
  const visitor = [
    "const { Resolver } = require('./resolver');",
    "",
    "class Visitor {",
    "  printOperation(name, operation) {",
    "    const file = operation.name.toLowerCase();",
    "    const type = new Resolver().resolve(operation.returns, file);",
    "    return type;",
    "  }",
    "}",
    "module.exports = { Visitor };",
    "",
  ].join("\n");
  const files = {
    "package.json": JSON.stringify({ name: "typer" }),
    "lib/resolver.js": RESOLVER_JS,
    "lib/visitor.js": visitor,
  };
  const trace = (message: string) =>
    [
      message,
      "    at Resolver.resolve (C:\\p\\node_modules\\typer\\lib\\resolver.js:3:28)",
      "    at Visitor.printOperation (C:\\p\\node_modules\\typer\\lib\\visitor.js:6:29)",
    ].join("\n");

  it("a member read on a parameter: the argument in that position is guarded before the call", async () => {
    const result = await run(
      files,
      "crash",
      trace("TypeError: Cannot read properties of undefined (reading 'target')"),
    );
    expect(result.diagnosis?.affected_file).toBe("lib/visitor.js");
    // `operation` was dereferenced above (`operation.name`): only `returns` is checked
    expect(addedLines(result)).toEqual([
      "    if (operation.returns == null) {",
      "      throw new TypeError(`printOperation(): operation.returns is null or undefined; " +
        "resolve() reads 'target'`);",
      "    }",
    ]);
    const after = result.files[0]?.content ?? "";
    expect(after.indexOf("if (operation.returns == null)")).toBeLessThan(after.indexOf("const type = new Resolver()"));
    expect(syntaxErrors("lib/visitor.js", after)).toEqual([]);
    expect(result.outcome).toBe("pr_ready");
  });

  it("through a caller that only passes it on: the guard is at the call of that caller, the crash named", async () => {
    // A fresh user's report: main() → greet(user) → getDisplayName(user) reads user.profile. The guard used to look for
    // a call of getDisplayName in main (there is none) and fell back to a comment, and the summary said the trace
    // entered the repository at main.
    const two = {
      "package.json": JSON.stringify({ name: "app" }),
      "src/user.js": [
        "'use strict';",
        "",
        "function getDisplayName(user) {",
        "  const profile = user.profile;",
        "  return profile.name.trim();",
        "}",
        "",
        "function greet(user) {",
        "  return `Hello, ${getDisplayName(user)}!`;",
        "}",
        "",
        "module.exports = { getDisplayName, greet };",
        "",
      ].join("\n"),
      "src/server.js": [
        "'use strict';",
        "",
        "const { greet } = require('./user');",
        "",
        "function loadUser(id) {",
        "  const users = { 1: { profile: { name: 'Ada ' } } };",
        "  return users[id];",
        "}",
        "",
        "function main() {",
        "  const user = loadUser(Number(process.argv[2] || 2));",
        "  console.log(greet(user));",
        "}",
        "",
        "main();",
        "",
      ].join("\n"),
    };
    const result = await run(
      two,
      "greet crashes for unknown user id 7",
      [
        "TypeError: Cannot read properties of undefined (reading 'profile')",
        "    at getDisplayName (/srv/app/src/user.js:4:24)",
        "    at greet (/srv/app/src/user.js:9:20)",
        "    at main (/srv/app/src/server.js:12:15)",
        "    at Object.<anonymous> (/srv/app/src/server.js:15:1)",
      ].join("\n"),
    );
    expect(result.diagnosis?.affected_file).toBe("src/server.js");
    expect(addedLines(result)).toEqual([
      "  if (user == null) {",
      "    throw new TypeError(`main(): user is null or undefined; greet() passes it to getDisplayName(), " +
        "which reads 'profile'`);",
      "  }",
    ]);
    expect(result.diagnosis?.summary).toContain(
      "The crash is at src/user.js:4 in `getDisplayName`, on a value it was given; it comes from src/server.js:12 " +
        "in `main` through `greet`.",
    );
    expect(syntaxErrors("src/server.js", result.files[0]?.content ?? "")).toEqual([]);
    expect(result.outcome).toBe("pr_ready");
  });

  it("a destructured parameter fed by a Map lookup: the lookup is re-read, the key shown", async () => {
    const skip = [
      "export function shouldSkip(",
      "  { manifest }: Pkg,",
      "  { ignore }: { ignore: string[] },",
      ") {",
      "  return ignore.includes(manifest.name);",
      "}",
      "",
    ].join("\n");
    const plan = [
      "import { shouldSkip } from '../../skip/src/index';",
      "",
      "export function relevant(changes: Change[], byName: Map<string, Pkg>, ignore: string[]) {",
      "  const out = [];",
      "  for (const release of changes) {",
      "    if (",
      "      shouldSkip(byName.get(release.name)!, {",
      "        ignore,",
      "      })",
      "    ) {",
      "      continue;",
      "    }",
      "    out.push(release);",
      "  }",
      "  return out;",
      "}",
      "",
    ].join("\n");
    const result = await run(
      {
        "package.json": JSON.stringify({ name: "root", workspaces: ["packages/*"] }),
        "packages/skip/package.json": JSON.stringify({ name: "@acme/skip" }),
        "packages/skip/src/index.ts": skip,
        "packages/plan/package.json": JSON.stringify({ name: "@acme/plan" }),
        "packages/plan/src/index.ts": plan,
      },
      "crash",
      [
        "TypeError: Cannot destructure property 'manifest' of 'undefined' as it is undefined.",
        "    at shouldSkip (/w/node_modules/@acme/skip/src/index.ts:1:8)",
        "    at relevant (/w/node_modules/@acme/plan/src/index.ts:7:7)",
      ].join("\n"),
    );
    expect(result.diagnosis?.affected_file).toBe("packages/plan/src/index.ts");
    expect(addedLines(result)).toEqual([
      "    if (byName.get(release.name) == null) {",
      "      throw new TypeError(`relevant(): no byName entry for release.name (name: ${release.name})`);",
      "    }",
    ]);
    expect(syntaxErrors("packages/plan/src/index.ts", result.files[0]?.content ?? "")).toEqual([]);
  });

  it("attacker: an argument with side effects (a call) is never re-evaluated: no guard", async () => {
    const calls = visitor.replace("resolve(operation.returns, file)", "resolve(operation.next(), file)");
    const result = await run(
      { ...files, "lib/visitor.js": calls },
      "crash",
      trace("TypeError: Cannot read properties of undefined (reading 'target')"),
    );
    expect(addedLines(result).join("\n")).not.toMatch(/operation\.next\(\)\s*==|throw/);
    expect(result.outcome).not.toBe("pr_ready");
  });

  describe("the call inside a template literal's `${…}` is a call (src/agent/models/heuristic/live-code.ts)", () => {
    const withLine = (line: string) =>
      run(
        {
          ...files,
          "lib/visitor.js": visitor.replace("    const type = new Resolver().resolve(operation.returns, file);", line),
        },
        "crash",
        trace("TypeError: Cannot read properties of undefined (reading 'target')"),
      );

    it("the argument it passes is guarded before the statement", async () => {
      const result = await withLine("    const type = `<${new Resolver().resolve(operation.returns, file)}>`;");
      expect(result.diagnosis?.affected_file).toBe("lib/visitor.js");
      expect(addedLines(result)[0]).toBe("    if (operation.returns == null) {");
      expect(syntaxErrors("lib/visitor.js", result.files[0]?.content ?? "")).toEqual([]);
    });

    it("attacker: the call only in the template's text, or behind a condition inside `${…}`: no guard", async () => {
      for (const line of [
        "    const type = `resolve(operation.returns) ${new Resolver().name}`;",
        "    const type = `${ok ? new Resolver().resolve(operation.returns, file) : ''}`;",
        '    const type = "${new Resolver().resolve(operation.returns, file)}";',
      ]) {
        const result = await withLine(line);
        expect(addedLines(result).join("\n"), line).not.toMatch(/operation\.returns == null/);
      }
    });
  });

  it("attacker: hostile issue text cannot steer the guard: the callee and argument come from the code", async () => {
    const result = await run(
      files,
      "crash`); process.exit(1); (`",
      [
        'TypeError: Cannot read properties of undefined (reading \'target`);require("child_process").exec("x");//\')',
        "    at Resolver.resolve (C:\\p\\node_modules\\typer\\lib\\resolver.js:3:28)",
        "    at Visitor.printOperation (C:\\p\\node_modules\\typer\\lib\\visitor.js:6:29)",
      ].join("\n"),
    );
    const added = addedLines(result).join("\n");
    expect(added).not.toMatch(/child_process|process\.exit/);
    expect(syntaxErrors("lib/visitor.js", result.files[0]?.content ?? visitor)).toEqual([]);
  });

  it("units: the callee as called, the parameter's position, the re-readable argument", () => {
    expect(calleeName("Object.shouldSkipPackage")).toBe("shouldSkipPackage");
    expect(calleeName("Object.assembleReleasePlan [as default]")).toBe("assembleReleasePlan");
    expect(calleeName("#printOperation")).toBe("#printOperation");
    expect(calleeName("<anonymous>")).toBeNull();
    expect(calleeName("x`);evil(`")).toBeNull();
    expect(missingParameterIndex("def load(self, cfg, path=None):", null, "path")).toBe(1);
    expect(missingParameterIndex("function f(a, { b, c }, d) {", "c", null)).toBe(1);
    expect(missingParameterIndex("export function f(\n  a: string,\n  { pj }: P,\n", "pj", null)).toBe(1);
    expect(relayedArgument("  run(cfg.path, 'x')", "run", 0, "python")).toMatchObject({
      expr: "cfg.path",
      condition: "cfg is None or cfg.path is None",
    });
    expect(relayedArgument("  run(cfg.path)", "run", null, "python", "  print(cfg.name)")?.condition).toBe(
      "cfg.path is None",
    );
    expect(relayedArgument("  run(cfg.path)", "run", null, "ruby")?.condition).toBe("cfg&.path.nil?");
    // a call, a literal, `this` alone, several arguments without a known position: nothing to guard
    expect(relayedArgument("run(load(x))", "run", 0, "javascript")).toBeNull();
    // A call that may not run when the statement runs, or runs where its argument is not bound: no guard before the
    // statement (it would throw on a path that works, or read a name that does not exist there).
    const js = (stmt: string) => relayedArgument(stmt, "run", 0, "javascript");
    expect(js("  const r = ok ? run(cfg.path) : null;")).toBeNull();
    expect(js("  ready && run(cfg.path);")).toBeNull();
    expect(js("  const r = cached || run(cfg.path);")).toBeNull();
    expect(js("  const r = cached ?? run(cfg.path);")).toBeNull();
    expect(js("  hooks?.run(cfg.path);")).toBeNull();
    expect(js("  items.forEach((cfg) => run(cfg.path));")).toBeNull();
    expect(js("  items.forEach(function (cfg) { run(cfg.path); });")).toBeNull();
    expect(js("  const r = run(cfg.path) ? 1 : 2;")).not.toBeNull(); // runs every time: guarded
    const py = (stmt: string) => relayedArgument(stmt, "run", 0, "python");
    expect(py("  r = run(cfg.path) if cfg else None")).toBeNull();
    expect(py("  rs = [run(c.path) for c in cfgs]")).toBeNull();
    expect(py("  r = cached or run(cfg.path)")).toBeNull();
    expect(py("  fs = map(lambda c: run(c.path), cfgs)")).toBeNull();
    const rb = (stmt: string) => relayedArgument(stmt, "run", 0, "ruby");
    expect(rb("  run(cfg.path) unless cfg.nil?")).toBeNull();
    expect(rb("  cfgs.each { |c| run(c.path) }")).toBeNull();
    expect(rb("  cfgs.each do |c| run(c.path) end")).toBeNull();
    expect(relayedArgument("run('a')", "run", 0, "javascript")).toBeNull();
    expect(relayedArgument("run(this)", "run", 0, "javascript")).toBeNull();
    expect(relayedArgument("run(a, b)", "run", null, "javascript")).toBeNull();
    // a parenthesis inside a string argument does not end the call
    expect(relayedArgument("run(')', opts.x)", "run", 1, "javascript")?.expr).toBe("opts.x");
    expect(relayedArgument("x.run(a)", "go", 0, "go")).toBeNull();
  });
});
