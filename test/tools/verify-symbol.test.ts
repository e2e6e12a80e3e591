import { describe, expect, it } from "vitest";
import { extractSymbols } from "../../src/grounding/symbols.js";
import { snapshotFromTar } from "../../src/snapshot/index.js";
import { createReadLog, runTool, verifySymbolInRepo } from "../../src/tools/index.js";
import {
  DEFINITION_LINE_MAX,
  EXTRACT_BUDGET_CHARS,
  exactSearch,
  fileSymbols,
  filesWithWord,
} from "../../src/tools/symbol-index.js";
import { makeGitHubTarball } from "../snapshot/build-repo.js";
import { similarNames } from "../../src/tools/verify-symbol.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";

/** `text` followed by a comment that makes the line exactly `length` characters long. */
function lineOf(text: string, length: number): string {
  return `${text} //${"x".repeat(length - text.length - 3)}`;
}

async function verify(files: Record<string, string>, name: string, path?: string): Promise<string> {
  const snapshot = await snapshotFromTar(await makeGitHubTarball(files, SHA), { sha: SHA, stripTopFolder: true });
  const r = await runTool(verifySymbolInRepo, path === undefined ? { name } : { name, path }, {
    snapshot,
    reads: createReadLog(),
  });
  return r.text;
}

describe("definitions on long lines", () => {
  it("are taken by extractSymbols up to DEFINITION_LINE_MAX characters (a trailing \\r not counted)", () => {
    const short = lineOf("function edge() {}", DEFINITION_LINE_MAX);
    const long = lineOf("function edge() {}", DEFINITION_LINE_MAX + 1);
    expect(short).toHaveLength(DEFINITION_LINE_MAX);
    expect(extractSymbols("a.js", `${short}\n`).map((s) => s.name)).toEqual(["edge"]);
    expect(extractSymbols("a.js", `${short}\r\n`).map((s) => s.name)).toEqual(["edge"]);
    expect(extractSymbols("a.js", `${long}\n`)).toEqual([]);
    const python = `def edge(): pass #${"x".repeat(DEFINITION_LINE_MAX)}`;
    expect(extractSymbols("a.py", `${python}\n`)).toEqual([]);
    expect(extractSymbols("a.py", `${python.slice(0, DEFINITION_LINE_MAX)}\n`).map((s) => s.name)).toEqual(["edge"]);
  });

  it("a definition after a minified line holding the name is FOUND; one inside the long line is not", async () => {
    const minified = `var a=${"createThing(1),".repeat(200)}0;function packThing(){}`;
    expect(minified.length).toBeGreaterThan(DEFINITION_LINE_MAX);
    const files = {
      "dist/bundle.js": `${minified}\nfunction createThing() {}\n`,
      "dist/only-long.js": `${minified}\n`,
    };
    expect(await verify(files, "createThing")).toBe(
      "FOUND: createThing is defined 1 time(s):\ndist/bundle.js:2 function createThing",
    );
    expect(await verify(files, "packThing")).toMatch(/^NOT_FOUND: no definition of packThing /);
  });

  it("a definition on a line of few characters but more bytes than the limit (UTF-8) is FOUND", async () => {
    const line = `function greetAll() { return "${"é".repeat(600)}"; }`;
    expect(line.length).toBeLessThan(DEFINITION_LINE_MAX);
    expect(Buffer.byteLength(line)).toBeGreaterThan(DEFINITION_LINE_MAX);
    expect(await verify({ "src/greet.js": `${line}\n` }, "greetAll")).toBe(
      "FOUND: greetAll is defined 1 time(s):\nsrc/greet.js:1 function greetAll",
    );
  });
});

describe("similar names", () => {
  const files = {
    "src/config.js": [
      "function parseConf() {}",
      "function parseConfig() {}",
      "function parseArgs() {}",
      "function loadSettings() {}",
      "",
    ].join("\n"),
    "src/legacy.js": "function ParseConfg() {}\n",
    // A similar name defined after a minified line holding the pieces still counts; one inside that line does not.
    "dist/app.min.js": `var c=${"parseConfig(x),".repeat(100)}0;function parseConfX(){}\nfunction parseConfigs() {}\n`,
  };

  it("lists the same name ignoring case, then by edit distance, then by shared words (shorter first)", async () => {
    const text = await verify(files, "parseConfg");
    expect(text.split("\n")).toEqual([
      "NOT_FOUND: no definition of parseConfg at 0123456.",
      "Similar defined names: function ParseConfg (src/legacy.js:1); function parseConf (src/config.js:1); " +
        "function parseConfig (src/config.js:2); function parseConfigs (dist/app.min.js:2); " +
        "function parseArgs (src/config.js:3)",
    ]);
  });

  it("keeps to the folder given, and says where a word with no definition appears", async () => {
    const text = await verify({ ...files, "src/use.js": "parseConfg();\n" }, "parseConfg", "src");
    expect(text).toContain("function parseConf (src/config.js:1)");
    expect(text).not.toContain("dist/app.min.js");
    expect(text).toContain("The word parseConfg appears in 1 file(s) (e.g. src/use.js)");
  });

  it("answers NOT_FOUND, not an invalid pattern, for names holding regular expression characters", async () => {
    for (const name of ["parse(Config", "a)b", "[x", "conf*ig+", "a|b\\"]) {
      expect(await verify(files, name)).toMatch(/^NOT_FOUND: no definition of /);
    }
    expect(await verify(files, "parse(Conf")).toContain("function parseConf (src/config.js:1)");
  });
});

describe("files spared by the long-line test", () => {
  it("count as extracted for later calls' budgets, as when an earlier call extracted them", async () => {
    // Two minified files that rank first (a word on their one long line holds the misspelt name) and take most of
    // the budget, then a file defining the similar name that fits only if the minified files are free (files are
    // kept up to 2 MB each).
    const minified = `var a=${"parseConfgs(createThing(1)),".repeat(Math.ceil(EXTRACT_BUDGET_CHARS / 80))}0;\n`;
    const big = `function parseConfig() {}\n${"// filler\n".repeat(Math.ceil((EXTRACT_BUDGET_CHARS * 0.4) / 10))}`;
    const tarball = await makeGitHubTarball(
      { "dist/a.min.js": minified, "dist/b.min.js": minified, "src/big.js": big },
      SHA,
    );
    const answer = async (before: (ctx: Parameters<typeof runTool>[2]) => Promise<unknown>) => {
      const snapshot = await snapshotFromTar(tarball, { sha: SHA, stripTopFolder: true });
      const ctx = { snapshot, reads: createReadLog() };
      await before(ctx);
      return (await runTool(verifySymbolInRepo, { name: "parseConfg" }, ctx)).text;
    };
    const fresh = await answer(async () => undefined);
    const extracted = await answer(async (ctx) =>
      ["dist/a.min.js", "dist/b.min.js"].map((path) => fileSymbols(ctx.snapshot, path)),
    );
    const spared = await answer((ctx) => runTool(verifySymbolInRepo, { name: "createThing" }, ctx));
    expect(fresh).not.toContain("src/big.js");
    expect(extracted).toContain("function parseConfig (src/big.js:1)");
    expect(spared).toBe(extracted);
  });
});

describe("exactSearch (the rare-character anchored indexOf of filesWithWord and mayDefine)", () => {
  it("finds what indexOf finds, from every offset, for words anchored anywhere and of any length", () => {
    // Texts over few characters, so that the words' anchored parts occur often without the word (and at offsets
    // before the anchor's place in the word: "Nme" at 0 holds no "resolveModuleNme").
    let seed = 1;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const words = ["resolveModuleNme", "Nme", "eNmeN", "aaaaaaaaQ", "Qaaaaaaaaa", "e", "ee", "é", "xé", "QzQzQzQzQz"];
    for (const word of words) {
      const find = exactSearch(word);
      const alphabet = [...new Set([...word, "e", " "])];
      for (let round = 0; round < 50; round++) {
        let text = "";
        while (text.length < 60)
          text += random(4) === 0 ? word.slice(random(word.length)) : alphabet[random(alphabet.length)];
        for (let from = 0; from <= text.length; from++) expect(find(text, from)).toBe(text.indexOf(word, from));
      }
    }
  });

  it("gives filesWithWord the files holding the word whole, also where its rare part starts the file", async () => {
    const snapshot = await snapshotFromTar(
      await makeGitHubTarball(
        {
          "a.ts": "Nme resolveModuleNmeX\n",
          "b.ts": "x.resolveModuleNme()\n",
          "c.ts": "resolveModuleNme",
          "d.ts": "ModuleNme resolvemoduleNme",
        },
        SHA,
      ),
      { sha: SHA, stripTopFolder: true },
    );
    expect(filesWithWord(snapshot, "resolveModuleNme")).toEqual(["b.ts", "c.ts"]);
    expect(filesWithWord(snapshot, "Nme")).toEqual(["a.ts"]);
  });
});

describe("similarNames' pre-test (names holding none of the pieces or words are passed over)", () => {
  it("keeps names that differ in case, that hold characters past ASCII, and that share only a word", () => {
    const names = ["PARSECONFG", "pArSeCoNfIg", "parséConfig", "configReader", "loadSettings", "xyz"];
    expect(similarNames("parseConfig", names)).toEqual(["pArSeCoNfIg", "PARSECONFG", "parséConfig", "configReader"]);
  });

  it("keeps a name whose lower case holds the pieces only after toLowerCase (the Kelvin sign is 'k')", () => {
    // /kk/i does not match "KK" (U+212A) outside unicode mode, but "\u212A".toLowerCase() is "k": same name.
    expect(similarNames("kkkk", ["\u212A\u212A\u212A\u212A", "zzzz"])).toEqual(["\u212A\u212A\u212A\u212A"]);
  });
});
