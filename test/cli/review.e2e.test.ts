import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, demoRepo, git } from "./helpers.js";

describe("groundfix review (built CLI)", () => {
  it("says when the head is the base itself: nothing was compared (a fresh user's report)", () => {
    const { dir } = demoRepo();
    const same = cli(["review", "--repo", dir, "--base", "HEAD", "--head", "HEAD"]);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/^Head\s+[0-9a-f]{12} \(the base itself: no changes to review\)$/m);
  });

  it("passes a small addition and fails a commit that adds a secret, with the finding's path:line", () => {
    const { dir, base } = demoRepo();
    const original = git(dir, "show", "HEAD:services/audit.js");
    writeFileSync(
      join(dir, "services/audit.js"),
      original.replace("// Record the outcome", "// Called once per import run.\n// Record the outcome") + "\n",
    );
    git(dir, "commit", "-q", "-am", "comment");
    const benign = git(dir, "rev-parse", "HEAD");
    const key = "AKIA" + "ABCDEFGHIJKLMNOP";
    writeFileSync(join(dir, "services/keys.js"), `'use strict';\n\nmodule.exports = { awsKey: '${key}' };\n`);
    git(dir, "add", "services/keys.js");
    git(dir, "commit", "-q", "-m", "keys");

    const ok = cli(["review", "--repo", dir, "--base", base, "--head", benign, "--json"]);
    expect(ok.code).toBe(0);
    const okDoc = JSON.parse(ok.stdout);
    expect(okDoc).toMatchObject({ base_sha: base, head_sha: benign, conclusion: "success" });
    expect(okDoc.findings.filter((f: { level: string }) => f.level === "failure")).toEqual([]);

    const bad = cli(["review", "--repo", dir, "--base", benign, "--head", "HEAD", "--json"]);
    expect(bad.code).toBe(0); // the run completed; the conclusion carries the verdict
    const badDoc = JSON.parse(bad.stdout);
    expect(badDoc.conclusion).toBe("failure");
    expect(badDoc.findings).toEqual(
      expect.arrayContaining([expect.objectContaining({ rule: "secrets", path: "services/keys.js", start_line: 3 })]),
    );
    expect(JSON.stringify(badDoc)).not.toContain(key); // a finding names the secret kind, never the secret

    // --exit-code, like git diff --exit-code: 1 for a failing review, 0 for a passing one.
    const failing = cli(["review", "--repo", dir, "--base", benign, "--head", "HEAD", "--json", "--exit-code"]);
    expect(failing.code).toBe(1);
    expect(failing.stderr).toBe("");
    expect(JSON.parse(failing.stdout).conclusion).toBe("failure");
    expect(cli(["review", "--repo", dir, "--base", base, "--head", benign, "--exit-code"]).code).toBe(0);
    expect(cli(["review", "--help"]).stdout).toMatch(/--exit-code\s+exit with 1 when the conclusion is failure/);

    const text = cli(["review", "--repo", dir, "--base", benign, "--head", "HEAD"]);
    expect(text.stdout).toMatch(/Review\s+failure/);
    expect(text.stdout).toMatch(/secrets services\/keys\.js:3/);
  });

  it("reviews a branch from the merge-base with --base (a newer --base commit is no removal), --direct as is", () => {
    const { dir, base } = demoRepo();
    git(dir, "checkout", "-q", "-b", "feature");
    const audit = git(dir, "show", "HEAD:services/audit.js");
    writeFileSync(join(dir, "services/audit.js"), audit.replace("// Record", "// Once per run.\n// Record") + "\n");
    git(dir, "commit", "-q", "-am", "comment");
    const feature = git(dir, "rev-parse", "HEAD");
    git(dir, "checkout", "-q", "main");
    writeFileSync(join(dir, "index.js"), git(dir, "show", "HEAD:index.js") + "\nconsole.log('started');\n");
    git(dir, "commit", "-q", "-am", "main moves on");
    const main = git(dir, "rev-parse", "HEAD");

    const doc = JSON.parse(cli(["review", "--repo", dir, "--base", "main", "--head", "feature", "--json"]).stdout);
    expect(doc).toMatchObject({
      base_sha: base, // git merge-base main feature
      given_base_sha: main,
      head_sha: feature,
      compared: "merge-base",
      conclusion: "success",
      findings: [],
    });
    const text = cli(["review", "--repo", dir, "--base", "main", "--head", "feature"]).stdout;
    expect(text.split("\n")[0]).toBe(
      `Base      ${base.slice(0, 12)} (merge-base of main and feature; main is at ${main.slice(0, 12)})`,
    );

    // --direct: main's new line reads as removed by the branch, as in git diff main feature.
    const direct = cli(["review", "--repo", dir, "--base", "main", "--head", "feature", "--direct", "--json"]);
    expect(JSON.parse(direct.stdout)).toMatchObject({ base_sha: main, compared: "direct", conclusion: "failure" });
    expect(JSON.parse(direct.stdout).findings).toEqual([
      expect.objectContaining({ rule: "edit_policy", path: "index.js", level: "failure" }),
    ]);

    // No common history: one line saying so, exit 2.
    git(dir, "checkout", "-q", "--orphan", "alone");
    git(dir, "commit", "-q", "-m", "unrelated");
    const none = cli(["review", "--repo", dir, "--base", "main", "--head", "alone"]);
    expect({ code: none.code, stdout: none.stdout }).toEqual({ code: 2, stdout: "" });
    expect(none.stderr).toBe(
      "groundfix: review: main and alone have no common history (no merge-base); " +
        "pass --direct to compare the two commits as they are\n",
    );
  });
});
