import { describe, expect, it } from "vitest";
import { beforeAll } from "vitest";
import { loadGrammars } from "../../../src/lang/tree-sitter.js";
import { syntaxError } from "../../../src/review/rules/syntax.js";
import { addedLines, syntaxErrors, runHeuristic as run } from "./readable.js";

beforeAll(async () => {
  expect(await loadGrammars()).toBe(true);
});

/** The review's syntax check of a Python file: null when it parses. */
const pyError = (content: string) => syntaxError("pkg/table.py", content, "python");

describe("the line that raises: a frame line from another version, re-found inside the frame's function", () => {
  const py = [
    "def normalize(data, headers):",
    '    """Turn data into rows.',
    "",
    "    * a list of lists",
    '    """',
    "    try:",
    "        bool(headers)",
    "    except ValueError:",
    "        headers = list(headers)",
    '    if hasattr(data, "keys"):',
    "        rows = list(data.values())",
    "        keys = list(data)",
    "    else:",
    "        rows = list(data)",
    "    return rows, headers",
    "",
    "",
    "def pad(rows):",
    "    return [list(r) for r in rows]",
    "",
  ].join("\n");
  const files = { "pkg/table.py": py, "setup.py": "setup(name='pkg')\n" };
  const trace = (message: string) =>
    [
      "Traceback (most recent call last):",
      '  File "/srv/venv/lib/python3.11/site-packages/pkg/table.py", line 19, in normalize',
      message,
    ].join("\n");

  it("not iterable: the clearer error goes before the iteration outside narrowed and except blocks", async () => {
    const result = await run(files, "crash", trace("TypeError: 'int' object is not iterable"));
    // not before the docstring, not in the `except` handler, not in the `hasattr(data, …)` branch
    expect(addedLines(result)).toEqual([
      '        if not hasattr(data, "__iter__"):',
      '            raise TypeError(f"normalize(): data must be iterable (type(data)={type(data).__name__})")',
    ]);
    const after = result.files[0]?.content ?? "";
    expect(after.indexOf("if not hasattr(data")).toBeGreaterThan(after.indexOf("    else:"));
    expect(after.split("\n")[1]).toBe('    """Turn data into rows.');
    expect(pyError(after)).toBeNull();
    // a clearer error, no cause found: a proposal, not a pull request
    expect(result.outcome).toBe("diagnosis_only");
  });

  it("attacker: a hostile type name in the message never reaches the code; no iteration line, no guard", async () => {
    const hostile = await run(files, "crash", trace("TypeError: 'int\"); import os; (\"' object is not iterable"));
    // issue text only ever lands inside a comment: no code line carries it
    const code = addedLines(hostile).filter((l) => !/^\s*#/.test(l));
    expect(code.join("\n")).not.toMatch(/import os/);
    expect(pyError(hostile.files[0]?.content ?? py)).toBeNull();
    const noLoop = py.replace("        rows = list(data)", "        rows = data");
    const result = await run(
      { ...files, "pkg/table.py": noLoop },
      "crash",
      trace("TypeError: 'int' object is not iterable"),
    );
    expect(addedLines(result).join("\n")).not.toMatch(/raise/);
    expect(pyError(result.files[0]?.content ?? noLoop)).toBeNull();
  });
});

describe("Ruby: `undefined method '[]' for nil`", () => {
  it("a guard on the value indexed on the frame line, naming the method; one line added", async () => {
    const rb = [
      "class LineDecorator",
      "  def in_app?",
      "    return false if file.empty?",
      "    true",
      "  end",
      "",
      "  def file",
      "    object[:file].to_s",
      "  end",
      "end",
      "",
    ].join("\n");
    const result = await run(
      { "app/decorators/line_decorator.rb": rb, Gemfile: "source 'https://rubygems.org'\n" },
      "NoMethodError: undefined method `[]' for nil:NilClass",
      [
        "NoMethodError: undefined method `[]' for nil:NilClass",
        "[PROJECT_ROOT]/decorators/line_decorator.rb:8→ file",
        "[PROJECT_ROOT]/decorators/line_decorator.rb:3→ in_app?",
      ].join("\n"),
    );
    expect(result.diagnosis?.affected_file).toBe("app/decorators/line_decorator.rb");
    expect(addedLines(result)).toEqual([
      "    raise ArgumentError, \"file(): object is nil before calling '[]'\" if object.nil?",
    ]);
  });

  it("attacker: `[]` on a value bound by the statement's own block is not guarded before it is bound", async () => {
    const rb = ["def names(rows)", "  rows.map { |row| row[:name] }", "end", ""].join("\n");
    const result = await run(
      { "lib/names.rb": rb, Gemfile: "source 'https://rubygems.org'\n" },
      "crash",
      ["NoMethodError: undefined method `[]' for nil:NilClass", "lib/names.rb:2:in `block in names'"].join("\n"),
    );
    expect(addedLines(result).join("\n")).not.toMatch(/row\.nil\?/);
  });
});
