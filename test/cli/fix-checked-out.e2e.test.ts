import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, demoRepo, git, GUARD_ISSUE } from "./helpers.js";

// A user checks out groundfix's branch to try the fix, then runs `fix` again (fresh-user trial, session 8): the
// branch is HEAD, so it is the base, and moving it would leave the checkout's files and index behind the ref.
describe("fix never moves a branch that is checked out", () => {
  it("run again from groundfix's checked-out branch: held, branch, files and index untouched", () => {
    const { dir } = demoRepo();
    const run = (...extra: string[]) => cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE, "--json", ...extra]);
    const first = JSON.parse(run().stdout);
    expect(first.status).toBe("pr_ready");
    git(dir, "checkout", "-q", first.branch);
    for (const extra of [[], ["--force"]]) {
      const again = run(...extra);
      expect(again.code).toBe(0);
      const doc = JSON.parse(again.stdout);
      expect(doc).toMatchObject({ status: "held", branch: null, head_sha: null, held_branch: first.branch });
      expect(doc.delivery).toBe(
        `branch ${first.branch} is checked out in ${realpathSync(dir)}; left untouched (moving it would leave ` +
          "that checkout's files and index behind); switch it to another branch and run again",
      );
      expect(git(dir, "rev-parse", `refs/heads/${first.branch}`)).toBe(first.head_sha);
      expect(git(dir, "status", "--porcelain")).toBe("");
    }
    // and the user can leave the branch as usual
    git(dir, "checkout", "-q", "-");
  });

  it("--force from the main checkout does not move the branch checked out in a linked worktree", () => {
    const { dir } = demoRepo();
    const run = (...extra: string[]) => cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE, "--json", ...extra]);
    const first = JSON.parse(run().stdout);
    expect(first.status).toBe("pr_ready");
    const linked = join(realpathSync(mkdtempSync(join(tmpdir(), "groundfix-linked-"))), "wt");
    git(dir, "worktree", "add", "-q", linked, first.branch);
    // The base moves on, so the branch is on another base: --force would replace it.
    git(dir, "commit", "-q", "--allow-empty", "-m", "next");
    const forced = JSON.parse(run("--force").stdout);
    expect(forced).toMatchObject({ status: "held", held_branch: first.branch });
    expect(forced.delivery).toMatch(
      new RegExp(`^branch \\S+ is checked out in ${linked.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")};`),
    );
    expect(git(dir, "rev-parse", `refs/heads/${first.branch}`)).toBe(first.head_sha);
    expect(git(linked, "status", "--porcelain")).toBe("");
  });
});
