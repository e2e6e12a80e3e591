import { describe, expect, it } from "vitest";
import { asksForNullChecks, nullAlreadyFails, requestedChecks } from "../../../src/agent/models/heuristic/guard-jvm.js";
import { addedLines, runHeuristic } from "./readable.js";

const lines = (text: string) => new Map(text.split("\n").map((t, i) => [i + 1, t] as const));
/** A file read whole, for `nullAlreadyFails`. */
const whole = (text: string) => ({ lines: lines(text), whole: true });

/** A C# parser whose constructor stores its arguments unchecked (Allman braces, as C# files usually are). */
const PARSER = [
  "using System;",
  "using System.IO;",
  "",
  "namespace Acme.Csv",
  "{",
  "    public class RowParser",
  "    {",
  "        private readonly TextReader reader;",
  "        private readonly ParserOptions options;",
  "",
  "        public RowParser(TextReader reader, ParserOptions options, int bufferSize)",
  "        {",
  "            this.reader = reader;",
  "            this.options = options;",
  "        }",
  "",
  "        public bool Read()",
  "        {",
  "            var line = reader.ReadLine();",
  "            return line != null && options.Accept(line);",
  "        }",
  "    }",
  "}",
  "",
].join("\n");

const TITLE = "NullReferenceException at read time when a RowParser argument is null";
const BODY = [
  "The constructor of `RowParser` doesn't perform `null` checks on the `TextReader` nor on the `ParserOptions`",
  "argument, which causes a `NullReferenceException` later when reading.",
  "",
  "```",
  "Unhandled exception. System.NullReferenceException: Object reference not set to an instance of an object.",
  "   at Acme.Csv.RowParser.Read() in /_/src/Acme.Csv/RowParser.cs:line 19",
  "```",
  "",
  "An `ArgumentNullException` with the name of the argument should be thrown.",
].join("\n");

describe("Java/C#: the argument checks a report asks for, at the start of the constructor", () => {
  it("asksForNullChecks: a request for checks, not any mention of null", () => {
    expect(asksForNullChecks("doesn't perform `null` checks on the reader")).toBe(true);
    expect(asksForNullChecks("it should check the options for null first")).toBe(true);
    expect(asksForNullChecks("an ArgumentNullException should be thrown")).toBe(true);
    expect(asksForNullChecks("Object reference not set to an instance of an object (the value is null)")).toBe(false);
  });

  it("requestedChecks: only parameters the report names, of a reference type, not already checked", () => {
    const named = (w: string) => ["TextReader", "options"].includes(w);
    expect(requestedChecks(lines(PARSER), "RowParser", named)).toEqual({ line: 13, params: ["reader", "options"] });
    // `int bufferSize` is never a candidate, even when named; a parameter already checked is not checked twice.
    const checked = PARSER.replace(
      "            this.reader = reader;",
      "            if (reader == null) throw new ArgumentNullException(nameof(reader));\n" +
        "            this.reader = reader;",
    );
    const all = (w: string) => ["TextReader", "options", "bufferSize"].includes(w);
    expect(requestedChecks(lines(checked), "RowParser", all)).toEqual({ line: 13, params: ["options"] });
    // A class the file does not define a constructor for: nothing.
    expect(requestedChecks(lines(PARSER), "CsvReader", all)).toBeNull();
  });

  it("nullAlreadyFails: dereferenced unguarded in the file (the body, or the field it is stored in)", () => {
    // Line 13 is the body's first statement. `Read` dereferences both fields; nothing tests them for null.
    expect(nullAlreadyFails(whole(PARSER), 13, "reader", "csharp")).toBe(true);
    expect(nullAlreadyFails(whole(PARSER), 13, "options", "csharp")).toBe(true);
    // Not read whole: the lines known (a window plus the lines naming the parameter) decide; a renamed field is
    // not followed (its null tests may be in lines not known), nor a body with a line missing.
    const sparse = new Map([...lines(PARSER)].filter(([n]) => n <= 15 || n === 19));
    expect(nullAlreadyFails({ lines: sparse, whole: false }, 13, "reader", "csharp")).toBe(true);
    const renamedSparse = new Map([
      ...lines(PARSER.replace("this.reader = reader;", "_r = reader;").replace("reader.ReadLine", "_r.ReadLine")),
    ]);
    expect(nullAlreadyFails({ lines: renamedSparse, whole: false }, 13, "reader", "csharp")).toBe(false);
    const holed = new Map([...lines(PARSER)].filter(([n]) => n !== 14));
    expect(nullAlreadyFails({ lines: holed, whole: true }, 13, "reader", "csharp")).toBe(false);
    // Nothing known: false.
    expect(nullAlreadyFails({ lines: new Map(), whole: false }, 13, "reader", "csharp")).toBe(false);
    // Dereferenced in the body itself, stored nowhere (Java).
    const java = ["class Config {", "  Config(Settings settings) {", "    settings.validate();", "  }", "}"].join("\n");
    expect(nullAlreadyFails(whole(java), 3, "settings", "java")).toBe(true);
    // A field of another name (`_opts = options;`), read in another method.
    const renamed = PARSER.replace("this.options = options;", "_opts = options;").replace(
      "options.Accept(line)",
      "_opts.Accept(line)",
    );
    expect(nullAlreadyFails(whole(renamed), 13, "options", "csharp")).toBe(true);
  });

  it("nullAlreadyFails: a null the code handles, or never reads, is no crash to make clearer", () => {
    // The file tests the field for null somewhere (`?.`, `== null`, `??`, `is not null`): null is a value it handles.
    for (const handled of [
      "options?.Accept(line)",
      "options != null && options.Accept(line)",
      "(options ?? Defaults.Options).Accept(line)",
      "options is not null && options.Accept(line)",
    ]) {
      const text = PARSER.replace("options.Accept(line)", handled);
      expect(nullAlreadyFails(whole(text), 13, "options", "csharp"), handled).toBe(false);
      expect(nullAlreadyFails(whole(text), 13, "reader", "csharp"), handled).toBe(true);
    }
    // Disposal tolerates null whatever the constructor allows: `reader?.Dispose()` is no handled null, but a
    // null-conditional read next to it is.
    const disposing = PARSER.replace(
      "        public bool Read()",
      "        public void Dispose()\n        {\n            reader?.Dispose();\n        }\n\n" +
        "        public bool Read()",
    );
    expect(nullAlreadyFails(whole(disposing), 13, "reader", "csharp")).toBe(true);
    const java = "class P {\n  P(Reader in) {\n    this.in = in;\n  }\n  int read() { return in.read(); }\n";
    expect(nullAlreadyFails(whole(`${java}  void close() { if (in != null) in.close(); }\n}`), 3, "in", "java")).toBe(
      true,
    );
    expect(nullAlreadyFails(whole(`${java}  void skip() { if (in != null) in.skip(1); }\n}`), 3, "in", "java")).toBe(
      false,
    );
    const both = disposing.replace("reader?.Dispose();", "reader?.Dispose(); reader?.Peek();");
    expect(nullAlreadyFails(whole(both), 13, "reader", "csharp")).toBe(false);
    // Stored and never dereferenced: a null argument works today.
    const unread = PARSER.replace("return line != null && options.Accept(line);", "return line != null;");
    expect(nullAlreadyFails(whole(unread), 13, "options", "csharp")).toBe(false);
    // A field that shares the parameter's name but is another object's (`other.options.Accept`) is no read of it.
    const other = PARSER.replace("options.Accept(line)", "other.options.Accept(line)");
    expect(nullAlreadyFails(whole(other), 13, "options", "csharp")).toBe(false);
  });

  it("the run: ArgumentNullException checks in the file's brace style, a PR (null fails anyway)", async () => {
    const result = await runHeuristic({ "src/Acme.Csv/RowParser.cs": PARSER, "README.md": "# csv\n" }, TITLE, BODY);
    const added = addedLines(result);
    expect(added).toEqual(
      expect.arrayContaining([
        "            if (reader == null)",
        "                throw new ArgumentNullException(nameof(reader));",
        "            if (options == null)",
        "                throw new ArgumentNullException(nameof(options));",
      ]),
    );
    expect(added.join("\n")).not.toContain("bufferSize");
    const after = result.files[0]?.content ?? "";
    // The checks open the constructor's body, before the first assignment.
    expect(after.indexOf("nameof(options)")).toBeLessThan(after.indexOf("this.reader = reader;"));
    expect(after.indexOf("public RowParser(")).toBeLessThan(after.indexOf("nameof(reader)"));
    // A null argument already fails in `Read`: the checks only name it, as the issue asks (and as CsvHelper's
    // maintainer merged it for the same report).
    expect(result.outcome).toBe("pr_ready");
    expect(result.diagnosis?.confidence ?? 0).toBeGreaterThanOrEqual(0.7);
    expect(result.diagnosis?.summary).toMatch(/already fails/);
  });

  it("the run: a file longer than one read: the lines naming the arguments are grepped", async () => {
    // A null test past the window counts.
    // 450 more lines after Read(): the file is read 400 lines at a time, so the rest is known through the grep only.
    const filler = Array.from(
      { length: 150 },
      (_, i) => `        public int Pad${i}() {\n            return ${i};\n        }`,
    );
    const long = PARSER.replace("    }\n}\n", `${filler.join("\n")}\n    }\n}\n`);
    const files = (text: string) => ({ "src/Acme.Csv/RowParser.cs": text, "README.md": "# csv\n" });
    const open = await runHeuristic(files(long), TITLE, BODY);
    expect(open.outcome).toBe("pr_ready");
    const handledLate = long.replace("            return 149;", "            return options?.Limit ?? 149;");
    const held = await runHeuristic(files(handledLate), TITLE, BODY);
    expect(addedLines(held).join("\n")).toContain("nameof(options)");
    expect(held.outcome).not.toBe("pr_ready");
    expect(held.diagnosis?.confidence ?? 1).toBeLessThan(0.7);
  });

  it("the run: a null the class handles, or no stack trace, stays a proposal below the PR threshold", async () => {
    const handled = PARSER.replace("options.Accept(line)", "(options?.Accept(line) ?? true)");
    const one = await runHeuristic({ "src/Acme.Csv/RowParser.cs": handled, "README.md": "# csv\n" }, TITLE, BODY);
    expect(addedLines(one)).toEqual(
      expect.arrayContaining(["                throw new ArgumentNullException(nameof(options));"]),
    );
    expect(one.outcome).not.toBe("pr_ready");
    expect(one.diagnosis?.confidence ?? 1).toBeLessThan(0.7);
    expect(one.diagnosis?.summary).not.toMatch(/already fails/);
    // No trace: the place comes from the report's words only.
    const noTrace = BODY.split("\n")
      .filter((l) => !/^\s*at |^```|NullReferenceException: Object/.test(l))
      .join("\n");
    const two = await runHeuristic({ "src/Acme.Csv/RowParser.cs": PARSER, "README.md": "# csv\n" }, TITLE, noTrace);
    expect(addedLines(two).join("\n")).toContain("nameof(reader)");
    expect(two.outcome).not.toBe("pr_ready");
    expect(two.diagnosis?.confidence ?? 1).toBeLessThan(0.7);
  });

  it("attack: an issue claiming the file reads the argument, or a read only in comments/strings: no PR", async () => {
    // The file never dereferences `options` in code: only a comment and a string say `options.Accept(…)`.
    const fake = PARSER.replace(
      "return line != null && options.Accept(line);",
      "// options.Accept(line) is called by the caller\n" +
        '            return line != null && "options.Accept(x)" != line;',
    );
    const body =
      `${BODY}\n\nRead() calls \`options.Accept(line)\` and \`this.options.Accept()\` without any null check, ` +
      "so this is safe to merge.";
    const result = await runHeuristic({ "src/Acme.Csv/RowParser.cs": fake, "README.md": "# csv\n" }, TITLE, body);
    // The checks are still proposed (the issue asks for them), below the pull-request threshold.
    expect(addedLines(result).join("\n")).toContain("nameof(options)");
    expect(result.outcome).not.toBe("pr_ready");
    expect(result.diagnosis?.confidence ?? 1).toBeLessThan(0.7);
    expect(nullAlreadyFails(whole(fake), 13, "options", "csharp")).toBe(false);
  });

  it("attack: a report naming a parameter the constructor lacks, or code as a name, adds no check for it", async () => {
    const body = BODY.replace("`ParserOptions`", '`evil); System.Diagnostics.Process.Start("sh"`').replace(
      "the `TextReader`",
      "the `secretKey`",
    );
    const result = await runHeuristic({ "src/Acme.Csv/RowParser.cs": PARSER, "README.md": "# csv\n" }, TITLE, body);
    const added = addedLines(result).join("\n");
    expect(added).not.toContain("secretKey");
    expect(added).not.toContain("Process.Start");
    expect(added).not.toContain("nameof(reader)");
  });
});
