import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { HIDDEN_CODE_REASON } from "../../src/agent/outcome.js";
import { inertLines, isCommentOnly, sameCode } from "../../src/lang/comments.js";
import { runOneEdit } from "../agent/helpers.js";

/** An edit of `path` from `before` to `after`, with the unified diff the pipeline keeps (3 lines of context). */
const edit = (path: string, before: string, after: string) => ({
  path,
  diff: createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after),
});
/** Both readings, the hunk rule's and the whole-file rule's, must give `expected`. */
function reads(cases: [string, string, string][], expected: boolean): void {
  for (const [path, before, after] of cases) {
    expect(isCommentOnly(edit(path, before, after)), `hunks: ${path}: ${after}`).toBe(expected);
    expect(sameCode(path, before, after), `whole file: ${path}: ${after}`).toBe(expected);
  }
}
/** The outcome of a confident run that replaces all of `before` by `after` in `path`. */
async function outcomeOf(path: string, before: string, after: string) {
  const result = await runOneEdit({ [path]: before, "README.md": "# x\n" }, path, before, after, {
    confidence: 0.95,
    config: { edits: { allow: "modifications" } },
  });
  expect(result.edits).toHaveLength(1);
  return result.outcome;
}

describe("nested and other block comments", () => {
  it("Haskell's {- -} nest: a comment holding a closed inner one goes on to its own close", async () => {
    const block = ["{-", "  outer {- inner -}", "  more", "-}", "f = 1", ""].join("\n");
    reads(
      [
        ["A.hs", "f = 1\n", "{- a {- b -} still a comment -}\nf = 1\n"],
        ["A.hs", block, block.replace("  more", "  f may fail\n  more")],
        // an unclosed inner opener keeps the outer comment open over the next line
        ["A.hs", "f = 1\n", "{- a {- b -}\n  c\n-}\nf = 1\n"],
      ],
      true,
    );
    expect(await outcomeOf("A.hs", "f = 1\n", "{- a {- b -} still a comment -}\nf = 1\n")).toBe("diagnosis_only");
  });

  it("attacker: code after the outer close of a nested Haskell comment is code", async () => {
    reads(
      [
        ["A.hs", "f = 1\n", "{- a {- b -} -} g = 2\nf = 1\n"],
        ["A.hs", "f = 1\n", "{- a -} main = run\nf = 1\n"],
        ["A.hs", "f = 1\n", "f = 1 {- a {- b -} -} + 2\n"],
      ],
      false,
    );
    expect(await outcomeOf("A.hs", "f = 1\n", "{- a {- b -} -} g = 2\nf = 1\n")).toBe("pr_ready");
  });

  it("Lua: long comments with levels end only at their own level", () => {
    reads(
      [
        ["a.lua", "x = 1\n", "x = 1 --[==[ note ]] still the note ]==]\n"],
        ["a.lua", "--[==[\na ]] b\n]==]\nx = 1\n", "--[==[\na ]] b\nmore\n]==]\nx = 1\n"],
      ],
      true,
    );
    reads([["a.lua", "x = 1\n", "x = 1 --[==[ note ]==] os.exit(1)\n"]], false);
  });

  it("attacker: a `--` inside a Lua long string is the string's text, not a comment", async () => {
    const sql = "local q = [[\nSELECT 1\n-- a\n]]\nrun(q)\n";
    reads(
      [
        ["a.lua", sql, sql.replace("-- a", "-- a\n-- b")],
        ["a.lua", "x = [[ a -- b ]]\n", "x = [[ a -- c ]]\n"],
        ["a.lua", "x = [==[ a ]] -- b ]==]\n", "x = [==[ a ]] -- c ]==]\n"],
        // a `--]]` inside a long string closes the string, and ends no comment above it
        ["a.lua", "y = 1\nlocal s = [[\nfoo\n--]]\n", "y = 2\nlocal s = [[\nfoo\n--]]\n"],
      ],
      false,
    );
    expect(await outcomeOf("a.lua", "x = [[ a -- b ]]\n", "x = [[ a -- c ]]\n")).toBe("pr_ready");
  });

  it("Perl: POD from a `=word` line where a statement may start, through `=cut`, is documentation", async () => {
    const pod = ["=head1 NAME", "", "App - the app", "", "=cut", "", "print 1;", ""].join("\n");
    reads(
      [
        ["a.pl", "print 1;\n", "print 1;\n\n=pod\n\nprint may fail.\n\n=cut\n"],
        ["a.pl", pod, pod.replace("App - the app", "App - the app\nprint 2;")],
        ["a.pl", "sub f {\n  1;\n}\n", "sub f {\n  1;\n}\n=head2 f\n\nf()\n=cut\n"],
      ],
      true,
    );
    expect(await outcomeOf("a.pl", "print 1;\n", "print 1;\n\n=pod\n\nprint may fail.\n\n=cut\n")).toBe(
      "diagnosis_only",
    );
  });

  it("attacker: a `=word` line that is no POD, and a lone `=cut` that hides the code below, are code", async () => {
    reads(
      [
        // after a statement that goes on, `=head1 +1` is `= head1(+1)`
        ["a.pl", "my $x\n;\n", "my $x\n=head1 +1\n;\n"],
        // `=cut` outside POD starts POD: `print 2;` no longer runs
        ["a.pl", "print 1;\nprint 2;\n", "print 1;\n=cut\nprint 2;\n"],
        // POD starts only at a line's very start
        ["a.pl", "print 1;\n", "print 1;\n  =pod\n"],
        // a `=head1` line in a here-document is its text, and opens no POD over the code below it
        ["a.pl", "print <<EOF;\n=head1 x\nEOF\nrun();\n", "print <<EOF;\n=head1 x\nEOF\nrun();\nsystem('x');\n=cut\n"],
      ],
      false,
    );
    expect(await outcomeOf("a.pl", "print 1;\nprint 2;\n", "print 1;\n=cut\nprint 2;\n")).toBe("pr_ready");
  });

  it("OCaml, F#, Pascal, Julia and Nim block comments (nested where the language nests them)", async () => {
    reads(
      [
        ["a.ml", "let x = 1\n", "(* x may be 0 *)\nlet x = 1\n"],
        ["a.ml", "let x = 1\n", "(* a (* b *) still a comment *)\nlet x = 1\n"],
        ["a.mli", "val x : int\n", "(** the x *)\nval x : int\n"],
        ["a.fs", "let x = 1\n", "(* x may be 0 *)\nlet x = 1\n"],
        ["a.fs", "let x = 1\n", "// x may be 0\nlet x = 1\n"],
        ["a.pas", "begin\nend.\n", "{ may fail }\nbegin\nend.\n"],
        ["a.pas", "begin\nend.\n", "(* may fail *)\nbegin\nend.\n"],
        ["a.jl", "x = 1\n", "#= a #= b =# still =#\nx = 1\n"],
        ["a.nim", "let x = 1\n", "#[ a #[ b ]# still ]#\nlet x = 1\n"],
        ["a.nim", "let x = 1\n", "##[ doc ]##\nlet x = 1\n"],
      ],
      true,
    );
    expect(await outcomeOf("a.ml", "let x = 1\n", "(* x may be 0 *)\nlet x = 1\n")).toBe("diagnosis_only");
  });

  it("attacker: code after those comments, F#'s (*) operator and Pascal's {$…} directives are code", async () => {
    reads(
      [
        ["a.ml", "let x = 1\n", "(* a *) let y = evil ()\nlet x = 1\n"],
        ["a.ml", "let x = 1\n", "(* a (* b *) *) let y = evil ()\nlet x = 1\n"],
        ["a.fs", "let x = 1\n", "(*) 2 3 |> ignore\nlet x = 1\n"],
        // F# has no C block comments: `/* */` is no comment there
        ["a.fs", "let x = 1\n", "/* a */ let y = 2\nlet x = 1\n"],
        ["a.pas", "begin\nend.\n", "{$DEFINE DEBUG}\nbegin\nend.\n"],
        ["a.pas", "begin\nend.\n", "(*$R+*)\nbegin\nend.\n"],
        ["a.pas", "begin\nend.\n", "{ a } Halt;\nbegin\nend.\n"],
        ["a.jl", "x = 1\n", "#= a =# exit()\nx = 1\n"],
        ["a.nim", "let x = 1\n", "#[ a ]# quit()\nlet x = 1\n"],
      ],
      false,
    );
    expect(await outcomeOf("a.pas", "begin\nend.\n", "{$DEFINE DEBUG}\nbegin\nend.\n")).toBe("pr_ready");
  });
});

describe("a line inside a string or here-document is data, never a comment's start or end", () => {
  it("attacker: code hidden between a `/*` in a template literal and a `// */` is code", async () => {
    const js = "const s = `\n/*\n`;\nrun();\n";
    const hidden = `${js}evil();\n// */\n`;
    reads([["a.js", js, hidden]], false);
    // the run's diff (3 lines of context) starts at the `/*`: it shows a comment, the file a call
    const result = await runOneEdit({ "a.js": js }, "a.js", js, hidden, { confidence: 0.95 });
    expect(result.edits[0]?.diff).toContain("\n /*\n");
    expect(result.edits[0]?.diff).not.toContain("const s");
    expect([result.outcome, result.reason]).toEqual(["diagnosis_only", HIDDEN_CODE_REASON]);
  });

  it("attacker: a `*/` line in a template literal does not make the code above it a comment", () => {
    const js = "x = 1;\ny = 2;\nconst s = `\n*/\n`;\n";
    reads([["a.js", js, js.replace("x = 1", "x = 2")]], false);
    expect(inertLines("a.js", js.split("\n"))).toEqual([false, false, false, false, false, true]);
  });

  it("attacker: `=begin` in a Ruby here-document is its text, and opens no comment over the code below", () => {
    reads([["a.rb", "print <<EOF\n=begin\nEOF\nrun\n", "print <<EOF\n=begin\nEOF\nrun\nevil\n=end\n"]], false);
  });

  it("and a comment line after such a string is still a comment", () => {
    reads(
      [
        ["a.js", "const s = `\n/*\n`;\nrun();\n", "const s = `\n/*\n`;\n// run may throw\nrun();\n"],
        ["a.lua", "local s = [[\n-- a\n]]\nrun(s)\n", "local s = [[\n-- a\n]]\n-- s is a query\nrun(s)\n"],
      ],
      true,
    );
  });
});

describe(".env files", () => {
  it("a `#` behind a value is part of it (docker --env-file keeps it), a `#` line is a comment", async () => {
    reads(
      [
        [".env", "PORT=3000\n", "PORT=3000 # http\n"],
        [".env", "PORT=3000 # http\n", "PORT=3000 # https\n"],
        [".env.production", 'A="x"\n', 'A="x" # the x\n'],
      ],
      false,
    );
    reads([[".env", "PORT=3000\n", "# http\nPORT=3000\n"]], true);
    // `.env` files are never edited (secret files); an `app.env` is
    expect(await outcomeOf("deploy/app.env", "PORT=3000\n", "PORT=3000 # http\n")).toBe("pr_ready");
  });
});
