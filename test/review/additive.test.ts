import { beforeAll, describe, expect, test } from "vitest";
import { defaultConfig, parseConfig } from "../../src/config/schema.js";
import { reviewChange } from "../../src/review/index.js";
import { loadGrammars } from "../../src/lang/tree-sitter.js";
import type { Finding } from "../../src/types.js";
import { gitChange, type TestTree } from "./helpers.js";

function policy(
  base: TestTree,
  head: TestTree,
  config = defaultConfig(),
): { report: ReturnType<typeof reviewChange>; found: Finding[] } {
  const report = reviewChange({ ...gitChange(base, head), config });
  return { report, found: report.findings.filter((f) => f.rule === "edit_policy") };
}

beforeAll(async () => {
  expect(await loadGrammars()).toBe(true);
});

const JS =
  "export function handle(req, res, next) {\n  const user = load(req);\n  audit(user);\n  res.send(user);\n}\n";
const PY = "def view(request):\n    user = load(request)\n    audit(user)\n    return user\n";
const GO = "package main\n\nfunc run(x int) int {\n\ty := load(x)\n\taudit(y)\n\treturn y\n}\n";

describe("edit_policy: added lines that disable existing code fail the review", () => {
  test.each([
    ["an added return", "src/h.js", JS, JS.replace("  audit(user);\n", "  return;\n  audit(user);\n"), 4],
    ["next(); return;", "src/h.js", JS, JS.replace("  audit(user);\n", "  next(); return;\n  audit(user);\n"), 4],
    [
      "an opening /* closed further down",
      "src/h.ts",
      JS,
      JS.replace("  audit(user);\n", "  /*\n  audit(user);\n").replace("  res.send", "  */\n  res.send"),
      3,
    ],
    [
      "if (false) before a brace-less statement",
      "src/h.ts",
      JS,
      JS.replace("  audit(user);\n", "  if (false)\n  audit(user);\n"),
      3,
    ],
    [
      "a Python return before the rest of the function",
      "app/v.py",
      PY,
      PY.replace("    audit(user)\n", "    return None\n    audit(user)\n"),
      4,
    ],
    [
      'an opening """ closed further down',
      "app/v.py",
      PY,
      PY.replace("    audit(user)\n", '    """\n    audit(user)\n    """\n'),
      3,
    ],
    [
      "a Go return before existing statements",
      "cmd/main.go",
      GO,
      GO.replace("\taudit(y)\n", "\treturn 0\n\taudit(y)\n"),
      6,
    ],
  ])("%s", (_name, path, before, after, line) => {
    const { report, found } = policy({ [path]: before }, { [path]: after });
    expect(found[0]).toMatchObject({ path, level: "failure", start_line: line });
    expect(found[0]!.message).toMatch(
      /would no longer run|part of a comment, a string|inside the added|tests a constant/,
    );
    expect(report.conclusion).toBe("failure");
  });

  test.each([
    [
      "a TS decorator put on an existing class",
      "src/c.ts",
      "class Cart {\n  total() {\n    return 1;\n  }\n}\n",
      "@Frozen()\nclass Cart {\n  total() {\n    return 1;\n  }\n}\n",
      1,
      /attaches to the existing class declaration/,
    ],
    [
      "an `export default` line before an existing function",
      "src/h.js",
      JS.replace("export ", ""),
      "export default\n" + JS.replace("export ", ""),
      1,
      /attaches to the existing function declaration/,
    ],
    [
      "an added re-export",
      "src/h.js",
      JS,
      JS + 'export { load as handle2 } from "./other";\n',
      6,
      /changes what the module exports/,
    ],
    [
      "a Python decorator put on an existing def",
      "app/v.py",
      PY,
      "@login_exempt\n" + PY,
      2,
      /inside the added decorated definition/,
    ],
    [
      "a Python def that replaces an existing one",
      "app/v.py",
      PY,
      PY + "\ndef view(request):\n    return None\n",
      6,
      /declares "view"/,
    ],
  ])("%s", (_name, path, before, after, line, message) => {
    const { report, found } = policy({ [path]: before }, { [path]: after });
    expect(found[0]).toMatchObject({
      path,
      level: "failure",
      start_line: line,
      message: expect.stringMatching(message),
    });
    expect(report.conclusion).toBe("failure");
  });

  test.each([
    ["a lone CR", "  // ok\r audit(null);\n"],
    ["U+2028", "  // ok\u2028audit(null);\n"],
    ["U+2029", "  // ok\u2029audit(null);\n"],
    ["a bidi isolate", '  const who = "\u2067admin\u2069";\n'],
    ["a zero-width joiner", "  const a\u200Db = 1;\n"],
  ])("a hidden character in an added line: %s (also under edits.allow: modifications)", (_name, line) => {
    const after = JS.replace("  audit(user);\n", line + "  audit(user);\n");
    for (const config of [defaultConfig(), parseConfig({ edits: { allow: "modifications" } })]) {
      const { found } = policy({ "src/h.js": JS }, { "src/h.js": after }, config);
      expect(found).toEqual([
        expect.objectContaining({
          start_line: 3,
          level: "failure",
          message: expect.stringMatching(/hidden line break|invisible or bidirectional/),
        }),
      ]);
    }
  });

  test("a new file fails under additions and passes under modifications", () => {
    const base = { "src/h.js": JS };
    const head = { "src/h.js": JS, "src/new.js": "export const x = 1;\n" };
    expect(policy(base, head).found).toEqual([
      expect.objectContaining({ path: "src/new.js", message: expect.stringContaining("adds the new file src/new.js") }),
    ]);
    expect(policy(base, head, parseConfig({ edits: { allow: "modifications" } })).found).toEqual([]);
  });
});

describe("edit_policy: guards and plain additions pass", () => {
  test.each([
    [
      "src/h.js",
      JS,
      JS.replace("  audit(user);\n", "  if (!user) throw new Error(`no user ${req.url}`);\n  audit(user);\n"),
    ],
    ["src/h.ts", JS, JS.replace("  audit(user);\n", "  // the session may have expired\n  audit(user);\n")],
    [
      "app/v.py",
      PY,
      PY.replace("    audit(user)\n", '    if user is None:\n        raise ValueError("no user")\n    audit(user)\n'),
    ],
    ["app/v.py", PY, PY + "\n\ndef other():\n    return 2\n"],
    ["cmd/main.go", GO, GO.replace("\taudit(y)\n", "\tif y < 0 {\n\t\treturn -1\n\t}\n\taudit(y)\n")],
  ])("%s", (path, before, after) => {
    const { report, found } = policy({ [path]: before }, { [path]: after });
    expect(found).toEqual([]);
    expect(report.conclusion).toBe("success");
  });
});
