import { describe, expect, it } from "vitest";
import { indentUnit } from "../../../src/agent/models/heuristic/code.js";
import { addedLines, syntaxErrors, runHeuristic } from "./readable.js";

const run = runHeuristic;

const lines = (text: string) => new Map(text.split("\n").map((t, i) => [i + 1, t] as const));

describe("the guard is written in the file's own indentation", () => {
  it("indentUnit: tabs when the file indents with tabs, also at module level; a Javadoc's ` * ` is no block level", () => {
    expect(indentUnit(lines("if (a) {\n\tb();\n\tif (c) {\n\t\td();\n\t}\n}"), "javascript", "")).toBe("\t");
    const java = [
      "class A {",
      "    /**",
      "     * Docs.",
      "     */",
      "    void f() {",
      "        if (x) {",
      "            y();",
      "        }",
      "    }",
      "}",
    ].join("\n");
    expect(indentUnit(lines(java), "java", "        ")).toBe("    ");
    // the most frequent step wins over a one-off deeper continuation line
    const js = "function f() {\n  a(\n      b);\n  if (c) {\n    d();\n  }\n}";
    expect(indentUnit(lines(js), "javascript", "  ")).toBe("  ");
  });

  it("a tab-indented script crashing at module level: the guard's throw is one tab deeper, and parses", async () => {
    const cli = [
      "const commands = {",
      "\tlist: { fn: () => {} },",
      '\tset: { fn: () => {}, args: ["value"] },',
      "};",
      "let command = commands[process.argv[2]];",
      "let args = process.argv.slice(3);",
      "if (command == undefined) {",
      "\tprocess.exit();",
      "}",
      "if (args.length > command.args.length) {",
      "\targs = args.slice(0, command.args.length);",
      "}",
      "command.fn.apply(null, args);",
      "",
    ].join("\n");
    const body = [
      "/usr/lib/node_modules/x/cli.js:10",
      "TypeError: Cannot read property 'length' of undefined",
      "    at Object.<anonymous> (/usr/lib/node_modules/x/cli.js:10:32)",
    ].join("\n");
    const result = await run({ "cli.js": cli, "package.json": '{"name":"x"}\n' }, "crash on list", body);
    const added = addedLines(result);
    // column 32 is the `length` read on `command.args`, not the one on `args` (column 10)
    expect(added.slice(1)).toEqual([
      "if (command?.args == null) {",
      "\tthrow new TypeError(`cli.js: command.args is null or undefined before reading 'length'`);",
      "}",
    ]);
    expect(syntaxErrors("cli.js", result.files[0]?.content ?? "")).toEqual([]);
  });
});
