/**
 * A checkout's own git config is as untrusted as its files (a downloaded repository, a shared folder): `groundfix
 * fix` writes its branch with git plumbing, and none of it may run a program the repository names.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFix } from "../../../src/cli/fix.js";
import { CRASH_BODY, SHOP_FILES } from "../../app/harness.js";
import { makeRepo, sh } from "./git-repo.js";

describe("groundfix fix on a checkout whose .git/config names programs", () => {
  it("runs none of its hooks and not its fsmonitor, and still writes the branch", async () => {
    const repo = makeRepo(SHOP_FILES);
    const ran = join(repo.dir, "..", `${repo.dir.split("/").pop()}-ran.txt`);
    const hooks = join(repo.dir, ".git", "evil-hooks");
    mkdirSync(hooks);
    const script = (name: string) => {
      const path = join(hooks, name);
      writeFileSync(path, `#!/bin/sh\necho ${name} >> '${ran}'\nexit 0\n`);
      chmodSync(path, 0o755);
      return path;
    };
    for (const hook of ["reference-transaction", "post-index-change", "pre-commit", "post-commit"]) script(hook);
    sh(repo.dir, "config", "core.hooksPath", hooks);
    sh(repo.dir, "config", "core.fsmonitor", script("fsmonitor"));
    const report = await runFix({
      repoDir: repo.dir,
      title: "Checkout crashes with TypeError",
      body: CRASH_BODY,
      env: {},
    });
    expect(report.status).toBe("pr_ready");
    expect(report.delivery).toMatchObject({ reused: false, replaced: false });
    expect(sh(repo.dir, "rev-parse", `${report.delivery!.branch}^`)).toBe(repo.base);
    expect(existsSync(ran) ? readFileSync(ran, "utf8").split("\n").filter(Boolean) : []).toEqual([]);
  });
});
