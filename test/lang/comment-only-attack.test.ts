import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { isCommentOnly } from "../../src/lang/comments.js";
import { runOneEdit } from "../agent/helpers.js";

/** An edit of `path` from `before` to `after`, with the unified diff the pipeline keeps (3 lines of context). */
const edit = (path: string, before: string, after: string) => ({
  path,
  diff: createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after),
});

/** The outcome of a run whose model reads `path`, replaces all of `before` by `after`, and answers at 0.95. */
async function outcomeOf(path: string, before: string, after: string, allow?: "modifications") {
  const result = await runOneEdit({ [path]: before, "README.md": "# x\n" }, path, before, after, {
    confidence: 0.95,
    config: allow === undefined ? {} : { edits: { allow } },
  });
  expect(result.edits).toHaveLength(1);
  return result.outcome;
}

describe("a change that is in effect only a comment opens no pull request", () => {
  it("reads a line added inside an existing block comment, with no `*` of its own, as a comment", async () => {
    const before = "/**\n  Formats an entry.\n */\nexport function f() {}\n";
    const after = "/**\n  Formats an entry.\n  The entry may have no user.\n */\nexport function f() {}\n";
    expect(isCommentOnly(edit("a.ts", before, after))).toBe(true);
    expect(await outcomeOf("a.ts", before, after)).toBe("diagnosis_only");
  });

  it("knows the line comments of SQL, Lua, Haskell, PHP, Terraform, GraphQL, Erlang, Clojure and markup", async () => {
    const cases: [string, string, string][] = [
      ["q.sql", "SELECT 1;\n", "-- the row may be missing\nSELECT 1;\n"],
      ["a.lua", "x = 1\n", "-- x may be nil\nx = 1\n"],
      ["A.hs", "main = pure ()\n", "-- x may be Nothing\nmain = pure ()\n"],
      ["a.php", "<?php\n$x = 1;\n", "<?php\n# x may be null\n$x = 1;\n"],
      ["main.tf", 'resource "a" "b" {}\n', '# b may be missing\nresource "a" "b" {}\n'],
      ["s.graphql", "type A { x: Int }\n", "# x may be null\ntype A { x: Int }\n"],
      ["a.erl", "f() -> 1.\n", "% f may fail\nf() -> 1.\n"],
      ["a.clj", "(def x 1)\n", "; x may be nil\n(def x 1)\n"],
      ["index.html", "<p>x</p>\n", "<!-- x may be empty -->\n<p>x</p>\n"],
      ["a.vue", "<template>\n<p>x</p>\n</template>\n", "<template>\n<!-- x may be empty -->\n<p>x</p>\n</template>\n"],
      ["README.md", "# x\n\ntext\n", "# x\n\n<!-- text may be stale -->\ntext\n"],
    ];
    for (const [path, before, after] of cases) expect(isCommentOnly(edit(path, before, after)), path).toBe(true);
    expect(await outcomeOf("q.sql", "SELECT 1;\n", "-- the row may be missing\nSELECT 1;\n")).toBe("diagnosis_only");
    // and code of those languages is still code: Haskell's `-->` operator, a `#` array length in Lua
    expect(isCommentOnly(edit("A.hs", "x = 1\n", "(-->) = f\nx = 1\n"))).toBe(false);
    expect(isCommentOnly(edit("a.lua", "x = 1\n", "n = #t\nx = 1\n"))).toBe(false);
    expect(isCommentOnly(edit("a.php", "<?php\nclass A {}\n", "<?php\n#[Attribute]\nclass A {}\n"))).toBe(false);
    // a comment that only mentions coding is no encoding declaration
    expect(isCommentOnly(edit("a.yml", "a: 1\n", "# see the coding: style guide\na: 1\n"))).toBe(true);
    expect(isCommentOnly(edit("index.html", "<p>x</p>\n", "<p>y</p>\n<p>x</p>\n"))).toBe(false);
  });

  it("with edits.allow: modifications, a code line only re-indented or given trailing blanks is the same", async () => {
    const before = "function f() {\n  run();\n}\n";
    const after = "function f() {\n    // run may throw\n    run();  \n}\n";
    expect(isCommentOnly(edit("a.js", before, after))).toBe(true);
    expect(await outcomeOf("a.js", before, after, "modifications")).toBe("diagnosis_only");
    // in Python the indentation is the program
    expect(isCommentOnly(edit("a.py", "if x:\n    run()\n", "if x:\n    # run may raise\nrun()\n"))).toBe(false);
  });

  it("with edits.allow: modifications, a comment put behind the code of an existing line", async () => {
    expect(isCommentOnly(edit("a.js", "run();\n", "run(); // run may throw\n"))).toBe(true);
    expect(isCommentOnly(edit("a.py", "x = f()\n", "x = f()  # f may raise\n"))).toBe(true);
    expect(isCommentOnly(edit("q.sql", "SELECT a FROM t;\n", "SELECT a FROM t; -- t may be empty\n"))).toBe(true);
    expect(await outcomeOf("a.js", "run();\n", "run(); // run may throw\n", "modifications")).toBe("diagnosis_only");
    // what only looks like a comment behind code is code: in a string, behind a block comment, in a regex, glued on
    const code: [string, string, string][] = [
      ["a.js", 'open("http://a");\n', 'open("http://b");\n'],
      ["a.js", 'log("a // b");\n', 'log("a // c");\n'],
      ["a.js", "x = 1; /* a // b */ y = 2;\n", "x = 1; /* a // b */ y = 3;\n"],
      ["a.js", "s = s.replace(/\\/ \\//g, x);\n", "s = s.replace(/\\/ \\//g, y);\n"],
      ["a.py", "s = 'a # b'\n", "s = 'a # c'\n"],
      ["run.sh", "echo a#b\n", "echo a#c\n"],
      ["a.js", "t = `a\n", "t = `b // c\n"],
    ];
    for (const [path, before, after] of code) expect(isCommentOnly(edit(path, before, after)), after).toBe(false);
  });
});

describe("a real change is never read as only a comment (a lost fix)", () => {
  it("reads a Java continuation line that starts with `*` (a break before the operator) as code", async () => {
    const before = "class A {\n  long t(long p, long q) {\n    return p\n        * q;\n  }\n}\n";
    const after = "class A {\n  long t(long p, long q) {\n    return p\n        * 2\n        * q;\n  }\n}\n";
    expect(isCommentOnly(edit("A.java", before, after))).toBe(false);
    // (under the default edits.allow: additions the addition rule refuses a line put inside an existing statement)
    expect(await outcomeOf("A.java", before, after, "modifications")).toBe("pr_ready");
    // a `*` line of a doc comment stays a comment, also where the hunk shows neither `/**` nor `*/`
    const doc = ["/**", " * One.", " * Two.", " * Three.", " * Four.", " * Five.", " */", "int f();", ""];
    const more = [...doc.slice(0, 4), " * May be null.", ...doc.slice(4)];
    expect(isCommentOnly(edit("A.java", doc.join("\n"), more.join("\n")))).toBe(true);
  });

  it("reads comments that compilers and interpreters obey (directives) as code", async () => {
    const cases: [string, string, string][] = [
      ["run.sh", "echo hi\n", "#!/bin/bash\necho hi\n"],
      [
        "a.go",
        'package a\n\nimport _ "embed"\n\nvar s string\n',
        'package a\n\nimport _ "embed"\n\n//go:embed s.txt\nvar s string\n',
      ],
      ["a.go", "package a\n\nfunc F() {}\n", "//go:build linux\n\npackage a\n\nfunc F() {}\n"],
      ["a.tsx", "export const A = () => <b />;\n", "/** @jsx h */\nexport const A = () => <b />;\n"],
      ["a.ts", "export const x = 1;\n", '/// <reference types="node" />\nexport const x = 1;\n'],
      ["a.rb", "s = 'a'\n", "# frozen_string_literal: true\ns = 'a'\n"],
      ["a.py", "s = 'é'\n", "# -*- coding: latin-1 -*-\ns = 'é'\n"],
      ["Dockerfile", "FROM node:20\n", "# syntax=docker/dockerfile:1\nFROM node:20\n"],
    ];
    for (const [path, before, after] of cases) expect(isCommentOnly(edit(path, before, after)), after).toBe(false);
    expect(await outcomeOf("a.rb", "s = 'a'\n", "# frozen_string_literal: true\ns = 'a'\n")).toBe("pr_ready");
  });

  it("with edits.allow: modifications, wrapping code in a block comment or unwrapping it is a change", async () => {
    expect(isCommentOnly(edit("a.js", "/*\nrun();\n*/\n", "run();\n"))).toBe(false);
    expect(isCommentOnly(edit("a.js", "run();\n", "/*\nrun();\n*/\n"))).toBe(false);
    expect(isCommentOnly(edit("a.rb", "=begin\nrun\n=end\n", "run\n"))).toBe(false);
    expect(isCommentOnly(edit("a.py", '"""\nrun()\n"""\n', "run()\n"))).toBe(false);
    expect(await outcomeOf("a.js", "/*\nrun();\n*/\n", "run();\n", "modifications")).toBe("pr_ready");
  });
});

describe("files that are not source code have their own comments", () => {
  it("reads a `#` line added to an ignore list, a build file, a requirements or .env file as a comment", async () => {
    const cases: [string, string, string][] = [
      [".gitignore", "node_modules/\ndist/\n", "# build output\nnode_modules/\ndist/\n"],
      ["web/.dockerignore", "node_modules\n", "node_modules\n# local secrets\n"],
      [".gitattributes", "*.sh text eol=lf\n", "# scripts keep LF\n*.sh text eol=lf\n"],
      ["CMakeLists.txt", "add_subdirectory(src)\n", "# the library\nadd_subdirectory(src)\n"],
      ["cmake/deps.cmake", "find_package(ZLIB)\n", "find_package(ZLIB) # optional\n"],
      ["requirements.txt", "flask==2.0\n", "# web\nflask==2.0  # pinned for werkzeug\n"],
      ["requirements/dev-requirements.txt", "pytest\n", "# tests\npytest\n"],
      ["Makefile", "all:\n\tgo build\n", "# the default goal\nall:\n\tgo build\n"],
      ["GNUmakefile", "all:\n\tgo build\n", "# the default goal\nall:\n\tgo build\n"],
      ["docker/Dockerfile.dev", "FROM node:20\n", "# the dev image\nFROM node:20\n"],
      [".env", "PORT=3000\n", "# the port\nPORT=3000\n"],
      [".env.local", "PORT=3000\n", "# the port\nPORT=3000\n"],
      ["setup.cfg", "[flake8]\nmax-line-length = 100\n", "[flake8]\n; the team's width\nmax-line-length = 100\n"],
      [".editorconfig", "root = true\n", "# top-most\nroot = true\n"],
      ["BUILD.bazel", 'go_library(name = "a")\n', '# the library\ngo_library(name = "a")\n'],
      ["config.yml", "a: 1\n", "a: 1 # one\n"],
      ["pyproject.toml", "[tool.x]\n", "# x's settings\n[tool.x]\n"],
    ];
    for (const [path, before, after] of cases) expect(isCommentOnly(edit(path, before, after)), path).toBe(true);
    expect(await outcomeOf("requirements.txt", "flask==2.0\n", "# web\nflask==2.0\n")).toBe("diagnosis_only");
  });

  it("reads an extension-less script by its shebang, and any script's `#` lines as comments", async () => {
    const sh = ["#!/bin/sh", "set -e", "make", ""].join("\n");
    expect(isCommentOnly(edit("bin/deploy", sh, sh.replace("make", "# build first\nmake")))).toBe(true);
    const py = ["#!/usr/bin/env python3", ...Array.from({ length: 12 }, (_, i) => `x${i} = ${i}`), ""].join("\n");
    // the hunk does not show the shebang: a file of no known language still reads `#` as a comment
    expect(isCommentOnly(edit("scripts/release", py, py.replace("x9 = 9", "# nine\nx9 = 9")))).toBe(true);
    expect(isCommentOnly(edit("scripts/release", py, py.replace("x9 = 9", "x9 = 9  # nine")))).toBe(true);
    expect(await outcomeOf("bin/deploy", sh, sh.replace("make", "# build first\nmake"))).toBe("diagnosis_only");
  });

  it("reads what only looks like a comment in those files as a change", async () => {
    const code: [string, string, string][] = [
      // `/*` is an ignore pattern, and `#` behind a pattern is part of it
      [".gitignore", "!/src\n", "/*\n!/src\n"],
      [".gitignore", "build\n", "build # output\n"],
      [".gitignore", "a\n", "\\#notes\na\n"],
      // a `#` behind an instruction is its argument; behind a Makefile value its blanks stay in the value
      ["Dockerfile", "ENV A=b\n", "ENV A=b # x\n"],
      ["Makefile", "DIR = out\n", "DIR = out # build folder\n"],
      // a Node script's `#` field, seen with its shebang; a changed interpreter
      [
        "bin/cli",
        "#!/usr/bin/env node\nclass A {\n  x = 1;\n}\n",
        "#!/usr/bin/env node\nclass A {\n  #n = 0;\n  x = 1;\n}\n",
      ],
      ["bin/deploy", "#!/bin/sh\nmake\n", "#!/bin/bash\nmake\n"],
      ["requirements.txt", "flask\n", "flask==2.0\n"],
      ["requirements.txt", "flask\n", "-r base.txt\nflask\n"],
      [".env", "A=1\n", "A=2 # two\n"],
      // docker --env-file keeps ` # http` in the value (dotenv libraries differ): a `#` behind a value is the value's
      [".env", "PORT=3000\n", "PORT=3000 # http\n"],
      [".env.local", 'A="x"\n', 'A="x" # x\n'],
      [".env", "A=1\n", "// two\nA=1\n"],
      ["setup.cfg", "[x]\na = 1\n", "[x]\na = 1 ; one\n"],
      // plain text has no comments; a script of unknown language still changes when a command is added
      ["notes.txt", "a\n", "# heading\na\n"],
      ["bin/tool", "run\n", "run --force\n"],
    ];
    for (const [path, before, after] of code)
      expect(isCommentOnly(edit(path, before, after)), `${path}: ${after}`).toBe(false);
    const cli = ["#!/usr/bin/env node", "class A {", "  x = 1;", "}", ""].join("\n");
    // (a field added to an existing class is refused under edits.allow: additions, in a Node script as in a .js file)
    expect(await outcomeOf("bin/cli", cli, cli.replace("  x", "  #n = 0;\n  x"), "modifications")).toBe("pr_ready");
  });
});

describe("the block comments of Lua, Haskell, CMake and PowerShell", () => {
  it("reads a line added inside one as a comment where the hunk shows its start or an end only it has", async () => {
    const lua = ["--[[", "  Formats an entry.", "]]", "local function f() end", ""].join("\n");
    const hs = ["{-", "  Formats an entry.", "-}", "f = 1", ""].join("\n");
    const cases: [string, string, string][] = [
      ["a.lua", lua, lua.replace("entry.", "entry.\n  The entry may be nil.")],
      ["a.lua", "--[==[\nnote\n]==]\nx = 1\n", "--[==[\nnote\nmore\n]==]\nx = 1\n"],
      ["A.hs", hs, hs.replace("entry.", "entry.\n  The entry may be Nothing.")],
      ["CMakeLists.txt", "#[[\nnote\n]]\nproject(a)\n", "#[[\nnote\nmore\n]]\nproject(a)\n"],
      ["a.ps1", "<#\n.SYNOPSIS\n#>\nGet-Item x\n", "<#\n.SYNOPSIS\nGets x.\n#>\nGet-Item x\n"],
      // code that opens a block behind it: the lines below are inside
      ["a.lua", "x = 1 --[[ x may\nbe nil ]]\n", "x = 1 --[[ x may\nbe nil, or false ]]\n"],
      ["a.lua", "x = 1\n", "x = 1 --[[ one ]]\n"],
      ["A.hs", "f = 1\n", "f = 1 {- one -}\n"],
    ];
    for (const [path, before, after] of cases) expect(isCommentOnly(edit(path, before, after)), after).toBe(true);
    // far from the block's start, a closing line that only a comment has tells
    const long = ["{-", ...Array.from({ length: 8 }, (_, i) => `  line ${i}`), "-}", "f = 1", ""];
    const longer = [...long.slice(0, 7), "  f may fail", ...long.slice(7)];
    expect(isCommentOnly(edit("A.hs", long.join("\n"), longer.join("\n")))).toBe(true);
    const help = ["<#", ...Array.from({ length: 8 }, (_, i) => `line ${i}`), "#>", "Get-Item x", ""];
    const more = [...help.slice(0, 7), "May fail.", ...help.slice(7)];
    expect(isCommentOnly(edit("a.ps1", help.join("\n"), more.join("\n")))).toBe(true);
    const luaLong = ["--[[", ...Array.from({ length: 8 }, (_, i) => `line ${i}`), "--]]", "x = 1", ""];
    const luaMore = [...luaLong.slice(0, 7), "may be nil", ...luaLong.slice(7)];
    expect(isCommentOnly(edit("a.lua", luaLong.join("\n"), luaMore.join("\n")))).toBe(true);
    expect(await outcomeOf("a.lua", lua, lua.replace("entry.", "entry.\n  The entry may be nil."))).toBe(
      "diagnosis_only",
    );
  });

  it("reads code after a block's end, a long string, a pragma and a commented-out call as code", async () => {
    const code: [string, string, string][] = [
      ["a.lua", "x = 1\n", "--[[ x ]] os.exit(1)\nx = 1\n"],
      ["a.lua", "x = 1\n", "x = 1 --[[ x ]] y = 2\n"],
      ["A.hs", "f = 1\n", "{- f -} g = 2\nf = 1\n"],
      ["A.hs", "f = 1\n", "{-# LANGUAGE OverloadedStrings #-}\nf = 1\n"],
      ["CMakeLists.txt", "project(a)\n", "#[[ a ]] add_subdirectory(b)\nproject(a)\n"],
      // unwrapping code out of a block comment runs it
      ["a.lua", "--[[\nos.exit(1)\n]]\nx = 1\n", "os.exit(1)\nx = 1\n"],
      ["A.hs", "{-\nmain = run\n-}\n", "main = run\n"],
      // a long string's text is the program's: a bare `]]` says nothing about the lines above
      [
        "a.lua",
        ["local sql = [[", ...Array.from({ length: 6 }, (_, i) => `SELECT ${i}`), "]]", ""].join("\n"),
        [
          "local sql = [[",
          ...Array.from({ length: 5 }, (_, i) => `SELECT ${i}`),
          "DROP TABLE t",
          "SELECT 5",
          "]]",
          "",
        ].join("\n"),
      ],
      // Haskell's primes are names, not quotes: the code behind `x'` is still compared
      ["A.hs", "f x' = x' -- one\n", "f x' = x' + 1 -- one\n"],
    ];
    for (const [path, before, after] of code) expect(isCommentOnly(edit(path, before, after)), after).toBe(false);
    expect(isCommentOnly(edit("A.hs", "f x' = x'\n", "f x' = x' -- x' may be 0\n"))).toBe(true);
    // (an unguarded exit before existing code is refused under edits.allow: additions)
    expect(await outcomeOf("a.lua", "x = 1\n", "--[[ x ]] os.exit(1)\nx = 1\n", "modifications")).toBe("pr_ready");
  });
});

describe("a block comment behind code", () => {
  it("is a comment after the code, and the lines it goes on to are inside it", () => {
    expect(isCommentOnly(edit("a.js", "run();\n", "run(); /* may throw */\n"))).toBe(true);
    const open = "x = f(); /* the value\n   may be null */\nrun();\n";
    expect(isCommentOnly(edit("a.js", open, open.replace("may be null", "may be null or 0")))).toBe(true);
    // a block comment inside the code is compared; a `/*` in a regular expression opens none
    expect(isCommentOnly(edit("a.js", "a(); /* b */ c();\n", "a(); /* b */ d();\n"))).toBe(false);
    const re = 's = s.replace(/[/*]/g, "");\nrun(1);\n';
    expect(isCommentOnly(edit("a.js", re, re.replace("run(1)", "run(2)")))).toBe(false);
  });
});

describe("an edit that only silences a checker is no fix", () => {
  it("reads a lint, type-check or coverage directive, in a comment or in code, as inert", async () => {
    const cases: [string, string, string][] = [
      ["a.js", "run(x);\n", "// eslint-disable-next-line no-undef\nrun(x);\n"],
      ["a.js", "run(x);\n", "run(x); // eslint-disable-line no-undef\n"],
      ["a.ts", "const n: number = f();\n", "// @ts-expect-error f is untyped\nconst n: number = f();\n"],
      ["a.ts", "const n: number = f();\n", "// @ts-ignore\nconst n: number = f();\n"],
      ["a.ts", "export {};\n", "// @ts-nocheck\nexport {};\n"],
      ["a.js", "if (x) run();\n", "/* istanbul ignore next */\nif (x) run();\n"],
      ["a.py", "import os\n", "import os  # noqa: F401\n"],
      ["a.py", "x = f()\n", "x = f()  # type: ignore[no-untyped-call]\n"],
      ["a.py", "def f():\n    pass\n", "def f():  # pylint: disable=missing-docstring\n    pass\n"],
      ["a.go", "package a\n\nvar X = 1\n", "package a\n\n//nolint:gochecknoglobals\nvar X = 1\n"],
      ["a.cc", "int f();\n", "int f();  // NOLINT(readability-x)\n"],
      ["a.rb", "def f; end\n", "# rubocop:disable Style/X\ndef f; end\n"],
      ["run.sh", "echo $x\n", "# shellcheck disable=SC2086\necho $x\n"],
      ["A.java", "class A {\n  void f() {}\n}\n", 'class A {\n  @SuppressWarnings("unchecked")\n  void f() {}\n}\n'],
      ["A.kt", "fun f() = 1\n", '@Suppress("UNUSED_PARAMETER", "X")\nfun f() = 1\n'],
      ["a.rs", "fn f() {}\n", "#[allow(dead_code, clippy::x)]\nfn f() {}\n"],
      ["lib.rs", "mod a;\n", "#![allow(unused)]\nmod a;\n"],
      [
        "A.cs",
        "class A {\n  int x;\n}\n",
        "class A {\n#pragma warning disable CS0169 // unused\n  int x;\n#pragma warning restore CS0169\n}\n",
      ],
      ["A.cs", "class A {}\n", '[SuppressMessage("Style", "IDE0001")]\nclass A {}\n'],
      ["a.c", "int f();\n", '#pragma GCC diagnostic ignored "-Wunused-function"\nint f();\n'],
    ];
    for (const [path, before, after] of cases) expect(isCommentOnly(edit(path, before, after)), after).toBe(true);
    const ts = "const n: number = f();\n";
    expect(await outcomeOf("a.ts", ts, `// @ts-expect-error f is untyped\n${ts}`)).toBe("diagnosis_only");
    const java = "class A {\n  void f() {}\n}\n";
    const suppressed = java.replace("  void", '  @SuppressWarnings("unchecked")\n  void');
    expect(await outcomeOf("A.java", java, suppressed)).toBe("diagnosis_only");
    // taking a suppression out is no fix either
    expect(isCommentOnly(edit("a.js", "// eslint-disable-next-line\nrun(x);\n", "run(x);\n"))).toBe(true);
  });

  it("reads code glued to a suppression, and pragmas and annotations that change the program, as code", async () => {
    const code: [string, string, string][] = [
      ["A.java", "class A {\n}\n", 'class A {\n  @SuppressWarnings("x") void f() { run(); }\n}\n'],
      ["A.kt", "val a = 1\n", '@Suppress("UNCHECKED_CAST") val x = y as T\nval a = 1\n'],
      ["a.rs", "fn f() {}\n", "#[allow(dead_code)] fn g() {}\nfn f() {}\n"],
      ["a.rs", "fn f() {}\n", "#[cfg(test)]\nfn f() {}\n"],
      ["a.h", "int f();\n", "#pragma once\nint f();\n"],
      ["a.c", "struct s { char c; };\n", "#pragma pack(1)\nstruct s { char c; };\n"],
      ["A.cs", "class A {}\n", "#define DEBUG\nclass A {}\n"],
      // a decorator named like an annotation is Python code; the annotation only counts in its language
      ["a.py", "def f(): pass\n", '@Suppress("x")\ndef f(): pass\n'],
      ["a.js", "run(x);\n", "// eslint-disable-next-line\nrun(y);\n"],
      // directives that change what is built or runs stay code
      ["a.go", "package a\n", "//go:build linux\n\npackage a\n"],
    ];
    for (const [path, before, after] of code) expect(isCommentOnly(edit(path, before, after)), after).toBe(false);
    const java = "class A {\n}\n";
    const glued = 'class A {\n  @SuppressWarnings("x") void f() { run(); }\n}\n';
    expect(await outcomeOf("A.java", java, glued)).toBe("pr_ready");
  });
});
