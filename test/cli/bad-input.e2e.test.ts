import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, demoRepo, git } from "./helpers.js";

/** Exit 2, nothing on stdout, exactly one line on stderr matching `reason`. */
function expectBadInput(r: { code: number | null; stdout: string; stderr: string }, reason: RegExp) {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^groundfix: /);
  expect(lines[0]).toMatch(reason);
}

describe("groundfix bad input (built CLI): exit 2 with one clear line", () => {
  const { dir } = demoRepo();
  const text = ["--issue-text", "TypeError in models/ValidationLog.js"];

  it("not a git repository", () => {
    const plain = mkdtempSync(join(tmpdir(), "groundfix-plain-"));
    expectBadInput(cli(["fix", "--repo", plain, ...text]), /is not a git repository/);
    expectBadInput(cli(["fix", "--repo", join(plain, "missing"), ...text]), /is not a git repository/);
  });

  it("unknown ref", () => {
    expectBadInput(cli(["fix", "--repo", dir, "--ref", "no-such-branch", ...text]), /unknown revision "no-such-branch"/);
    expectBadInput(cli(["review", "--repo", dir, "--base", "HEAD", "--head", "nope"]), /unknown revision "nope"/);
  });

  it("unreadable issue file", () => {
    expectBadInput(cli(["fix", "--repo", dir, "--issue", join(dir, "missing.md")]), /cannot read issue file .*missing\.md: no such file/);
    expectBadInput(cli(["fix", "--repo", dir, "--issue", dir]), /cannot read issue file .*: is a directory/);
  });

  it("unknown model spec", () => {
    expectBadInput(cli(["fix", "--repo", dir, ...text, "--model", "gpt-banana"]), /gpt-banana/);
    expectBadInput(cli(["fix", "--repo", dir, ...text, "--model", "replay:/no/such/transcript.json"]), /transcript/);
  });

  it("unknown flag, missing --issue, unknown command", () => {
    expectBadInput(cli(["fix", "--repo", dir, ...text, "--colour"]), /--colour/);
    expectBadInput(cli(["fix", "--repo", dir]), /missing --issue/);
    expectBadInput(cli(["frobnicate"]), /unknown command "frobnicate"/);
    expectBadInput(cli(["review", "--repo", dir, "--base", "HEAD"]), /--head/);
  });

  it("leaves no branch behind after bad input", () => {
    expect(git(dir, "branch", "--list", "groundfix/*")).toBe("");
  });

  it("prints help with exit 0", () => {
    for (const args of [["--help"], ["fix", "--help"], ["review", "-h"], ["serve", "--help"]]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Usage:/);
    }
  });
});
