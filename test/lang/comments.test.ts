import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { inertLines, isCommentLine, isCommentOnly, isInertLine, languageOfPath } from "../../src/lang/comments.js";

/** An edit of `path` from `before` to `after`, with the unified diff the pipeline keeps. */
const edit = (path: string, before: string, after: string) => ({
  path,
  diff: createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after),
});

describe("isCommentLine: one rule for every reader", () => {
  it("knows the comment syntax of each language by its name", () => {
    expect(isCommentLine("    # note", "Python")).toBe(true);
    expect(isCommentLine("    raise ValueError('x')", "Python")).toBe(false);
    expect(isCommentLine("\t// note", "Go")).toBe(true);
    expect(isCommentLine("  raise ArgumentError", "Ruby")).toBe(false);
    expect(isCommentLine("=begin", "Ruby")).toBe(true);
    expect(isCommentLine("  /** doc */", "TypeScript")).toBe(true);
    expect(isCommentLine("   * @param x the value", "Java")).toBe(true);
    expect(isCommentLine("   */", "Java")).toBe(true);
    expect(isCommentLine("# step", "Dockerfile")).toBe(true);
    expect(isCommentLine("", "Python")).toBe(false); // blank is not a comment (it is inert, below)
  });

  it("reads code that looks like a comment's start as code", () => {
    // C and Go dereference with a leading `*`; code after a block comment's close is code
    expect(isCommentLine("\t*p = nil", "Go")).toBe(false);
    expect(isCommentLine("  *count += 1;", "C")).toBe(false);
    expect(isCommentLine("  /* guard */ process.exit(1);", "JavaScript")).toBe(false);
    expect(isCommentLine("  */ run();", "JavaScript")).toBe(false);
    expect(isCommentLine("  /* a */ // b", "JavaScript")).toBe(true);
    expect(isCommentLine("  /* a */ /* b */", "JavaScript")).toBe(true);
    // `#` is code in the C family (a C# preprocessor line, a private field), `//` in Python
    expect(isCommentLine("#nullable enable", "C#")).toBe(false);
    expect(isCommentLine("  x = 7 // 2", "Python")).toBe(false);
    // a Markdown bullet is text
    expect(isCommentLine("* the fix", "Markdown")).toBe(false);
  });

  it("finds the language of a path by its basename, then its extension", () => {
    expect(languageOfPath("Gemfile")).toBe("Ruby");
    expect(languageOfPath("lib/tasks/db.rake")).toBe("Ruby");
    expect(languageOfPath("src/a.TSX")).toBe("TypeScript");
    expect(languageOfPath("bin/.hidden")).toBeUndefined();
    expect(isInertLine("Rakefile", "# loads the tasks")).toBe(true);
    expect(isInertLine("deploy/run.sh", "  # retry once")).toBe(true);
  });
});

describe("inertLines and isCommentOnly", () => {
  it("counts blank lines and Python docstring lines as inert, and every line inside a block comment", () => {
    expect(
      inertLines("a.py", ["", '    """Check the row.', "    The row may be None.", '    """', "    x = 1"]),
    ).toEqual([true, true, true, true, false]);
    expect(inertLines("a.js", ["/*", "  the row may be missing", "  here */", "run();"])).toEqual([
      true,
      true,
      true,
      false,
    ]);
    expect(inertLines("a.rb", ["=begin", "raise x", "=end", "raise y"])).toEqual([true, true, true, false]);
    // a block comment closed by code: the code runs
    expect(inertLines("a.js", ["/* note", "*/ run();"])).toEqual([true, false]);
  });

  it("tells an edit that only adds comments from one that changes code", () => {
    const base = "function f(a) {\n  return a.b;\n}\n";
    const comment = edit("a.js", base, base.replace("  return", "  // a may be null\n  return"));
    expect(isCommentOnly(comment)).toBe(true);
    const block = edit("a.js", base, base.replace("  return", "  /*\n    a may be null\n  */\n  return"));
    expect(isCommentOnly(block)).toBe(true);
    const behind = edit("a.js", base, base.replace("  return", "  /* a may be null */ if (!a) return;\n  return"));
    expect(isCommentOnly(behind)).toBe(false);
    // commenting code out removes code: a change of behaviour
    const out = edit("a.js", base, base.replace("  return a.b;", "  // return a.b;"));
    expect(isCommentOnly(out)).toBe(false);
    const deref = edit("a.go", "func f(p *int) {\n}\n", "func f(p *int) {\n\t*p = 0\n}\n");
    expect(isCommentOnly(deref)).toBe(false);
  });
});
