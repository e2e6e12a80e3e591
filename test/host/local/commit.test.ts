import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { commitFilesWithPlumbing } from "../../../src/host/local/commit.js";
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

describe("commitFilesWithPlumbing", () => {
  it("makes one commit on a new branch whose only parent is the base and whose tree is base + changed files", async () => {
    const { dir, base } = makeRepo(files);
    const result = await commitFilesWithPlumbing(dir, {
      baseSha: base,
      branch: "groundfix/fix-a",
      message: "groundfix: log a\n\nbody line",
      files: [
        { path: "src/app.js", content: "const a = 1;\nconsole.log(a);\nmodule.exports = a;\n", mode: "100644" },
        { path: "bin/run.sh", content: "#!/bin/sh\necho run\necho done\n", mode: "100755" },
      ],
    });
    expect(result.reused).toBe(false);
    expect(sh(dir, "rev-parse", "refs/heads/groundfix/fix-a")).toBe(result.headSha);
    expect(sh(dir, "rev-list", "--parents", "-n", "1", result.headSha).split(" ")).toEqual([result.headSha, base]);
    expect(sh(dir, "log", "-1", "--format=%B", result.headSha)).toBe("groundfix: log a\n\nbody line");
    expect(sh(dir, "show", `${result.headSha}:src/app.js`)).toBe("const a = 1;\nconsole.log(a);\nmodule.exports = a;");
    expect(sh(dir, "diff", "--name-only", base, result.headSha).split("\n").sort()).toEqual(["bin/run.sh", "src/app.js"]);
    const tree = sh(dir, "ls-tree", "-r", result.headSha);
    expect(tree).toMatch(/^100755 blob \w+\tbin\/run\.sh$/m);
    expect(tree).toMatch(/^100644 blob \w+\tREADME\.md$/m);
  });

  it("keeps bytes exactly: CRLF, no final newline, unicode", async () => {
    const { dir, base } = makeRepo({ "a.txt": "x\r\n", ".gitattributes": "*.txt text eol=lf\n" });
    const content = "x\r\ny — é\r\nno newline";
    const { headSha } = await commitFilesWithPlumbing(dir, {
      baseSha: base, branch: "b", message: "m", files: [{ path: "a.txt", content, mode: "100644" }],
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
    await commitFilesWithPlumbing(dir, {
      baseSha: base, branch: "groundfix/x", message: "m",
      files: [{ path: "src/app.js", content: "changed\n", mode: "100644" }],
    });
    expect(userState(dir)).toEqual(before);
  });

  it("reuses an existing branch unless force, and force moves it to a new commit on the base", async () => {
    const { dir, base } = makeRepo(files);
    const first = await commitFilesWithPlumbing(dir, {
      baseSha: base, branch: "groundfix/x", message: "m1", files: [{ path: "README.md", content: "one\n", mode: "100644" }],
    });
    const again = await commitFilesWithPlumbing(dir, {
      baseSha: base, branch: "groundfix/x", message: "m2", files: [{ path: "README.md", content: "two\n", mode: "100644" }],
    });
    expect(again).toEqual({ headSha: first.headSha, branch: "groundfix/x", reused: true });
    expect(sh(dir, "show", "groundfix/x:README.md")).toBe("one");
    const forced = await commitFilesWithPlumbing(dir, {
      baseSha: base, branch: "groundfix/x", message: "m3", force: true,
      files: [{ path: "README.md", content: "three\n", mode: "100644" }],
    });
    expect(forced.reused).toBe(false);
    expect(forced.headSha).not.toBe(first.headSha);
    expect(sh(dir, "show", "groundfix/x:README.md")).toBe("three");
    expect(sh(dir, "rev-parse", "groundfix/x^")).toBe(base);
  });

  it("refuses unsafe paths and modes before writing anything", async () => {
    const { dir, base } = makeRepo(files);
    for (const path of ["../escape.js", "/etc/passwd", ".git/config", "a//b", "a\nb"]) {
      await expect(
        commitFilesWithPlumbing(dir, { baseSha: base, branch: "g/p", message: "m", files: [{ path, content: "x", mode: "100644" }] }),
      ).rejects.toBeInstanceOf(LocalInputError);
    }
    await expect(
      commitFilesWithPlumbing(dir, { baseSha: base, branch: "g/p", message: "m", files: [{ path: "l", content: "x", mode: "120000" }] }),
    ).rejects.toThrow(/mode 120000/);
    await expect(
      commitFilesWithPlumbing(dir, { baseSha: base, branch: "bad..name", message: "m", files: [{ path: "a", content: "x", mode: "100644" }] }),
    ).rejects.toThrow(/invalid branch name/);
    expect(sh(dir, "branch", "--list", "g/*")).toBe("");
  });

  it("falls back to a groundfix identity when neither the repository nor the environment has one", async () => {
    const { dir, base } = makeRepo(files);
    const saved = { ...process.env };
    try {
      process.env.HOME = dir; // no ~/.gitconfig
      process.env.GIT_CONFIG_NOSYSTEM = "1";
      for (const k of ["GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "EMAIL", "XDG_CONFIG_HOME"]) {
        delete process.env[k];
      }
      const { headSha } = await commitFilesWithPlumbing(dir, {
        baseSha: base, branch: "g/id", message: "m", files: [{ path: "README.md", content: "x\n", mode: "100644" }],
      });
      expect(sh(dir, "log", "-1", "--format=%an <%ae>|%cn <%ce>", headSha)).toBe(
        "groundfix <groundfix@users.noreply.local>|groundfix <groundfix@users.noreply.local>",
      );
    } finally {
      process.env = saved;
    }
  });
});
