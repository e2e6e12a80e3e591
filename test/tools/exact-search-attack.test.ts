import { describe, expect, it } from "vitest";
import { exactSearch } from "../../src/tools/symbol-index.js";

/**
 * Attack on verify's exactSearch (src/tools/symbol-index.ts): it must find exactly what `indexOf` finds, from every
 * start, for hostile words and texts (characters outside its frequency table, surrogate pairs, NUL, CR, a word whose
 * rare character repeats, overlapping occurrences, a start past the end or inside an occurrence).
 */
describe("attacker: exactSearch is indexOf", () => {
  it("on 3,000 random words and texts over hostile alphabets", () => {
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const wrong: string[] = [];
    const alphabets = ["ab", "aZ$_", "eQ\u0000\r\n", "x😀y", "éE\u00ff", "Nme", "zzzzzzzQ"];
    for (let k = 0; k < 3000; k++) {
      const alpha = [...(alphabets[k % alphabets.length] as string)];
      const pick = () => alpha[rand(alpha.length)] as string;
      const word = Array.from({ length: 1 + rand(12) }, pick).join("");
      const text = Array.from({ length: rand(80) }, () => (rand(5) === 0 ? word : pick())).join("");
      const find = exactSearch(word);
      for (let from = 0; from <= text.length + 1; from++) {
        if (find(text, from) !== text.indexOf(word, from)) wrong.push(JSON.stringify({ word, text, from }));
      }
    }
    expect(wrong.slice(0, 3)).toEqual([]);
  });
});
