import { beforeAll, describe, expect, test } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { loadGrammars } from "../../src/lang/tree-sitter.js";
import { add } from "./helpers.js";
import { reviewChange } from "../../src/review/index.js";
import { createEditSession, prepareSuggestAddition, runSuggestAddition } from "../../src/tools/suggest-addition.js";
import { makeContext } from "../tools/fixture.js";
import { gitChange } from "../review/helpers.js";

beforeAll(async () => {
  expect(await loadGrammars()).toBe(true);
});

/** [attack, path, file before, insert after line, added lines, what the refusal says] */
type Attack = [string, string, string, number, string, RegExp];

const INSIDE = /goes inside the existing .* changes what that existing code does/;
const BINDS = /binds "(\w+)", a name the existing code of this file already uses/;
const ASSIGNS = /assigns to, changes or deletes/;

const JS_ATTACKS: Attack[] = [
  ["an argument inserted between existing ones", "a.js", "transfer(\n  from,\n  to,\n);\n", 2, "  attacker,\n", INSIDE],
  [
    "a parameter with a default inserted first",
    "a.js",
    "function f(\n  a,\n) {\n  return a;\n}\n",
    1,
    "  z = evil(),\n",
    INSIDE,
  ],
  ["shell: true added to spawn's options", "a.js", "spawn(cmd, args, {\n  cwd,\n});\n", 2, "  shell: true,\n", INSIDE],
  ["an array element inserted first", "a.js", "const xs = [\n  1,\n  2,\n];\n", 1, "  0,\n", INSIDE],
  ["an enum member inserted (later values shift)", "a.ts", "enum E {\n  A,\n  B,\n}\n", 2, "  X,\n", INSIDE],
  [
    "a case label before an existing case body",
    "a.js",
    'switch (r) {\n  case "a":\n    allow();\n}\n',
    1,
    '  case "guest":\n',
    INSIDE,
  ],
  ["a bare `declare` line (throws at load)", "a.ts", "const x = 1;\nuse(x);\n", 0, "declare\n", /only reads "declare"/],
  [
    '"use strict" at the top of a file',
    "a.js",
    "x = 1;\nuse(x);\n",
    0,
    '"use strict";\n',
    /directive such as "use strict"/,
  ],
  [
    '"use server" (exposes every export as an endpoint)',
    "a.js",
    "export async function f() {}\n",
    0,
    "'use server';\n",
    /directive/,
  ],
  ["a side-effect import", "a.js", 'import x from "x";\nx();\n', 1, 'import "./evil";\n', /side effects only/],
  ["a side-effect require", "a.js", 'const x = require("x");\nx();\n', 1, 'require("./evil");\n', /side effects only/],
  [
    "an import that replaces the global fetch",
    "a.js",
    "export function get(u) {\n  return fetch(u);\n}\n",
    0,
    'import fetch from "./f";\n',
    BINDS,
  ],
  [
    "a then() method (every await of an instance calls it)",
    "a.js",
    "class C {\n  run() {}\n}\n",
    2,
    "  then(r) { r(1); }\n",
    /"then", a method the runtime calls/,
  ],
  ["a toJSON() method", "a.ts", "class C {\n  run() {}\n}\n", 2, "  toJSON() { return {}; }\n", /"toJSON"/],
  [
    "a [Symbol.iterator] method",
    "a.js",
    "class C {\n  run() {}\n}\n",
    2,
    "  *[Symbol.iterator]() {}\n",
    /computed name/,
  ],
  ["a static block", "a.js", "class C {\n  run() {}\n}\n", 2, "  static { evil(); }\n", /static block/],
  [
    "a constructor in a class that had none",
    "a.js",
    "class C extends B {\n  run() {}\n}\n",
    2,
    "  constructor() { super(); evil(); }\n",
    /constructor/,
  ],
  [
    "a field set on every instance",
    "a.js",
    "class C {\n  run() { return this.cache; }\n}\n",
    1,
    "  cache = {};\n",
    /is a field/,
  ],
  [
    "a var hoisted over the global it shadows",
    "a.js",
    "function f() {\n  log(config);\n}\n",
    2,
    "  var config = null;\n",
    BINDS,
  ],
  [
    "a var hoisted out of an added block",
    "a.js",
    "function f() {\n  log(config);\n}\n",
    1,
    "  if (ok) { var config = 1; }\n",
    BINDS,
  ],
  [
    "a let that puts an earlier read in the dead zone",
    "a.js",
    "function f() {\n  log(config);\n}\n",
    2,
    "  let config = 1;\n",
    BINDS,
  ],
  [
    "a function declaration hoisted over a helper",
    "a.js",
    "function f() {\n  return helper();\n}\n",
    2,
    "  function helper() { return 0; }\n",
    BINDS,
  ],
  ["an assignment to a parameter", "a.js", "function f(user) {\n  check(user);\n}\n", 1, "  user = admin;\n", ASSIGNS],
  [
    "an assignment to a member of an existing object",
    "a.js",
    "function f(user) {\n  check(user);\n}\n",
    1,
    "  user.isAdmin = true;\n",
    ASSIGNS,
  ],
  [
    "prototype pollution",
    "a.js",
    "function f(user) {\n  check(user);\n}\n",
    1,
    "  Object.prototype.isAdmin = true;\n",
    ASSIGNS,
  ],
  [
    "this.x = … in an existing method",
    "a.ts",
    "class C {\n  run() {\n    go(this.x);\n  }\n}\n",
    2,
    "    this.x = 0;\n",
    ASSIGNS,
  ],
  [
    "an increment of an existing counter",
    "a.js",
    "function f() {\n  tries;\n}\n".replace("  tries;\n", "  use(tries);\n"),
    1,
    "  tries++;\n",
    ASSIGNS,
  ],
  ["a delete of an existing key", "a.js", "function f(o) {\n  use(o);\n}\n", 1, "  delete o.token;\n", ASSIGNS],
];

const PY_ATTACKS: Attack[] = [
  [
    "shell=True added to a multi-line call",
    "a.py",
    "subprocess.run(\n    cmd,\n    check=True,\n)\n",
    2,
    "    shell=True,\n",
    INSIDE,
  ],
  [
    "an except clause before the existing one",
    "a.py",
    "try:\n    run()\nexcept ValueError:\n    report()\n",
    2,
    "except Exception:\n    pass\n",
    INSIDE,
  ],
  [
    "an elif before the existing else",
    "a.py",
    "if a:\n    one()\nelse:\n    other()\n",
    2,
    "elif b:\n    pass\n",
    INSIDE,
  ],
  [
    "global makes an existing local a module global",
    "a.py",
    "def f():\n    counter = 0\n    return counter\n",
    1,
    "    global counter\n",
    BINDS,
  ],
  ["a __future__ import", "a.py", "import os\nx = 1\n", 0, "from __future__ import annotations\n", /__future__ import/],
  ["a star import", "a.py", "import os\nx = 1\n", 1, "from evil import *\n", /star import/],
  [
    "a __getattr__ method",
    "a.py",
    "class C:\n    def run(self):\n        pass\n",
    3,
    "    def __getattr__(self, n):\n        return 1\n",
    /__getattr__, a name the interpreter looks up/,
  ],
  ["__all__ at module level", "a.py", "def a():\n    pass\n", 2, "__all__ = []\n", /__all__/],
  [
    "an assignment that rebinds an imported module",
    "a.py",
    "import json\n\ndef f():\n    return json.dumps(1)\n",
    1,
    "json = None\n",
    BINDS,
  ],
  [
    "an assignment in a function that makes a global local",
    "a.py",
    "def f():\n    return LIMIT * 2\n",
    1,
    "    if debug:\n        LIMIT = 1\n",
    BINDS,
  ],
  [
    "an attribute assignment on an existing object",
    "a.py",
    "def f(user):\n    check(user)\n",
    1,
    "    user.is_admin = True\n",
    ASSIGNS,
  ],
  ["os.environ changed", "a.py", "import os\n\ndef f():\n    run()\n", 3, '    os.environ["PATH"] = "/tmp"\n', ASSIGNS],
  [
    "a docstring put first in a function",
    "a.py",
    "def p_expr(t):\n    t[0] = t[1]\n",
    1,
    "    'expr : expr PLUS term'\n",
    /string on its own line/,
  ],
];

const GO_ATTACKS: Attack[] = [
  [
    "an argument inserted between existing ones",
    "a.go",
    "package main\n\nfunc main() {\n\tf(\n\t\ta,\n\t\tb,\n\t)\n}\n",
    4,
    "\t\tz,\n",
    INSIDE,
  ],
  ["a struct field", "a.go", "package main\n\ntype T struct {\n\tA int\n\tB int\n}\n", 3, "\tZ int\n", INSIDE],
  ["a const spec that shifts iota", "a.go", "package main\n\nconst (\n\tA = iota\n\tB\n)\n", 3, "\tX\n", INSIDE],
  [
    "an init function",
    "a.go",
    "package main\n\nfunc main() {\n}\n",
    4,
    "\nfunc init() {\n\tevil()\n}\n",
    /init function/,
  ],
  [
    "a blank import (net/http/pprof serves debug handlers)",
    "a.go",
    'package main\n\nimport (\n\t"fmt"\n)\n\nfunc main() { fmt.Println() }\n',
    3,
    '\t_ "net/http/pprof"\n',
    /side effects only/,
  ],
  [
    "a String method on an existing type",
    "a.go",
    "package main\n\ntype T struct{}\n",
    3,
    '\nfunc (T) String() string { return "x" }\n',
    /String method/,
  ],
  [
    "a := that reassigns err",
    "a.go",
    "package main\n\nfunc f() error {\n\terr := a()\n\treturn err\n}\n",
    4,
    "\terr, _ := b()\n",
    /binds "err"/,
  ],
  [
    "an assignment to an existing variable",
    "a.go",
    "package main\n\nfunc f(x int) int {\n\treturn x\n}\n",
    3,
    "\tx = 0\n",
    ASSIGNS,
  ],
  [
    "a field assignment on a parameter",
    "a.go",
    "package main\n\nfunc f(u *U) {\n\tsave(u)\n}\n",
    3,
    "\tu.Admin = true\n",
    ASSIGNS,
  ],
];

describe.each([
  ["JavaScript/TypeScript", JS_ATTACKS],
  ["Python", PY_ATTACKS],
  ["Go", GO_ATTACKS],
])("%s: an addition that changes what existing code does is refused", (_lang, attacks) => {
  test.each(attacks)("%s", (_name, path, before, at, lines, says) => {
    const problems = add(path, before, at, lines)!;
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.map((p) => p.message).join("\n")).toMatch(says);
  });
});

describe("a line added inside an existing string changes its value and is refused", () => {
  const INSIDE_STRING = /lies inside the existing .* which changes its value/;
  test.each([
    ["a JS template with a substitution", "a.js", "const q = `\n  SELECT * FROM t\n  WHERE id = ${id}\n`;\n", 2],
    ["a JS template without one", "a.ts", "const q = `\n  SELECT * FROM t\n  WHERE id = 1\n`;\n", 2],
    ["a Python triple-quoted string", "a.py", 'q = """\nSELECT * FROM t\nWHERE id = 1\n"""\n', 2],
    ["a Go raw string", "a.go", "package main\n\nvar q = `\nSELECT * FROM t\nWHERE id = 1\n`\n", 4],
  ])("%s: OR 1=1 added to a query", (_name, path, before, at) => {
    expect(
      add(path, before, at, "  OR 1=1\n")!
        .map((p) => p.message)
        .join("\n"),
    ).toMatch(INSIDE_STRING);
  });

  test("a line added inside an existing block comment still passes", () => {
    expect(add("a.js", "/* a\n b */\nrun();\n", 1, " note\n")).toEqual([]);
  });
});

describe("the product's own kinds of addition still pass", () => {
  test.each([
    [
      "a guard with a local of its own",
      "a.js",
      "function f(req) {\n  run(req);\n}\n",
      1,
      "  const id = req && req.id;\n  if (!id) throw new Error(`no id`);\n",
    ],
    [
      "a guard that assigns only its own variables",
      "a.ts",
      "function f(xs: number[]) {\n  run(xs);\n}\n",
      1,
      "  let bad = 0;\n  for (const x of xs) if (x < 0) bad++;\n  if (bad) throw new Error(`${bad} negative`);\n",
    ],
    [
      "a new helper function with a new name",
      "a.js",
      "function f(x) {\n  return x;\n}\n",
      3,
      "\nfunction describeValue(v) {\n  return typeof v;\n}\n",
    ],
    ["a new named import", "a.ts", 'import { a } from "./a";\na();\n', 1, 'import { inspect } from "node:util";\n'],
    ["a new method with a new name", "a.js", "class C {\n  run() {}\n}\n", 2, "  describe() { return 'c'; }\n"],
    ["a log line", "a.js", "function f(u) {\n  run(u);\n}\n", 1, '  console.warn("loading", u);\n'],
    [
      "a Python guard with its own message variable",
      "a.py",
      "def f(user):\n    run(user)\n",
      1,
      '    if user is None:\n        message = "no user"\n        raise ValueError(message)\n',
    ],
    [
      "a Python comprehension in a guard",
      "a.py",
      "def f(xs):\n    run(xs)\n",
      1,
      "    if any(x < 0 for x in xs):\n        raise ValueError(xs)\n",
    ],
    ["a Python comment inside a call", "a.py", "run(\n    a,\n)\n", 1, "    # a is checked above\n"],
    [
      "a Go guard that returns an error",
      "a.go",
      "package main\n\nfunc f(x *T) error {\n\treturn x.Do()\n}\n",
      3,
      '\tif x == nil {\n\t\treturn fmt.Errorf("no T")\n\t}\n',
    ],
    [
      "a Go statement in an empty function",
      "a.go",
      "package main\n\nfunc f(x *T) {\n}\n",
      3,
      "\tif x == nil {\n\t\treturn\n\t}\n",
    ],
    [
      "a Go guard with its own :=",
      "a.go",
      "package main\n\nfunc f(x *T) {\n\tx.Do()\n}\n",
      3,
      '\tif n := len(x.items); n == 0 {\n\t\tpanic("empty")\n\t}\n',
    ],
  ])("%s", (_name, path, before, at, lines) => {
    expect(add(path, before, at, lines)).toEqual([]);
  });
});

describe("the same rule in suggest_addition and in the review", () => {
  const FILE = "function pay(from, to, amount) {\n  transfer(\n    from,\n    to,\n    amount,\n  );\n}\n";
  const AFTER = FILE.replace("    from,\n", "    from,\n    ATTACKER,\n");

  test("suggest_addition refuses an argument inserted into an existing call, and applies nothing", async () => {
    const ctx = await makeContext({ "src/pay.js": FILE });
    ctx.reads.record({ path: "src/pay.js", startLine: 1, endLine: 7 });
    const session = createEditSession();
    const args = {
      path: "src/pay.js",
      code_before: "    from,\n",
      code_after: "    from,\n    ATTACKER,\n",
      rationale: "x",
    };
    await prepareSuggestAddition(args);
    const out = runSuggestAddition(args, { ...ctx, config: defaultConfig(), session });
    expect(out.result.status).toBe("rejected");
    expect(out.result.text).toMatch(/^REJECTED: src\/pay\.js line 4: the added identifier at line 4 goes inside/);
    expect(out.result.text).toContain("the existing call expression at line 2 (an argument, parameter");
    expect(session.edits).toEqual([]);
  });

  test("the review fails the same change", () => {
    const report = reviewChange({
      ...gitChange({ "src/pay.js": FILE }, { "src/pay.js": AFTER }),
      config: defaultConfig(),
    });
    expect(report.conclusion).toBe("failure");
    expect(report.findings.find((f) => f.rule === "edit_policy")).toMatchObject({
      path: "src/pay.js",
      start_line: 4,
      message: expect.stringMatching(/goes inside the existing call expression/),
    });
  });
});
