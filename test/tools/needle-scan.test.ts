import { afterEach, describe, expect, it } from "vitest";
import { END_SLOTS, MAX_OPENINGS, needleScanner, needleScanSettings } from "../../src/tools/needle-scan.js";
import {
  fileWords,
  IntList,
  keyTextWatch,
  MAX_WORDS_PER_FILE,
  reserveLatin1,
  scanPattern,
  WordTable,
} from "../../src/tools/word-scan.js";

/** The words `fileWords` takes from `text` for `needles` ("word@end" each), by the needle scan or the regex. */
function words(text: string, needles: string[], narrow: boolean, regex: boolean): string[] {
  needleScanSettings.off = regex;
  try {
    reserveLatin1(text.length);
    const table = new WordTable();
    table.begin();
    const out = new IntList();
    fileWords(text, narrow, 0, scanPattern(needles), table, out);
    const got: string[] = [];
    for (let k = 0; k < out.length; k += 4) got.push(`${table.words[out.data[k + 1] as number]}@${out.data[k + 2]}`);
    return got;
  } finally {
    needleScanSettings.off = false;
  }
}

/** Both ways give the same words; the needle scan's answer. */
function same(text: string, needles: string[], narrow = true): string[] {
  const fast = words(text, needles, narrow, false);
  expect(fast).toEqual(words(text, needles, narrow, true));
  return fast;
}

/** Whether the needle scan takes `needles` (else fileWords uses the regular expression). */
function takes(needles: string[]): boolean {
  const scanner = needleScanner();
  expect(scanner).not.toBeNull();
  return scanner?.load(needles) === true;
}

describe("the needle scan finds what the scan's regular expression finds", () => {
  afterEach(() => {
    needleScanSettings.off = false;
  });

  it("is used in Node (WebAssembly SIMD), so the tests below compare two different scans", () => {
    expect(needleScanner()).not.toBeNull();
    expect(takes(["type", "name"])).toBe(true);
  });

  it("folds ASCII case only, and the bytes that OR 0x20 turns into needle characters are not matches", () => {
    expect(same("Type TYPE tYpE subtype typeRoots", ["type"])).toEqual([
      "Type@4",
      "TYPE@9",
      "tYpE@14",
      "subtype@22",
      "typeRoots@32",
    ]);
    // \x04 | 0x20 is "$", \x7f is "_" | 0x20, "@" | 0x20 is "`", "\xcd" | 0x20 is "\xed": candidates, not hits.
    expect(same("\x04x \x7fa @b \xcdab _a $x", ["$x", "_a", "ab"])).toEqual(["ab@12", "_a@15", "$x@18"]);
    // Latin-1 letters (a UTF-8 file's bytes) and, in decoded text, the Kelvin sign and dotless i match no ASCII letter.
    expect(same("\xc9cole \xe9cole \u212aey \u0131d key id", ["ecole", "key", "id"], false)).toEqual([
      "key@22",
      "id@25",
    ]);
    expect(same("caf\u00e9name \u0161name name\u0161x", ["name"], false)).toEqual(["name@8"]);
  });

  it("takes the leftmost needle, widened to its whole word, and goes on after that word", () => {
    expect(same("aaaa aab baaa", ["aa"])).toEqual(["aaaa@4", "aab@8", "baaa@13"]);
    expect(same("resolvedModule moduleresolve", ["module", "resolve"])).toEqual([
      "resolvedModule@14",
      "moduleresolve@28",
    ]);
    expect(same("x.name;name\nname", ["name"])).toEqual(["name@6"]);
  });

  it("at a text's edges: empty, shorter than the needle, a needle in the last bytes, 17 bytes and more", () => {
    expect(same("", ["ab"])).toEqual([]);
    expect(same("a", ["ab"])).toEqual([]);
    expect(same("ab", ["ab"])).toEqual(["ab@2"]);
    expect(same("x".repeat(15) + " ab", ["ab"])).toEqual(["ab@18"]);
    expect(same("x".repeat(14) + " ab", ["ab"])).toEqual(["ab@17"]);
    expect(same("x".repeat(16) + "ab", ["ab"])).toEqual([`${"x".repeat(16)}ab@18`]); // the needle across two blocks
    for (let n = 0; n < 40; n++) same(" ".repeat(n) + "needle" + " ".repeat(40 - n) + "Needle", ["needle"]);
  });

  it("gives up words longer than 80 characters as the regex does, also with the needle at the end", () => {
    const w80 = "q".repeat(76) + "name";
    const w81 = "q".repeat(77) + "name";
    expect(same(`${w80} ${w81} ${"name" + "q".repeat(77)} name`, ["name"])).toEqual([`${w80}@80`, "name@249"]);
  });

  it("resumes past a full array of ends (more hits in one file than it holds)", () => {
    const text = Array.from({ length: END_SLOTS + 500 }, (_, i) => (i === END_SLOTS + 10 ? "last_ab" : "ab")).join(" ");
    const got = same(text, ["ab"]);
    expect(got).toEqual(["ab@2", `last_ab@${(END_SLOTS + 10) * 3 + 7}`]);
  });

  it("hands needles it cannot take to the regular expression: one character, upper case, too many openings", () => {
    expect(takes(["a"])).toBe(false);
    expect(same("a ab ba", ["a"])).toEqual(["ab@4", "ba@7"]);
    expect(takes(["Ab"])).toBe(false);
    const many = Array.from({ length: MAX_OPENINGS + 1 }, (_, i) =>
      [97 + (i % 26), 97 + Math.floor(i / 26), 122].map((c) => String.fromCharCode(c)).join(""),
    );
    expect(takes(many)).toBe(false);
    expect(takes(many.slice(0, MAX_OPENINGS))).toBe(true);
    same(many.join(" ") + " ZAZ xBAZ", many);
  });

  it("filters by three characters: a needle's first two are no hit, a two-character needle takes any third", () => {
    expect(same("reduce return resolve re_ REs", ["resolve"])).toEqual(["resolve@21"]);
    expect(same("reduce return resolve re_ REs", ["resolve", "re"])).toEqual([
      "reduce@6",
      "return@13",
      "resolve@21",
      "re_@25",
      "REs@29",
    ]);
    // More than MAX_OPENINGS distinct three-character openings, two two-character ones: filtered by two, still taken.
    const thirds = "abcdefghijklmnopqrstuvwxyz0123456789_$";
    const many = ["ab", "ac"].flatMap((two) => [...thirds].map((c) => `${two}${c}x`));
    expect(many.length).toBeGreaterThan(MAX_OPENINGS);
    expect(takes(many)).toBe(true);
    expect(same(`${many.join(" ")} ABZY xACZX`, many)).toEqual([
      ...many.map((n, i) => `${n}@${5 * i + 4}`),
      `xACZX@${5 * many.length + 10}`,
    ]);
  });

  it("gives each needle set's own hits when sets alternate (one compiled scan per set of openings)", () => {
    const text = "typeRoots compilerOptions missingType name";
    for (let round = 0; round < 3; round++) {
      expect(same(text, ["type", "roots"])).toEqual(["typeRoots@9", "missingType@37"]);
      expect(same(text, ["compiler", "name"])).toEqual(["compilerOptions@25", "name@42"]);
    }
  });

  it("agrees on random texts of letters of both cases, `_`, `$`, digits, and bytes that fold into them", () => {
    let seed = 7;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    const alphabet = "aAbB_$1 \x04\x7f@`\xe1\xc1.\n";
    const needleAlphabet = "ab_$1";
    for (let round = 0; round < 400; round++) {
      const text = Array.from({ length: random(200) }, () => alphabet[random(alphabet.length)]).join("");
      const needles = Array.from({ length: 1 + random(4) }, () =>
        Array.from({ length: 2 + random(3) }, () => needleAlphabet[random(needleAlphabet.length)]).join(""),
      );
      same(text, needles);
      same(text.replace(/\xe1/g, "\u0161"), needles, false);
    }
  });
});

describe("fileWords' watch for a private key block's text (keyTextWatch)", () => {
  /** What a watching (or not) fileWords says of `text` for `needles`: 0 not known, 1 no " KE", 2 " KE" met. */
  function seen(text: string, needles: string[], watch = true): number {
    keyTextWatch.watch = watch;
    try {
      words(text, needles, true, false);
      return keyTextWatch.seen;
    } finally {
      keyTextWatch.watch = false;
    }
  }

  it('notes " KE" anywhere in the text, also right after a word it found and jumped to the end of', () => {
    expect(seen("-----BEGIN RSA PRIVATE KEY-----\nMIIE", ["private"])).toBe(2);
    expect(seen("-----BEGIN RSA PRIVATE KEY-----\nMIIE", ["rsa", "begin"])).toBe(2);
    expect(seen("const privateKey = loadKey(); // a private key", ["private", "key"])).toBe(1);
    expect(seen("x KE", ["ab"])).toBe(2);
    // At every offset in and across the 16-byte blocks, also after a found word that ends just before it.
    for (let n = 0; n < 40; n++) {
      expect(seen(`${"y".repeat(n)} KEY`, ["ab"]), `offset ${n}`).toBe(2);
      expect(seen(`${"ab".repeat(n + 1)} KEY`, ["ab"]), `after a word of ${2 * n + 2}`).toBe(2);
      expect(seen(`${"y".repeat(n)} kEY  K E`, ["ab"]), `offset ${n}`).toBe(1);
    }
  });

  it("starts again for each text and says 'not known' when it did not scan the whole text", () => {
    expect(seen("PRIVATE KEY", ["ab"])).toBe(2);
    expect(seen("no key here", ["ab"])).toBe(1);
    // Across the calls that resume past a full array of ends: met in the first call or in a later one.
    const many = "ab ".repeat(END_SLOTS + 10);
    expect(seen(`PRIVATE KEY ${many}`, ["ab"])).toBe(2);
    expect(seen(`${many}PRIVATE KEY`, ["ab"])).toBe(2);
    expect(seen(`${many}private key`, ["ab"])).toBe(1);
    // Not watched; the regular expression (a one-character needle); the per-file cap before the text's end.
    expect(seen("PRIVATE KEY", ["ab"], false)).toBe(0);
    expect(seen("PRIVATE KEY", ["a"])).toBe(0);
    const capped = Array.from({ length: MAX_WORDS_PER_FILE + 1 }, (_, i) => `ab${i}`).join(" ");
    expect(seen(`${capped} no key`, ["ab"])).toBe(0);
    expect(seen(`${capped.slice(0, 4000)} no key`, ["ab"])).toBe(1);
  });
});
