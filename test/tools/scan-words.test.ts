import { describe, expect, it } from "vitest";
import { MAX_WORDS_PER_FILE, rankFiles, scanWords } from "../../src/tools/search-index.js";
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
  it("tells apart two words whose hashes are the same (dftpdn and rnrrdt collide in 32-bit FNV-1a)", async () => {
    const out = await calls({ "a.js": "dftpdn rnrrdt dftpdn\n", "b.js": "rnrrdt\n" }, ["d"]);
    expect(out.map((c) => `${c.path} ${c.word}`)).toEqual(["a.js dftpdn", "a.js rnrrdt", "b.js rnrrdt"]);
    expect(out[0]?.id).not.toBe(out[1]?.id);
    expect(out[2]?.id).toBe(out[1]?.id);
  });

  it("reports each distinct word once per file, one id per word across files, past the first table size", async () => {
    // 16,000 distinct words: the word table (16,384 slots, at most half full) grows.
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
