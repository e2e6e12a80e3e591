import { describe, expect, it } from "vitest";
import { goResults, indentUnit } from "../../../src/agent/models/heuristic/code.js";
import { countsAsDeclaration } from "../../../src/agent/models/heuristic/locate.js";
import { addedLines, syntaxErrors, runHeuristic } from "./readable.js";

const run = runHeuristic;

const lines = (text: string) => new Map(text.split("\n").map((t, i) => [i + 1, t] as const));

describe("the guard is written in the file's own indentation", () => {
  it(
    "indentUnit: tabs when the file indents with tabs, also " + "at module level; a Javadoc's ` * ` is no block level",
    () => {
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
    },
  );

  it("indentUnit leaves out comment lines by the one comment rule: a `#` field or a `*` unpacking is code", () => {
    // a JavaScript private field and a Python star target are code lines, so their step counts
    expect(indentUnit(lines("class A {\n    #n = 0;\n}"), "javascript", "")).toBe("    ");
    expect(indentUnit(lines("def f(xs):\n   *a, b = xs\nx = 1"), "python", "")).toBe("   ");
    // and Python's `#` comment lines and a Javadoc's `*` lines are not
    expect(indentUnit(lines("def f():\n        # deep note\n  return 1"), "python", "")).toBe("  ");
  });

  it("a declaration's hit and a Go signature read comments by the one rule", () => {
    // a Rakefile is Ruby by its name: `#` starts its comments
    expect(countsAsDeclaration("Rakefile", "# def build", "build")).toBe(false);
    expect(countsAsDeclaration("Rakefile", "def build", "build")).toBe(true);
    expect(countsAsDeclaration("lib/a.rb", "x = 1 # def build", "build")).toBe(false);
    expect(countsAsDeclaration("a.js", "  #count = 0;", "count")).toBe(true);
    expect(countsAsDeclaration("a.js", 'const s = "a"; // function run', "run")).toBe(false);
    expect(goResults("func (c *T) run(a int) (n int, err error) { // see run")).toEqual(["int", "error"]);
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
    expect(added).toEqual([
      "if (command?.args == null) {",
      "\tthrow new TypeError(`cli.js: command.args is null or undefined before reading 'length'`);",
      "}",
    ]);
    expect(syntaxErrors("cli.js", result.files[0]?.content ?? "")).toEqual([]);
  });
});

describe("Go: an error checked and not returned", () => {
  const file = (block: string[], signature = "func create(c *Context) error {") =>
    [
      "package main",
      "",
      'import "github.com/pkg/errors"',
      "",
      signature,
      "\tresp, err := api.Create(c.ID)",
      "\tif err != nil {",
      ...block,
      "\t}",
      "\trules = append(rules, resp.Result)",
      "\treturn nil",
      "}",
      "",
    ].join("\n");
  const body = [
    "panic: runtime error: invalid memory address or nil pointer dereference",
    "",
    "goroutine 1 [running]:",
    "main.create(0xc000072f40)",
    "\t/home/u/go/src/github.com/acme/tool/cmd/tool/create.go:10 +0x43e",
  ].join("\n");

  it(
    "the block wraps the error and drops it: the missing " + "return of that wrap, inside the block; a pull request",
    async () => {
      const result = await run({ "cmd/tool/create.go": file(['\t\terrors.Wrap(err, "creating")']) }, "panic", body);
      expect(addedLines(result)).toEqual(['\t\treturn errors.Wrap(err, "creating")']);
      expect(result.outcome).toBe("pr_ready");
      const after = result.files[0]?.content ?? "";
      expect(after).toContain('\t\terrors.Wrap(err, "creating")\n\t\treturn errors.Wrap(err, "creating")\n\t}');
    },
  );

  it("other results get their zero values; a block that only logs returns the error itself", async () => {
    const result = await run(
      {
        "cmd/tool/create.go": file(
          ['\t\tlog.Println("create failed", err)'],
          "func create(c *Context) (int, *Rule, error) {",
        ),
      },
      "panic",
      body,
    );
    expect(addedLines(result)).toEqual(["\t\treturn 0, nil, err"]);
  });

  it("a block that already leaves, or a struct result, is not this bug: no return is added", async () => {
    const leaves = await run({ "cmd/tool/create.go": file(["\t\tlog.Fatal(err)"]) }, "panic", body);
    expect(addedLines(leaves).some((l) => /return .*err/.test(l))).toBe(false);
    const struct = await run(
      { "cmd/tool/create.go": file(["\t\tlog.Println(err)"], "func create(c *Context) (Rule, error) {") },
      "panic",
      body,
    );
    expect(addedLines(struct).some((l) => /return .*err/.test(l))).toBe(false);
  });
});

describe("Java: the guard needs the method around the frame line", () => {
  it(
    "a frame line far below the window's start: the lines above are read until " +
      "the method's signature, and the guard leaves as the method's own guards do",
    async () => {
      const filler = Array.from({ length: 360 }, (_, i) => `            int v${i} = ${i};`);
      const java = [
        "package org.acme;",
        "",
        "enum State {",
        "    InBody {",
        "        boolean process(Token t, Builder tb) {",
        "            Token.StartTag startTag = t.asStartTag();",
        "            String name = startTag.name();",
        ...filler,
        "            if (tb.form() != null)",
        "                return false;",
        '            if (startTag.attributes.hasKey("action")) {',
        '                tb.form().attr("action", startTag.attributes.get("action"));',
        "            }",
        "            return true;",
        "        }",
        "    };",
        "}",
        "",
      ].join("\n");
      const line = java.split("\n").findIndex((l) => l.includes('hasKey("action")')) + 1;
      const body = `java.lang.NullPointerException\n\tat org.acme.State$1.process(State.java:${line})`;
      const result = await run({ "src/main/java/org/acme/State.java": java }, "NPE", body);
      // startTag was dereferenced above (startTag.name()): only the missing part of the chain is checked
      expect(addedLines(result)).toEqual([
        "            if (startTag.attributes == null) {",
        "                return false;",
        "            }",
      ]);
    },
  );
});

describe("Python: a frame line inside a call's argument list", () => {
  it("the guard goes before the statement the argument list belongs to, never between the arguments", async () => {
    const py = [
      "def from_request(request):",
      "    url = request.url",
      "    return Message(",
      "        headers='\\n'.join(name",
      "                          for name",
      "                          in request.headers),",
      "        body=request.body.data,",
      "    )",
      "",
    ].join("\n");
    const body = [
      "Traceback (most recent call last):",
      '  File "/usr/lib/python3/site-packages/pkg/message.py", line 7, in from_request',
      "    body=request.body.data,",
      "AttributeError: 'NoneType' object has no attribute 'data'",
    ].join("\n");
    const result = await run({ "pkg/message.py": py, "setup.py": "setup(name='pkg')\n" }, "crash", body);
    const after = result.files[0]?.content ?? "";
    expect(after.split("\n").slice(2, 5)).toEqual([
      "    if request.body is None:",
      "        raise ValueError(\"from_request(): request.body is None before reading 'data'\")",
      "    return Message(",
    ]);
  });
});

describe(
  "a value of the wrong kind, no cause found: a clearer " + "error where it is raised, proposed below the threshold",
  () => {
    it(
      "Python `'T' object has no attribute`: a hasattr guard raising " +
        "TypeError; `'T' object is not iterable`: an __iter__ guard",
      async () => {
        const py = [
          "def total(order):",
          "    rows = list(order.lines)",
          "    return order.amount + len(rows)",
          "",
        ].join("\n");
        const attr = await run(
          { "shop/total.py": py, "setup.py": "setup(name='shop')\n" },
          "crash",
          [
            "Traceback (most recent call last):",
            '  File "/srv/venv/lib/python3.11/site-packages/shop/total.py", line 3, in total',
            "    return order.amount + len(rows)",
            "AttributeError: 'Invoice' object has no attribute 'amount'",
          ].join("\n"),
        );
        expect(addedLines(attr)).toEqual([
          '    if not hasattr(order, "amount"):',
          '        raise TypeError("total(): order has no attribute ' +
            "'amount': it is not the object this code expects\")",
        ]);
        expect(attr.outcome).toBe("diagnosis_only");
        expect(attr.diagnosis?.confidence).toBeLessThan(0.7);
        const iter = await run(
          { "shop/total.py": py, "setup.py": "setup(name='shop')\n" },
          "crash",
          [
            "Traceback (most recent call last):",
            '  File "/srv/venv/lib/python3.11/site-packages/shop/total.py", line 2, in total',
            "    rows = list(order.lines)",
            "TypeError: 'int' object is not iterable",
          ].join("\n"),
        );
        expect(addedLines(iter).slice(0, 1)).toEqual(['    if not hasattr(order.lines, "__iter__"):']);
        // a missing value stays the guard of a crash: 'NoneType' is no mismatch
        expect(addedLines(iter).join("\n")).not.toMatch(/NoneType/);
      },
    );

    it(
      "JavaScript `x.y is not a function`: a typeof guard before " +
        "the call; a call bound by the statement is left alone",
      async () => {
        const js = [
          "function help(usage) {",
          "  const text = usage.epilog.replace(/x/g, 'y');",
          "  return text;",
          "}",
          "",
        ].join("\n");
        const result = await run(
          { "lib/usage.js": js, "package.json": '{"name":"tool"}\n' },
          "crash",
          "TypeError: usage.epilog.replace is not a function\n   " +
            " at help (/usr/lib/node_modules/tool/lib/usage.js:2:31)",
        );
        const added = addedLines(result);
        expect(added[0]).toBe('  if (typeof usage?.epilog?.replace !== "function") {');
        expect(syntaxErrors("lib/usage.js", result.files[0]?.content ?? "")).toEqual([]);
        expect(result.outcome).toBe("diagnosis_only");
      },
    );
  },
);
