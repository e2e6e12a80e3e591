import { describe, expect, it } from "vitest";
import { searchTokens } from "../../src/tools/search-index.js";
import { identifierWords, searchTokenCount } from "../../src/tools/symbol-index.js";

/** A generator of strings (a fixed seed): identifiers with humps, digits, `_`/`$`, and other characters between. */
function names(seed: number, count: number): string[] {
  let s = seed;
  const next = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32;
  };
  const pieces = [
    "a",
    "b",
    "Z",
    "HTTP",
    "Server",
    "x",
    "1",
    "42",
    "_",
    "$",
    "__",
    ".",
    "-",
    "#",
    " ",
    ":",
    "é",
    "\u2028",
  ];
  return Array.from({ length: count }, () => {
    let out = "";
    const n = Math.floor(next() * 12);
    for (let i = 0; i < n; i++) out += pieces[Math.floor(next() * pieces.length)];
    return out;
  });
}

describe("searchTokenCount", () => {
  it("is the number of searchTokens of names of every shape (20,000 generated)", () => {
    for (const name of names(7, 20_000))
      expect(searchTokenCount(name), JSON.stringify(name)).toBe(searchTokens(name).length);
  });

  it("counts the whole word and its parts of two or more letters", () => {
    expect(searchTokens("parseHTTPServer")).toEqual(["parsehttpserver", "parse", "http", "server"]);
    expect(searchTokenCount("parseHTTPServer")).toBe(4);
    expect(identifierWords("x1")).toEqual(["x", "1"]);
    expect(searchTokenCount("x1")).toBe(1);
    expect(searchTokenCount("get_user_name")).toBe(4);
    expect(searchTokenCount("__init__")).toBe(1);
    expect(searchTokenCount("a")).toBe(0);
    expect(searchTokenCount("Program:exit")).toBe(2);
    expect(searchTokenCount("")).toBe(0);
  });
});
