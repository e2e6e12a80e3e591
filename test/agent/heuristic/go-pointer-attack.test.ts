import { describe, expect, it } from "vitest";
import { goPointerFunctions } from "../../../src/agent/models/heuristic/guard-go.js";
import { addedLines, runHeuristic } from "./readable.js";

/**
 * Attacks on the Go nil guard at a caller's read of the file's own pointer-returning function (0254d2f,
 * src/agent/models/heuristic/guard-go.ts goPointerFunctions, owner this session: the heur helper). Its rule: `u == nil`
 * is written only where it compiles, when `u` is a pointer. A `func Find(…) *User {` line that is not the function
 * the call reaches must not make `u` a pointer: `u == nil` on a struct does not compile.
 *
 * The first two were tracked `it.fails` (session 8, attack helper): both runs proposed `if u == nil {` in a file where
 * `u` is a `User` struct. Session 9 (goPointerFunctions reads the lines as code, and drops a name the file declares
 * otherwise) fixed them; the variants below try the other ways to the same wrong guard, and the controls check that
 * a shadow written only in a comment or a string does not take the guard away.
 */
const trace = (line: number) =>
  [
    "panic: runtime error: invalid memory address or nil pointer dereference",
    "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4018d9]",
    "",
    "goroutine 1 [running]:",
    "github.com/acme/tool/store.Label(0xc42006a0c0)",
    `\t/home/u/go/src/github.com/acme/tool/store/store.go:${line} +0x2f9`,
    "main.main()",
    "\t/home/u/go/src/github.com/acme/tool/main.go:5 +0x25",
  ].join("\n");

async function guardOf(lines: string[]): Promise<string[]> {
  const src = lines.join("\n");
  const r = await runHeuristic(
    { "go.mod": "module github.com/acme/tool\n", "store/store.go": src, "main.go": "package main\n" },
    "panic in Label",
    trace(lines.lastIndexOf("\treturn u.Name") + 1),
  );
  return addedLines(r);
}

const HEAD = ["package store", "", "type User struct{ Name string }", ""];

describe("attacker: a pointer-returning `func Find` line that the call does not reach", () => {
  it("a local closure Find returning a struct shadows the file's func Find: no `u == nil`", async () => {
    const added = await guardOf([
      ...HEAD,
      "func Find(id int) *User {",
      "\treturn nil",
      "}",
      "",
      "func Label(id int) string {",
      "\tFind := func(id int) User { return User{} }",
      "\tu := Find(id)",
      "\treturn u.Name",
      "}",
      "",
    ]);
    expect(added.join("\n")).not.toContain("u == nil");
  });

  it("the pointer signature is inside a block comment; the real Find returns a struct: no `u == nil`", async () => {
    const added = await guardOf([
      ...HEAD,
      "/*",
      "func Find(id int) *User {",
      "*/",
      "func Find(id int) User {",
      "\treturn User{}",
      "}",
      "",
      "func Label(id int) string {",
      "\tu := Find(id)",
      "\treturn u.Name",
      "}",
      "",
    ]);
    expect(added.join("\n")).not.toContain("u == nil");
  });
});

/** store.go: `func Find(id int) *User` returning nil, then `label`, the lines of `func Label` up to its `}`. */
const pointerFind = (label: string[], between: string[] = []) => [
  ...HEAD,
  "func Find(id int) *User {",
  "\treturn nil",
  "}",
  "",
  ...between,
  ...label,
  "}",
  "",
];

describe("attacker: the other ways a call of `Find` reaches something else than the file's pointer func", () => {
  it("a method value, a parameter, a local `var`, a range variable: no `u == nil`", async () => {
    const cases: string[][] = [
      // a method value: Find is (*Store).Find, returning a struct
      pointerFind(
        ["func Label(s *Store, id int) string {", "\tFind := s.Find", "\tu := Find(id)", "\treturn u.Name"],
        ["type Store struct{}", "", "func (s *Store) Find(id int) User { return User{} }", ""],
      ),
      pointerFind(["func Label(Find func(int) User, id int) string {", "\tu := Find(id)", "\treturn u.Name"]),
      pointerFind([
        "func Label(id int) string {",
        "\tvar Find = func(id int) User { return User{} }",
        "\tu := Find(id)",
        "\treturn u.Name",
      ]),
      pointerFind([
        "func Label(id int, finders []func(int) User) string {",
        "\tfor _, Find := range finders {",
        "\t\tu := Find(id)",
        "\t\treturn u.Name",
        "\t}",
        '\treturn ""',
      ]),
    ];
    for (const lines of cases) expect((await guardOf(lines)).join("\n"), lines.join("\n")).not.toContain("u == nil");
  });

  it("the pointer signature in a `//` comment or a raw string, the real Find a struct: no `u == nil`", async () => {
    const label = ["func Label(id int) string {", "\tu := Find(id)", "\treturn u.Name", "}", ""];
    const real = ["func Find(id int) User {", "\treturn User{}", "}", ""];
    for (const lines of [
      [...HEAD, "// func Find(id int) *User {", ...real, ...label],
      [...HEAD, "var doc = `", "func Find(id int) *User {", "`", "", ...real, ...label],
    ])
      expect((await guardOf(lines)).join("\n"), lines.join("\n")).not.toContain("u == nil");
  });

  it("control: a shadow written only in a comment or a string leaves the guard of the pointer func", async () => {
    for (const shadow of ["\t// Find := func(id int) User { return User{} } was the old way", '\tlog("Find := x")'])
      expect(
        await guardOf(pointerFind(["func Label(id int) string {", shadow, "\tu := Find(id)", "\treturn u.Name"])),
        shadow,
      ).toContain("\tif u == nil {");
  });
});

describe("units: goPointerFunctions reads only code", () => {
  it("a read that starts inside a block comment: the lines before its `*/` are not the file's functions", () => {
    const read = (lines: [number, string][]) => goPointerFunctions(new Map(lines));
    expect(
      read([
        [9, "func Find(id int) *User {"],
        [10, "\treturn nil"],
        [11, "}"],
      ]),
    ).toEqual(["func Find() *User"]);
    // lines 1-8 unread: line 8 might be `/*`
    expect(
      read([
        [9, "func Find(id int) *User {"],
        [10, "*/"],
        [11, "func Label(id int) string {"],
      ]),
    ).toEqual([]);
    // given out of order, read in line order
    expect(
      read([
        [11, "func Find(id int) *User {"],
        [9, "/*"],
        [10, "*/"],
      ]),
    ).toEqual(["func Find() *User"]);
  });
});
