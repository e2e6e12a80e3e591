import { describe, expect, it } from "vitest";
import {
  enclosingDefinition,
  insertionBefore,
  languageOf,
  parameterNames,
} from "../../../src/agent/models/heuristic/code.js";
import { buildAddition, detectLogStyle, stringLiteral } from "../../../src/agent/models/heuristic/style.js";

const numbered = (text: string) => new Map(text.split("\n").map((l, i) => [i + 1, l] as [number, string]));

describe("insertionBefore", () => {
  it(
    "walks up a multi-line JS call and an object literal to " +
      "the statement start, keeping leading comments attached",
    () => {
      const lines = numbered(
        [
          "function f(a) {",
          "  // build the entry",
          "  const x = make({",
          "    name: a.name,",
          "    size: a.items.length,",
          "  });",
          "}",
        ].join("\n"),
      );
      expect(insertionBefore(lines, 5, "javascript")).toEqual({ line: 2, statement: 3, indent: "  " });
    },
  );

  it("walks up chained calls that start with a dot", () => {
    const lines = numbered(
      ["async function g(db) {", "\tconst rows = await db", "\t\t.select('*')", "\t\t.where({ id: 1 });", "}"].join(
        "\n",
      ),
    );
    expect(insertionBefore(lines, 3, "typescript")).toEqual({ line: 2, statement: 2, indent: "\t" });
  });

  it("refuses places where a statement would break the syntax", () => {
    const cls = numbered(["class A {", "  name = compute();", "}"].join("\n"));
    expect(insertionBefore(cls, 2, "typescript")).toBeNull(); // class body
    const sw = numbered(["switch (x) {", "  case 1:", "    a();", "}"].join("\n"));
    expect(insertionBefore(sw, 2, "javascript")).toBeNull(); // a `case` label
    const py = numbered(["def f(x):", "    try:", "        g(x)", "    except ValueError:", "        pass"].join("\n"));
    expect(insertionBefore(py, 4, "python")).toBeNull();
    const goStruct = numbered(["type S struct {", "\tName string", "}"].join("\n"));
    expect(insertionBefore(goStruct, 2, "go")).toBeNull();
  });

  it("accepts a Python line continued from an open bracket and a Ruby block body", () => {
    const py = numbered(
      ["def f(cart):", "    total = sum(", "        i.price for i in cart.items", "    )"].join("\n"),
    );
    expect(insertionBefore(py, 3, "python")).toEqual({ line: 2, statement: 2, indent: "    " });
    const rb = numbered(["def names(users)", "  users.map do |u|", "    u.name.upcase", "  end", "end"].join("\n"));
    expect(insertionBefore(rb, 3, "ruby")).toEqual({ line: 3, statement: 3, indent: "    " });
  });
});

describe("enclosingDefinition and parameters", () => {
  it("a JS function assigned to a member is the enclosing function (not module level)", () => {
    const js = numbered(
      [
        "res.status = function status(code) {",
        "  if (!Number.isInteger(code)) {",
        "    throw new TypeError('bad');",
        "  }",
        "};",
        "exports.run = async (job, opts) => {",
        "  return job.id;",
        "};",
        "app.handler = x => x.y;",
      ].join("\n"),
    );
    expect(enclosingDefinition(js, 3, "javascript")).toMatchObject({
      name: "status",
      kind: "function",
      params: ["code"],
    });
    expect(enclosingDefinition(js, 7, "javascript")).toMatchObject({
      name: "run",
      params: ["job", "opts"],
      instance: false,
    });
    // a member assigned a value, not a function: no definition
    expect(enclosingDefinition(numbered("res.locals = {\n  a: 1,\n};"), 2, "javascript")).toBeNull();
  });

  it("finds the named function around a line, looking through callbacks, per language", () => {
    const js = numbered(
      [
        "class Cart {",
        "  total(items, { tax } = {}) {",
        "    return items.map((i) => {",
        "      return i.price;",
        "    });",
        "  }",
        "}",
      ].join("\n"),
    );
    expect(enclosingDefinition(js, 4, "javascript")).toMatchObject({
      name: "total",
      kind: "function",
      params: ["items"],
      instance: true,
    });
    const go = numbered(
      [
        "func (s *Store) Get(ctx context.Context, key, ns string) (string, error) {",
        "\treturn s.m[key], nil",
        "}",
      ].join("\n"),
    );
    expect(enclosingDefinition(go, 2, "go")).toMatchObject({ name: "Get", params: ["ctx", "key", "ns"] });
    const java = numbered(
      [
        "public class Invoice {",
        "    public BigDecimal total(final List<Line> lines, Map<String, Integer> qty) {",
        "        return sum(lines);",
        "    }",
        "}",
      ].join("\n"),
    );
    expect(enclosingDefinition(java, 3, "java")).toMatchObject({ name: "total", params: ["lines", "qty"] });
    const py = numbered(
      ["class Shop:", "    def pay(self, order, *, retry=False):", "        return order.id"].join("\n"),
    );
    expect(enclosingDefinition(py, 3, "python")).toMatchObject({
      name: "pay",
      params: ["order", "retry"],
      instance: true,
    });
    expect(enclosingDefinition(numbered("const x = 1;\nmodule.exports = x;"), 2, "javascript")).toBeNull();
  });

  it("reads parameter lists of Ruby and C#", () => {
    expect(parameterNames("user, opts = {}, *rest, key:, &blk", "ruby")).toEqual([
      "user",
      "opts",
      "rest",
      "key",
      "blk",
    ]);
    expect(parameterNames("int id, ref Order order, params string[] tags", "csharp")).toEqual(["id", "order", "tags"]);
  });

  it("knows the languages it writes", () => {
    expect(["a.mjs", "b.tsx", "c.py", "d.go", "E.java", "f.kt", "g.rb", "H.cs", "i.php"].map(languageOf)).toEqual([
      "javascript",
      "typescript",
      "python",
      "go",
      "java",
      "kotlin",
      "ruby",
      "csharp",
      null,
    ]);
  });
});

describe("detectLogStyle", () => {
  it("uses the file's logger and a level the file shows, else the plain stderr print", () => {
    expect(detectLogStyle("const logger = require('./log');\nlogger.warn('x');", "javascript", false, "error")).toEqual(
      { receiver: "logger", method: "warn", form: "args" },
    );
    // not in an instance method
    expect(detectLogStyle("this.logger.error('x')", "typescript", false, "error").receiver).toBe("console");
    expect(detectLogStyle("this.logger.error('x')", "typescript", true, "error")).toMatchObject({
      receiver: "this.logger",
      method: "error",
    });
    expect(
      detectLogStyle("import logging\nlogger = logging.getLogger(__name__)\nlogger.info('a')", "python", false, "warn"),
    ).toMatchObject({ receiver: "logger", method: "warning" });
    expect(detectLogStyle("import sys\n", "python", false, "error")).toMatchObject({
      receiver: "print",
      method: "sys.stderr",
    });
    expect(detectLogStyle('import (\n\t"fmt"\n\t"os"\n)', "go", false, "error")).toMatchObject({
      receiver: "fmt",
      method: "Fprintf",
    });
    expect(detectLogStyle("package x", "go", false, "error").receiver).toBe("println");
    expect(detectLogStyle("Rails.logger.info('x')", "ruby", false, "warn")).toMatchObject({
      receiver: "Rails.logger",
      method: "warn",
    });
    expect(detectLogStyle("logger.info('x')", "ruby", false, "warn")).toMatchObject({
      receiver: "logger",
      method: "info",
    }); // unknown logger: only what the file calls
    expect(
      detectLogStyle("const log = require('pino')();\nlog.info('x');", "javascript", false, "error"),
    ).toMatchObject({ receiver: "log", method: "error" });
    expect(
      detectLogStyle(
        'private static final Logger LOGGER = Logger.getLogger(A.class.getName());\nLOGGER.info("x");',
        "java",
        false,
        "error",
      ),
    ).toMatchObject({ receiver: "LOGGER", method: "severe" });
    expect(
      detectLogStyle(
        'private static final Logger LOG = LoggerFactory.getLogger(A.class);\nLOG.warn("x");',
        "java",
        false,
        "error",
      ),
    ).toMatchObject({ receiver: "LOG", method: "error" });
    expect(detectLogStyle('_logger.LogInformation("x");', "csharp", false, "warn")).toMatchObject({
      receiver: "_logger",
      method: "LogInformation",
    });
    expect(
      detectLogStyle('private readonly ILogger<A> _logger;\n_logger.LogInformation("x");', "csharp", false, "warn"),
    ).toMatchObject({ receiver: "_logger", method: "LogWarning" });
    expect(detectLogStyle("", "csharp", false, "warn")).toMatchObject({
      receiver: "System.Console.Error",
      method: "WriteLine",
    });
  });
});

describe("buildAddition", () => {
  const problem = 'Error: bad "quote" \\ 100% #{x} ${y} */\nsecond line';
  const base = {
    note: { head: "", text: problem, tail: "; the issue's trace points here." },
    message: { head: "save(): ", text: problem, tail: "" },
    values: [
      { label: "userId", expr: "userId" },
      { label: "optsType", expr: "typeof opts" },
    ],
  };

  it("keeps untrusted problem text inside escaped literals and one-line comments", () => {
    const js = buildAddition({
      ...base,
      lang: "javascript",
      indent: "    ",
      style: { receiver: "console", method: "error", form: "args" },
    });
    expect(js).toEqual([
      '    // groundfix: Error: bad "quote" \\ 100% #{x} ${y} * / second line; the issue\'s trace points here.',
      // optsType dropped: 120 characters
      '    console.error("[groundfix] save(): Error: bad \\"quote\\" \\\\ 100% #{x} ${y} */ second line", { userId });',
    ]);
    const go = buildAddition({
      ...base,
      lang: "go",
      indent: "\t",
      style: { receiver: "log", method: "Printf", form: "printf" },
    });
    expect(go[1]).toBe(
      '\tlog.Printf("[groundfix] save(): Error: bad \\"quote\\" ' +
        '\\\\ 100%% #{x} ${y} */ second line userId=%v", userId)',
    ); // optsType dropped: 120 characters
    const rb = buildAddition({
      ...base,
      lang: "ruby",
      indent: "  ",
      style: { receiver: "warn", method: "", form: "concat" },
    });
    expect(rb[0]).toBe(
      '  # groundfix: Error: bad "quote" \\ 100% #{x} ${y} * / second line; the issue\'s trace points here.',
    );
    expect(rb[1]).toBe(
      '  warn "[groundfix] save(): Error: bad \\"quote\\" \\\\ 100% \\#{x} ${y} */ second line userId=#{userId}"',
    ); // optsType dropped: 120 characters
    const py = buildAddition({
      ...base,
      lang: "python",
      indent: "    ",
      style: { receiver: "logger", method: "error", form: "printf" },
    });
    expect(py[1]).toBe(
      '    logger.error("[groundfix] save(): Error: bad \\"quote\\" ' +
        '\\\\ 100%% #{x} ${y} */ second line userId=%r", userId)',
    ); // optsType dropped: 120 characters
    const cs = buildAddition({
      ...base,
      lang: "csharp",
      indent: "        ",
      style: { receiver: "System.Console.Error", method: "WriteLine", form: "concat" },
    });
    expect(cs[1]).toBe(
      '        System.Console.Error.WriteLine("[groundfix] save(): ' +
        'Error: bad \\"quote\\" \\\\ 100% #{x} ${y} */ second line");',
    ); // whole message, values dropped
  });

  it(
    "stays within 120 characters: drops values before cutting " +
      "the message, then cuts the quoted text between words",
    () => {
      const long =
        "TypeError: Cannot read properties of undefined (reading 'items') " +
        "while rendering the shopping cart summary for a returning customer";
      const style = { receiver: "console", method: "error", form: "args" } as const;
      const [note, log] = buildAddition({
        lang: "javascript",
        indent: "  ",
        style,
        note: { head: "", text: long, tail: "; the issue's trace points here." },
        message: { head: "render(): ", text: long, tail: "" },
        values: [
          { label: "cartId", expr: "cartId" },
          { label: "userId", expr: "userId" },
        ],
      });
      expect(note).toBe(
        "  // groundfix: TypeError: Cannot read properties of undefined " +
          "(reading 'items') while…; the issue's trace points here.",
      );
      expect(log).toBe(
        '  console.error("[groundfix] render(): TypeError: Cannot ' +
          "read properties of undefined (reading 'items')…\", { cartId });",
      );
      for (const line of [note, log]) expect(line?.trimStart().length).toBeLessThanOrEqual(120);
      const short = buildAddition({
        lang: "javascript",
        indent: "",
        style,
        note: { head: "", text: "Error: boom", tail: "." },
        message: { head: "f(): ", text: "Error: boom", tail: "" },
        values: ["a", "b", "c"].map((v) => ({ label: v, expr: v })),
      });
      expect(short[1]).toBe('console.error("[groundfix] f(): Error: boom", { a, b, c });');
    },
  );

  it("escapes Kotlin string templates", () => {
    expect(stringLiteral("cost ${x} $y", "kotlin")).toBe('"cost \\${x} \\$y"');
  });
});
