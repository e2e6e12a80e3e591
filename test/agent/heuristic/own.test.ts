import { describe, expect, it } from "vitest";
import { parseStackFrames } from "../../../src/agent/models/heuristic/frames.js";
import { mapInstalledFrame, ownByLabel, sourceCandidates } from "../../../src/agent/models/heuristic/own.js";
import { ownPackages, type OwnPackage } from "../../../src/tools/manifests.js";
import { runHeuristic } from "./readable.js";

const run = runHeuristic;
const own = (files: Record<string, string>) => ownPackages(Object.keys(files), (p) => files[p]);
const frameOf = (line: string) => {
  const f = parseStackFrames(line)[0];
  if (!f) throw new Error(`no frame in ${line}`);
  return f;
};

describe("the repository's own package names, from its manifests", () => {
  it(
    "reads npm names of the root and workspaces, Python import packages, the " +
      "Go module, Maven/Gradle groups, gems and .csproj; never tests or fixtures",
    () => {
      const files: Record<string, string> = {
        "package.json": JSON.stringify({ name: "@acme/root", workspaces: ["packages/*"] }),
        "packages/core/package.json": JSON.stringify({ name: "@acme/core" }),
        "test/fixtures/app/package.json": JSON.stringify({ name: "express" }),
        "node_modules/left-pad/package.json": JSON.stringify({ name: "left-pad" }),
        "pyproject.toml": '[project]\nname = "Flask"\ndependencies = ["click>=8"]\n',
        "src/flask/__init__.py": "",
        "tests/helpers/__init__.py": "",
        "tools/go.mod": "module github.com/acme/tool\n\ngo 1.22\n",
        "pom.xml":
          "<project><parent><groupId>org.parent</groupId></parent><groupId>com.acme</groupId>" +
          "<dependencies><dependency><groupId>org.other</groupId></dependency></dependencies></project>",
        "rack.gemspec": 'Gem::Specification.new do |s|\n  s.name = "rack"\nend\n',
        "src/Acme.Web/Acme.Web.csproj":
          "<Project><PropertyGroup><RootNamespace>Acme.Web</RootNamespace></PropertyGroup></Project>",
      };
      const names = own(files).map((p) => `${p.kind}:${p.name}@${p.root}`);
      expect(names).toEqual(
        expect.arrayContaining([
          "npm:@acme/root@",
          "npm:@acme/core@packages/core",
          "python:flask@src",
          "go:github.com/acme/tool@tools",
          "java:com.acme@",
          "gem:rack@",
          "dotnet:Acme.Web@src/Acme.Web",
        ]),
      );
      expect(names.join(" ")).not.toMatch(/express|left-pad|org\.parent|org\.other|helpers|python:flask@(?!src)/);
    },
  );

  it(
    "reads TOML with a real parser: multi-line arrays, " + "inline tables, quoted keys (pyproject dependencies)",
    async () => {
      const { parseManifest } = await import("../../../src/tools/manifests.js");
      const m = parseManifest(
        "pyproject.toml",
        [
          "[project]",
          'name = "x"',
          "dependencies = [",
          '  "requests[socks]>=2", # comment',
          "  'rich',",
          "]",
          "[tool.poetry.dependencies]",
          'python = "^3.11"',
          '"typer" = { version = "^0.9" }',
        ].join("\n"),
      );
      expect(m.sections).toEqual([
        { name: "dependencies", deps: ["requests", "rich"] },
        { name: "poetry dependencies", deps: ["typer"] },
      ]);
      expect(parseManifest("pyproject.toml", "[project\nname = ").sections).toEqual([]); // not TOML: nothing, no throw
    },
  );
});

describe("installed-copy frames map to the repository's own files", () => {
  const pkgs: OwnPackage[] = [
    { name: "express", kind: "npm", root: "", source: "package.json" },
    { name: "@acme/core", kind: "npm", root: "packages/core", source: "packages/core/package.json" },
    { name: "flask", kind: "python", root: "src", source: "src/flask/__init__.py" },
    { name: "github.com/Azure/tool", kind: "go", root: "", source: "go.mod" },
    { name: "rack", kind: "gem", root: "", source: "rack.gemspec" },
    { name: "com.acme", kind: "java", root: "", source: "pom.xml" },
  ];
  const mapped = (line: string) => mapInstalledFrame(frameOf(line), pkgs)?.path ?? null;

  it("npm: global, local, @scope, pnpm, file:// URLs and Windows paths; other packages stay third-party", () => {
    expect(mapped("    at ServerResponse.sendFile (/usr/lib/node_modules/express/lib/response.js:395:11)")).toBe(
      "lib/response.js",
    );
    expect(mapped("    at sendFile (/home/zed/app/node_modules/express/lib/response.js:395:11)")).toBe(
      "lib/response.js",
    );
    expect(
      mapped("    at run (/srv/app/node_modules/.pnpm/@acme+core@1.2.0/node_modules/@acme/core/dist/index.js:10:3)"),
    ).toBe("packages/core/dist/index.js");
    expect(mapped("    at run (file:///C:/Users/z/app/node_modules/@acme/core/dist/index.js:10:3)")).toBe(
      "packages/core/dist/index.js",
    );
    expect(mapped("    at run (C:\\Users\\z\\app\\node_modules\\express\\lib\\router\\index.js:10:3)")).toBe(
      "lib/router/index.js",
    );
    expect(mapped("    at next (/usr/lib/node_modules/router/lib/route.js:157:13)")).toBeNull();
    expect(mapped("    at x (/usr/lib/node_modules/my-static-app/node_modules/expressx/lib/a.js:1:1)")).toBeNull();
  });

  it("Python site-packages and dist-packages, Go module cache (with !-escaped capitals), gems", () => {
    expect(
      mapped('  File "/home/b/.venv/lib/python3.12/site-packages/flask/sansio/app.py", line 654, in add_url_rule'),
    ).toBe("src/flask/sansio/app.py");
    expect(mapped('  File "/usr/lib/python3/dist-packages/flask/app.py", line 1, in f')).toBe("src/flask/app.py");
    expect(
      mapped('  File "/home/b/.venv/lib/python3.12/site-packages/werkzeug/local.py", line 318, in __get__'),
    ).toBeNull();
    const go = parseStackFrames(
      "goroutine 1 [running]:\ngithub.com/Azure/tool.(*T).Run(0x1)\n" +
        "\t/root/go/pkg/mod/github.com/!azure/tool@v1.2.3/cmd/run.go:12 +0x1d",
    )[0];
    expect(go && mapInstalledFrame(go, pkgs)?.path).toBe("cmd/run.go");
    expect(mapped("/usr/local/bundle/gems/rack-3.0.8/lib/rack/utils.rb:12:in `parse'")).toBe("lib/rack/utils.rb");
    expect(mapped("/usr/local/bundle/gems/rack-test-2.1.0/lib/rack/test.rb:12:in `get'")).toBeNull();
  });

  it("a Java/Kotlin frame is own code only under an own package prefix", () => {
    expect(ownByLabel(frameOf("\tat com.acme.web.UserController.show(UserController.java:12)"), pkgs)).toBe(true);
    expect(ownByLabel(frameOf("\tat com.acmeother.X.y(X.java:1)"), pkgs)).toBe(false);
    expect(ownByLabel(frameOf("\tat org.springframework.web.Servlet.service(Servlet.java:1)"), pkgs)).toBe(false);
  });

  it("build output to source: drops the first build folder, tries TypeScript extensions, looks under src/", () => {
    expect(sourceCandidates("packages/core/dist/index.js", "packages/core")).toEqual(
      expect.arrayContaining([
        "packages/core/dist/index.js",
        "packages/core/index.ts",
        "packages/core/src/index.ts",
        "packages/core/src/index.tsx",
      ]),
    );
    // exact first
    expect(sourceCandidates("packages/core/dist/index.js", "packages/core")[0]).toBe("packages/core/dist/index.js");
    expect(sourceCandidates("index.js", "")).toEqual(expect.arrayContaining(["index.js", "index.ts", "src/index.ts"]));
  });
});

describe("through runAgent: the installed copy's frame cites the repository's file", () => {
  const RESPONSE = [
    "var res = module.exports = {};",
    "",
    "res.status = function status(code) {",
    "  this.statusCode = code;",
    "  return this;",
    "};",
    "",
    "res.sendFile = function sendFile(path, options) {",
    "  if (!path) {",
    "    throw new TypeError('path argument is required to res.sendFile');",
    "  }",
    "  return this;",
    "};",
    "",
  ].join("\n");

  it(
    "a global install of the repository's own npm package: the " +
      "frame under /usr/lib/node_modules/<own>/ is lib/response.js",
    async () => {
      const files = {
        "package.json": JSON.stringify({ name: "expresso" }),
        "lib/response.js": RESPONSE,
        "examples/static/lib/server.js": "module.exports = 1;\n",
      };
      const body = [
        "TypeError: path argument is required to res.sendFile",
        "    at ServerResponse.sendFile (/usr/lib/node_modules/expresso/lib/response.js:10:11)",
        "    at /usr/lib/node_modules/my-static-app/lib/server.js:31:9",
        "    at next (/usr/lib/node_modules/router/lib/route.js:157:13)",
      ].join("\n");
      const result = await run(files, "sendFile throws", body);
      expect(result.diagnosis).toMatchObject({ affected_file: "lib/response.js", affected_function: "sendFile" });
      expect(result.diagnosis?.citations[0]).toMatchObject({ path: "lib/response.js", start_line: 10 });
      // the throw restates nothing new: no pull request on a comment
      expect(result.outcome).not.toBe("pr_ready");
    },
  );

  it(
    "a user's own file never maps by its base name: " + "/home/bob/proj/app.py is not the library's src/pkg/app.py",
    async () => {
      const files = {
        "pyproject.toml": '[project]\nname = "pkg"\n',
        "src/pkg/__init__.py": "",
        "src/pkg/app.py": [
          "import os",
          "",
          "",
          "def add_rule(self, endpoint):",
          "    if endpoint in self.rules:",
          "        raise AssertionError(f'overwriting endpoint {endpoint}')",
          "    self.rules[endpoint] = 1",
          "",
        ].join("\n"),
      };
      const body = [
        "Traceback (most recent call last):",
        '  File "/home/bob/proj/app.py", line 2, in <module>',
        "    app.route('/x')",
        '  File "/home/bob/.venv/lib/python3.12/site-packages/pkg/app.py", line 6, in add_rule',
        "    raise AssertionError(",
        "AssertionError: overwriting endpoint wrapper",
      ].join("\n");
      const result = await run(files, "overwriting endpoint", body);
      expect(result.diagnosis).toMatchObject({ affected_file: "src/pkg/app.py", affected_function: "add_rule" });
      expect(result.diagnosis?.citations[0]?.start_line).toBe(6);
      expect(result.edits.map((e) => e.path)).toEqual(["src/pkg/app.py"]);
      // never the import block the user's line 2 points at
      expect(result.edits.every((e) => e.startLine > 3)).toBe(true);
    },
  );

  it(
    "a monorepo package installed from its build output: dist/index.js " +
      "maps to packages/core/src/index.ts, the line found in the function",
    async () => {
      const core = [
        "export function parse(input: string | undefined): string[] {",
        "  const parts = input.split(',');",
        "  return parts;",
        "}",
        "",
      ].join("\n");
      const files = {
        "package.json": JSON.stringify({ name: "root", private: true }),
        "packages/core/package.json": JSON.stringify({ name: "@acme/core", main: "dist/index.js" }),
        "packages/core/src/index.ts": core,
      };
      const body = [
        "TypeError: Cannot read properties of undefined (reading 'split')",
        "    at parse (/srv/app/node_modules/@acme/core/dist/index.js:57:23)",
        "    at main (/srv/app/index.js:3:1)",
      ].join("\n");
      const result = await run(files, "parse crashes", body);
      expect(result.diagnosis).toMatchObject({
        affected_file: "packages/core/src/index.ts",
        affected_function: "parse",
      });
      expect(result.diagnosis?.citations[0]?.start_line).toBe(2); // never the compiled line 57
      expect(result.edits[0]?.diff).toContain("+  if (input == null) {");
    },
  );

  it(
    "a Go frame from the module cache maps to the module's " + "file; a frame of another module stays third-party",
    async () => {
      const cmd = [
        "package cobra",
        "",
        "type Command struct{ groups []string }",
        "",
        "func (c *Command) check(id string) {",
        '\tif id == "" {',
        '\t\tpanic("group id is empty")',
        "\t}",
        "}",
        "",
      ].join("\n");
      const files = {
        "go.mod": "module github.com/spf13/cobra\n\ngo 1.21\n",
        "command.go": cmd,
        "other/command.go": "package other\n",
      };
      const body = [
        "panic: group id is empty",
        "",
        "goroutine 1 [running]:",
        "github.com/spf13/cobra.(*Command).check(0xc000172308)",
        "\t/home/dave/go/pkg/mod/github.com/spf13/cobra@v1.10.1/command.go:7 +0x1d9",
        "github.com/other/mod.Run()",
        "\t/home/dave/go/pkg/mod/github.com/other/mod@v1.0.0/command.go:3 +0x1d9",
      ].join("\n");
      const result = await run(files, "panic", body);
      expect(result.diagnosis).toMatchObject({ affected_file: "command.go", affected_function: "check" });
      expect(result.diagnosis?.citations[0]?.start_line).toBe(7);
    },
  );
});

describe("functions and fallbacks", () => {
  it(
    "a Python method with a multi-line signature encloses its " +
      "body: the frame line is not re-anchored to the signature",
    async () => {
      const app = [
        "class App:",
        "    def add_rule(",
        "        self,",
        "        endpoint: str,",
        "    ) -> None:",
        "        if endpoint in self.rules:",
        "            raise AssertionError(f'overwriting {endpoint}')",
        "        self.rules[endpoint] = 1",
        "",
      ].join("\n");
      const files = { "pyproject.toml": '[project]\nname = "pkg"\n', "src/pkg/__init__.py": "", "src/pkg/app.py": app };
      const body = [
        "Traceback (most recent call last):",
        '  File "/v/lib/python3.12/site-packages/pkg/app.py", line 7, in add_rule',
        "AssertionError: overwriting wrapper",
      ].join("\n");
      const result = await run(files, "overwriting", body);
      expect(result.diagnosis).toMatchObject({ affected_file: "src/pkg/app.py", affected_function: "add_rule" });
      expect(result.diagnosis?.citations[0]?.start_line).toBe(7);
      expect(result.diagnosis?.summary).not.toMatch(/is not inside/);
    },
  );

  it(
    "no own frame: the file that writes the error message is " +
      "read before a word search, and stays below the PR threshold",
    async () => {
      const files = {
        "pyproject.toml": '[project]\nname = "pkg"\n',
        "src/pkg/__init__.py": "",
        "src/pkg/globals.py": ["_no_app_msg = '''", "Working outside of application context.", "'''", ""].join("\n"),
        "src/pkg/app.py": "def application_context():\n    return None\n",
      };
      const body = [
        "Traceback (most recent call last):",
        '  File "/home/e/proj/jobs.py", line 12, in run',
        '  File "/v/lib/python3.12/site-packages/werkzeug/local.py", line 519, in _get',
        "RuntimeError: Working outside of application context.",
      ].join("\n");
      const result = await run(files, "Working outside of application context in a thread", body);
      expect(result.diagnosis?.affected_file).toBe("src/pkg/globals.py");
      expect(result.outcome).not.toBe("pr_ready");
    },
  );
});

describe("Java packages from the source folders; npm entries", () => {
  it("a Gradle group that is not the Java package: the package the source folder's files share is own code", () => {
    const files: Record<string, string> = {
      "build.gradle": "group 'info.tool'\nversion '1.0'\n",
      "src/main/java/tool/Cli.java": "package tool;\nclass Cli {}\n",
      "src/main/java/tool/groovy/Script.java": "package tool.groovy;\nclass Script {}\n",
      "lib/src/main/java/org/acme/core/A.java": "package org.acme.core;\n",
      "lib/src/main/java/org/acme/util/B.java": "package org.acme.util;\n",
      // a folder of unrelated top-level packages, an example and a test source set say nothing
      "mixed/src/main/java/com/a/X.java": "",
      "mixed/src/main/java/com/b/Y.java": "",
      "examples/src/main/java/demo/D.java": "",
      "src/test/java/tool/CliTest.java": "",
    };
    const java = own(files)
      .filter((p) => p.kind === "java")
      .map((p) => `${p.name}@${p.root}`);
    expect(java).toEqual(expect.arrayContaining(["info.tool@", "tool@src/main/java", "org.acme@lib/src/main/java"]));
    expect(java.join(" ")).not.toMatch(/\bcom\b|demo|org\.acme\.core/);
    const pkgs = own(files);
    expect(ownByLabel(frameOf("\tat tool.Cli$Model.init(Cli.java:12)"), pkgs)).toBe(true);
    expect(ownByLabel(frameOf("\tat toolkit.Other.x(Other.java:1)"), pkgs)).toBe(false);
  });

  it("an npm package's entry: exports['.'], else main, else index.js", () => {
    const files: Record<string, string> = {
      "package.json": JSON.stringify({ name: "root", private: true }),
      "packages/a/package.json": JSON.stringify({ name: "@s/a", main: "./lib/index.js" }),
      "packages/b/package.json": JSON.stringify({ name: "@s/b", exports: { ".": { import: "./dist/b.mjs" } } }),
      "packages/c/package.json": JSON.stringify({ name: "@s/c" }),
    };
    const entries = Object.fromEntries(own(files).map((p) => [p.name, p.entry]));
    expect(entries).toEqual({ root: "index.js", "@s/a": "lib/index.js", "@s/b": "dist/b.mjs", "@s/c": "index.js" });
  });
});
