import { beforeAll, describe, expect, test } from "vitest";
import { addedTextProblems, structureProblems } from "../../src/grounding/structure.js";
import { loadGrammars } from "../../src/lang/tree-sitter.js";
import { add } from "./helpers.js";

beforeAll(async () => {
  expect(await loadGrammars()).toBe(true);
});

const JS = [
  "export function handle(req, res, next) {",
  "  const user = load(req);",
  "  audit(user);",
  "  res.send(user);",
  "}",
  "",
].join("\n");

describe("JS/TS: an addition that disables existing code is refused", () => {
  test.each([
    ["an added return", "  return;\n"],
    ["next(); return;", "  next(); return;\n"],
    ["an added throw", '  throw new Error("stop");\n'],
    ["an opening block comment closed by an added line further down", "  /*\n"],
    ["an added while (true) loop", "  while (true) {}\n"],
    ["an added template literal opener", "  const s = `\n"],
    ["a string continued onto the next line", '  const s = "\\\n'],
  ])("%s", (_name, lines) => {
    const problems = add("src/h.js", JS, 2, lines);
    expect(problems?.length).toBeGreaterThan(0);
    expect(problems![0]!.line).toBeGreaterThanOrEqual(3);
  });

  test("if (false) before a brace-less statement: the statement changes parent", () => {
    const before = "function f(x) {\n  if (x) warn(x);\n  run(x);\n}\n";
    const problems = add("a.ts", before, 2, "  if (false)\n")!;
    expect(problems.map((p) => p.message).join("\n")).toMatch(/inside the added if statement|tests a constant/);
  });

  test("/* opened on one added line and closed on another around existing code", () => {
    const before = "run();\nstop();\ncleanup();\n";
    const after = "run();\n/*\nstop();\n*/\ncleanup();\n";
    const problems = structureProblems("js", before, after, [2, 4])!;
    expect(problems[0]).toEqual({
      line: 2,
      message: expect.stringContaining("would become part of a comment, a string"),
    });
  });

  test("a comment whose opener is swallowed by an added template brings its text out as code", () => {
    const before = "const a = 1;\n/* ` ; evil(); // */\nconst b = 2;\n";
    const after = "const a = 1;\nconst t = `\n/* ` ; evil(); // */\nconst b = 2;\n";
    const problems = structureProblems("js", before, after, [2])!;
    expect(problems.length).toBeGreaterThan(0);
  });

  test("a line joined onto an added line by ASI (call parentheses) is refused", () => {
    const before = "let a = b\nfoo();\n";
    const after = "let a = b\n(c)\nfoo();\n";
    expect(structureProblems("js", before, after, [2])!.length).toBeGreaterThan(0);
  });

  test("an added if (true) return; is refused as a constant guard", () => {
    const problems = add("a.ts", JS, 2, "  if (true) return;\n")!;
    expect(problems.some((p) => /tests a constant/.test(p.message))).toBe(true);
  });
});

describe("an added loop with an empty body is refused: it only waits, and never ends once its test holds", () => {
  test.each([
    ["src/h.js", JS, "  while (user != null) {}\n"],
    ["src/h.js", JS, "  for (;user.locked;);\n"],
    ["src/h.js", JS, "  do {} while (user.locked);\n"],
    ["src/h.js", JS, "  for (const k in user) {\n    // nothing yet\n  }\n"],
    ["a.py", "def f(u):\n    run(u)\n", "    while u.locked:\n        pass\n"],
    ["a.py", "def f(u):\n    run(u)\n", "    for _ in u: ...\n"],
    ["a.go", "package a\n\nfunc f(u *U) {\n\trun(u)\n}\n", "\tfor u.Locked {\n\t\t// wait\n\t}\n"],
  ])("%s: %j", (path, before, lines) => {
    const at = path.endsWith(".go") ? 3 : path.endsWith(".py") ? 1 : 2;
    const problems = add(path, before, at, lines)!;
    expect(problems.map((p) => p.message).join("\n")).toContain("has an empty body");
  });

  test.each([
    ["src/h.js", JS, "  while (user.locked) user = load(req);\n"],
    ["a.py", "def f(u):\n    run(u)\n", "    for item in u.items:\n        log(item)\n"],
  ])("a loop that does something is no empty loop: %s %j", (path, before, lines) => {
    const problems = add(path, before, path.endsWith(".py") ? 1 : 2, lines)!;
    expect(problems.map((p) => p.message).join("\n")).not.toContain("has an empty body");
  });
});

describe("JS/TS: the product's own kind of fix passes", () => {
  test.each([
    ["a guard that throws on a bad value", "  if (!user) throw new Error(`no user for ${req.id}`);\n"],
    ["a guard that returns on a bad value", "  if (user == null) return next();\n"],
    ["a log line", '  console.warn("loaded", user);\n'],
    ["a comment", "  // the user may be missing when the session expired\n"],
    ["a block comment closed on its own line", "  /* note:\n     more */\n"],
  ])("%s", (_name, lines) => {
    expect(add("src/h.ts", JS, 2, lines)).toEqual([]);
  });

  test("a return at the end of a function and a hoisted function after it", () => {
    const before = "function f() {\n  work();\n  function helper() {}\n}\n";
    expect(add("a.js", before, 2, "  return;\n")).toEqual([]);
  });

  test("an addition at the end of a file without a final newline", () => {
    expect(structureProblems("ts", "const a = 1;", "const a = 1;\nconst b = 2;", [2])).toEqual([]);
  });

  test("code that was unreachable before stays a non-issue", () => {
    const before = "function f() {\n  return 1;\n  dead();\n}\n";
    expect(add("a.js", before, 1, '  if (!ok) throw new Error("x");\n')).toEqual([]);
  });
});

const PY = ["def handle(req):", "    user = load(req)", "    audit(user)", "    return user", ""].join("\n");

describe("Python", () => {
  test("a return before the rest of a function is refused", () => {
    const problems = add("app.py", PY, 2, "    return None\n")!;
    expect(problems[0]!.message).toMatch(/would no longer run/);
    expect(problems[0]!.line).toBe(4);
  });
  test('an opening """ closed further down is refused', () => {
    const after = PY.replace("    audit(user)\n", '    """\n    audit(user)\n    """\n');
    expect(structureProblems("python", PY, after, [3, 5])![0]!.message).toContain(
      "would become part of a comment, a string",
    );
  });
  test("a raise before existing code is refused; a guard that raises passes", () => {
    expect(add("app.py", PY, 2, '    raise RuntimeError("x")\n')!.length).toBeGreaterThan(0);
    expect(add("app.py", PY, 2, '    if user is None:\n        raise ValueError(f"no user for {req}")\n')).toEqual([]);
  });
  test("if False: as a guard is refused (constant condition)", () => {
    expect(add("app.py", PY, 2, "    if False:\n        return None\n")![0]!.message).toContain("tests a constant");
  });
  test("a backslash continuation joins an existing line onto an added one", () => {
    expect(add("app.py", PY, 2, "    x = 1 + \\\n")!.length).toBeGreaterThan(0);
  });
  test("appending a statement to a function passes (the block grows)", () => {
    const before = "def f(x):\n    return x\n\nprint(f(1))\n";
    expect(add("a.py", before, 1, "    assert x is not None\n")).toEqual([]);
    expect(add("a.py", "def f(x):\n    y = x\n", 2, "    log(y)\n")).toEqual([]);
  });
});

const GO = ["package main", "", "func handle(x int) int {", "\ty := load(x)", "\taudit(y)", "\treturn y", "}", ""].join(
  "\n",
);

describe("Go", () => {
  test("an added return or panic before existing code is refused", () => {
    expect(add("main.go", GO, 4, "\treturn 0\n")![0]!.message).toMatch(/would no longer run/);
    expect(add("main.go", GO, 4, '\tpanic("stop")\n')![0]!.message).toMatch(/would no longer run/);
  });
  test("an added if false { ... } wrapping existing lines is refused", () => {
    const after = GO.replace("\taudit(y)\n", "\tif false {\n\taudit(y)\n\t}\n");
    expect(structureProblems("go", GO, after, [5, 7])!.length).toBeGreaterThan(0);
  });
  test("a guard that returns on a bad value passes", () => {
    expect(add("main.go", GO, 4, "\tif y < 0 {\n\t\treturn -1\n\t}\n")).toEqual([]);
  });
});

/** A decorated TypeScript module: a class with a property and a method, a helper, a constant, a star re-export. */
const DECORATED = [
  'import { Injectable } from "./di";',
  "",
  "@Injectable()",
  "export class Cart {",
  "  items: number[] = [];",
  "  total(): number {",
  "    return this.items.length;",
  "  }",
  "}",
  "",
  "function helper(x: number) {",
  "  return x + 1;",
  "}",
  "",
  "const limit = 3;",
  'export * from "./real";',
  "",
].join("\n");

describe("JS/TS: an addition may not attach to or replace an existing declaration", () => {
  test.each([
    [
      "a decorator before an already decorated class",
      2,
      "@Deprecated()\n",
      3,
      /attaches to the existing class declaration at line 3/,
    ],
    [
      "a decorator between the existing decorator and the class",
      3,
      "@Sealed\n",
      4,
      /added decorator at line 4 changes the existing class declaration/,
    ],
    ["a decorator before an existing method", 5, "  @Memoize()\n", 6, /attaches to the existing method declaration/],
    ["a decorator before an existing property", 4, "  @Input()\n", 5, /attaches to the existing property declaration/],
    [
      "an `export` line before an existing function",
      10,
      "export\n",
      11,
      /attaches to the existing function declaration/,
    ],
    [
      "an `export default` line before an existing function",
      10,
      "export default\n",
      11,
      /attaches to the existing function declaration/,
    ],
    ["a `static` line before an existing method", 5, "  static\n", 6, /attaches to the existing method declaration/],
    [
      "an `export` line before an existing const",
      14,
      "export\n",
      15,
      /attaches to the existing variable statement at line 15/,
    ],
    [
      "`export { helper as real }` shadowing the star re-export",
      16,
      "export { helper as real };\n",
      17,
      /changes what the module exports/,
    ],
    [
      "`export { fake as x } from` shadowing the star re-export",
      16,
      'export { fake as Cart } from "./fake";\n',
      17,
      /changes what the module exports/,
    ],
    ["`export default` of a new value", 16, "export default helper;\n", 17, /changes what the module exports/],
    ["`module.exports =` replacing the exports", 16, "module.exports = {};\n", 17, /changes what the module exports/],
    ["`exports.total =` replacing one export", 16, "exports.total = () => 0;\n", 17, /changes what the module exports/],
    [
      "a second `function helper` (the later declaration wins)",
      13,
      "function helper(x: number) {\n  return 0;\n}\n",
      14,
      /declares "helper", which the existing function declaration at line 11 declares/,
    ],
    [
      "a second method `total` (the later member wins)",
      8,
      "  total(): number {\n    return 0;\n  }\n",
      9,
      /declares "total", which the existing method declaration at line 6/,
    ],
    ["a `var limit` redeclaring the constant's name", 15, "var limit = 0;\n", 16, /declares "limit"/],
  ])("%s is refused", (_name, at, lines, line, message) => {
    const problems = add("src/cart.ts", DECORATED, at, lines)!;
    expect(problems[0]).toEqual({ line, message: expect.stringMatching(message) });
  });

  test("a duplicate key added to an existing object literal is refused (the later key wins)", () => {
    const before = "const handlers = {\n  save: persist,\n  load: fetchAll,\n};\n";
    expect(add("a.js", before, 3, "  save: () => {},\n")![0]!.message).toMatch(/declares "save"/);
  });

  test.each([
    ["a guard at the top of a decorated method", 6, '    if (!this.items) throw new Error("items must be set");\n'],
    ["a guard at the top of a function", 11, '  if (!Number.isFinite(x)) throw new TypeError("x must be a number");\n'],
    ["a new const of a new name", 15, "const ceiling = limit * 2;\n"],
    ["an import of a new name", 1, 'import { assert } from "./assert";\n'],
    ["a comment above the decorated class", 2, "// Cart keeps the items of one order.\n"],
  ])("%s passes", (_name, at, lines) => {
    expect(add("src/cart.ts", DECORATED, at, lines)).toEqual([]);
  });
});

const PY_DECORATED = [
  "import functools",
  "",
  "@functools.cache",
  "def total(items):",
  "    return sum(items)",
  "",
  "def helper(x):",
  "    return x",
  "",
  "class Cart:",
  "    def size(self):",
  "        return 1",
  "",
].join("\n");

describe("Python: an addition may not attach to or replace an existing definition", () => {
  test.each([
    [
      "a decorator before an existing def",
      6,
      "@functools.cache\n",
      /the existing function definition at line 7 would sit inside the added decorated definition/,
    ],
    [
      "a decorator before an already decorated def",
      2,
      "@trace\n",
      /attaches to the existing decorated definition at line 3/,
    ],
    [
      "a decorator between the existing decorator and the def",
      3,
      "@trace\n",
      /added decorator at line 4 changes the existing decorated definition/,
    ],
    [
      "@staticmethod before an existing method",
      10,
      "    @staticmethod\n",
      /would sit inside the added decorated definition/,
    ],
    [
      "a second def helper (the later one wins)",
      8,
      "def helper(x):\n    return 0\n",
      /declares "helper", which the existing function definition at line 7 declares/,
    ],
    ["a second method size", 12, "    def size(self):\n        return 0\n", /declares "size"/],
  ])("%s is refused", (_name, at, lines, message) => {
    expect(add("app.py", PY_DECORATED, at, lines)![0]!.message).toMatch(message);
  });

  test.each([
    [
      "a guard at the top of a decorated def",
      4,
      '    if items is None:\n        raise ValueError("items must be given")\n',
    ],
    ["a guard at the top of a method", 11, "        assert self is not None\n"],
    ["a new def of a new name", 9, "def clamp(x):\n    return max(x, 0)\n\n"],
  ])("%s passes", (_name, at, lines) => {
    expect(add("app.py", PY_DECORATED, at, lines)).toEqual([]);
  });
});

describe("hidden characters in added text", () => {
  test.each([
    ["a lone CR", "  // note\r evil();"],
    ["U+2028", "  // note\u2028evil();"],
    ["U+2029", "  // note\u2029evil();"],
    ["a right-to-left override", '  const s = "\u202Euser";'],
    ["a zero-width space", "  const us\u200Ber = 1;"],
    ["a tag character", "  // \u{E0041}"],
  ])("%s is refused", (_name, text) => {
    expect(addedTextProblems([{ line: 3, text }])).toEqual([
      { line: 3, message: expect.stringMatching(/hidden line break|invisible or bidirectional/) },
    ]);
  });
  test("a CRLF line ending is not a hidden break", () => {
    expect(addedTextProblems([{ line: 1, text: "  run();\r" }])).toEqual([]);
  });
});
