import { describe, expect, it } from "vitest";
import { searchCodebase } from "../../src/tools/search.js";
import { verifySymbolInRepo } from "../../src/tools/verify-symbol.js";
import { makeContext } from "./fixture.js";

/**
 * The secret oracle of search-secret-count-attack.test.ts, through two more doors: a query word that a path holds
 * (scored on the path field since 4edecde) and verify_symbol_in_repo's similar-name lookup (its `neighbourhood`
 * ranks files by the word pieces of their raw text). Two snapshots differ only in a secret's value: `right` holds
 * the guessed word ("hunter", in Xq_hunter_9Z), `wrong` another value of the same length. The answers must be the
 * same (until session 12 the word scan counted words only a secret holds).
 */
async function answers(
  files: (value: string) => Record<string, string>,
  run: (ctx: Awaited<ReturnType<typeof makeContext>>) => Promise<string>,
) {
  return {
    right: await run(await makeContext(files("Xq_hunter_9Z"))),
    wrong: await run(await makeContext(files("Xq_other9_9Z"))),
  };
}

const search = (query: string) => async (ctx: Awaited<ReturnType<typeof makeContext>>) =>
  (await searchCodebase.run({ query }, ctx)).text;

describe("attacker: a secret's value is not confirmed through paths or similar names", () => {
  it("a word a path holds and a secret holds: the count of matching files is the path's only", async () => {
    // Was: right "Files (1 of 2 matching)" (db.js counted for "hunter" in its password), wrong "(1 of 1 …)".
    const { right, wrong } = await answers(
      (v) => ({ "src/hunter/index.js": "module.exports = {};\n", "src/db.js": `const password = "${v}";\n` }),
      search("hunter"),
    );
    expect(right).toContain("Files (1 of 1 matching)");
    expect(right).toBe(wrong);
  });

  it("a path token a query word starts: expanded the same whether a secret holds the word", async () => {
    // The path holds "hunters"; "hunter" only the secret. Was: right, "hunter" present (not expanded, db.js counted),
    // wrong, expanded to the path's "hunters".
    const { right, wrong } = await answers(
      (v) => ({ "src/hunters/index.js": "module.exports = {};\n", "src/db.js": `const password = "${v}";\n` }),
      search("hunter"),
    );
    expect(right).toBe(wrong);
  });

  it("verify_symbol_in_repo lists the same similar names whether a secret holds the name's words", async () => {
    // 200 files use loadHunt (the pieces load, loa, dhu of "loadhunter"); src/z.js defines loadHuntr (distance 1)
    // and holds the secret. With "hunter" in it, z.js holds 5 of the 6 pieces and ranks among the 200 files whose
    // names are looked at (SIMILAR_FILES, verify-symbol.ts), so loadHuntr is listed; without, it ties the others and
    // comes last (path order). Was: right lists "loadHuntr", wrong does not.
    const files = (v: string) => {
      const out: Record<string, string> = {};
      for (let i = 0; i < 200; i++) out[`src/a${String(i).padStart(3, "0")}.js`] = "x = loadHunt;\n";
      out["src/z.js"] = `function loadHuntr() {}\nconst password = "${v}";\n`;
      return out;
    };
    const { right, wrong } = await answers(files, async (ctx) => {
      return (await verifySymbolInRepo.run({ name: "loadHunter" }, ctx)).text;
    });
    expect(wrong).not.toContain("loadHuntr");
    expect(right).toBe(wrong);
  });
});
