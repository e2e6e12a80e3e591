import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, demoRepo, EXAMPLES, git } from "./helpers.js";

const ISSUE = join(EXAMPLES, "demo-issue.md");
const CONFAB = join(EXAMPLES, "transcripts", "confabulating.json");

describe("groundfix fix (built CLI, end to end)", () => {
  it("fixes the demo issue: JSON document, a branch whose only parent is the base, checkout untouched", () => {
    const { dir, base } = demoRepo();
    // A dirty working tree and a staged change must survive the run.
    writeFileSync(join(dir, "index.js"), "// my local edit\n");
    writeFileSync(join(dir, "README.md"), "# staged\n");
    git(dir, "add", "README.md");
    const before = { status: git(dir, "status", "--porcelain=v1"), head: git(dir, "symbolic-ref", "HEAD"), sha: git(dir, "rev-parse", "HEAD") };

    const r = cli(["fix", "--repo", dir, "--issue", ISSUE, "--json"]);
    expect(r.stderr).toBe(""); // stderr is not a TTY: no progress
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(Object.keys(doc)).toEqual(expect.arrayContaining(["status", "base_sha", "branch", "diagnosis", "edits", "review", "gates", "usage"]));
    expect(doc.status).toBe("pr_ready");
    expect(doc.base_sha).toBe(base);
    expect(doc.diagnosis.affected_file).toBe("models/ValidationLog.js");
    expect(doc.diagnosis.citations.length).toBeGreaterThan(0);
    for (const c of doc.diagnosis.citations) {
      expect(c.path).not.toMatch(/MasterBrand/);
      expect(c.start_line).toBeGreaterThanOrEqual(1);
      expect(c.end_line).toBeGreaterThanOrEqual(c.start_line);
    }
    const realFile = readFileSync(join(EXAMPLES, "demo-service", "models", "ValidationLog.js"), "utf8");
    expect(realFile).toContain(doc.diagnosis.root_cause_snippet);
    expect(doc.edits.length).toBeGreaterThan(0);
    expect(doc.edits[0]).toMatchObject({ path: "models/ValidationLog.js", kind: "addition" });
    expect(doc.edits[0].diff).toMatch(/^\+/m);
    expect(doc.review.conclusion).toBe("success");
    expect(Array.isArray(doc.review.findings)).toBe(true);
    expect(doc.gates).toMatchObject({ observations_stripped: 0 });
    expect(doc.usage.model_calls).toBeGreaterThan(0);
    expect(doc.usage.tool_calls).toBeGreaterThan(0);

    // The branch: one new commit whose only parent is the base, holding exactly the edited file.
    expect(doc.branch).toMatch(/^groundfix\/[a-z0-9-]+$/);
    const head = git(dir, "rev-parse", `refs/heads/${doc.branch}`);
    expect(doc.head_sha).toBe(head);
    expect(git(dir, "rev-list", "--parents", "-n", "1", head)).toBe(`${head} ${base}`);
    expect(git(dir, "diff", "--name-only", base, head)).toBe("models/ValidationLog.js");
    // The user's checkout is exactly as it was.
    expect({ status: git(dir, "status", "--porcelain=v1"), head: git(dir, "symbolic-ref", "HEAD"), sha: git(dir, "rev-parse", "HEAD") }).toEqual(before);
    expect(readFileSync(join(dir, "index.js"), "utf8")).toBe("// my local edit\n");

    // A rerun of the same issue reuses the branch instead of stacking a second commit.
    const again = JSON.parse(cli(["fix", "--repo", dir, "--issue", ISSUE, "--json"]).stdout);
    expect(again).toMatchObject({ branch: doc.branch, head_sha: head, branch_reused: true });
  });

  it("prints a readable report with path:line citations and the diff", () => {
    const { dir } = demoRepo();
    const r = cli(["fix", "--repo", dir, "--issue-text", readFileSync(ISSUE, "utf8")]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Outcome\s+pr_ready/);
    expect(r.stdout).toMatch(/models\/ValidationLog\.js:\d+/);
    expect(r.stdout).toMatch(/^\s+\+/m);
    expect(r.stdout).toMatch(/Review\s+success/);
    expect(r.stdout).not.toContain("\u001b["); // no colour when stdout is not a TTY
  });

  it("stops the confabulating replay with gates: no branch, the rejections listed, --trace and --record written", () => {
    const { dir } = demoRepo();
    const trace = join(dir, "..", `trace-${Date.now()}.json`);
    const record = join(dir, "..", `record-${Date.now()}.json`);
    const r = cli(["fix", "--repo", dir, "--issue", "-", "--model", `replay:${CONFAB}`, "--json", "--trace", trace, "--record", record], {
      input: readFileSync(ISSUE, "utf8"),
    });
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.status).not.toBe("pr_ready");
    expect(doc.branch).toBeNull();
    expect(doc.edits).toEqual([]);
    expect(doc.review).toBeNull();
    const gates = doc.gates.rejections.map((x: { gate: string }) => x.gate);
    expect(gates).toContain("tool_name"); // answered after only describe_repo + list_files
    expect(gates).toContain("verbatim_edit"); // code_before never in the file (before and after reading it)
    expect(gates).toContain("claims"); // the invented snippet is not in the cited decoy
    expect(doc.gates.observations_stripped).toBeGreaterThan(0);
    expect(git(dir, "branch", "--list", "groundfix/*")).toBe("");
    const savedTrace = JSON.parse(readFileSync(trace, "utf8"));
    expect(savedTrace.steps.length).toBeGreaterThan(1);
    const savedRecord = JSON.parse(readFileSync(record, "utf8"));
    expect(savedRecord.turns[0].tool_calls.map((c: { name: string }) => c.name)).toEqual(["describe_repo", "list_files"]);
  });
});
