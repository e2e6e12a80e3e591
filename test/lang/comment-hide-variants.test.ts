import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { readCommentOnly } from "../../src/agent/comment-only.js";
import { isCommentOnly, sameCode } from "../../src/lang/comments.js";

/**
 * More attacks of each kind of comment-hide-attack.test.ts (src/lang/comments.ts, src/lang/strings.ts): code in what
 * reads as a comment. The safe direction: where groundfix cannot be sure a changed line is inert, the edit is code.
 * Each first assertion failed before session 9's fix; the last ones of a case are real comment edits that stay
 * comment-only.
 */
/** Whether inserting `added` before line `at` (0-based) of `lines` reads as a change of no code (whole file). */
const readsAsComment = (path: string, lines: string[], at: number, added: string): boolean =>
  sameCode(path, lines.join("\n"), [...lines.slice(0, at), added, ...lines.slice(at)].join("\n"));

describe("a comment that the compiler ends early", () => {
  it("Java: a \\u escape ending a block comment, a \\u000a in a comment after code, a \\uuuu000d", () => {
    const java = ["class A {", "  void f() {", "    run();", "  }", "}", ""];
    expect(readsAsComment("A.java", java, 3, "    /* a \\u002a/ System.exit(1); /* b */")).toBe(false);
    expect(readsAsComment("A.java", java, 3, "    // x \\uuuu000d System.exit(1);")).toBe(false);
    expect(sameCode("A.java", java.join("\n"), java.join("\n").replace("run();", "run(); // \\u000a evil();"))).toBe(
      false,
    );
    // Scala 2 reads unicode escapes everywhere too
    expect(readsAsComment("A.scala", ["object A {", "  run()", "}", ""], 2, "  // \\u000a evil()")).toBe(false);
    // an escaped backslash is no escape; a plain comment or doc comment stays one
    expect(readsAsComment("A.java", java, 3, "    // path C:\\\\users")).toBe(true);
    expect(readsAsComment("A.java", java, 3, "    /** Runs. */")).toBe(true);
  });

  it("a line break only some readers see: U+2028 in JavaScript, a lone CR in C, NEL in C#", () => {
    const js = ["function f() {", "  run();", "}", ""];
    expect(readsAsComment("a.js", js, 2, "  // note\u2028evil()")).toBe(false);
    expect(sameCode("a.js", js.join("\n"), js.join("\n").replace("run();", "run(); // x\u2029evil()"))).toBe(false);
    expect(readsAsComment("a.c", ["int main() {", "  return 0;", "}", ""], 1, '  // a\rsystem("id");')).toBe(false);
    expect(readsAsComment("a.cs", ["class A {", "}", ""], 1, "  // a\u0085static int x = Evil();")).toBe(false);
    expect(readsAsComment("a.js", js, 2, "  // note")).toBe(true);
  });

  it("PHP: ?> in a comment after code, and a comment-looking line in the HTML a template outputs", () => {
    const php = ["<?php", "echo 1;", "echo 2;", ""];
    expect(sameCode("a.php", php.join("\n"), php.join("\n").replace("echo 1;", "echo 1; // x ?> <?php evil();"))).toBe(
      false,
    );
    // after a `?>` the file is output: `// note` is text on the page
    const template = ["<?php $t = 1; ?>", "<p>hello</p>", "<?php echo $t; ?>", ""];
    expect(readsAsComment("page.php", template, 2, "// note")).toBe(false);
    // a template that starts with HTML
    expect(readsAsComment("page.php", ["<html>", "<?php echo 1;", ""], 1, "# hi")).toBe(false);
    expect(readsAsComment("a.php", php, 2, "/* note */")).toBe(true);
  });

  it("C/C++: a splice after a tab, a ??/ trigraph, a comment after code that splices", () => {
    const c = ["int a;", "int b = check();", "int c;", ""];
    expect(readsAsComment("a.c", c, 1, "// note \\\t")).toBe(false);
    expect(readsAsComment("a.cpp", c, 1, "// note ??/")).toBe(false);
    expect(sameCode("a.h", c.join("\n"), c.join("\n").replace("int a;", "int a; // x \\ "))).toBe(false);
    // an attacker's two lines (MSVC does not splice at `\ `, so `evil();` runs there)
    expect(sameCode("a.c", c.join("\n"), c.join("\n").replace("int c;", "// note \\ \nevil();\nint c;"))).toBe(false);
    expect(readsAsComment("a.c", c, 1, "// note")).toBe(true);
  });
});

describe("comment syntax a language does not have", () => {
  it("CSS inside a rule; strict JSON's block comment; batch's rem, :: and # are code", () => {
    const css = [".a {", "  color: red;", "}", ""];
    expect(readsAsComment("a.css", css, 1, "  // color: blue;")).toBe(false);
    expect(readsAsComment("package.json", ["{", '  "a": 1', "}", ""], 1, "  /* a */")).toBe(false);
    expect(readsAsComment("deploy.json", ["{", '  "a": 1', "}", ""], 1, "  // a")).toBe(false);
    for (const line of ["rem calc", ":: calc", "# calc", "// calc"]) {
      expect(readsAsComment("run.bat", ["@echo off", "echo hi", ""], 1, line)).toBe(false);
    }
    // SCSS and Less have `//`; JSON with comments (tsconfig.json, .jsonc) has both
    expect(readsAsComment("a.scss", css, 1, "  // note")).toBe(true);
    expect(readsAsComment("tsconfig.json", ["{", '  "a": 1', "}", ""], 1, "  // a")).toBe(true);
    expect(readsAsComment("x/settings.jsonc", ["{", '  "a": 1', "}", ""], 1, "  /* a */")).toBe(true);
  });
});

describe("a comment a tool reads as code", () => {
  it('Go: a line in a /* */ preamble far above import "C", a preamble in an import group', () => {
    const go = ["package main", "", "/*", "#include <stdlib.h>", "", "static int x;", "*/", 'import "C"', ""];
    expect(readsAsComment("main.go", go, 4, 'void __attribute__((constructor)) f(void) { system("id"); }')).toBe(false);
    const grouped = ["package main", "", "import (", '\t"fmt"', "", "\t// #include <stdio.h>", '\t"C"', ")", ""];
    expect(readsAsComment("main.go", grouped, 6, "\t// #cgo LDFLAGS: -levil")).toBe(false);
    // a comment away from import "C" is a comment
    expect(readsAsComment("main.go", go, 9, "// note")).toBe(true);
    expect(readsAsComment("main.go", ["package main", "", "func main() {}", ""], 2, "// note")).toBe(true);
  });
});

describe("a comment-looking line inside a string that spans lines", () => {
  it('more forms: Rust br##, C++ LR"x(, C# $@ and """", Ruby %Q( nested, shell $\'…\', Perl q{}, Elixir sigils', () => {
    expect(readsAsComment("a.rs", ['let s = br##"a', '"# b"##;', ""], 1, "// x")).toBe(false);
    expect(readsAsComment("a.cpp", ['auto s = LR"x(a', ')" b)x";', ""], 1, "// x")).toBe(false);
    expect(readsAsComment("a.cs", ['var s = $@"a {b}', '";', ""], 1, "// x")).toBe(false);
    expect(readsAsComment("a.cs", ['var s = """"', 'a """ b', '"""";', ""], 2, "// x")).toBe(false);
    expect(readsAsComment("a.rb", ["x = %Q(a (b)", "c)", "run(x)", ""], 1, "# x")).toBe(false);
    expect(readsAsComment("a.sh", ["x=$'a\\'", "b'", ""], 1, "# x")).toBe(false);
    expect(readsAsComment("a.pl", ["my $x = q{a {b}", "c};", ""], 1, "# x")).toBe(false);
    expect(readsAsComment("a.ex", ["x = ~s(a", "b)", ""], 1, "# x")).toBe(false);
    expect(readsAsComment("a.ex", ['x = ~S"""', "a", '"""', ""], 2, "# x")).toBe(false);
    // comments around such strings stay comments
    expect(readsAsComment("a.rs", ['let s = r#"a"#;', "run(s);", ""], 1, "// x")).toBe(true);
    expect(readsAsComment("a.rb", ["x = %w[a b]", "run(x)", ""], 1, "# x")).toBe(true);
  });

  it("strings of more languages: R, SQL, PowerShell here-strings, CMake brackets, GraphQL and Starlark blocks", () => {
    expect(readsAsComment("a.r", ["x <- 'a", "b'", ""], 1, "# x")).toBe(false);
    expect(readsAsComment("a.sql", ["SELECT 'a", "b';", ""], 1, "-- x")).toBe(false);
    expect(readsAsComment("a.ps1", ['$x = @"', "a", '"@', ""], 2, "# x")).toBe(false);
    expect(readsAsComment("CMakeLists.txt", ["set(X [=[", "a", "]=])", ""], 2, "# x")).toBe(false);
    expect(readsAsComment("a.graphql", ['"""', "a", '"""', "type A { a: Int }", ""], 2, "# x")).toBe(false);
    expect(readsAsComment("BUILD", ["x = '''", "a", "'''", ""], 2, "# x")).toBe(false);
    expect(readsAsComment("a.js", ["const s = 'a\\", "b';", ""], 1, "// x")).toBe(false);
    expect(readsAsComment("a.sql", ["SELECT 'it''s';", "SELECT 1;", ""], 1, "-- x")).toBe(true);
  });

  it("a Kotlin or JavaScript string opened at a line's start, read from the file's start", () => {
    expect(readsAsComment("a.kt", ["val s =", '"""', "a", '"""', ""], 2, "// x")).toBe(false);
    expect(readsAsComment("a.js", ["const s =", "`", "a", "`;", ""], 2, "// x")).toBe(false);
  });

  it("YAML: a quoted scalar that spans lines, a block scalar in a list, a folded one; TOML '''; Terraform <<-", () => {
    expect(readsAsComment("a.yml", ['a: "x', '  y"', "b: 1", ""], 1, "  # x")).toBe(false);
    expect(readsAsComment("a.yml", ["- run: |", "    make", "    make test", "- b", ""], 2, "    # x")).toBe(false);
    expect(readsAsComment("a.yml", ["a: >-", "  x", "", "  y", "b: 1", ""], 3, "  # x")).toBe(false);
    expect(readsAsComment("a.toml", ["x = '''", "a", "'''", ""], 2, "# x")).toBe(false);
    expect(readsAsComment("m.tf", ["policy = <<-EOT", "  {", "  }", "  EOT", ""], 2, "# x")).toBe(false);
    // after the scalar, and a quote inside a plain value: comments
    expect(readsAsComment("a.yml", ["a: |", "  x", "b: it's", "c: 1", ""], 3, "# x")).toBe(true);
    expect(readsAsComment("m.tf", ['a = "x"', "b = 1", ""], 1, "# x")).toBe(true);
  });

  it("a here-document ends only at its exact closing line (shell <<EOF, Ruby <<WORD)", () => {
    const sh = ["#!/bin/sh", "cat <<EOF", "a", "  EOF", "b", "EOF", ""];
    expect(readsAsComment("a.sh", sh, 4, "# x")).toBe(false);
    const rb = ["x = <<SQL", "a", "  SQL", "b", "SQL", ""];
    expect(readsAsComment("a.rb", rb, 3, "# x")).toBe(false);
    expect(readsAsComment("a.sh", sh, 6, "# x")).toBe(true);
  });

  it("Perl __END__, a Ruby hunk far below __END__ is held (its hunk alone reads as a comment)", () => {
    expect(readsAsComment("a.pl", ["print <DATA>;", "__END__", "a", ""], 3, "# x")).toBe(false);
    const base = ["puts DATA.read", "__END__", ...Array.from({ length: 20 }, (_, i) => `row ${i}`), ""].join("\n");
    const after = base.replace("row 15\n", "row 15\n# x\n");
    const diff = createTwoFilesPatch("a/a.rb", "b/a.rb", base, after);
    const edit = { path: "a.rb", diff, code_before: "row 15\n", code_after: "row 15\n# x\n" };
    expect(isCommentOnly(edit)).toBe(true); // the hunk does not show __END__
    const reading = readCommentOnly([edit], () => base);
    expect(reading).toEqual({ edits: [false], all: false, hidden: true });
  });
});

describe("a line that only looks like a block comment's end, with no open block above it", () => {
  it("Lua, Haskell and C at the file's start: code above an end with no opener is code", () => {
    expect(sameCode("a.lua", "print(1)\n", "os.execute('id')\n--]]\nprint(1)\n")).toBe(false);
    expect(sameCode("a.hs", "main = x\n", "evil = y\n-}\nmain = x\n")).toBe(false);
    expect(sameCode("a.c", "int x;\n", "int y = evil();\n*/\nint x;\n")).toBe(false);
    expect(sameCode("a.js", "run();\n", "evil()\n * done */\nrun();\n")).toBe(false);
  });

  it("a hunk inside a block opened above it still reads as the comment it is", () => {
    const base = "/*\n" + Array.from({ length: 10 }, (_, i) => `  line ${i}`).join("\n") + "\n*/\nrun();\n";
    const after = base.replace("  line 8\n", "  line 8\n  more text\n");
    expect(isCommentOnly({ path: "a.js", diff: createTwoFilesPatch("a/a.js", "b/a.js", base, after) })).toBe(true);
    expect(sameCode("a.js", base, after)).toBe(true);
  });
});

describe("a Python line that starts like a docstring", () => {
  it("a raw or prefixed docstring followed by code, a closing line followed by code", () => {
    const py = "x = 1\n";
    expect(sameCode("a.py", py, `${py}r"""doc""" ; import os\n`)).toBe(false);
    expect(sameCode("a.py", py, `${py}"""doc \\""" """ + run()\n`)).toBe(false);
    expect(sameCode("a.py", py, `${py}"""doc\nmore\n""" + run()\n`)).toBe(false);
    expect(sameCode("a.py", py, `${py}"""doc"""  # note\n`)).toBe(true);
  });
});

describe("performance: the whole-file reading is linear", () => {
  const chunk = [
    'x = "a',
    "# in a string",
    'b"',
    "y = %q{c {d}",
    "}",
    "z = <<EOS",
    "  EOS",
    "EOS",
    "# a comment",
    "run(x, y, z)",
  ].join("\n");
  const text = (chars: number) => Array.from({ length: Math.ceil(chars / chunk.length) }, () => chunk).join("\n");
  /** Milliseconds of CPU time `f` takes (the machine is shared: wall time would measure the neighbours). */
  const cpu = (f: () => void) => {
    const t = process.cpuUsage();
    f();
    const d = process.cpuUsage(t);
    return (d.user + d.system) / 1000;
  };

  it("four times the text takes about four times as long, not sixteen (strings, heredocs, comments)", () => {
    const small = text(200_000);
    const big = text(800_000);
    cpu(() => sameCode("big.rb", small, `${small}\n# x\n`)); // warm the compiler
    const t1 = cpu(() => expect(sameCode("big.rb", small, `${small}\n# x\n`)).toBe(true));
    const t4 = cpu(() => expect(sameCode("big.rb", big, `${big}\n# x\n`)).toBe(true));
    expect(t4).toBeLessThan(10 * t1 + 300);
    // one string left open at the top: the rest of the file is one logical line, still linear
    const open = `s = "\n${big}`;
    const t4open = cpu(() => expect(sameCode("big.rb", open, `${open}\n# x\n`)).toBe(false));
    expect(t4open).toBeLessThan(10 * t1 + 300);
  });

  it("a 5 MB file of one line (minified) is read in linear time", () => {
    const line = "var a='x',b=\"y\";/* c */".repeat(220_000);
    expect(line.length).toBeGreaterThan(5_000_000);
    const ms = cpu(() => expect(sameCode("app.min.js", line, `${line}\n// x`)).toBe(true));
    expect(ms).toBeLessThan(15_000); // ~0.7 s alone; a quadratic read would take hours
  });
});
