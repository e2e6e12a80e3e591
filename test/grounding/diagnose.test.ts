import { describe, expect, it } from "vitest";
import { applyVerbatimEdit, verifySnippet } from "../../src/grounding/index.js";

const file = [
  "import { db } from './db';", //  1
  "", //  2
  "export function save(record) {", //  3
  "\tconst row = normalize(record);", //  4
  "\tif (!row.id) {", //  5
  "\t\tthrow new Error('missing id');", //  6
  "\t}", //  7
  "\treturn db.insert(row);", //  8
  "}", //  9
  "", // 10
  "export const label = \u201Csaved\u201D;", // 11
  "export const unit = 'kg';   ", // 12
  "export const gap = 'a\u00A0b';", // 13
  "",
].join("\n");

interface CauseCase {
  name: string;
  before: string;
  lines: [number, number];
  cause: RegExp;
  content?: string;
}

describe("not_found names the nearest real region and the cause", () => {
  const cases: CauseCase[] = [
    {
      name: "tabs vs spaces",
      before: "  if (!row.id) {\n    throw new Error('missing id');\n  }",
      lines: [5, 7],
      cause: /^indentation \(the file uses tabs\)$/,
    },
    {
      name: "spaces vs tabs (file uses spaces)",
      content: "def f():\n    return 1\n",
      before: "def f():\n\treturn 1\n",
      lines: [1, 2],
      cause: /^indentation \(the file uses spaces\)$/,
    },
    {
      name: "trailing whitespace in the file",
      before: "export const unit = 'kg';\n",
      lines: [12, 12],
      cause: /^trailing whitespace \(the file has trailing whitespace on line 12\)$/,
    },
    {
      name: "trailing whitespace in code_before",
      before: "\t}  \n\treturn db.insert(row);",
      lines: [7, 8],
      cause: /^trailing whitespace \(code_before has trailing whitespace/,
    },
    {
      name: "a non-breaking space in the file",
      before: "export const gap = 'a b';",
      lines: [13, 13],
      cause: /unicode space \(the file has U\+00A0 NO-BREAK SPACE on line 13/,
    },
    {
      name: "a unicode space in code_before",
      before: "\treturn\u2009db.insert(row);",
      lines: [8, 8],
      cause: /unicode space \(code_before has U\+2009 THIN SPACE/,
    },
    {
      name: "straight quotes where the file has curly ones",
      before: 'export const label = "saved";',
      lines: [11, 11],
      cause: /^curly vs straight quotes \(the file has \u201C on line 11/,
    },
    {
      name: "curly quotes where the file has straight ones",
      before: "\t\tthrow new Error(\u2018missing id\u2019);",
      lines: [6, 6],
      cause: /^curly vs straight quotes \(code_before has \u2018/,
    },
    {
      name: "a literal \\n written where a newline was meant",
      before: "\tif (!row.id) {\\n\t\tthrow new Error('missing id');",
      lines: [5, 6],
      cause: /literal "\\n"/,
    },
    {
      name: "literal \\n plus indentation",
      before: "  if (!row.id) {\\n    throw new Error('missing id');",
      lines: [5, 6],
      cause: /literal "\\n".* and indentation \(the file uses tabs\)/,
    },
    {
      name: "CRLF code_before against an LF file",
      before: "\t}\r\n\treturn db.insert(row);",
      lines: [7, 8],
      cause: /^line endings \(the file uses LF line endings/,
    },
    {
      name: "LF code_before against CRLF lines of a mixed file",
      content: "a\r\nb\r\nc\n",
      before: "a\nb\n",
      lines: [1, 2],
      cause: /^line endings \(the file uses mixed line endings/,
    },
    {
      name: "a BOM copied into code_before",
      content: "first\nsecond\n",
      before: "\uFEFFfirst\n",
      lines: [1, 1],
      cause: /byte-order mark/,
    },
    {
      name: "two causes at once: indentation and quotes",
      before: "  if (!row.id) {\n    throw new Error(\u2018missing id\u2019);",
      lines: [5, 6],
      cause: /^indentation \(the file uses tabs\) and curly vs straight quotes/,
    },
  ];
  it.each(cases)("$name", ({ before, lines, cause, content }) => {
    const r = applyVerbatimEdit(
      content ?? file,
      { code_before: before, code_after: before + "\n// added" },
      { path: "src/save.js" },
    );
    if (r.ok) throw new Error("expected not_found");
    expect(r.reason).toBe("not_found");
    expect([r.nearest?.startLine, r.nearest?.endLine]).toEqual(lines);
    expect(r.nearest?.cause).toMatch(cause);
    expect(r.message).toMatch(/^REJECTED: code_before was not found in src\/save\.js\. The closest text is lines? \d/);
    expect(r.message).toContain("it differs only in ");
  });

  it("quotes the real lines, numbered, so one retry can copy them", () => {
    const r = applyVerbatimEdit(
      file,
      { code_before: "  if (!row.id) {\n    throw new Error('missing id');\n  }", code_after: "x" },
      {
        path: "src/models/log.js",
      },
    );
    if (r.ok) throw new Error("expected not_found");
    expect(r.message).toBe(
      "REJECTED: code_before was not found in src/models/log.js. " +
        "The closest text is lines 5-7; it differs only in indentation " +
        '(the file uses tabs). Copy code_before exactly from these lines (without the "N| " prefixes):\n' +
        "   5| \tif (!row.id) {\n   6| \t\tthrow new Error('missing id');\n   7| \t}",
    );
    expect(r.nearest?.text).toBe("\tif (!row.id) {\n\t\tthrow new Error('missing id');\n\t}");
  });

  it("finds the region even when the text differs in content, without naming a cause", () => {
    const r = applyVerbatimEdit(file, {
      code_before: "\tconst row = normalize(record);\n\tif (!row.key) {",
      code_after: "x",
    });
    if (r.ok) throw new Error("expected not_found");
    expect([r.nearest?.startLine, r.nearest?.endLine]).toEqual([4, 5]);
    expect(r.nearest?.cause).toBeUndefined();
    expect(r.message).toContain("it differs in content");
  });

  it("says so when nothing in the file resembles code_before", () => {
    const r = applyVerbatimEdit(file, { code_before: "zzz qqq", code_after: "x" });
    if (r.ok) throw new Error("expected not_found");
    expect(r.nearest).toBeUndefined();
    expect(r.message).toContain("No similar text is in the file");
  });

  it("reports lines of a CRLF file correctly and shows its text without \\r in the message", () => {
    const crlf = file.replaceAll("\n", "\r\n");
    const r = applyVerbatimEdit(crlf, {
      code_before: "  if (!row.id) {\n    throw new Error('missing id');",
      code_after: "x",
    });
    if (r.ok) throw new Error("expected not_found");
    expect([r.nearest?.startLine, r.nearest?.endLine]).toEqual([5, 6]);
    expect(r.nearest?.cause).toBe("indentation (the file uses tabs)");
    expect(r.message).not.toContain("\r");
  });
});

describe("verifySnippet", () => {
  it("finds a snippet, trimming only blank lines around it", () => {
    expect(verifySnippet(file, "\n  \n\tif (!row.id) {\n\t\tthrow new Error('missing id');\n\n")).toEqual({
      found: true,
      startLine: 5,
      endLine: 6,
      occurrences: 1,
    });
  });

  it("forgives nothing inside the snippet: a re-indented line is not found, with the cause", () => {
    const r = verifySnippet(file, "\tif (!row.id) {\n    throw new Error('missing id');");
    expect(r).toEqual({
      found: false,
      nearest: {
        startLine: 5,
        endLine: 6,
        text: "\tif (!row.id) {\n\t\tthrow new Error('missing id');",
        cause: "indentation (the file uses tabs)",
      },
    });
  });

  it("counts occurrences", () => {
    expect(verifySnippet("x\ny\nx\n", "x")).toEqual({ found: true, startLine: 1, endLine: 1, occurrences: 2 });
  });

  it("returns the nearest region and cause when the snippet is recalled wrongly", () => {
    const r = verifySnippet(file, 'export const label = "saved";');
    expect(r).toMatchObject({ found: false, nearest: { startLine: 11, endLine: 11 } });
  });

  it("a blank snippet is not found", () => {
    expect(verifySnippet(file, " \n\t\n")).toEqual({ found: false });
  });
});
