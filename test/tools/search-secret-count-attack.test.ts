import { describe, expect, it } from "vitest";
import { searchCodebase } from "../../src/tools/search.js";
import { makeContext } from "./fixture.js";

/** search_codebase's answer text for `query` over `files`. */
async function answer(files: Record<string, string>, query: string): Promise<string> {
  const ctx = await makeContext(files);
  return (await searchCodebase.run({ query }, ctx)).text;
}

describe("search_codebase gives no oracle on a secret's value", () => {
  // Two snapshots that differ only in a secret's value: a guess of the value must get the same answer from both.
  const files = (value: string) => ({
    "src/a.js": "const foo = 1;\nmodule.exports = { foo };\n",
    "src/db.js": `const password = "${value}";\nmodule.exports = { connect() {} };\n`,
  });

  it("names no file for a word that is only inside a secret", async () => {
    const right = await answer(files("Xq7hunter9Z"), "xq7hunter9z");
    const wrong = await answer(files("Xq7other99Z"), "xq7hunter9z");
    expect(right).toBe(wrong);
  });

  it.fails("(not fixed) counts the same N in 'Files (k of N matching)' whether the guess is right", async () => {
    // "hunter" is a token of the secret Xq7hunter9Z (its parts xq, hunter): right, "Files (1 of 2 matching)";
    // wrong, "Files (1 of 1 matching)"
    const right = await answer(files("Xq7hunter9Z"), "foo hunter");
    const wrong = await answer(files("Xq7other99Z"), "foo hunter");
    expect(right).toBe(wrong);
  });
});
