import { describe, expect, it } from "vitest";
import { isSecretPath } from "../../src/grounding/secrets.js";
import { MAX_WORDS_PER_FILE, rankFiles, scanWords } from "../../src/tools/search-index.js";
import type { Snapshot } from "../../src/types.js";
import { makeContext } from "./fixture.js";

const RANK = {
  boost: { symbols: 3, path: 2, text: 1 },
  prefixWeight: 0.5,
  fuzzyWeight: 0.3,
  fuzzy: 0.15,
  symbolsOf: () => [],
};

/** Every (file, word, id) call of one scan. */
async function calls(files: Record<string, string>, needles: string[]) {
  const { snapshot } = await makeContext(files, { maxFileBytes: 1 << 20 });
  const out: { path: string; word: string; id: number }[] = [];
  scanWords(snapshot, needles, (file, word, id) => out.push({ path: snapshot.paths[file] as string, word, id }));
  return out;
}

describe("scanWords", () => {
  it("tells apart two words whose hashes are the same (ndptfd and tdrrnr collide in FNV-1a, last first)", async () => {
    const out = await calls({ "a.js": "ndptfd tdrrnr ndptfd\n", "b.js": "tdrrnr\n" }, ["d"]);
    expect(out.map((c) => `${c.path} ${c.word}`)).toEqual(["a.js ndptfd", "a.js tdrrnr", "b.js tdrrnr"]);
    expect(out[0]?.id).not.toBe(out[1]?.id);
    expect(out[2]?.id).toBe(out[1]?.id);
  });

  it("finds nothing for a needle holding a non-word character, and the other needles' words as before", async () => {
    const files = { "a.js": "call a(b) and resolve(x) or read[0]\n" };
    expect(await calls(files, ["a(b", "d[0"])).toEqual([]);
    expect((await calls(files, ["a(b", "read", "re.*"])).map((c) => c.word)).toEqual(["read"]);
  });

  it("reports each distinct word once per file, one id per word across files, past the first table size", async () => {
    // 16,000 distinct words: the word table (16 slots at first, at most half full) grows eleven times.
    const words = (k: number) => Array.from({ length: 4000 }, (_, i) => `w${k}x${i}`);
    const files = {
      "a.js": [...words(0), ...words(0)].join(" "),
      "b.js": words(1).join(" "),
      "c.js": [...words(2), ...words(0).slice(0, 500)].join("\n"),
      "d.js": words(3).join(" "),
    };
    const out = await calls(files, ["x"]);
    expect(out.length).toBe(4000 + 4000 + 4500 + 4000);
    const ids = new Map<string, number>();
    for (const c of out) {
      const id = ids.get(c.word);
      if (id === undefined) ids.set(c.word, c.id);
      else expect(c.id).toBe(id);
    }
    expect(ids.size).toBe(16000);
    expect(new Set(ids.values()).size).toBe(16000);
    expect(new Set(out.map((c) => `${c.path} ${c.word}`)).size).toBe(out.length);
  });

  it("reads a code unit past U+00FF as no word character in a snapshot whose text is not Latin-1", async () => {
    // Not built by the snapshot builder: `read` gives the decoded text. "\u0161" (š) is 0x61 ("a") in its low byte,
    // "\u0130" (İ) 0x30 ("0"), and "\ud835\udc1a" (𝐚) holds 0x35 and 0x1a: none of them may join a word.
    const text = "\u0161rror \u0130rror x\ud835\udc1arror Error rror\u0161 \u0161rror\n";
    const plain: Snapshot = {
      sha: "0".repeat(40),
      paths: ["a.js"],
      stats: { files: 1, textFiles: 1, textBytes: text.length, totalBytes: text.length, leftOut: [], truncated: false },
      entry: (path) => (path === "a.js" ? { path, kind: "text", size: text.length, mode: "100644" } : undefined),
      read: (path) => (path === "a.js" ? text : undefined),
    };
    const words: string[] = [];
    scanWords(plain, ["rror"], (_, word) => words.push(word));
    expect(words).toEqual(["rror", "Error"]);
    // The same text from the snapshot builder (raw text: Latin-1 of its UTF-8 bytes) gives the same words.
    expect((await calls({ "a.js": text }, ["rror"])).map((c) => c.word)).toEqual(["rror", "Error"]);
  });

  it("takes at most MAX_WORDS_PER_FILE distinct words of one file", async () => {
    const words = Array.from({ length: MAX_WORDS_PER_FILE + 1000 }, (_, i) => `w${i}x`);
    const out = await calls({ "a.js": words.join(" "), "b.js": "w1x\n" }, ["x"]);
    expect(out.filter((c) => c.path === "a.js").map((c) => c.word)).toEqual(words.slice(0, MAX_WORDS_PER_FILE));
    expect(out.filter((c) => c.path === "b.js").map((c) => c.word)).toEqual(["w1x"]);
  });

  it("matches needles whatever their case and reports the word as written", async () => {
    const out = await calls({ "a.js": "const RESOLVE_CACHE = resolveModule(x);\n" }, ["resolve"]);
    expect(out.map((c) => c.word)).toEqual(["RESOLVE_CACHE", "resolveModule"]);
  });
});

/** What one pass for `needles` reports, written plainly: per text file, its distinct words holding a needle. */
function reference(snapshot: Snapshot, needles: string[]): string[] {
  const out: string[] = [];
  for (const path of snapshot.paths) {
    const content = snapshot.read(path);
    if (content === undefined || isSecretPath(path)) continue;
    const words = new Set<string>();
    for (const [word] of content.matchAll(/[\w$]+/g)) {
      const lower = word.toLowerCase();
      if (word.length < 2 || word.length > 80 || !needles.some((n) => lower.includes(n))) continue;
      if (words.size < MAX_WORDS_PER_FILE) words.add(word);
    }
    for (const word of words) out.push(`${path} ${word}`);
  }
  return out;
}

/** One call's reports as "path word", checking that its ids number the distinct words from 0 in order met. */
function reported(snapshot: Snapshot, needles: string[]): string[] {
  const out: string[] = [];
  const ids = new Map<string, number>();
  scanWords(snapshot, needles, (file, word, id) => {
    if (!ids.has(word)) expect(id).toBe(ids.size);
    ids.set(word, ids.get(word) ?? id);
    expect(id).toBe(ids.get(word));
    out.push(`${snapshot.paths[file]} ${word}`);
  });
  return out;
}

describe("scanWords over calls on one snapshot", () => {
  it("reports what one pass for all the needles would, whichever earlier passes it takes words from", async () => {
    const vocabulary = ["typeRoots", "TYPE", "subtype", "options", "compilerOptions", "rootsOfType", "x", "é", "ty_pe"];
    let seed = 5;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
    const files: Record<string, string> = { ".env": "TYPE_ROOTS_SECRET=typeRootsKey\n" };
    for (let f = 0; f < 30; f++) {
      const words = Array.from({ length: 60 }, () => {
        const w = vocabulary[Math.floor(next() * vocabulary.length)] as string;
        return next() < 0.5 ? w : `${w}${Math.floor(next() * 20)}`;
      });
      files[`src/f${f}.ts`] = words.join(next() < 0.5 ? " " : "(\n");
    }
    const { snapshot } = await makeContext(files, { maxFileBytes: 1 << 20 });
    const calls = [
      ["type"],
      ["compiler", "options", "type", "roots", "missing"],
      ["roots", "type"],
      ["typeroots", "options"],
      ["ty", "pe"],
      ["of", "type", "zz"],
      ["type"],
    ];
    for (const needles of calls)
      expect(reported(snapshot, needles), needles.join()).toEqual(reference(snapshot, needles));
  });

  it("scans a file again where an earlier pass stopped at MAX_WORDS_PER_FILE words", async () => {
    const words = Array.from({ length: MAX_WORDS_PER_FILE }, (_, i) => `type${i} roots${i}`);
    const { snapshot } = await makeContext(
      { "big.js": words.join(" "), "small.js": "roots1 type2 missing" },
      {
        maxFileBytes: 1 << 20,
      },
    );
    for (const needles of [["type", "roots"], ["roots"], ["type", "missing"], ["roots", "type"]]) {
      const out = reported(snapshot, needles);
      expect(out, needles.join()).toEqual(reference(snapshot, needles));
      expect(out.filter((w) => w.startsWith("big.js")).length).toBe(MAX_WORDS_PER_FILE);
    }
    expect(
      reported(snapshot, ["roots"])
        .filter((w) => w.startsWith("big.js "))
        .at(-1),
    ).toBe(`big.js roots${MAX_WORDS_PER_FILE - 1}`);
  });

  it("gives a later call the same words as a fresh scan: more than 31 new needles, an upper-case needle", async () => {
    const many = Array.from(
      { length: 40 },
      (_, i) => `wd${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
    );
    const files = { "a.js": `helperOne ParseThing ${many.map((w) => `${w}x`).join(" ")}\n`, "b.js": "parse_more\n" };
    const { snapshot } = await makeContext(files);
    const words = (s: Snapshot, needles: string[]) => {
      const out: string[] = [];
      scanWords(s, needles, (file, word, id) => out.push(`${s.paths[file]} ${word} ${id}`));
      return out;
    };
    const fresh = async (needles: string[]) => words((await makeContext(files)).snapshot, needles);
    words(snapshot, ["helper"]);
    expect(words(snapshot, ["helper", ...many])).toEqual(await fresh(["helper", ...many]));
    expect(words(snapshot, ["helper", ...many])).toHaveLength(41);
    words(snapshot, ["Parse"]);
    expect(words(snapshot, ["Parse"])).toEqual(["a.js ParseThing 0", "b.js parse_more 1"]);
  });
});

describe("rankFiles", () => {
  it("works out a hit's fields when asked, and scores more of the terms higher", async () => {
    const { snapshot } = await makeContext({
      "src/cache.js": "export const cache = resolve(x);\n",
      "src/other.js": "resolve(y);\n",
    });
    const ranking = rankFiles(snapshot, ["resolve", "cache"], RANK);
    expect(ranking.paths).toEqual(["src/cache.js", "src/other.js"]);
    const best = ranking.hit(0);
    expect(best.terms).toEqual(["resolve", "cache"]);
    expect(best.match).toEqual({ cache: ["path", "text"], resolve: ["text"] });
    expect(ranking.hit(1).score).toBeLessThan(best.score);
    expect(() => ranking.hit(2)).toThrow(RangeError);
  });

  it("refuses more terms than its bit sets hold", async () => {
    const { snapshot } = await makeContext({ "a.js": "x\n" });
    const terms = Array.from({ length: 32 }, (_, i) => `term${i}`);
    expect(() => rankFiles(snapshot, terms, RANK)).toThrow(/at most 31 terms/);
  });
});
