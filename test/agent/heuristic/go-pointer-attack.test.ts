import { describe, expect, it } from "vitest";
import { addedLines, runHeuristic } from "./readable.js";

/**
 * Attacks on the Go nil guard at a caller's read of the file's own pointer-returning function (0254d2f,
 * src/agent/models/heuristic/guard-go.ts goPointerFunctions, owner this session: the heur helper). Its rule: `u == nil`
 * is written only where it compiles, when `u` is a pointer. A `func Find(…) *User {` line that is not the function
 * the call reaches must not make `u` a pointer: `u == nil` on a struct does not compile.
 *
 * Each `it.fails` is an open finding (session 8, attack helper; not fixed by the owner by 07:40): both runs propose
 * `if u == nil {` (a proposal, not a pull request) in a file where `u` is a `User` struct.
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
  it.fails("a local closure Find returning a struct shadows the file's func Find: no `u == nil`", async () => {
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

  it.fails(
    "the pointer signature is inside a block comment; the real Find returns a struct: no `u == nil`",
    async () => {
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
    },
  );
});
