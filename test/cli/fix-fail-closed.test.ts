/**
 * `groundfix fix` fails closed like the App: an edit the agent applied is never written to a branch when the run then
 * fails, or when its answer's claims stay unverified. Replay models play the attacker that edits first and answers
 * badly (or never); the repository is a temporary git checkout.
 */
import { describe, expect, it } from "vitest";
import { runFix } from "../../src/cli/fix.js";
import { fixToJson } from "../../src/cli/json.js";
import { answer, EDIT, READ, transcript } from "../fixtures/fail-closed-calls.js";
import { makeRepo, sh } from "../host/local/git-repo.js";

const CART =
  "function total(items) {\n  let sum = 0;\n  for (const item of items) {\n    sum " +
  "+= item.price * item.qty;\n  }\n  return sum;\n}\n\nmodule.exports = { total };\n";

async function fix(calls: unknown[], config?: string) {
  const files: Record<string, string> = { "src/cart.js": CART, "package.json": '{"name":"shop","version":"1.0.0"}\n' };
  if (config !== undefined) files[".github/groundfix.yml"] = config;
  const { dir } = makeRepo(files);
  const report = await runFix({
    repoDir: dir,
    title: "Checkout crashes",
    body: "TypeError: Cannot read properties of undefined (reading 'price')\n    at total (src/cart.js:4:16)",
    model: transcript(calls.map((call) => ({ tool_calls: [call] }))),
    env: {},
  });
  return { report, branches: sh(dir, "for-each-ref", "--format=%(refname)", "refs/heads/groundfix/") };
}

describe("groundfix fix writes no branch when the run fails closed", () => {
  it("the step budget runs out after an applied edit: failed_closed, no edit reported, no branch", async () => {
    const { report, branches } = await fix([READ, EDIT, READ, READ], "agent:\n  max_steps: 3\n");
    expect(report.result.outcome).toBe("failed_closed");
    expect(report.status).toBe("failed_closed");
    expect(report.result.edits).toEqual([]);
    expect(report.delivery).toBeNull();
    expect(branches).toBe("");
    expect(fixToJson(report)).toMatchObject({ status: "failed_closed", branch: null, head_sha: null });
  });

  it("claims that stay unverified never make pr_ready, even with both thresholds at 0: no branch", async () => {
    const wrong = "  sum += item.cost * item.qty;";
    const { report, branches } = await fix(
      [READ, EDIT, answer(wrong), answer(wrong), answer(wrong)],
      "thresholds:\n  comment: 0\n  pull_request: 0\n",
    );
    expect(report.status).not.toBe("pr_ready");
    expect(report.result.outcome).not.toBe("pr_ready");
    expect(report.result.diagnosis?.root_cause_snippet ?? null).toBeNull();
    expect(report.delivery).toBeNull();
    expect(branches).toBe("");
  });

  it("the same edit with a verified answer is written (the tests above fail for the right reason)", async () => {
    const { report, branches } = await fix([READ, EDIT, answer("    sum += item.price * item.qty;")]);
    expect(report.status).toBe("pr_ready");
    expect(report.delivery?.branch).toMatch(/^groundfix\//);
    expect(branches).toBe(`refs/heads/${report.delivery!.branch}`);
  });
});
