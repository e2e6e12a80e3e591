import { describe, expect, it } from "vitest";
import { applyVerbatimEdit, lineCount, locateVerbatim, permalink } from "../../src/grounding/index.js";
import { isSpace } from "../../src/grounding/lines.js";

describe("locateVerbatim", () => {
  it.each([
    { name: "one line in an LF file", content: "a\nbb\nc\n", text: "bb", spans: [[2, 2]] },
    { name: "a text ending in a newline ends on its own line", content: "a\nbb\nc\n", text: "bb\n", spans: [[2, 2]] },
    { name: "multi-line", content: "a\nbb\nc\n", text: "a\nbb", spans: [[1, 2]] },
    {
      name: "overlapping occurrences",
      content: "aaaa",
      text: "aa",
      spans: [
        [1, 1],
        [1, 1],
        [1, 1],
      ],
    },
    { name: "LF text in a CRLF file", content: "x\r\ny\r\nz\r\n", text: "y\nz\n", spans: [[2, 3]] },
    { name: "LF text in a mixed file: raw only", content: "x\r\ny\nz\r\n", text: "x\ny", spans: [] },
    { name: "CRLF text in an LF file: raw only", content: "x\ny\n", text: "x\r\ny", spans: [] },
    { name: "BOM does not shift lines", content: "\uFEFFa\nb\n", text: "b", spans: [[2, 2]] },
    { name: "empty text has no occurrence", content: "abc", text: "", spans: [] },
    { name: "lone CR in the text cannot match a CRLF file", content: "x\r\ny\r\n", text: "x\r", spans: [] },
  ])("$name", ({ content, text, spans }) => {
    expect(locateVerbatim(content, text).map((m) => [m.startLine, m.endLine])).toEqual(spans);
  });

  it("reports offsets and lengths in the original CRLF content", () => {
    const content = "x\r\ny\r\nz\r\n";
    const [m] = locateVerbatim(content, "y\nz\n");
    expect(m).toBeDefined();
    expect(content.slice(m!.offset, m!.offset + m!.length)).toBe("y\r\nz\r\n");
  });
});

describe("lineCount", () => {
  it.each([
    ["", 0],
    ["a", 1],
    ["a\n", 1],
    ["a\nb", 2],
    ["a\n\n", 2],
    ["a\r\nb\r\n", 2],
    ["\uFEFFa\nb\n", 2],
  ])("%j has %i lines", (content, n) => expect(lineCount(content)).toBe(n));
});

describe("isSpace", () => {
  it("is true for exactly the UTF-16 code units the regular expression class \\s matches", () => {
    const wrong: number[] = [];
    for (let code = 0; code <= 0xffff; code++)
      if (isSpace(code) !== /\s/.test(String.fromCharCode(code))) wrong.push(code);
    expect(wrong).toEqual([]);
  });
});

describe("permalink", () => {
  const base = { owner: "octo", repo: "app", sha: "0123456789abcdef0123456789abcdef01234567" };
  it.each([
    [
      { path: "src/a.ts", startLine: 12, endLine: 14 },
      "https://github.com/octo/app/blob/0123456789abcdef0123456789abcdef01234567/src/a.ts#L12-L14",
    ],
    [
      { path: "src/a.ts", startLine: 12, endLine: 12 },
      "https://github.com/octo/app/blob/0123456789abcdef0123456789abcdef01234567/src/a.ts#L12",
    ],
    [
      { path: "src/a.ts", startLine: 7 },
      "https://github.com/octo/app/blob/0123456789abcdef0123456789abcdef01234567/src/a.ts#L7",
    ],
    [{ path: "src/a.ts" }, "https://github.com/octo/app/blob/0123456789abcdef0123456789abcdef01234567/src/a.ts"],
    [
      { path: "docs/my file#1.ts", startLine: 3 },
      "https://github.com/octo/app/blob/0123456789abcdef0123456789abcdef01234567/docs/my%20file%231.ts#L3",
    ],
    [
      { path: "README.md", startLine: 3, endLine: 5 },
      "https://github.com/octo/app/blob/0123456789abcdef0123456789abcdef01234567/README.md?plain=1#L3-L5",
    ],
  ])("%j", (p, url) => expect(permalink({ ...base, ...p })).toBe(url));
});

describe("a 5 MB file with the anchor near the end", () => {
  const lines = Array.from({ length: 120_000 }, (_, i) => `\tconst value${i} = compute(${i}, "x"); // filler`);
  const content = lines.join("\n") + "\n";
  const anchor = `\tconst value119990 = compute(119990, "x"); // filler\n`;

  it("is at least 5 MB", () => expect(content.length).toBeGreaterThan(5_000_000));

  it("applies the edit at the right line and leaves every other byte alone", () => {
    const r = applyVerbatimEdit(
      content,
      { code_before: anchor, code_after: anchor + "\tlog(value119990);\n" },
      { path: "big.js" },
    );
    if (!r.ok) throw new Error(r.message);
    expect([r.startLine, r.endLine]).toEqual([119_991, 119_991]);
    const i = content.indexOf(anchor) + anchor.length;
    expect(r.content).toBe(content.slice(0, i) + "\tlog(value119990);\n" + content.slice(i));
    expect(r.diff).toContain("@@ -119989,6 +119989,7 @@");
  });

  it("finds the nearest region near the end when code_before is re-indented", () => {
    const r = applyVerbatimEdit(
      content,
      { code_before: anchor.replace("\t", "    "), code_after: "x" },
      { path: "big.js" },
    );
    if (r.ok) throw new Error("expected not_found");
    expect(r.nearest).toMatchObject({
      startLine: 119_991,
      endLine: 119_991,
      cause: "indentation (the file uses tabs)",
    });
  });
});
