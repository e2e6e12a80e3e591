import { describe, expect, it } from "vitest";
import { searchCodebase } from "../../src/tools/search.js";
import { makeContext } from "./fixture.js";

/**
 * More attacks on search_codebase's secret oracle (see search-secret-count-attack.test.ts): two snapshots that
 * differ only in a secret's value must give the same answer text for any query (counts, order, expansions, symbols,
 * the "no match" text), whatever the secret's shape, length, file or line endings.
 */
async function answer(files: Record<string, string>, query: string): Promise<string> {
  const ctx = await makeContext(files);
  return (await searchCodebase.run({ query }, ctx)).text;
}

/** Both answers for `query`, over `files(right)` and `files(wrong)`. */
async function pair(files: (v: string) => Record<string, string>, right: string, wrong: string, query: string) {
  return [await answer(files(right), query), await answer(files(wrong), query)] as const;
}

const code = (value: string, eol = "\n") =>
  ({
    "src/a.js": ["function loadUser(id) {", "  return id;", "}", "module.exports = { loadUser };", ""].join(eol),
    "src/db.js": [`const password = "${value}";`, "function connect() {}", "module.exports = { connect };", ""].join(
      eol,
    ),
  }) as Record<string, string>;

describe("attacker: search_codebase answers the same whatever a secret's value", () => {
  it("a whole-word guess of the value, alone: the 'no match' text is the same", async () => {
    const [r, w] = await pair(code, "Xq7hunter9Z", "Xq7other99Z", "Xq7hunter9Z");
    expect(r).toBe(w);
  });

  it("a value of another length: snippets and line numbers are the same", async () => {
    const [r, w] = await pair(code, "Xq7hunter9Z", "Xq7hunter9Zlonger_by_far_0000", "connect password");
    expect(r).toBe(w);
  });

  it("a CRLF file, a value with non-ASCII letters", async () => {
    const crlf = (v: string) => code(v, "\r\n");
    const [r, w] = await pair(crlf, "Xq7hunter9Z", "Xq7other99Z", "Xq7hunter9Z connect");
    expect(r).toBe(w);
    const [r2, w2] = await pair(code, "Xq7hünter9Z", "Xq7öther99Z", "hünter connect");
    expect(r2).toBe(w2);
  });

  it("a .env value guessed whole", async () => {
    const env = (v: string) => ({ ...code("x"), ".env.example": `API_TOKEN=${v}\nPORT=3000\n` });
    const [r, w] = await pair(
      env,
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "ghp_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789 PORT",
    );
    expect(r).toBe(w);
  });

  // The oracle helper's finding (see search-secret-count-attack.test.ts): "Files (1 of 2 matching)" was the answer
  // when the value held the guess's parts (load, user), "(1 of 1 matching)" when it did not.
  it("a camelCase guess whose parts are in the value: same answer (expansions, ranking)", async () => {
    const [r, w] = await pair(code, "loadUserSecret42", "zzzzzzzzzzzzzz42", "loadUserSecret");
    expect(r).toBe(w);
  });

  it("two files, one holding the guess inside a secret: the same order", async () => {
    const two = (v: string) => ({
      "src/a.js": "// hunter mode\nfunction hunt() {}\n",
      "src/b.js": "// hunter mode\nfunction hunt() {}\n",
      "src/db.js": `const password = "${v}";\n`,
    });
    const [r, w] = await pair(two, "Xq7hunter9Z", "Xq7other99Z", "hunter hunt");
    expect(r).toBe(w);
  });
});
