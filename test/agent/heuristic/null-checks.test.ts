import { describe, expect, it } from "vitest";
import { asksForNullChecks, requestedChecks } from "../../../src/agent/models/heuristic/guard-jvm.js";
import { addedLines, runHeuristic } from "./readable.js";

const lines = (text: string) => new Map(text.split("\n").map((t, i) => [i + 1, t] as const));

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

  it("the run: ArgumentNullException checks in the file's brace style, below the pull-request threshold", async () => {
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
    expect(result.outcome).not.toBe("pr_ready");
    expect(result.diagnosis?.confidence ?? 1).toBeLessThan(0.7);
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
