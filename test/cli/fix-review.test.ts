/**
 * `groundfix fix` reviews the edits BEFORE it writes the branch: when the review rules fail them, the run ends as
 * `review_failed`, with the finding, and leaves no branch (the local host never writes a commit the review refused).
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFix } from "../../src/cli/fix.js";
import { fixToJson } from "../../src/cli/json.js";
import { makeRepo, sh } from "../host/local/git-repo.js";

const CART =
  "function total(items) {\n  let sum = 0;\n  for (const item of items) {\n    sum " +
  "+= item.price * item.qty;\n  }\n  return sum;\n}\n\nmodule.exports = { total };\n";

/** A replay model whose grounded addition imports a package the repository does not declare. */
function replay(): string {
  const file = join(mkdtempSync(join(tmpdir(), "groundfix-replay-")), "import.json");
  const edit = {
    path: "src/cart.js",
    code_before: "  let sum = 0;\n",
    code_after: '  let sum = 0;\n  const pad = require("left-pad");\n',
    rationale: "pad the log line",
  };
  const answer = {
    summary: "total() reads item.price of an undefined item.",
    affected_file: "src/cart.js",
    affected_function: "total",
    root_cause_snippet: "    sum += item.price * item.qty;",
    confidence: 0.95,
  };
  const turns = [
    { tool_calls: [{ name: "get_file_contents", arguments: { path: "src/cart.js" } }] },
    { tool_calls: [{ name: "suggest_addition", arguments: edit }] },
    { tool_calls: [{ name: "submit_answer", arguments: answer }] },
  ];
  writeFileSync(file, JSON.stringify({ turns }));
  return file;
}

describe("groundfix fix and a failing review", () => {
  it("reports review_failed with the finding and writes no branch", async () => {
    const { dir } = makeRepo({ "src/cart.js": CART, "package.json": '{"name":"shop","version":"1.0.0"}\n' });
    const report = await runFix({
      repoDir: dir,
      title: "Checkout crashes",
      body: "TypeError in total()",
      model: `replay:${replay()}`,
      env: {},
    });
    expect(report.result.outcome).toBe("pr_ready");
    expect(report.status).toBe("review_failed");
    expect(report.delivery).toBeNull();
    expect(report.review?.conclusion).toBe("failure");
    expect(report.review?.findings).toContainEqual(
      expect.objectContaining({ rule: "imports", path: "src/cart.js", level: "failure" }),
    );
    expect(sh(dir, "for-each-ref", "refs/heads/groundfix/")).toBe("");
    const doc = fixToJson(report);
    expect(doc).toMatchObject({
      status: "review_failed",
      branch: null,
      head_sha: null,
      review: { conclusion: "failure" },
    });
  });
});

describe("groundfix fix progress", () => {
  it("says each step once: `step N: tool → status`, never `step N: step N:`", async () => {
    const { dir } = makeRepo({ "src/cart.js": CART, "package.json": '{"name":"shop","version":"1.0.0"}\n' });
    const lines: string[] = [];
    await runFix({
      repoDir: dir,
      title: "Checkout crashes",
      body: "TypeError in total()",
      model: `replay:${replay()}`,
      env: {},
      onProgress: (line) => lines.push(line),
    });
    const steps = lines.filter((l) => /^step \d/.test(l));
    expect(steps).toEqual([
      "step 1: get_file_contents → ok",
      "step 2: suggest_addition → ok",
      "step 3: submit_answer → ok",
    ]);
  });
});
