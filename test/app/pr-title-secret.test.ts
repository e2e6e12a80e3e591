import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { labeledIssue, startApp } from "./harness.js";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});

// End to end through the faked GitHub: a hostile model's summary carries a token split by a zero-width space.
const TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
describe("the pull request title from a hostile summary", () => {
  it("never carries a token the summary split with U+200B", async () => {
    const dir = mkdtempSync(join(tmpdir(), "groundfix-replay-"));
    const file = join(dir, "leak.json");
    const split = TOKEN.slice(0, 8) + "\u200b" + TOKEN.slice(8);
    writeFileSync(
      file,
      JSON.stringify({
        turns: [
          { tool_calls: [{ name: "get_file_contents", arguments: { path: "src/cart.js" } }] },
          {
            tool_calls: [
              {
                name: "suggest_addition",
                arguments: {
                  path: "src/cart.js",
                  code_before: "  for (const item of items) {\n    sum += item.price * item.qty;\n",
                  code_after:
                    "  for (const item of items) {\n    if (!item) throw new TypeError('total: " +
                    "an item is undefined');\n    sum += item.price * item.qty;\n",
                  rationale: "An undefined item crashes the loop.",
                },
              },
            ],
          },
          {
            tool_calls: [
              {
                name: "submit_answer",
                arguments: {
                  summary: `total reads item.price of an undefined item with ${split} in scope`,
                  affected_file: "src/cart.js",
                  affected_function: "total",
                  root_cause_snippet: "    sum += item.price * item.qty;",
                  confidence: 0.95,
                },
              },
            ],
          },
        ],
      }),
    );
    app = await startApp({}, { GROUNDFIX_MODEL: `replay:${file}` });
    await app.receive("issues", labeledIssue());
    expect(app.fake.state.pulls).toHaveLength(1);
    expect(app.fake.state.pulls[0]!.title).not.toContain(TOKEN);
    // The title names the change from the edit's code; no summary text reaches it.
    expect(app.fake.state.pulls[0]!.title).toBe("groundfix: guard item against a missing value in total()");
    expect(JSON.stringify(app.fake.state)).not.toContain(TOKEN);
  });
});
