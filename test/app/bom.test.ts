import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { labeledIssue, SHOP_FILES, startApp } from "./harness.js";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});

const BOM = "\uFEFF";

/**
 * End to end through the faked GitHub: src/cart.js starts with a UTF-8 byte-order mark and the model adds a line
 * before its line 1. The pull request's tree (Git Data API, `content` as a string) holds the base file with the line
 * after the BOM, the PR body's diff shows only that line, and the review check passes.
 */
describe("a pull request on a file that starts with a byte-order mark", () => {
  it("adds the line after the BOM, shows only the added line, passes its review", async () => {
    const cart = BOM + SHOP_FILES["src/cart.js"];
    const file = join(mkdtempSync(join(tmpdir(), "groundfix-replay-")), "bom.json");
    const added = "const EMPTY_TOTAL = 0;";
    const answer = {
      summary: "total reads item.price of an undefined item",
      affected_file: "src/cart.js",
      affected_function: "total",
      root_cause_snippet: "    sum += item.price * item.qty;",
      confidence: 0.95,
    };
    const edit = {
      path: "src/cart.js",
      code_before: "function total(items) {\n",
      code_after: `${added}\nfunction total(items) {\n`,
      rationale: "Name the total of no items.",
    };
    const turns = [
      { tool_calls: [{ name: "get_file_contents", arguments: { path: "src/cart.js" } }] },
      { tool_calls: [{ name: "suggest_addition", arguments: edit }] },
      { tool_calls: [{ name: "submit_answer", arguments: answer }] },
    ];
    writeFileSync(file, JSON.stringify({ turns }));
    app = await startApp({ files: { ...SHOP_FILES, "src/cart.js": cart } }, { GROUNDFIX_MODEL: `replay:${file}` });
    await app.receive("issues", labeledIssue());

    expect(app.fake.state.pulls).toHaveLength(1);
    const pr = app.fake.state.pulls[0]!;
    expect(app.fake.filesOf(pr.head)?.["src/cart.js"]?.content).toBe(`${BOM}${added}\n${SHOP_FILES["src/cart.js"]}`);
    const diff = /```diff\n([\s\S]*?)\n```/.exec(pr.body)?.[1] ?? "";
    expect(diff.split("\n").filter((l) => /^[+-](?![+-]{2} )/.test(l))).toEqual([`+${added}`]);
    expect(pr.body).not.toContain(BOM);
    const check = app.fake.state.checkRuns.find((c) => c.name === "groundfix/review");
    expect(check?.conclusion).toBe("success");
  });
});
