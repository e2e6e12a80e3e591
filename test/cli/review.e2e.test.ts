import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, demoRepo, git } from "./helpers.js";

describe("groundfix review (built CLI)", () => {
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
});
