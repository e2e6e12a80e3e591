import { beforeAll, describe, expect, test } from "vitest";
import { addedLineNumbers } from "../../src/grounding/additive.js";
import { addedTextProblems, structureLanguage, structureProblems } from "../../src/grounding/structure.js";
import { loadGrammars } from "../../src/lang/tree-sitter.js";

beforeAll(async () => {
  expect(await loadGrammars()).toBe(true);
});

/** Insert `lines` after line `at` (0 = top) of `before`, as suggest_addition would, and compare the parses. */
function add(path: string, before: string, at: number, lines: string) {
  const rows = before.split("\n");
  const offset = rows.slice(0, at).reduce((n, r) => n + r.length + 1, 0);
  const after = before.slice(0, offset) + lines + before.slice(offset);
  const added = addedLineNumbers(before, offset, 0, lines);
  return structureProblems(structureLanguage(path)!, before, after, added);
}

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
