import { beforeAll, describe, expect, it } from "vitest";
import { enclosingDefinition, goErrorReturn, goResults } from "../../../src/agent/models/heuristic/code.js";
import {
  goContextValues,
  goGuardsPanic,
  goLiteralOn,
  goNamedNil,
  goNilComparable,
  goReceiverName,
  goPredicateExit,
} from "../../../src/agent/models/heuristic/guard-go.js";
import { loadGrammar } from "../../../src/lang/tree-sitter.js";
import { syntaxError } from "../../../src/review/rules/syntax.js";
import { addedLines, runHeuristic } from "./readable.js";

const lines = (text: string) => new Map(text.split("\n").map((t, i) => [i + 1, t] as const));
const goErrors = (text: string) => syntaxError("x.go", text, "go");

beforeAll(async () => {
  expect(await loadGrammar("go")).toBe(true);
});

/** A goroutine trace whose only own frame is `path:line` (as printed from a module cache or a checkout). */
const trace = (fn: string, path: string, line: number) =>
  [
    "panic: runtime error: invalid memory address or nil pointer dereference",
    "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4018d9]",
    "",
    "goroutine 1 [running]:",
    `${fn}(0xc42006a0c0)`,
    `\t/home/u/go/src/github.com/acme/tool/${path}:${line} +0x2f9`,
    "main.main()",
    "\t/home/u/go/src/github.com/acme/tool/main.go:9 +0x28f",
  ].join("\n");

describe("Go function literals are functions", () => {
  it("goLiteralOn: a keyed, assigned, returned or deferred literal whose body opens on the line", () => {
    expect(goLiteralOn("\tRun: func(cmd *cobra.Command, args []string) {")).toEqual({
      name: "Run",
      list: "cmd *cobra.Command, args []string",
    });
    expect(goLiteralOn("\thandler := func(w http.ResponseWriter, r *http.Request) {")?.name).toBe("handler");
    expect(goLiteralOn("\tdefer func() {")).toEqual({ name: null, list: "" });
    // a function type, a call of a named function, a literal whose body opens on a later line: no literal here
    expect(goLiteralOn("\tvar action func()")).toBeNull();
    // a method or function declaration is no literal
    expect(goLiteralOn("func (s *Store) Get(key string) (string, error) {")).toBeNull();
    expect(goLiteralOn("func init() {")).toBeNull();
    expect(goLiteralOn("\tfuncs(a) {")).toBeNull();
    expect(goLiteralOn("\tf := func(a int,")).toBeNull();
  });

  it("goResults reads a literal's results; the enclosing function of a line in a literal is the literal", () => {
    expect(goResults("\tRun: func(cmd *Command, args []string) (int, error) {")).toEqual(["int", "error"]);
    expect(goErrorReturn("\tload := func(path string) (*Config, error) {")).toEqual(["nil"]);
    expect(goResults("\tRun: func(cmd *Command) {")).toEqual([]);
    const src = [
      "package cmd",
      "",
      "var deployCmd = &cobra.Command{",
      '\tUse: "deploy",',
      "\tRun: func(cmd *cobra.Command, args []string) {",
      "\t\tx := 1",
      "\t},",
      "}",
      "",
      "func serve() error {",
      "\thandler := func(w http.ResponseWriter) {",
      "\t\tw.Write(nil)",
      "\t}",
      "\treturn nil",
      "}",
    ].join("\n");
    expect(enclosingDefinition(lines(src), 6, "go")).toMatchObject({ name: "Run", line: 5, params: ["cmd", "args"] });
    // inside a closure of a named function: the closure's line and parameters, the named function's name
    expect(enclosingDefinition(lines(src), 12, "go")).toMatchObject({ name: "serve", line: 11, params: ["w"] });
    expect(enclosingDefinition(lines(src), 14, "go")).toMatchObject({ name: "serve", line: 10 });
  });
});

describe("goNilComparable: `x == nil` is written only where the code shows x can be nil", () => {
  const imports = ["fmt", "ast"];
  it("a pointer parameter or local, a package var holding a pointer", () => {
    expect(goNilComparable("c", "c.Usage()", "func run(c *Command) error {", imports)).toBe(true);
    expect(goNilComparable("b", "b.Len()", "func run(a, b *Buf) error {", imports)).toBe(true);
    expect(goNilComparable("p", "p.Env", "func run() {\n\tvar p *project.Data", imports)).toBe(true);
    expect(goNilComparable("p", "p.Env", "func run() {\n\tp := &Data{}", imports)).toBe(true);
    expect(goNilComparable("f", "f.Body", "\tif f, ok := d.(*ast.FuncDecl); ok {", imports)).toBe(true);
    expect(goNilComparable("HelpFlag", "HelpFlag.Names()", "var HelpFlag Flag = &BoolFlag{", imports)).toBe(true);
  });

  it("a value, a call result, an unknown local: no guard (it would not compile, or nothing says it can be nil)", () => {
    expect(goNilComparable("c", "c.Usage()", "func run(c Command) error {", imports)).toBe(false);
    expect(goNilComparable("p", "p.Env", "func run() {\n\tp := load()", imports)).toBe(false);
    expect(goNilComparable("Config", "Config.Port", "var Config Settings", imports)).toBe(false);
  });

  it("a field chain: only when its prefix was dereferenced above and the line reads nothing else", () => {
    const above = "func check(d ast.Decl) (int, error) {\n\tparams := f.Type.Params";
    expect(goNilComparable("f.Body", "closing := f.Body.Pos() + 1", above, imports)).toBe(true);
    // the prefix was never dereferenced: it may be the nil one, and `f.Body` may be a struct
    expect(goNilComparable("f.Body", "closing := f.Body.Pos() + 1", "func check() {", imports)).toBe(false);
    // another dereference on the line could be the nil one
    expect(goNilComparable("f.Body", "x := f.Body.Pos() + g.End()", above, imports)).toBe(false);
    // a package qualifier is no dereference
    expect(goNilComparable("f.Body", "x := ast.Walk(f.Body.List)", above, imports)).toBe(true);
  });
});

/** A cobra command whose `Run:` literal (no results: a guard there can only panic) reads a local pointer at line 17. */
const cloudGo = (extra: string[]) =>
  [
    "package cmd",
    "",
    "import (",
    '\t"fmt"',
    "",
    '\t"github.com/spf13/cobra"',
    ")",
    "",
    "var deployCmd = &cobra.Command{",
    '\tUse: "deploy",',
    "\tRun: func(cmd *cobra.Command, args []string) {",
    "\t\tvar data *Project",
    "\t\tif len(args) > 0 {",
    "\t\t\tdata = load(args[0])",
    "\t\t}",
    "\t\tfor _, ev := range env() {",
    "\t\t\tif data.Env[ev.Key] == ev.Val {",
    "\t\t\t\tcontinue",
    "\t\t\t}",
    '\t\t\tfmt.Println("new key", ev.Key)',
    "\t\t}",
    "\t},",
    "}",
    "",
    ...extra,
  ].join("\n");

/** The default model on cmd/cloud.go (`cloudGo(extra)`) for a panic at line 17 of the `Run:` literal. */
const runCloud = (extra: string[]) =>
  runHeuristic(
    { "cmd/cloud.go": cloudGo(extra), "go.mod": "module github.com/acme/tool\n" },
    "deploy crashes",
    trace("github.com/acme/tool/cmd.init.func1", "cmd/cloud.go", 17),
  );

describe("Go guards in the run", () => {
  it("a field of the loop's item in a loop that skips items: the guard skips the item (continue)", async () => {
    const src = [
      "package main",
      "",
      'import "fmt"',
      "",
      "func checkPath(path string, file *ast.File) (int, error) {",
      "\tfor _, d := range file.Decls {",
      "\t\tif f, ok := d.(*ast.FuncDecl); ok {",
      "\t\t\tparams := f.Type.Params",
      "\t\t\tclosing := f.Body.Pos() + 1",
      "\t\t\tfmt.Println(params, closing)",
      "\t\t}",
      "\t}",
      "\treturn 0, nil",
      "}",
      "",
    ].join("\n");
    const result = await runHeuristic(
      { "main.go": src, "go.mod": "module github.com/acme/tool\n" },
      "panic on a declaration without a body",
      trace("main.checkPath", "main.go", 9),
    );
    // a forward declaration (`func lol()`) has no body: skip it, as the loop skips every other declaration (the
    // `if … ok {` around the body), instead of failing the whole file
    expect(addedLines(result)).toEqual(["\t\t\tif f.Body == nil {", "\t\t\t\tcontinue", "\t\t\t}"]);
    expect(result.outcome).toBe("pr_ready");
    expect(result.diagnosis?.summary).toContain("skips the item when `f.Body` is missing, as the loop already skips");
    expect(goErrors(result.files[0]?.content ?? "")).toBeNull();
  });

  const helpGo = [
    "package cli",
    "",
    "func checkHelp(cCtx *Context) bool {",
    "\tfound := false",
    "\tfor _, name := range HelpFlag.Names() {",
    "\t\tif cCtx.Bool(name) {",
    "\t\t\tfound = true",
    "\t\t}",
    "\t}",
    "\treturn found",
    "}",
    "",
  ].join("\n");
  const flagGo = (decl: string) => [
    "package cli",
    "",
    "// HelpFlag prints the help.",
    decl,
    '\tName: "help",',
    "}",
    "",
  ];
  const moduleFrame = "```\n/go/pkg/mod/github.com/acme/cli/v2@v2.25.7/help.go:5\n```";

  it("a report naming the package var it set to nil, no runtime message: a predicate answers false", async () => {
    const result = await runHeuristic(
      {
        "help.go": helpGo,
        "flag.go": flagGo("var HelpFlag Flag = &BoolFlag{").join("\n"),
        "go.mod": "module github.com/acme/cli/v2\n",
      },
      "Set HelpFlag=nil causes panic",
      `Setting it to nil panics:\n\n${moduleFrame}`,
    );
    expect(addedLines(result)).toEqual(["\tif HelpFlag == nil {", "\t\treturn false", "\t}"]);
    expect(result.outcome).toBe("pr_ready");
    expect(goErrors(result.files[0]?.content ?? "")).toBeNull();
  });

  it("attacker: the title names a struct value, a name the frame line does not read, or code: no guard", async () => {
    const files = (decl: string) => ({
      "help.go": helpGo,
      "flag.go": flagGo(decl).join("\n"),
      "go.mod": "module github.com/acme/cli/v2\n",
    });
    // a struct value cannot be compared with nil: the guard would not compile
    const struct = await runHeuristic(
      files("var HelpFlag BoolFlag = BoolFlag{"),
      "Set HelpFlag=nil causes panic",
      moduleFrame,
    );
    expect(addedLines(struct).some((l) => /== nil/.test(l))).toBe(false);
    expect(struct.outcome).not.toBe("pr_ready");
    // a name the frame line does not read
    const other = await runHeuristic(
      files("var HelpFlag Flag = &BoolFlag{"),
      "Set os=nil causes panic",
      `panic\n${moduleFrame}`,
    );
    expect(addedLines(other).some((l) => /== nil/.test(l))).toBe(false);
    // code in the title reaches neither the condition nor the error: only the identifier before `=nil` is read
    const hostile = await runHeuristic(
      files("var HelpFlag Flag = &BoolFlag{"),
      'HelpFlag = nil") ; os.Exit(0) // causes panic',
      moduleFrame,
    );
    const code = addedLines(hostile).filter((l) => !/^\s*\/\//.test(l));
    expect(code).toEqual(["\tif HelpFlag == nil {", "\t\treturn false", "\t}"]);
    expect(goErrors(hostile.files[0]?.content ?? "")).toBeNull();
  });

  it("attacker: a closure in a function returning an error panics, never `return …, err`", async () => {
    const src = [
      "package main",
      "",
      'import "fmt"',
      "",
      "func serve(addr string) error {",
      "\thandler := func(name string) {",
      "\t\tvar s *Session",
      '\t\tif name != "" {',
      "\t\t\ts = open(name)",
      "\t\t}",
      "\t\ts.Touch()",
      "\t}",
      '\thandler("x")',
      "\treturn nil",
      "}",
      "",
    ].join("\n");
    const result = await runHeuristic(
      { "main.go": src, "go.mod": "module github.com/acme/tool\n" },
      "panic in handler",
      trace("main.serve.func1", "main.go", 11),
    );
    expect(addedLines(result)).toEqual(["\t\tif s == nil {", '\t\t\tpanic("serve(): s is nil")', "\t\t}"]);
    expect(goErrors(result.files[0]?.content ?? "")).toBeNull();
  });
});

describe("Go: a guard that panics is a proposal unless the file's guards panic", () => {
  it("a panic in a Run literal, no guard of the file panics: below the threshold, the summary says why", async () => {
    // the guard is in the literal (its function), on the local pointer; the loop's `continue` is not used: `data` is
    // not the loop's item, skipping would drop every key
    const result = await runCloud([]);
    expect(addedLines(result)).toEqual([
      "\t\t\tif data == nil {",
      '\t\t\t\tpanic(fmt.Sprintf("Run(): data is nil len(args)=%v", len(args)))',
      "\t\t\t}",
    ]);
    expect(result.outcome).toBe("diagnosis_only");
    expect(result.diagnosis?.confidence).toBeLessThan(0.7);
    expect(result.diagnosis?.summary).toContain("It panics, and no guard read in cloud.go does");
    expect(goErrors(result.files[0]?.content ?? "")).toBeNull();
  });

  it("the file already panics in a guard of its own: the same guard is a pull request", async () => {
    const result = await runCloud([
      "func mustName(p *Project) string {",
      '\tif p.Name == "" {',
      '\t\tpanic("project without a name")',
      "\t}",
      "\treturn p.Name",
      "}",
      "",
    ]);
    expect(addedLines(result)[1]).toMatch(/^\t+panic\(/);
    expect(result.outcome).toBe("pr_ready");
    expect(goErrors(result.files[0]?.content ?? "")).toBeNull();
  });

  it("attacker: a panic in a comment or a string, or one that is no guard's body, does not count", async () => {
    for (const extra of [
      [
        "func mustName(p *Project) string {",
        '\tif p.Name == "" {',
        '\t\t// panic("no name")',
        "\t}",
        "\treturn p.Name",
        "}",
      ],
      [
        "func mustName(p *Project) string {",
        '\tif p.Name == "" {',
        '\t\tmsg := "panic(no name)"',
        "\t\t_ = msg",
        "\t}",
        "}",
      ],
      [
        "func mustName(p *Project) string {",
        "\tswitch p.Kind {",
        "\tdefault:",
        '\t\tpanic("unknown kind")',
        "\t}",
        "}",
      ],
    ]) {
      const result = await runCloud(extra);
      expect(addedLines(result)[1], extra.join("\n")).toMatch(/^\t+panic\(/);
      expect(result.outcome, extra.join("\n")).toBe("diagnosis_only");
    }
  });

  it("goGuardsPanic: an `if` whose first statement panics (panic or a logger's Panicf), comments skipped", () => {
    expect(goGuardsPanic(lines('\tif x == nil {\n\t\t// never\n\n\t\tpanic("x")\n\t}'))).toBe(true);
    expect(goGuardsPanic(lines('\t} else if y {\n\t\tlog.Panicf("y %v", y)\n\t}'))).toBe(true);
    expect(goGuardsPanic(lines('\tif x == nil {\n\t\tcleanup()\n\t\tpanic("x")\n\t}'))).toBe(false);
    expect(goGuardsPanic(lines('\tpanic("unreachable")'))).toBe(false);
    expect(goGuardsPanic(lines('\tif x == nil {\n\t\tfmt.Println("panic(x)")\n\t}'))).toBe(false);
  });
});

describe("Go: a guard on the method's receiver itself is a proposal (the caller called it on nil)", () => {
  const src = [
    "package store",
    "",
    'import "fmt"',
    "",
    "func (s *Store) Name(key string) (string, error) {",
    "\tv := s.items[key]",
    "\treturn s.cfg.Prefix + v, nil",
    "}",
    "",
  ].join("\n");
  const run = (line: number) =>
    runHeuristic(
      { "store/store.go": src, "go.mod": "module github.com/acme/tool\n" },
      "panic in Name",
      trace("github.com/acme/tool/store.(*Store).Name", "store/store.go", line),
    );

  it("the receiver: the function's error, below the threshold", async () => {
    const result = await run(6);
    expect(addedLines(result)).toEqual(["\tif s == nil {", '\t\treturn "", fmt.Errorf("Name(): s is nil")', "\t}"]);
    expect(result.outcome).toBe("diagnosis_only");
    expect(result.diagnosis?.summary).toContain("It fails on the receiver `s` itself");
  });

  it("attacker: a field of the receiver (dereferenced above: the receiver is there) is a pull request", async () => {
    const result = await run(7);
    expect(addedLines(result)).toEqual([
      "\tif s.cfg == nil {",
      '\t\treturn "", fmt.Errorf("Name(): s.cfg is nil")',
      "\t}",
    ]);
    expect(result.outcome).toBe("pr_ready");
    expect(goErrors(result.files[0]?.content ?? "")).toBeNull();
  });
});

describe("Go guard pieces", () => {
  it("goNamedNil: the name before `= nil` / `is nil`, only when the report says it panics", () => {
    expect(goNamedNil("Set HelpFlag=nil causes panic", "")).toBe("HelpFlag");
    expect(goNamedNil("crash", "`opts.Logger` is nil and it panics")).toBe("opts.Logger");
    expect(goNamedNil("Set HelpFlag=nil hides help", "")).toBeNull();
    expect(goNamedNil('x = nil"); os.Exit(0) // panic', "")).toBe("x");
  });

  it("goReceiverName: the named receiver of a method (a parameter), never of a function or literal", () => {
    expect(goReceiverName("func (c *Command) execute(a []string) (err error) {")).toBe("c");
    expect(goReceiverName("func (l *List[T]) Len() int {")).toBe("l");
    expect(goReceiverName("func (s Store) Get(key string) string {")).toBe("s");
    expect(goReceiverName("func (*Store) Close() {")).toBeNull();
    expect(goReceiverName("func (_ *Store) Close() {")).toBeNull();
    expect(goReceiverName("func checkPath(path string) (int, error) {")).toBeNull();
    expect(goReceiverName("\tRun: func(cmd *cobra.Command, args []string) {")).toBeNull();
  });

  it("goPredicateExit: false for a function whose only result is bool", () => {
    expect(goPredicateExit(["bool"])).toEqual({ kind: "return", value: "false" });
    expect(goPredicateExit(["bool", "error"])).toBeNull();
    expect(goPredicateExit([])).toBeNull();
  });

  it("goContextValues: ids, numbers, booleans by value, slices/maps by length; no other string or secret", () => {
    const cheap = (n: string) => (/ctx|req|token/.test(n) ? null : /^(?:id|\w+ID)$/.test(n) ? {} : { type: true });
    expect(
      goContextValues("func run(ctx context.Context, userID string, n, m int, opts *Opts) error {", [], cheap),
    ).toEqual([
      { label: "userID", expr: "userID" },
      { label: "n", expr: "n" },
      { label: "m", expr: "m" },
    ]);
    expect(goContextValues("\tRun: func(cmd *Command, args []string, token string, path string) {", [], cheap)).toEqual(
      [{ label: "len(args)", expr: "len(args)" }],
    );
    expect(goContextValues("func (c *T) get(n int) (V, error) {", ["n"], cheap)).toEqual([]);
  });
});

describe("Go: a nil result of a function without an error result, read by the caller", () => {
  const store = (find: string, call: string, extra: string[] = []) =>
    [
      "package store",
      "",
      'import "github.com/acme/tool/db"',
      "",
      "type User struct{ Name string }",
      "",
      find,
      "\tif id == 0 {",
      "\t\treturn nil",
      "\t}",
      "\treturn db.Load(id)",
      "}",
      "",
      ...extra,
      "func Label(id int) string {",
      `\tu := ${call}(id)`,
      "\treturn u.Name",
      "}",
      "",
    ].join("\n");
  const run = (src: string) =>
    runHeuristic(
      { "go.mod": "module github.com/acme/tool\n", "store/store.go": src, "main.go": "package main\n" },
      "panic in Label",
      trace("github.com/acme/tool/store.Label", "store/store.go", src.split("\n").indexOf("\treturn u.Name") + 1),
    );

  it("the file's function returns a pointer: a nil guard before the read, a proposal, valid Go", async () => {
    const src = store("func Find(id int) *User {", "Find");
    const result = await run(src);
    expect(addedLines(result)[0]).toBe("\tif u == nil {");
    expect(result.outcome).not.toBe("pr_ready");
    expect(goErrors(result.files[0]?.content ?? "")).toBeNull();
  });

  it("attacker: another package's call, a struct result, a pointer parameter elsewhere: no guard, why", async () => {
    for (const src of [
      store("func Find(id int) *User {", "db.Find"),
      store("func Find(id int) User {", "Find").replace("\t\treturn nil", "\t\treturn User{}"),
      store("func Find(id int) User {", "Find", ["func Other(u *User) {}", ""]).replace(
        "\t\treturn nil",
        "\t\treturn User{}",
      ),
    ]) {
      const result = await run(src);
      expect(addedLines(result).join("\n"), src).not.toMatch(/u == nil/);
      expect(result.diagnosis?.summary, src).toContain(
        "no guard: the code read does not show that `u` can be nil, and Go compares only a pointer",
      );
    }
  });
});
