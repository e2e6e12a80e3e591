import { beforeAll, describe, expect, test } from "vitest";
import { defaultConfig, parseConfig } from "../../src/config/schema.js";
import { encodeRunRecord, decodeRunRecord, loadPythonGrammar, reviewChange } from "../../src/review/index.js";
import type { Finding, RunRecord } from "../../src/types.js";
import { gitChange, type TestTree } from "./helpers.js";

const APP = "export function add(a: number, b: number): number {\n  return a + b;\n}\n";
const PKG =
  JSON.stringify({ name: "demo", dependencies: { zod: "4.0.0" }, devDependencies: { "@types/node": "20" } }, null, 2) +
  "\n";

function review(base: TestTree, head: TestTree, config = defaultConfig(), record?: RunRecord) {
  const change = gitChange(base, head);
  return reviewChange({ ...change, config, record: record ?? null });
}

function only(findings: Finding[], rule: Finding["rule"]): Finding[] {
  return findings.filter((f) => f.rule === rule);
}

beforeAll(async () => {
  expect(await loadPythonGrammar()).toBe(true);
});

describe("a clean additive change", () => {
  test("passes every rule and lists the rules checked in the summary", () => {
    const head = APP + "\nexport function sub(a: number, b: number): number {\n  return a - b;\n}\n";
    const report = review({ "src/math.ts": APP, "package.json": PKG }, { "src/math.ts": head, "package.json": PKG });
    expect(report.findings).toEqual([]);
    expect(report.conclusion).toBe("success");
    expect(report.title).toBe("groundfix review: passed 7 rules");
    for (const label of ["Grounded hunks", "Edit policy", "Paths", "Size", "Syntax", "Imports", "Secrets"]) {
      expect(report.summary).toMatch(new RegExp(`\\| ${label} \\| ✔ passed \\|`));
    }
    expect(report.summary).toContain("| Evidence | — not checked (no run record)");
  });
});

describe("rule 1, grounded hunks", () => {
  test("a context line that differs from the base file fails at its line", () => {
    const change = gitChange({ "a.txt": "one\ntwo\nthree\n" }, { "a.txt": "one\ntwo\nthree\nfour\n" });
    const forged = { ...change.patches[0]!, patch: "@@ -2,2 +2,3 @@\n two\n THREE\n+four\n" };
    const report = reviewChange({ ...change, patches: [forged], config: defaultConfig() });
    const [f] = only(report.findings, "grounded_hunks");
    expect(f).toMatchObject({ path: "a.txt", start_line: 3, level: "failure" });
    expect(f!.message).toContain('line 3 is "THREE" in the diff but "three"');
    expect(report.conclusion).toBe("failure");
  });
  test("real CRLF and no-newline diffs are grounded", () => {
    const report = review(
      { "w.txt": "a\r\nb\r\nc" },
      { "w.txt": "a\r\nb\r\nc\r\nd" },
      parseConfig({ edits: { allow: "modifications" } }),
    );
    expect(only(report.findings, "grounded_hunks")).toEqual([]);
  });
});

describe("rule 2, edit policy", () => {
  test("a human push that deletes a line fails the policy, naming file and line", () => {
    const report = review({ "src/math.ts": APP }, { "src/math.ts": APP.replace("  return a + b;\n", "") });
    const [f] = only(report.findings, "edit_policy");
    expect(f).toMatchObject({ path: "src/math.ts", start_line: 2, level: "failure" });
    expect(f!.message).toContain("removes 1 line of the base file (line 2");
    expect(report.conclusion).toBe("failure");
  });
  test("edits.allow: modifications allows it", () => {
    const cfg = parseConfig({ edits: { allow: "modifications" } });
    const report = review({ "src/math.ts": APP }, { "src/math.ts": APP.replace("a + b", "b + a") }, cfg);
    expect(report.conclusion).toBe("success");
  });
});

describe("rule 3, paths", () => {
  test("deny globs, paths.allow, binary files and mode changes fail", () => {
    const cfg = parseConfig({ paths: { allow: ["src/**", ".github/**", "*.sh", "*.bin"] } });
    const report = review(
      { "src/a.ts": "x;\n", "run.sh": "echo\n", "logo.bin": { content: "a", binary: true } },
      {
        "src/a.ts": "x;\n",
        "run.sh": { content: "echo\n", mode: "100755" },
        "logo.bin": { content: "b", binary: true },
        ".github/workflows/ci.yml": "on: push\n",
        "docs/readme.md": "hi\n",
      },
      cfg,
    );
    const msgs = only(report.findings, "paths").map((f) => `${f.path}:${f.start_line} ${f.message}`);
    expect(msgs).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^\.github\/workflows\/ci\.yml:1 .*built-in rule "github"/),
        expect.stringMatching(/^docs\/readme\.md:1 .*outside paths\.allow/),
        expect.stringMatching(/^logo\.bin:1 .*binary/),
        expect.stringMatching(/^run\.sh:1 .*from 100644 to 100755/),
      ]),
    );
  });
  test.each([
    [".GitHub/Workflows/CI.yml", "github"],
    [".github/groundfix.yml", "groundfix-config"],
    ["sub/.gitattributes", "git"],
    [".gitmodules", "git"],
    [".husky/pre-commit", "hooks"],
    ["tools/.NPMRC", "package-manager-config"],
    ["web/Package-Lock.json", "lockfile"],
    ["deploy/Dockerfile.prod", "container"],
    ["Makefile", "build-script"],
    ["setup.py", "build-script"],
    [".gitlab-ci.yml", "ci"],
    [".circleci/config.yml", "ci"],
    ["Jenkinsfile", "ci"],
    ["azure-pipelines.yml", "ci"],
    ["action.yml", "github"],
    ["lib/Pay.Gemspec", "build-script"],
    ["Gemfile", "build-script"],
    ["android/app/build.gradle.kts", "build-script"],
    ["server/POM.xml", "build-script"],
    [".devcontainer/Dockerfile", "dev-environment"],
    [".vscode/tasks.json", "dev-environment"],
    [".envrc", "secret-file"],
    ["certs/Server.PEM", "secret-file"],
  ])("an addition to %s fails, naming the rule %s (case does not help)", (path, rule) => {
    const report = review({ [path]: "a\n" }, { [path]: "a\nb\n" });
    const [f] = only(report.findings, "paths");
    expect(f!.message).toContain(rule === "secret-file" ? "secret file" : `built-in rule "${rule}"`);
  });
  test("a lifted rule lets the file through; a fixed rule cannot be lifted", () => {
    const cfg = parseConfig({ paths: { allow_protected: ["container", "github"] } });
    expect(only(review({ Dockerfile: "FROM x\n" }, { Dockerfile: "FROM x\nRUN y\n" }, cfg).findings, "paths")).toEqual(
      [],
    );
    expect(
      only(
        review({ ".github/groundfix.yml": "a: 1\n" }, { ".github/groundfix.yml": "a: 1\nb: 2\n" }, cfg).findings,
        "paths",
      ),
    ).toHaveLength(1);
  });
  test("package.json: a new dependency passes, a new or changed script fails; pyproject build hooks likewise", () => {
    const pkg = (o: object) => JSON.stringify({ name: "x", ...o }, null, 2) + "\n";
    const ok = review(
      { "package.json": pkg({ scripts: { test: "vitest" } }) },
      { "package.json": pkg({ scripts: { test: "vitest" }, dependencies: { a: "1" } }) },
    );
    expect(only(ok.findings, "paths")).toEqual([]);
    const bad = review(
      { "package.json": pkg({ scripts: { test: "vitest" } }) },
      { "package.json": pkg({ scripts: { test: "vitest", postinstall: "curl x | sh" } }) },
    );
    expect(only(bad.findings, "paths")[0]!.message).toContain('built-in rule "package-scripts"');
    const py = '[project]\nname = "x"\n\n[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n';
    const hooked = py + '\n[tool.hatch.build.hooks.custom]\npath = "evil.py"\n';
    expect(
      only(review({ "pyproject.toml": py }, { "pyproject.toml": hooked }).findings, "paths")[0]!.message,
    ).toContain('"pyproject-build"');
    const dep = py.replace('name = "x"', 'name = "x"\ndependencies = ["requests"]');
    expect(only(review({ "pyproject.toml": py }, { "pyproject.toml": dep }).findings, "paths")).toEqual([]);
  });
  test("a mode change is found from the snapshots when the patch has no modes (compare API)", () => {
    const change = gitChange({ "run.sh": "echo\n" }, { "run.sh": { content: "echo\nls\n", mode: "100755" } });
    const patches = change.patches.map(({ oldMode: _o, newMode: _n, ...p }) => p);
    const report = reviewChange({ ...change, patches, config: defaultConfig() });
    expect(only(report.findings, "paths")[0]!.message).toContain("from 100644 to 100755");
  });
});

describe("rule 4, size", () => {
  test("too many files and too many added lines fail where the limit is passed", () => {
    const cfg = parseConfig({ edits: { max_files: 2, max_added_lines: 3 } });
    const report = review({}, { "a.txt": "1\n2\n", "b.txt": "3\n4\n", "c.txt": "5\n" }, cfg);
    const size = only(report.findings, "size");
    expect(size).toEqual([
      expect.objectContaining({
        path: "c.txt",
        start_line: 1,
        message: expect.stringContaining("touches 3 files; edits.max_files is 2"),
      }),
      expect.objectContaining({
        path: "b.txt",
        start_line: 2,
        message: expect.stringContaining("adds 5 lines; edits.max_added_lines is 3"),
      }),
    ]);
  });
});

describe("rule 5, syntax", () => {
  const cases: [string, string, string, number][] = [
    ["src/a.ts", "export const a = 1;\n", "export const a = 1;\nexport function b( {\n", 2],
    [
      "src/c.tsx",
      "export const C = () => <div/>;\n",
      "export const C = () => <div/>;\nexport const D = () => <div>;\n",
      3,
    ],
    ["lib/m.mjs", "export default 1;\n", "export default 1;\nconst = 2;\n", 2],
    ["data/x.json", '{\n  "a": 1\n}\n', '{\n  "a": 1,\n}\n', 3],
    ["conf/y.yaml", "a: 1\n", "a: 1\nb: [1, 2\n", 3],
    ["tool/z.py", "def f(x):\n    return x\n", "def f(x):\n    return x\n\ndef g(:\n    pass\n", 4],
  ];
  for (const [path, before, after, line] of cases) {
    test(`${path}: a file that parsed at base and not at head fails at its first error`, () => {
      const report = review({ [path]: before }, { [path]: after });
      const [f] = only(report.findings, "syntax");
      expect(f).toMatchObject({ path, level: "failure" });
      expect(f!.start_line).toBeGreaterThanOrEqual(2);
      expect(f!.start_line).toBeLessThanOrEqual(line);
      expect(f!.message).toContain("does not parse at head");
    });
  }
  test("a file that did not parse at base is not blamed; a BOM JSON file parses", () => {
    const report = review(
      { "bad.json": "{\n", "bom.json": "\uFEFF{}\n" },
      { "bad.json": "{\n\n", "bom.json": "\uFEFF{}\n\n" },
    );
    expect(only(report.findings, "syntax")).toEqual([]);
  });
});

describe("rule 6, imports", () => {
  const base = {
    "package.json": PKG,
    "src/util.ts": "export const u = 1;\n",
    "src/main.ts": 'import { u } from "./util.js";\n',
  };
  test("relative imports that resolve (incl. .js → .ts, /index, node: builtins, declared packages) pass", () => {
    const head = {
      ...base,
      "src/lib/index.ts": "export {};\n",
      "src/main.ts":
        'import { u } from "./util.js";\nimport "./lib";\nimport { z } from ' +
        '"zod";\nimport fs from "node:fs";\nimport path from "path";\nexport ' +
        '{ u as v } from "./util";\nconst l = await import("./lib/index.js");\n',
    };
    expect(only(review(base, head).findings, "imports")).toEqual([]);
  });
  test("a relative import to no file and an undeclared package fail, naming the import", () => {
    const head = {
      ...base,
      "src/main.ts":
        'import { u } from "./util.js";\nimport { h } from "./helpers.js";\nconst ' +
        'left = require("left-pad");\nimport { x } from "@acme/tool/sub";\n',
    };
    const found = only(review(base, head).findings, "imports").map((f) => [f.path, f.start_line, f.message]);
    expect(found).toEqual([
      ["src/main.ts", 2, expect.stringContaining('import "./helpers.js" resolves to no file at head')],
      ["src/main.ts", 3, expect.stringContaining('package "left-pad" is not declared in package.json')],
      ["src/main.ts", 4, expect.stringContaining('package "@acme/tool" is not declared')],
    ]);
  });
  test("python: stdlib, repo modules, requirements pass; a made-up module fails", () => {
    const pyBase = {
      "requirements.txt": "PyYAML>=6\nrequests==2.31\n",
      "app/__init__.py": "",
      "app/core.py": "X = 1\n",
      "app/main.py": "import os\n",
    };
    const pyHead = {
      ...pyBase,
      "app/main.py":
        "import os\nimport json, sys\nimport yaml\nfrom requests import get\nfrom app.core " +
        "import X\nfrom .core import X as Y\nimport totally_fake_lib\nfrom . import nothere_mod\n",
    };
    const found = only(review(pyBase, pyHead).findings, "imports").map((f) => [f.path, f.start_line, f.message]);
    expect(found).toEqual([["app/main.py", 7, expect.stringContaining('import "totally_fake_lib"')]]);
  });
});

describe("rule 7, secrets", () => {
  test("a token-like string on an added line fails without repeating it", () => {
    const token = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    const report = review(
      { "src/c.ts": "export const c = 1;\n" },
      { "src/c.ts": `export const c = 1;\nexport const t = "${token}";\n` },
    );
    const [f] = only(report.findings, "secrets");
    expect(f).toMatchObject({ path: "src/c.ts", start_line: 2, level: "failure" });
    expect(f!.message).toContain("GitHub token");
    expect(report.summary).not.toContain(token);
    expect(f!.message).not.toContain(token);
  });
  test.each([
    ["a Stripe live key", 'const k = "sk_live_' + '4eC39HqLyjWDarjtT1zdp7dc";'],
    [
      "a JWT",
      'const jwt = "eyJhbGciOiJIUzI1NiJ9' +
        '.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";',
    ],
    ["an env-style token", "DEPLOY_TOKEN=a8f5f167f44f4964e6c998dee827110c"],
  ])("%s on an added line fails: the review catches what redaction hides", (_kind, line) => {
    const report = review({ "src/c.ts": "x\n" }, { "src/c.ts": `x\n${line}\n` });
    expect(only(report.findings, "secrets").map((f) => f.start_line)).toEqual([2]);
  });
  test("the message takes the right article: an AWS access key id, a GitHub token", () => {
    const head =
      'const id = "AKIA' + 'IOSFODNN7EXAMPLE";\nconst t = "ghp_' + 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";\n';
    const messages = only(review({ "src/c.ts": "" }, { "src/c.ts": head }).findings, "secrets").map((f) => f.message);
    expect(messages.join("\n")).toContain("contains an AWS access key id-like string");
    expect(messages.join("\n")).toContain("contains a GitHub token-like string");
    expect(messages.join("\n")).not.toMatch(/\ba AWS/);
  });
  test("lines added inside an existing private key block fail although the BEGIN line is context", () => {
    const base = "a\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\n-----END PRIVATE KEY-----\n";
    const head = "a\n-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkq\nhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n";
    const report = review({ "fixtures/k.txt": base }, { "fixtures/k.txt": head });
    expect(only(report.findings, "secrets").map((f) => [f.start_line, f.message])).toEqual([
      [4, expect.stringContaining("private key block")],
    ]);
  });
});

describe("rule 8, evidence", () => {
  const head = APP + "export const VERSION = 2;\n";
  const record: RunRecord = {
    version: 1,
    run_id: "r1",
    base_sha: "b".repeat(40),
    edits: [
      {
        path: "src/math.ts",
        start_line: 3,
        end_line: 3,
        code_before: "}\n",
        code_after: "}\nexport const VERSION = 2;\n",
      },
    ],
  };
  test("hunks that match the recorded edits pass; the rule shows as checked", () => {
    const report = review(
      { "src/math.ts": APP },
      { "src/math.ts": head },
      defaultConfig(),
      decodeRunRecord(`body\n${encodeRunRecord(record)}`)!,
    );
    expect(report.findings).toEqual([]);
    expect(report.rulesChecked).toContain("evidence");
    expect(report.title).toBe("groundfix review: passed 8 rules");
  });
  test("one hunk made of two recorded edits passes; a line used twice does not", () => {
    const two: RunRecord = {
      ...record,
      edits: [
        {
          path: "src/math.ts",
          start_line: 1,
          end_line: 1,
          code_before: "export function add(a: number, b: number): number {\n",
          code_after: "// adds\nexport function add(a: number, b: number): number {\n",
        },
        {
          path: "src/math.ts",
          start_line: 2,
          end_line: 2,
          code_before: "  return a + b;\n",
          code_after: "  // sum\n  return a + b;\n",
        },
      ],
    };
    const both = APP.replace("export function", "// adds\nexport function").replace("  return", "  // sum\n  return");
    expect(review({ "src/math.ts": APP }, { "src/math.ts": both }, defaultConfig(), two).findings).toEqual([]);
    const twice = both.replace("  // sum\n", "  // sum\n  // sum\n");
    const [f] = only(
      review({ "src/math.ts": APP }, { "src/math.ts": twice }, defaultConfig(), two).findings,
      "evidence",
    );
    expect(f).toMatchObject({ path: "src/math.ts", start_line: 4 });
  });
  test("a hunk with no recorded edit fails at its line", () => {
    const report = review(
      { "src/math.ts": APP },
      { "src/math.ts": head + "export const EXTRA = 3;\n" },
      defaultConfig(),
      record,
    );
    const [f] = only(report.findings, "evidence");
    expect(f).toMatchObject({ path: "src/math.ts", start_line: 5, level: "failure" });
    expect(f!.message).toContain('"export const EXTRA = 3;"');
  });
});

describe("review.fail_on", () => {
  test("failures of rules not listed become warnings and the check passes", () => {
    const cfg = parseConfig({ review: { fail_on: ["grounded_hunks"] } });
    const report = review({ "src/math.ts": APP }, { "src/math.ts": APP.replace("  return a + b;\n", "") }, cfg);
    expect(report.conclusion).toBe("success");
    expect(only(report.findings, "edit_policy")[0]!.level).toBe("warning");
    expect(report.title).toBe("groundfix review: passed 7 rules, 1 warning");
  });
});

describe("a patch without hunks", () => {
  test("gets hunks from the snapshots, so a deletion in a large diff still fails the policy", () => {
    const change = gitChange({ "src/math.ts": APP }, { "src/math.ts": APP.replace("  return a + b;\n", "") });
    const patches = change.patches.map((p) => ({ ...p, patch: "" }));
    const report = reviewChange({ ...change, patches, config: defaultConfig() });
    expect(only(report.findings, "edit_policy")[0]).toMatchObject({ path: "src/math.ts", start_line: 2 });
    expect(only(report.findings, "grounded_hunks")).toEqual([]);
  });
  test(
    "gets hunks from the snapshots for the evidence rule " + "too, so an unrecorded line in a large diff still fails",
    () => {
      const change = gitChange({ "src/math.ts": APP }, { "src/math.ts": APP + "export const EXTRA = 3;\n" });
      const patches = change.patches.map((p) => ({ ...p, patch: "" }));
      const record: RunRecord = { version: 1, run_id: "r", base_sha: change.base.sha, edits: [] };
      const report = reviewChange({ ...change, patches, config: defaultConfig(), record });
      expect(only(report.findings, "evidence")).toEqual([
        expect.objectContaining({
          path: "src/math.ts",
          start_line: 4,
          level: "failure",
          message: expect.stringContaining("matches no edit"),
        }),
      ]);
    },
  );
});
