import { describe, expect, it } from "vitest";
import { createLocalHost, LocalInputError } from "../../../src/host/local/index.js";
import { makeRepo, sh } from "./git-repo.js";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";

describe("createLocalHost", () => {
  it("resolves HEAD and named revisions to the commit SHA, and says which input was bad", async () => {
    const { dir, base } = makeRepo({ "a.txt": "a\n" });
    const host = createLocalHost(dir);
    expect(await host.resolveBase()).toEqual({ sha: base, ref: "HEAD" });
    expect((await host.resolveBase("main")).sha).toBe(base);
    await expect(host.resolveBase("no-such-branch")).rejects.toThrow(/unknown revision "no-such-branch"/);
    await expect(host.resolveBase("--output=/tmp/x")).rejects.toBeInstanceOf(LocalInputError);
    const plain = mkdtempSync(join(tmpdir(), "groundfix-not-repo-"));
    await expect(createLocalHost(plain).resolveBase()).rejects.toThrow(/is not a git repository/);
  });

  it("says a repository without commits has none (not an unknown HEAD)", async () => {
    const empty = mkdtempSync(join(tmpdir(), "groundfix-empty-repo-"));
    sh(empty, "init", "-q", "-b", "main");
    const host = createLocalHost(empty);
    await expect(host.resolveBase()).rejects.toThrow(
      new RegExp(`^repository .*${basename(empty)} has no commits yet \\(commit a file first\\)$`),
    );
    await expect(host.resolveBase("main")).rejects.toMatchObject({ kind: "no_commits" });
  });

  it("loads the snapshot of a commit, not the dirty working tree", async () => {
    const { dir, base } = makeRepo({
      "src/a.js": "const a = 1;\n",
      "bin/x": { content: "#!/bin/sh\n", mode: "100755" },
    });
    writeFileSync(join(dir, "src/a.js"), "uncommitted\n");
    const snap = await createLocalHost(dir).loadSnapshot(base);
    expect(snap.sha).toBe(base);
    expect(snap.read("src/a.js")).toBe("const a = 1;\n");
    expect(snap.entry("bin/x")?.mode).toBe("100755");
  });

  it("diffs the commit it made back into the same files (round trip through parseUnifiedDiff)", async () => {
    const { dir, base } = makeRepo({
      "src/a.js": "line 1\nline 2\nline 3\n",
      "run.sh": { content: "#!/bin/sh\necho a\n", mode: "100755" },
    });
    const host = createLocalHost(dir);
    const { headSha } = await host.deliver({
      baseSha: base,
      branch: "groundfix/t",
      message: "m",
      files: [
        { path: "src/a.js", content: "line 1\nline 2\nadded\nline 3\n", mode: "100644" },
        { path: "src/new.js", content: "new\n", mode: "100644" },
        { path: "run.sh", content: "#!/bin/sh\necho a\n", mode: "100644" },
      ],
    });
    const patches = await host.diff(base, headSha);
    const byPath = Object.fromEntries(patches.map((p) => [p.path, p]));
    expect(Object.keys(byPath).sort()).toEqual(["run.sh", "src/a.js", "src/new.js"]);
    expect(byPath["src/a.js"]).toMatchObject({ status: "modified", binary: false });
    expect(byPath["src/a.js"]!.patch).toMatch(/^@@ -1,3 \+1,4 @@/);
    expect(byPath["src/a.js"]!.patch).toContain("\n+added\n");
    expect(byPath["src/new.js"]).toMatchObject({ status: "added", newMode: "100644" });
    expect(byPath["run.sh"]).toMatchObject({ oldMode: "100755", newMode: "100644" });
    expect(sh(dir, "symbolic-ref", "HEAD")).toBe("refs/heads/main");
  });
});
