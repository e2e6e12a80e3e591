import { describe, expect, it } from "vitest";
import { RE2JS } from "re2js";
import { requiredLiterals } from "../../src/tools/regex-literals.js";
import { grepSnapshot } from "../../src/tools/grep.js";
import { snapshotFromTar } from "../../src/snapshot/index.js";
import { makeGitHubTarball } from "../snapshot/build-repo.js";

describe("requiredLiterals", () => {
  it.each([
    ["createSourceFile", ["createSourceFile"]],
    ["function (parse|read)[A-Z][A-Za-z]*\\(", ["function parse", "function read"]],
    ["handle(Audit|Batch)[0-9]+_1\\(", ["handleAudit", "handleBatch"]],
    ["^\\s*export default class \\w+", ["export default class "]],
    ["colou?r", ["color", "colour"]],
    ["[Ff]oo\\.bar", ["Foo.bar", "foo.bar"]],
    ["(?:get|set)Item\\b", ["getItem", "setItem"]],
    ["x+abc", ["abc"]],
    ["(abcd)+", ["abcd"]],
    ["(?P<n>needle)\\d{2,3}", ["needle"]],
    ["a{1}bcd", ["abcd"]],
  ])("%s needs one of %j", (pattern, expected) => {
    expect(requiredLiterals(pattern)?.sort()).toEqual([...expected].sort());
  });

  it.each([
    ["(?i)needle"], // flags change what matches: no prefilter
    ["\\pLneedle|x"],
    ["[[:alpha:]]+"],
    ["\\Qa.b\\E"],
    ["ab|c"], // a branch without a literal of 3+
    ["(needle)?"],
    ["needle*"], // the last letter may be absent: "needl" is what every match holds
    ["a.b.c"],
    ["\\x41BC"],
    ["[^abc]def|g"],
    ["foo{"],
    ["(foo"],
    ["needle\\nx"],
  ])("%s gives no prefilter or a sound one", (pattern) => {
    const got = requiredLiterals(pattern);
    if (got === null) return;
    // When there is one, it must be sound: every line the regex matches holds one of the literals.
    const re = RE2JS.compile(pattern);
    for (const line of ["needle", "needl", "a.b.c", "xABC", "zdef", "foo{", "ab", "c"]) {
      if (re.test(line)) expect(got.some((l) => line.includes(l))).toBe(true);
    }
  });

  it("is sound on generated patterns: no line a pattern matches lacks every literal", () => {
    // Small random patterns over a tiny alphabet, checked against RE2 on every short string of that alphabet.
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return seed % n;
    };
    const atoms = [
      "a",
      "b",
      "c",
      "ab",
      "(a|bc)",
      "[ab]",
      ".",
      "\\w",
      "(abc)?",
      "c+",
      "b*",
      "(?:ca|ac)",
      "[^a]",
      "a{2}",
      "^",
      "$",
      "\\b",
    ];
    const lines: string[] = [""];
    for (let len = 1; len <= 6; len++)
      for (const prefix of lines.filter((l) => l.length === len - 1)) for (const ch of "abc ") lines.push(prefix + ch);
    let checked = 0;
    for (let k = 0; k < 300; k++) {
      const parts = Array.from({ length: 1 + rand(5) }, () => atoms[rand(atoms.length)] as string);
      const pattern = rand(4) === 0 ? `${parts.join("")}|${atoms[rand(atoms.length)]}abc` : parts.join("");
      const literals = requiredLiterals(pattern);
      if (literals === null) continue;
      const re = RE2JS.compile(pattern);
      for (const line of lines) {
        if (re.test(line) && !literals.some((l) => line.includes(l)))
          throw new Error(`${pattern} matches ${JSON.stringify(line)} without ${JSON.stringify(literals)}`);
      }
      checked++;
    }
    expect(checked).toBeGreaterThan(20);
  });
});

describe("grep with a literal prefilter", () => {
  const snapshot = (files: Record<string, string>) => ({
    paths: Object.keys(files).sort(),
    read: (p: string) => files[p],
  });

  it("finds the same lines, numbers and CRLF-stripped text as testing every line", () => {
    const files = {
      "a.js": "function parseA() {}\r\nconst x = 1;\r\nfunction readB(x) {}\r\nfunction parse(y) {}\r\n",
      "b.js": "// function parseHidden(\nfunction readAll() { return readAll(); } function parseX(\n",
      "c.js": "nothing here\n",
    };
    const found = grepSnapshot(snapshot(files), {
      pattern: "function (parse|read)[A-Z][A-Za-z]*\\(",
      regex: true,
      maxHits: 50,
    });
    expect(found.hits).toEqual([
      { path: "a.js", line: 1, text: "function parseA() {}" },
      { path: "a.js", line: 3, text: "function readB(x) {}" },
      { path: "b.js", line: 1, text: "// function parseHidden(" },
      { path: "b.js", line: 2, text: "function readAll() { return readAll(); } function parseX(" },
    ]);
    expect(found.total).toBe(4);
    expect(found.files).toBe(2);
  });

  it("finds with several literals every line testing each line finds, on generated files and patterns", async () => {
    // Literals that overlap, repeat on a line, hold regex syntax (". ( $ |") or a line break, in CRLF and LF files.
    let seed = 11;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) >>> 0;
      return (seed >>> 16) % n; // the high bits: the low bits of this generator repeat quickly
    };
    const words = ["abc", "bcd", "a.c", "x(y", "p$q", "a|b", "abcd", " ", "zz", "é", "\t"];
    const patterns = [
      "(abc|bcd)",
      "(abc|bcd)d",
      "a\\.c|x\\(y",
      "(p\\$q|a\\|b)z*",
      "(abcd|zz) (abc|é)",
      "(abc|zz)\\t(bcd|a)",
      "(bcd|abc)+$",
    ];
    for (let k = 0; k < 60; k++) {
      const files: Record<string, string> = {};
      for (let f = 0; f < 4; f++) {
        const eol = rand(2) === 0 ? "\n" : "\r\n";
        const lines = Array.from({ length: 1 + rand(8) }, () =>
          Array.from({ length: rand(6) }, () => words[rand(words.length)]).join(""),
        );
        files[`f${f}.txt`] = lines.join(eol) + (rand(2) === 0 ? eol : "");
      }
      const real = await snapshotFromTar(await makeGitHubTarball(files), { sha: "a".repeat(40), stripTopFolder: true });
      for (const pattern of patterns) {
        expect(requiredLiterals(pattern)?.length ?? 0, pattern).toBeGreaterThan(1);
        const re = RE2JS.compile(pattern);
        const expected: { path: string; line: number; text: string }[] = [];
        for (const path of Object.keys(files).sort())
          (files[path] as string).split("\n").forEach((raw, i, all) => {
            const text = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
            if (i === all.length - 1 && raw === "") return;
            if (re.test(text)) expected.push({ path, line: i + 1, text });
          });
        // A snapshot as the tools get it (raw text of UTF-8 files) and a plain double of one.
        for (const snap of [real, snapshot(files)]) {
          const found = grepSnapshot(snap, { pattern, regex: true, maxHits: 500 });
          expect(found.hits, `${pattern} in ${JSON.stringify(files)}`).toEqual(expected);
          expect(found.total).toBe(expected.length);
        }
      }
    }
  });

  it("does not use the prefilter for case-insensitive searches", () => {
    const found = grepSnapshot(snapshot({ "a.js": "FUNCTION PARSEX(\n" }), {
      pattern: "function parse[a-z]\\(",
      regex: true,
      caseSensitive: false,
      maxHits: 5,
    });
    expect(found.total).toBe(1);
  });
});

describe("grep redacts the lines it shows as the whole file's redaction does", () => {
  const files = {
    "a.js":
      'const a = 1;\nconst password =\n  "hunter2hunter2"; // the value\nconst k = `\n' +
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END RSA PRIVATE KEY-----\n`;\n",
  };
  const snapshot = { paths: ["a.js"], read: (p: string) => files[p as "a.js"] };

  it("shows a value whose name is on the line above as redacted, and finds no secret by its text", () => {
    const value = grepSnapshot(snapshot, { pattern: "the value", maxHits: 5 });
    expect(value.hits).toEqual([{ path: "a.js", line: 3, text: '  "[redacted]"; // the value' }]);
    expect(grepSnapshot(snapshot, { pattern: "hunter2", maxHits: 5 }).total).toBe(0);
    expect(grepSnapshot(snapshot, { pattern: "h(u|x)nter2", regex: true, maxHits: 5 }).total).toBe(0);
  });

  it("finds no line of a private key block by its text, with or without the literal prefilter", () => {
    expect(grepSnapshot(snapshot, { pattern: "MIIEow", maxHits: 5 }).total).toBe(0);
    expect(grepSnapshot(snapshot, { pattern: "MIIE[o]w", regex: true, maxHits: 5 }).total).toBe(0);
    expect(grepSnapshot(snapshot, { pattern: "miieow", caseSensitive: false, maxHits: 5 }).total).toBe(0);
  });
});
