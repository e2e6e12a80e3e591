import { chownSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, demoRepo, git, GUARD_ISSUE } from "./helpers.js";

/** Exit 2, nothing on stdout, exactly `line` (or a line matching it) as the only line on stderr. */
function expectLine(r: { code: number | null; stdout: string; stderr: string }, line: string | RegExp) {
  expect(r.stdout).toBe("");
  expect(r.stderr.endsWith("\n")).toBe(true);
  expect(r.stderr.trimEnd().split("\n")).toHaveLength(1);
  if (typeof line === "string") expect(r.stderr.trimEnd()).toBe(line);
  else expect(r.stderr.trimEnd()).toMatch(line);
  expect(r.code).toBe(2);
}

describe("--repo that git cannot work in: one line naming the path, what it is, and what to do", () => {
  const { dir } = demoRepo();
  const root = mkdtempSync(join(tmpdir(), "groundfix-repo-path-"));
  const file = join(root, "notes.txt");
  writeFileSync(file, "hello\n");
  const fix = (repo: string, env: NodeJS.ProcessEnv = {}) =>
    cli(["fix", "--repo", repo, "--issue-text", GUARD_ISSUE], { env });

  it("a file is a file, not 'not a git repository'; inside a checkout, the checkout is named", () => {
    expectLine(fix(file), `groundfix: ${file} is a file, not a folder (give the folder of a git checkout)`);
    const inRepo = join(dir, "index.js");
    expectLine(fix(inRepo), `groundfix: ${inRepo} is a file, not a folder (give the checkout it is in: --repo ${dir})`);
    const below = join(file, "x");
    expectLine(fix(below), `groundfix: ${below} does not exist: ${file} is a file, not a folder`);
    expectLine(
      cli(["review", "--repo", file, "--base", "HEAD", "--head", "HEAD"]),
      `groundfix: ${file} is a file, not a folder (give the folder of a git checkout)`,
    );
  });

  it("a missing path, a link to nothing, an empty --repo", () => {
    const missing = join(root, "nope", "deeper");
    expectLine(fix(missing), `groundfix: ${missing} does not exist (give the folder of a git checkout)`);
    const dangling = join(root, "dangling");
    symlinkSync(join(root, "gone"), dangling);
    expectLine(
      fix(dangling),
      `groundfix: ${dangling} is a symbolic link to ${join(root, "gone")}, which does not exist ` +
        "(give the folder of a git checkout)",
    );
    // Before: git -C "" is the current directory, so fix ran on whatever checkout the shell was in.
    expectLine(fix(""), "groundfix: fix: --repo is empty (give the folder of a git checkout, e.g. --repo .)");
    expectLine(
      cli(["review", "--repo=", "--base", "HEAD", "--head", "HEAD"]),
      "groundfix: review: --repo is empty (give the folder of a git checkout, e.g. --repo .)",
    );
  });

  it("a folder that is no repository, a .git folder, a repository without commits", () => {
    const plain = join(root, "plain");
    mkdirSync(plain);
    expectLine(
      fix(plain),
      `groundfix: ${plain} is not a git repository, nor inside one ` +
        "(give the folder of a git checkout, or run git init there)",
    );
    for (const inside of [join(dir, ".git"), join(dir, ".git", "refs")]) {
      expectLine(
        fix(inside),
        `groundfix: ${inside} is inside a repository's .git folder, not a checkout ` +
          `(give the checkout's folder: --repo ${dir})`,
      );
    }
    const bare = join(root, "empty.git");
    git(root, "init", "-q", "--bare", bare);
    expectLine(fix(bare), `groundfix: repository ${bare} has no commits yet (commit a file first)`);
  });

  it("a bare repository with commits is a repository: the run reads its commit", () => {
    const bare = join(root, "full.git");
    git(root, "clone", "-q", "--bare", dir, bare);
    const r = cli(["fix", "--repo", bare, "--issue-text", GUARD_ISSUE, "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).base_sha).toBe(git(dir, "rev-parse", "HEAD"));
  });

  it("git not on PATH is said as such, not as an internal error", () => {
    expectLine(
      fix(dir, { PATH: join(root, "no-bin") }),
      "groundfix: git is not installed or not on PATH (groundfix reads the repository with it)",
    );
  });

  it.runIf(process.getuid?.() === 0)("a checkout owned by another user: git's safe.directory remedy", () => {
    const other = join(root, "other");
    git(root, "clone", "-q", dir, other);
    for (const p of [other, join(other, ".git")]) chownSync(p, 65534, 65534); // nobody
    expectLine(
      fix(other),
      `groundfix: git refuses to work in ${other}: it is owned by another user (git's "dubious ownership"); ` +
        `if you trust it, run git config --global --add safe.directory ${other}`,
    );
  });
});
