import { describe, expect, it } from "vitest";
import { parseStackFrames } from "../../../src/agent/models/heuristic/frames.js";
import { parseProblem } from "../../../src/agent/models/heuristic/problem.js";
import { RESOLVER_JS, runHeuristic } from "./readable.js";
import tar from "tar-stream";
import { runAgent } from "../../../src/agent/index.js";
import { createHeuristicModel } from "../../../src/agent/models/heuristic.js";
import { snapshotFromTar } from "../../../src/snapshot/index.js";
import { config, SHA } from "../helpers.js";

const run = runHeuristic;
const problem = (title: string, body: string) =>
  parseProblem(`Problem title: ${title}\nSource: issue\n<problem>\n${body}\n</problem>`);

describe("frames as reports paste them", () => {
  it("a traceback pasted inside a table or a quote: the `|` and `>` markers are not part of the frame", () => {
    const frames = parseStackFrames(
      [
        "  | Traceback (most recent call last):",
        '  | File "fuzz.py", line 37, in TestOneInput',
        '  | File "pkg/__init__.py", line 1362, in _normalize',
        '> File "pkg/core.py", line 9, in run',
      ].join("\n"),
    );
    expect(frames.map((f) => `${f.path}:${f.line} ${f.fn}`)).toEqual([
      "pkg/core.py:9 run",
      "pkg/__init__.py:1362 _normalize",
      "fuzz.py:37 TestOneInput",
    ]);
  });

  it("V8 frames after a log prefix are frames; prose with `at` is not", () => {
    const frames = parseStackFrames(
      [
        "🦋  error TypeError: Cannot destructure property 'packageJson' of 'undefined' as it is undefined.",
        "🦋  error     at Object.shouldSkip (/home/b/p/node_modules/@acme/skip/dist/skip.cjs.js:6:3)",
        "npm ERR!     at run (/srv/app/index.js:3:1)",
        "It fails at startup (see the log above) and at shutdown.",
        "the error is at line 3:4 of the file",
      ].join("\n"),
    );
    expect(frames.map((f) => `${f.fn} ${f.line}`)).toEqual(["shouldSkip 6", "run 3"]);
  });

  it(
    "a line that is only a location is a frame: Go module " + "cache, an error tracker's `[PROJECT_ROOT]/…:18→ file`",
    () => {
      const go = parseStackFrames("Then panic:\n\n/go/pkg/mod/github.com/acme/cli/v2@v2.25.7/help.go:419 \n")[0];
      expect(go).toMatchObject({ language: "go", line: 419, library: true });
      const rb = parseStackFrames(
        [
          "[PROJECT_ROOT]/decorators/line_decorator.rb:18→ file",
          "[PROJECT_ROOT]/decorators/line_decorator.rb:5→ in_app?",
          "actionview-4.2.9/lib/action_view/template.rb:145→ block in render",
          "[GEM_ROOT]/gems/rack-3.0/lib/rack.rb:3→ call",
        ].join("\n"),
      );
      expect(rb.map((f) => `${f.path}:${f.line} ${f.fn} ${f.library ? "lib" : "own"}`)).toEqual([
        "decorators/line_decorator.rb:18 file own",
        "decorators/line_decorator.rb:5 in_app? own",
        "actionview-4.2.9/lib/action_view/template.rb:145 render lib",
        "[GEM_ROOT]/gems/rack-3.0/lib/rack.rb:3 call lib",
      ]);
      // Node's location header above the message is the same frame as the full one below it: one frame, with its column
      const node = parseStackFrames(
        "/usr/lib/node_modules/x/cli.js:10\nTypeError: x\n    at " +
          "Object.<anonymous> (/usr/lib/node_modules/x/cli.js:10:32)",
      );
      expect(node.map((f) => `${f.line}:${f.column}`)).toEqual(["10:32"]);
      // prose that merely names a file is no frame
      expect(parseStackFrames("See lib/a.rb for details, and lib/b.rb:12 too.")).toEqual([]);
    },
  );

  it("a title that quotes the top frame gives the frame when the body has none", () => {
    const p = problem(
      "NoMethodError: undefined method `split' for nil:NilClass (from " +
        "gems/acme-2.0.11/lib/acme/notice.rb:365:in `extract_source')",
      "I'm getting this in a Rails 4.1 app.",
    );
    expect(p.frames.map((f) => `${f.path}:${f.line} ${f.fn}`)).toEqual([
      "gems/acme-2.0.11/lib/acme/notice.rb:365 extract_source",
    ]);
    expect(p.errorMessages[0]).toMatch(/^NoMethodError: undefined method `split'/);
  });

  it(
    "a GOPATH checkout under any folder maps by the path after " +
      "go/src/<host>/<owner>/<repo>/; another repository's file does not",
    async () => {
      const files = {
        "command.go": [
          "package cobra",
          "",
          "type Command struct{ Run func() }",
          "",
          "func (c *Command) execute() {",
          "\tc.Run()",
          "}",
          "",
        ].join("\n"),
      };
      const body = [
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "",
        "goroutine 16 [running]:",
        "github.com/acme/cobra.(*Command).execute(0xd55ca0)",
        "    /tmp/go/src/github.com/acme/cobra/command.go:6 +0x177",
        "main.main()",
        "    /tmp/go/src/github.com/acme/hugo/main.go:24 +0x30",
      ].join("\n");
      const result = await run(files, "nil Run panics", body);
      expect(result.diagnosis).toMatchObject({ affected_file: "command.go", affected_function: "execute" });
      expect(result.diagnosis?.citations[0]?.start_line).toBe(6);
    },
  );
});

describe("the primary message and the names a report quotes", () => {
  it("is the exception line next to the frames, not a log line or a prose line before it", () => {
    const p = problem(
      "Error",
      [
        "Error when trying to generate types:",
        "```",
        "WARN deprecated option",
        "TypeError: Cannot read properties of undefined (reading 'target')",
        "    at Resolver.resolve (/p/node_modules/acme/lib/resolver.js:438:32)",
        "```",
      ].join("\n"),
    );
    expect(p.errorMessages[0]).toBe("TypeError: Cannot read properties of undefined (reading 'target')");
    expect(p.errorMessages).not.toContain("Error when trying to generate types:");
  });

  it("a line of code that looks like an exception is no message (`OnUsageError: UsageError,`)", () => {
    const p = problem("usage", "```go\napp.Commands = []*cli.Command{{\n\tOnUsageError: UsageError,\n}}\n```");
    expect(p.errorMessages).toEqual([]);
  });

  it(
    "quotes inside a reproduction's code are the user's " +
      "strings, not names; runtime type names are not names either",
    () => {
      const p = problem(
        "TypeError: 'int' object is not iterable",
        [
          "The `flagSet` of the context is nil.",
          "```go",
          'flag := ctx.String("flag")',
          'err := app.Run([]string{"test", "--flag"})',
          "```",
          "TypeError: Cannot destructure property 'packageJson' of 'undefined' as it is undefined.",
        ].join("\n"),
      );
      expect(p.identifiers).toEqual(["flagSet", "packageJson"]);
    },
  );

  it("a quoted call names its function, and C#'s `get_X` is the property X", () => {
    const p = problem("Empty file", "- `Acme.Reader.get_FieldCount()` is throwing `System.NullReferenceException`.");
    expect(p.identifiers[0]).toBe("Acme.Reader.FieldCount");
  });

  it("the member a crash on a missing value names is not looked up as a declaration elsewhere", async () => {
    const files = {
      "package.json": JSON.stringify({ name: "acme" }),
      "src/git.ts": "export const push = async (branch: string) => {\n  return branch;\n};\n",
      "src/changelog.ts": [
        "export function group(lines: Record<string, string[]>, type: string, line: string) {",
        "  lines[type].push(line);",
        "}",
        "",
      ].join("\n"),
    };
    const result = await run(
      files,
      "Cannot read properties of undefined (reading 'push')",
      "🦋  error TypeError: Cannot read properties of undefined (reading 'push')",
    );
    expect(result.diagnosis?.affected_file ?? null).not.toBe("src/git.ts");
  });
});

describe("build output: the frame's function is found in the source", () => {
  const utils = [
    "export const dynamicImport = async (",
    "  id: string,",
    "  { format }: { format: string },",
    ") => {",
    "  const fn = format === 'esm' ? (f: string) => import(f) : createRequire(import.meta.url);",
    "  return fn(id);",
    "};",
    "",
  ].join("\n");
  const index = [
    "import { dynamicImport } from './utils';",
    "",
    "export async function extractResult(code: string) {",
    "  return dynamicImport(code, { format: 'cjs' });",
    "}",
    "",
  ].join("\n");
  const body = [
    "TypeError [ERR_INVALID_ARG_VALUE]: The argument 'filename' must be a file URL object. Received undefined",
    "    at createRequire (node:internal/modules/cjs/loader:1224:11)",
    "    at dynamicImport (/x/node_modules/bundle-req/dist/index.cjs:75:154)",
    "    at extractResult (/x/node_modules/bundle-req/dist/index.cjs:190:21)",
  ].join("\n");

  it(
    "a bundle made from several sources: dist/index.cjs's " + "dynamicImport is src/utils.ts, not src/index.ts",
    async () => {
      const files = {
        "package.json": JSON.stringify({ name: "bundle-req", main: "dist/index.cjs" }),
        "src/index.ts": index,
        "src/utils.ts": utils,
        "test/utils.test.ts": "export const dynamicImport = () => null;\n",
      };
      const result = await run(files, "createRequire throws", body);
      expect(result.diagnosis).toMatchObject({ affected_file: "src/utils.ts", affected_function: "dynamicImport" });
      expect(result.diagnosis?.citations[0]?.start_line).not.toBe(75); // never the bundle's line
    },
  );

  it(
    "a bundle named after its package (no source of that " + "name): the package's file that defines the function",
    async () => {
      const files = {
        "package.json": JSON.stringify({ name: "root", private: true, workspaces: ["packages/*"] }),
        "packages/skip/package.json": JSON.stringify({ name: "@acme/skip", main: "dist/acme-skip.cjs.js" }),
        "packages/skip/src/index.ts": "export function shouldSkip(name: string) {\n  return name.startsWith('.');\n}\n",
        "packages/other/src/index.ts": "export function other() {\n  return 1;\n}\n",
      };
      const result = await run(
        files,
        "crash",
        [
          "TypeError: Cannot read properties of undefined (reading 'startsWith')",
          "    at shouldSkip (/h/p/node_modules/@acme/skip/dist/acme-skip.cjs.js:6:3)",
        ].join("\n"),
      );
      expect(result.diagnosis).toMatchObject({
        affected_file: "packages/skip/src/index.ts",
        affected_function: "shouldSkip",
      });
    },
  );

  it("two source files define the function: no guess between them (the same-named source stays)", async () => {
    const files = {
      "package.json": JSON.stringify({ name: "bundle-req", main: "dist/index.cjs" }),
      "src/index.ts": index,
      "src/utils.ts": utils,
      "src/legacy.ts": utils,
    };
    const result = await run(files, "createRequire throws", body);
    expect(result.diagnosis?.affected_file).toBe("src/index.ts");
  });
});

describe("relaying frames: the cause is where the value came from", () => {
  const visitor = [
    "const { Resolver } = require('./resolver');",
    "",
    "class Visitor {",
    "  printOperation(name, operation) {",
    "    const file = name.toLowerCase();",
    "    return new Resolver().resolve(operation.returns, file);",
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
  const message = "TypeError: Cannot read properties of undefined (reading 'target')";

  it("a crash on a member of a parameter the function never assigned: the direct caller passed it", async () => {
    const result = await run(
      files,
      "crash",
      [
        message,
        "    at Resolver.resolve (C:\\p\\node_modules\\typer\\lib\\resolver.js:3:28)",
        "    at Visitor.printOperation (C:\\p\\node_modules\\typer\\lib\\visitor.js:6:29)",
      ].join("\n"),
    );
    expect(result.diagnosis).toMatchObject({ affected_file: "lib/visitor.js", affected_function: "printOperation" });
    expect(result.diagnosis?.citations[0]?.start_line).toBe(6);
  });

  it(
    "the caller is the user's code (a third-party or " + "unmapped frame between): the library's own frame stays",
    async () => {
      const result = await run(
        files,
        "crash",
        [
          message,
          "    at Resolver.resolve (/p/node_modules/typer/lib/resolver.js:3:28)",
          "    at main (/home/u/app/index.js:6:29)",
          "    at Visitor.printOperation (/p/node_modules/typer/lib/visitor.js:6:29)",
        ].join("\n"),
      );
      expect(result.diagnosis?.affected_file).toBe("lib/resolver.js");
    },
  );

  it("a parameter reassigned before the crash, or a local, is the function's own value: the frame stays", async () => {
    const local = RESOLVER_JS.replace("    const target", "    element = file.parse();\n    const target");
    const result = await run(
      { ...files, "lib/resolver.js": local },
      "crash",
      [
        message,
        "    at Resolver.resolve (/p/node_modules/typer/lib/resolver.js:4:28)",
        "    at Visitor.printOperation (/p/node_modules/typer/lib/visitor.js:6:29)",
      ].join("\n"),
    );
    expect(result.diagnosis?.affected_file).toBe("lib/resolver.js");
  });

  it("a recursive call (the caller is the same function): the frame stays", async () => {
    const rule = [
      "function hasMember(node) {",
      "  switch (node.type) {",
      "    case 'ObjectPattern':",
      "      return node.properties.some(prop => {",
      "        return hasMember(prop.argument);",
      "      });",
      "  }",
      "  return false;",
      "}",
      "module.exports = { hasMember };",
      "",
    ].join("\n");
    const result = await run(
      { "package.json": JSON.stringify({ name: "lint" }), "lib/rule.js": rule },
      "crash",
      [
        "TypeError: Cannot read properties of undefined (reading 'type')",
        "    at hasMember (/home/c/src/lint/lib/rule.js:2:15)",
        "    at /home/c/src/lint/lib/rule.js:5:16",
        "    at Array.some (<anonymous>)",
        "    at hasMember (/home/c/src/lint/lib/rule.js:4:30)",
      ].join("\n"),
    );
    expect(result.diagnosis).toMatchObject({ affected_file: "lib/rule.js", affected_function: "hasMember" });
    expect(result.diagnosis?.citations[0]?.start_line).toBe(2);
  });

  it("a parameter destructured in the signature (`Cannot destructure property`): the caller", async () => {
    const skip = [
      "export function shouldSkip(",
      "  { packageJson }: { packageJson: { name: string } },",
      "  ignore: string[],",
      ") {",
      "  return ignore.includes(packageJson.name);",
      "}",
      "",
    ].join("\n");
    const plan = [
      "import { shouldSkip } from './skip';",
      "",
      "export function relevant(names: string[], byName: Map<string, { packageJson: { name: string } }>) {",
      "  return names.filter((n) => !shouldSkip(byName.get(n)!, []));",
      "}",
      "",
    ].join("\n");
    const result = await run(
      { "package.json": JSON.stringify({ name: "plan" }), "src/skip.ts": skip, "src/plan.ts": plan },
      "crash",
      [
        "TypeError: Cannot destructure property 'packageJson' of 'undefined' as it is undefined.",
        "    at shouldSkip (/h/node_modules/plan/src/skip.ts:1:27)",
        "    at relevant (/h/node_modules/plan/src/plan.ts:4:39)",
      ].join("\n"),
    );
    expect(result.diagnosis).toMatchObject({ affected_file: "src/plan.ts", affected_function: "relevant" });
  });

  it("an assert helper that throws about its argument: the caller that passed the value", async () => {
    const check = [
      "def ensure_name(value):",
      "    if not isinstance(value, str):",
      "        raise TypeError(f'name must be a string, got {value!r}')",
      "    return value",
      "",
    ].join("\n");
    const app = [
      "from pkg.check import ensure_name",
      "",
      "",
      "def register(config):",
      "    name = config.get('title')",
      "    return ensure_name(name)",
      "",
    ].join("\n");
    const result = await run(
      {
        "pyproject.toml": '[project]\nname = "pkg"\n',
        "pkg/__init__.py": "",
        "pkg/check.py": check,
        "pkg/app.py": app,
      },
      "register fails",
      [
        "Traceback (most recent call last):",
        '  File "/v/lib/python3.12/site-packages/pkg/app.py", line 6, in register',
        "    return ensure_name(name)",
        '  File "/v/lib/python3.12/site-packages/pkg/check.py", line 3, in ensure_name',
        "    raise TypeError(f'name must be a string, got {value!r}')",
        "TypeError: name must be a string, got None",
      ].join("\n"),
    );
    expect(result.diagnosis).toMatchObject({ affected_file: "pkg/app.py", affected_function: "register" });
  });

  it("a dependency crashed on a parameter the own frame passed on unchanged: the caller produced it", async () => {
    const util = "export function load(file: string) {\n  return createRequire(file);\n}\n";
    const main =
      "import { load } from './util';\n\nexport function start(opts: " +
      "{ file?: string }) {\n  return load(opts.file!);\n}\n";
    const result = await run(
      { "package.json": JSON.stringify({ name: "ld" }), "src/util.ts": util, "src/main.ts": main },
      "crash",
      [
        "TypeError [ERR_INVALID_ARG_VALUE]: The argument 'filename' must be a file URL object. Received undefined",
        "    at createRequire (node:internal/modules/cjs/loader:1224:11)",
        "    at load (/srv/node_modules/ld/src/util.ts:2:10)",
        "    at start (/srv/node_modules/ld/src/main.ts:4:10)",
      ].join("\n"),
    );
    expect(result.diagnosis).toMatchObject({ affected_file: "src/main.ts", affected_function: "start" });
  });
});

describe("functions recognised in the forms a frame names them", () => {
  it("a `{` inside a parameter list (an inline object type, a destructured parameter) is not the body", async () => {
    const { extractSymbols } = await import("../../../src/grounding/symbols.js");
    const text = [
      "export function start(opts: { file?: string }) {",
      "  return load(opts.file!);",
      "}",
      "export function skip(",
      "  { packageJson }: Package,",
      ") {",
      "  return packageJson.private;",
      "}",
      "module.exports = defineStore({",
      "  save: async (record) => {",
      "    return record.id;",
      "  },",
      "});",
      "",
    ].join("\n");
    const ends = extractSymbols("src/a.ts", text).map((s) => `${s.name} ${s.line}-${s.endLine}`);
    expect(ends).toEqual(expect.arrayContaining(["start 1-3", "skip 4-8", "save 10-12"]));
  });
});

/** The tool calls of a run, `name {args}`. */
const callsOf = (result: Awaited<ReturnType<typeof run>>) =>
  result.trace.steps.flatMap((s) => s.tool_calls.map((c) => `${c.name} ${JSON.stringify(c.arguments)}`));

describe("fallbacks when no frame maps (rule 7)", () => {
  const monorepo = {
    "package.json": JSON.stringify({ name: "@acme/root", private: true, workspaces: ["packages/*"] }),
    "packages/cli/package.json": JSON.stringify({ name: "@acme/cli", main: "lib/cli.js" }),
    "packages/cli/src/cli.ts": [
      "export function main(config: { rules?: object }) {",
      "  if (!config.rules) throw new Error('Please add rules to your `acme.config.js`');",
      "}",
      "",
    ].join("\n"),
    "packages/cli/acme.config.js": "module.exports = { rules: {} };\n",
    "packages/cli/fixtures/empty/acme.config.js": "module.exports = {};\n",
    "packages/preset-basic/package.json": JSON.stringify({ name: "@acme/preset-basic", main: "lib/index.js" }),
    "packages/preset-basic/src/index.ts": "export const config = { rules: { a: 1 } };\n",
  };

  it("says the issue has no stack trace when it has none, and that no frame maps when it has one", async () => {
    const step = (r: Awaited<ReturnType<typeof run>>) =>
      r.trace.steps.find((s) => s.text.includes("looking for where the error message is written"))?.text;
    const none = await run(monorepo, "rules missing", "Error: Please add rules to your `acme.config.js`\n");
    expect(step(none)).toBe("The issue has no stack trace; looking for where the error message is written.");
    const foreign = await run(
      monorepo,
      "rules missing",
      "Error: Please add rules to your `acme.config.js`\n    at main (/usr/lib/node_modules/other/index.js:3:9)\n",
    );
    expect(step(foreign)).toBe(
      "No frame of the trace is this repository's code; looking for where the error message is written.",
    );
  });

  it("a file the message names exists only as fixtures and dev config: the message's writer is cited", async () => {
    const result = await run(monorepo, "rules missing", "Error: Please add rules to your `acme.config.js`\n");
    expect(result.diagnosis?.affected_file).toBe("packages/cli/src/cli.ts");
  });

  it("the title names a workspace package: its entry's source before the message's writer elsewhere", async () => {
    const result = await run(
      monorepo,
      "acme --extends is ignored for acme/preset-basic (v2.1)",
      "Error: Please add rules to your `acme.config.js`\n\n```bash\nnpm i -g @acme/cli @acme/preset-basic\n```\n",
    );
    expect(result.diagnosis?.affected_file).toBe("packages/preset-basic/src/index.ts");
    expect(result.diagnosis?.summary).toContain("names the package `@acme/preset-basic`");
  });

  it("attacker: a package named only in the body, a bare product word, an unknown package: no narrowing", async () => {
    for (const title of ["acme is broken with rules", "broken with @acme/nothing-here", "rules missing"]) {
      const result = await run(
        monorepo,
        title,
        "Error: Please add rules to your `acme.config.js`\n\nI use @acme/preset-basic and @acme/cli.\n",
      );
      expect(result.diagnosis?.affected_file, title).toBe("packages/cli/src/cli.ts");
    }
  });

  it("search never runs on generic words, the package's own name or the command the user typed", async () => {
    const files = {
      "package.json": JSON.stringify({ name: "acme-tool" }),
      "src/reader.ts":
        "// read type run error acme tool\nexport function read(type: string) {\n  return run(type);\n}\n",
      "src/version.ts": "export function version() {\n  return 'acme-tool version';\n}\n",
    };
    const result = await run(
      files,
      "Cannot read properties of undefined (reading 'push')",
      "```shell\nnpx acme-tool version --force\n```\n" +
        "🦋  error TypeError: Cannot read properties of undefined (reading 'push')\n",
    );
    expect(callsOf(result).filter((c) => c.startsWith("search_codebase"))).toEqual([]);
    expect(result.diagnosis?.affected_file ?? null).toBeNull();
    expect(result.diagnosis?.summary).toContain("no word specific enough to search for");
  });

  it("declarations in a comment, a string, a URL or a `case` label do not count; a Go method's do", async () => {
    const files = {
      "go.mod": "module github.com/acme/cli\n",
      "context.go": [
        "package cli",
        "",
        "type Context struct {",
        "\tflagSet *FlagSet",
        "}",
        "",
        "func (c *Context) NArg() int {",
        "\treturn c.flagSet.NArg()",
        "}",
        "",
      ].join("\n"),
      // decoys: the name planted where it declares nothing
      "decoy.go": [
        "package cli",
        "",
        "// NArg: see https://example.com/NArg = the count",
        'var help = "NArg: the number of arguments"',
        "func pick(s string) int {",
        "\tswitch s {",
        "\tcase NArg:",
        "\t\treturn 1",
        "\t}",
        "\treturn 0",
        "}",
        "var x = Opts{NArg: 2}",
        "",
      ].join("\n"),
    };
    const result = await run(files, "ctx.NArg() returns garbage", "Calling `ctx.NArg()` gives a wrong count.");
    expect(result.diagnosis?.affected_file).toBe("context.go");
  });

  it("`Type.member`: the file declaring the type and member; a value the text calls nil is not looked up", async () => {
    const files = {
      "go.mod": "module github.com/acme/cli\n",
      "app.go": "package cli\n\ntype App struct {\n\tBashComplete func()\n}\n",
      "command.go": "package cli\n\ntype Command struct {\n\tBashComplete func()\n\tName string\n}\n",
      "context.go": "package cli\n\ntype Context struct {\n\tflagSet *int\n}\n",
    };
    const result = await run(
      files,
      "v2 bug: panics on Command.BashComplete",
      "`ctx.flagSet` is nil during `cli.Command.BashComplete` when a flag is malformed.",
    );
    expect(result.diagnosis?.affected_file).toBe("command.go");
  });
});

describe("a frame whose file is over the per-file cap", () => {
  /** The default model on a snapshot whose per-file cap is 4 KB. */
  const runCapped = async (files: Record<string, string>, title: string, body: string) => {
    const pack = tar.pack();
    for (const [name, content] of Object.entries(files)) pack.entry({ name, mode: 0o644 }, content);
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of pack) chunks.push(chunk as Buffer);
    const snapshot = await snapshotFromTar(Buffer.concat(chunks), { sha: SHA, limits: { maxFileBytes: 4096 } });
    const task = { source: "issue" as const, key: "acme/x#issue-9", title, body, repo: { owner: "acme", name: "x" } };
    return runAgent({ task: { ...task, baseSha: SHA }, snapshot, model: createHeuristicModel(), config: config() });
  };
  const files = {
    "package.json": JSON.stringify({ name: "acme" }),
    "lib/big.js": `export function render(x) {\n  const y = load(x);\n${"  total += y.a;\n".repeat(400)}}\n`,
    "lib/caller.js": "import { render } from './big.js';\nexport function main(x) {\n  return render(x.item);\n}\n",
    "lib/other.js": "export function render(x) {\n  return x.a;\n}\n",
  };
  const body = [
    "The bug is in lib/other.js, see `render` there.",
    "TypeError: Cannot read properties of undefined (reading 'a')",
    "    at render (/app/node_modules/acme/lib/big.js:300:20)",
    "    at main (/app/node_modules/acme/lib/caller.js:3:10)",
  ].join("\n");

  it("is still the frame: named with its line, said to be unread, and no other file is blamed for it", async () => {
    const result = await runCapped(files, "crash in render", body);
    expect(result.diagnosis?.affected_file ?? null).toBeNull();
    expect(result.edits).toEqual([]);
    const summary = result.diagnosis?.summary ?? "";
    expect(summary).toContain("lib/big.js:300 in `render`");
    expect(summary).toContain("over the snapshot's per-file cap");
    // attacker: the text names a decoy that defines the same function, and the caller is readable
    expect(summary).not.toMatch(/lib\/(?:other|caller)\.js/);
  });

  it("the same trace with the file under the cap reads and cites it (the test above fails rightly)", async () => {
    const small = { ...files, "lib/big.js": "export function render(x) {\n  const y = load(x);\n  total += y.a;\n}\n" };
    const result = await runCapped(small, "crash in render", body.replace("big.js:300:20", "big.js:3:20"));
    expect(result.diagnosis?.affected_file).toBe("lib/big.js");
  });
});

describe("an issue too vague to locate anything", () => {
  const files = {
    "src/user.js": "function getUserName(u) {\n  return u.name;\n}\nmodule.exports = { getUserName };\n",
  };
  it("answers needs_information instead of failing closed on its own answer gate ('hi', '?', '', '!!!')", async () => {
    for (const [title, body] of [
      ["hi", ""],
      ["?", ""],
      ["", "!!!"],
      ["it is broken", "please fix"],
    ] as const) {
      const result = await runHeuristic(files, title, body);
      expect(result.outcome, `${title}|${body}`).toBe("needs_information");
      expect(result.gates.rejections, `${title}|${body}`).toEqual([]);
      expect(result.diagnosis?.summary, `${title}|${body}`).toContain("Missing evidence");
    }
  });
});
