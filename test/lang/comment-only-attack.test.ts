import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { runAgent } from "../../src/agent/index.js";
import { createReplayModel } from "../../src/agent/models/index.js";
import { isCommentOnly } from "../../src/lang/comments.js";
import { buildSnapshot, config, task } from "../agent/helpers.js";

/** An edit of `path` from `before` to `after`, with the unified diff the pipeline keeps (3 lines of context). */
const edit = (path: string, before: string, after: string) => ({
  path,
  diff: createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after),
});

/** The outcome of a run whose model reads `path`, replaces all of `before` by `after`, and answers at 0.95. */
async function outcomeOf(path: string, before: string, after: string, allow?: "modifications") {
  const snapshot = await buildSnapshot({ [path]: before, "README.md": "# x\n" });
  const turns = [
    {
      tool_calls: [
        { name: "get_file_contents", arguments: { path } },
        { name: "suggest_addition", arguments: { path, code_before: before, code_after: after, rationale: "r" } },
        {
          name: "submit_answer",
          arguments: {
            summary: "s",
            affected_file: path,
            affected_function: null,
            root_cause_snippet: null,
            confidence: 0.95,
          },
        },
      ],
    },
  ];
  const result = await runAgent({
    task: task(),
    snapshot,
    model: createReplayModel({ turns }),
    config: config(allow === undefined ? {} : { edits: { allow } }),
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
    expect(await outcomeOf("A.java", before, after)).toBe("pr_ready");
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
      ["a.ts", "const x: number = f();\n", "// @ts-expect-error f is untyped\nconst x: number = f();\n"],
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
