import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deliverWithPlumbing } from "../../../src/host/local/commit.js";
import { LocalInputError } from "../../../src/host/local/errors.js";
import { makeRepo, sh } from "./git-repo.js";

const files = {
  "src/app.js": "const a = 1;\nmodule.exports = a;\n",
  "bin/run.sh": { content: "#!/bin/sh\necho run\n", mode: "100755" as const },
  "README.md": "# demo\n",
};

/** Everything a user would see of their checkout: branch, index, working tree status, HEAD. */
function userState(dir: string) {
  return {
    head: sh(dir, "rev-parse", "HEAD"),
    branch: sh(dir, "symbolic-ref", "HEAD"),
    status: sh(dir, "status", "--porcelain=v1", "--untracked-files=all"),
    staged: sh(dir, "diff", "--cached", "--name-status"),
    appOnDisk: readFileSync(join(dir, "src/app.js"), "utf8"),
  };
}

describe("deliverWithPlumbing", () => {
  it(
    "makes one commit on a new branch whose only parent " + "is the base and whose tree is base + changed files",
    async () => {
      const { dir, base } = makeRepo(files);
      const result = await deliverWithPlumbing(dir, {
        baseSha: base,
        branch: "groundfix/fix-a",
        message: "groundfix: log a\n\nbody line",
        files: [
          { path: "src/app.js", content: "const a = 1;\nconsole.log(a);\nmodule.exports = a;\n", mode: "100644" },
          { path: "bin/run.sh", content: "#!/bin/sh\necho run\necho done\n", mode: "100755" },
        ],
      });
      expect(result.kind).toBe("created");
      expect(sh(dir, "rev-parse", "refs/heads/groundfix/fix-a")).toBe(result.headSha);
      expect(sh(dir, "rev-list", "--parents", "-n", "1", result.headSha).split(" ")).toEqual([result.headSha, base]);
      expect(sh(dir, "log", "-1", "--format=%B", result.headSha)).toBe("groundfix: log a\n\nbody line");
      expect(sh(dir, "show", `${result.headSha}:src/app.js`)).toBe(
        "const a = 1;\nconsole.log(a);\nmodule.exports = a;",
      );
      expect(sh(dir, "diff", "--name-only", base, result.headSha).split("\n").sort()).toEqual([
        "bin/run.sh",
        "src/app.js",
      ]);
      const tree = sh(dir, "ls-tree", "-r", result.headSha);
      expect(tree).toMatch(/^100755 blob \w+\tbin\/run\.sh$/m);
      expect(tree).toMatch(/^100644 blob \w+\tREADME\.md$/m);
    },
  );

  it("keeps bytes exactly: CRLF, no final newline, unicode", async () => {
    const { dir, base } = makeRepo({ "a.txt": "x\r\n", ".gitattributes": "*.txt text eol=lf\n" });
    const content = "x\r\ny — é\r\nno newline";
    const { headSha } = await deliverWithPlumbing(dir, {
      baseSha: base,
      branch: "b",
      message: "m",
      files: [{ path: "a.txt", content, mode: "100644" }],
    });
    const blob = sh(dir, "rev-parse", `${headSha}:a.txt`);
    const bytes = (await import("node:child_process")).execFileSync("git", ["-C", dir, "cat-file", "blob", blob]);
    expect(bytes.equals(Buffer.from(content, "utf8"))).toBe(true);
  });

  it("never touches the working tree, the index or the current branch, even when they are dirty", async () => {
    const { dir, base } = makeRepo(files);
    writeFileSync(join(dir, "src/app.js"), "// local work in progress\n");
    writeFileSync(join(dir, "new.txt"), "untracked\n");
    writeFileSync(join(dir, "README.md"), "# staged change\n");
    sh(dir, "add", "README.md");
    const before = userState(dir);
    await deliverWithPlumbing(dir, {
      baseSha: base,
      branch: "groundfix/x",
      message: "m",
      files: [{ path: "src/app.js", content: "changed\n", mode: "100644" }],
    });
    expect(userState(dir)).toEqual(before);
  });

  /** One edit of README.md on `base` to branch `groundfix/x`, in a message with the run trailer. */
  const readmeEdit = (base: string) => ({
    baseSha: base,
    branch: "groundfix/x",
    message: `m1\n\nGroundfix-Run: r1`,
    files: [{ path: "README.md", content: "one\n", mode: "100644" as const }],
  });

  it("reuses an existing branch only when it holds exactly this commit (only parent = base, same tree)", async () => {
    const { dir, base } = makeRepo(files);
    const input = readmeEdit(base);
    const first = await deliverWithPlumbing(dir, input);
    expect(first.kind).toBe("created");
    // Same base, same content (another message): nothing written, the branch is reused as it is.
    expect(await deliverWithPlumbing(dir, { ...input, message: "other wording" })).toEqual({
      kind: "reused",
      branch: "groundfix/x",
      headSha: sh(dir, "rev-parse", "groundfix/x"),
    });
    expect(await deliverWithPlumbing(dir, input)).toEqual({
      kind: "reused",
      branch: "groundfix/x",
      headSha: sh(dir, "rev-parse", "groundfix/x"),
    });
  });

  it("never reuses someone else's commit that holds exactly this content: it is held like theirs", async () => {
    const { dir, base } = makeRepo(files);
    const input = readmeEdit(base);
    const first = await deliverWithPlumbing(dir, input);
    if (first.kind !== "created") throw new Error("expected a new branch");
    // Someone commits the same tree on the same base under their own name (the trailer copied) and points the
    // branch at it.
    const tree = sh(dir, "rev-parse", `${first.headSha}^{tree}`);
    const theirs = sh(
      dir,
      "-c",
      "user.name=Mallory",
      "-c",
      "user.email=m@example.com",
      "commit-tree",
      tree,
      "-p",
      base,
      "-m",
      "my wording\n\nGroundfix-Run: r1",
    );
    sh(dir, "update-ref", "refs/heads/groundfix/x", theirs);
    expect(await deliverWithPlumbing(dir, input)).toMatchObject({
      kind: "held",
      headSha: theirs,
      why: "other_commits",
      commits: [{ sha: theirs, subject: "my wording", ours: false }],
    });
    expect(sh(dir, "rev-parse", "groundfix/x")).toBe(theirs);
  });

  it(
    "leaves a branch holding other edits, another base or " +
      "someone's commits untouched without force, and says which",
    async () => {
      const { dir, base } = makeRepo(files);
      const edit = (content: string, baseSha = base) => ({
        baseSha,
        branch: "groundfix/x",
        message: `m\n\nGroundfix-Run: r1`,
        files: [{ path: "README.md", content, mode: "100644" as const }],
      });
      const first = await deliverWithPlumbing(dir, edit("one\n"));
      if (first.kind !== "created") throw new Error("expected a new branch");

      const otherEdits = await deliverWithPlumbing(dir, edit("two\n"));
      expect(otherEdits).toMatchObject({ kind: "held", why: "other_edits", headSha: first.headSha, count: 1 });

      // The base moved on (a new commit on main): the same edit on the new base is not what the branch holds.
      writeFileSync(join(dir, "new.txt"), "later\n");
      sh(dir, "add", "new.txt");
      sh(dir, "commit", "-q", "-m", "later");
      const newBase = sh(dir, "rev-parse", "HEAD");
      const moved = await deliverWithPlumbing(dir, edit("one\n", newBase));
      expect(moved).toMatchObject({ kind: "held", why: "other_base", headSha: first.headSha, headParent: base });

      // Someone committed on top of the groundfix commit.
      const tree = sh(dir, "rev-parse", `${first.headSha}^{tree}`);
      const human = sh(dir, "commit-tree", tree, "-p", first.headSha, "-m", "human follow-up");
      sh(dir, "update-ref", "refs/heads/groundfix/x", human);
      const theirs = await deliverWithPlumbing(dir, edit("one\n", newBase));
      expect(theirs).toMatchObject({ kind: "held", why: "other_commits", headSha: human, count: 2 });
      expect(theirs.kind === "held" && theirs.commits.map((c) => [c.subject, c.ours])).toEqual([
        ["human follow-up", false],
        ["m", true],
      ]);
      expect(sh(dir, "rev-parse", "groundfix/x")).toBe(human);
    },
  );

  it(
    "with force replaces the branch: a new commit on the new base; " +
      "someone's dropped commits are named and stay in the reflog",
    async () => {
      const { dir, base } = makeRepo(files);
      const edit = (content: string, baseSha: string, force = true) => ({
        baseSha,
        branch: "groundfix/x",
        message: `m\n\nGroundfix-Run: r1`,
        force,
        files: [{ path: "README.md", content, mode: "100644" as const }],
      });
      const first = await deliverWithPlumbing(dir, edit("one\n", base, false));
      if (first.kind !== "created") throw new Error("expected a new branch");
      writeFileSync(join(dir, "new.txt"), "later\n");
      sh(dir, "add", "new.txt");
      sh(dir, "commit", "-q", "-m", "later");
      const newBase = sh(dir, "rev-parse", "HEAD");

      // A groundfix commit on an older base: replaced, nothing foreign.
      const replaced = await deliverWithPlumbing(dir, edit("one\n", newBase));
      expect(replaced).toMatchObject({ kind: "replaced", previousSha: first.headSha, commits: [{ ours: true }] });
      if (replaced.kind !== "replaced") throw new Error("expected replaced");
      expect(sh(dir, "rev-list", "--parents", "-n", "1", "groundfix/x")).toBe(`${replaced.headSha} ${newBase}`);

      // Someone's commit on top: replaced, and the outcome names it.
      const tree = sh(dir, "rev-parse", `${replaced.headSha}^{tree}`);
      const human = sh(dir, "commit-tree", tree, "-p", replaced.headSha, "-m", "human follow-up");
      sh(dir, "update-ref", "refs/heads/groundfix/x", human);
      const again = await deliverWithPlumbing(dir, edit("two\n", newBase));
      expect(again).toMatchObject({ kind: "replaced", previousSha: human, count: 2 });
      expect(again.kind === "replaced" && again.commits.map((c) => [c.subject, c.ours])).toEqual([
        ["human follow-up", false],
        ["m", true],
      ]);
      expect(sh(dir, "show", "groundfix/x:README.md")).toBe("two");
      expect(sh(dir, "reflog", "--format=%H", "groundfix/x").split("\n")).toContain(human);
    },
  );

  it("refuses unsafe paths and modes before writing anything", async () => {
    const { dir, base } = makeRepo(files);
    for (const path of ["../escape.js", "/etc/passwd", ".git/config", "a//b", "a\nb"]) {
      await expect(
        deliverWithPlumbing(dir, {
          baseSha: base,
          branch: "g/p",
          message: "m",
          files: [{ path, content: "x", mode: "100644" }],
        }),
      ).rejects.toBeInstanceOf(LocalInputError);
    }
    await expect(
      deliverWithPlumbing(dir, {
        baseSha: base,
        branch: "g/p",
        message: "m",
        files: [{ path: "l", content: "x", mode: "120000" }],
      }),
    ).rejects.toThrow(/mode 120000/);
    await expect(
      deliverWithPlumbing(dir, {
        baseSha: base,
        branch: "bad..name",
        message: "m",
        files: [{ path: "a", content: "x", mode: "100644" }],
      }),
    ).rejects.toThrow(/invalid branch name/);
    expect(sh(dir, "branch", "--list", "g/*")).toBe("");
  });

  it("falls back to a groundfix identity when neither the repository nor the environment has one", async () => {
    const { dir, base } = makeRepo(files);
    const saved = { ...process.env };
    try {
      process.env.HOME = dir; // no ~/.gitconfig
      process.env.GIT_CONFIG_NOSYSTEM = "1";
      for (const k of [
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "EMAIL",
        "XDG_CONFIG_HOME",
      ]) {
        delete process.env[k];
      }
      const { headSha } = await deliverWithPlumbing(dir, {
        baseSha: base,
        branch: "g/id",
        message: "m",
        files: [{ path: "README.md", content: "x\n", mode: "100644" }],
      });
      expect(sh(dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>", headSha)).toBe(
        "groundfix <groundfix@users.noreply.local>|groundfix <groundfix@users.noreply.local>",
      );
    } finally {
      process.env = saved;
    }
  });
});
