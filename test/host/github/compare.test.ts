import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  API,
  BASE_SHA,
  githubHost,
  HEAD_SHA,
  OWNER,
  recordCalls,
  REPO,
  resetGitHubFakes,
  serveTarball,
  tarball,
  testOctokit,
} from "./helpers.js";

const repoPath = `/repos/${OWNER}/${REPO}`;
beforeAll(() => nock.disableNetConnect());
afterEach(() => expect(resetGitHubFakes()).toEqual([]));

describe("GitHub host diff and base", () => {
  it(
    "says which patch-less file is binary, and rebuilds " + "the hunks of a diff too large for the compare API",
    async () => {
      const before = Array.from({ length: 20 }, (_, i) => `row ${i}`).join("\n") + "\n";
      const after = before.replace("row 10\n", "row 10\nrow 10.5\n");
      nock(API)
        .get(`${repoPath}/compare/${BASE_SHA}...${HEAD_SHA}`)
        .query(true)
        .reply(200, {
          merge_base_commit: { sha: BASE_SHA },
          files: [
            { filename: "logo.png", status: "modified", changes: 0 }, // binary: GitHub counts no lines
            { filename: "data/big.csv", status: "modified", changes: 1 }, // too large: lines changed, no patch
            // pure rename
            { filename: "new/name.txt", previous_filename: "old/name.txt", status: "renamed", changes: 0 },
          ],
        });
      serveTarball(BASE_SHA, await tarball(BASE_SHA, { "data/big.csv": before, "old/name.txt": "x\n" }));
      serveTarball(HEAD_SHA, await tarball(HEAD_SHA, { "data/big.csv": after, "new/name.txt": "x\n" }));

      const patches = await githubHost(testOctokit()).diff(BASE_SHA, HEAD_SHA);
      expect(patches[0]).toMatchObject({ path: "logo.png", binary: true, patch: "" });
      expect(patches[1]).toMatchObject({ path: "data/big.csv", binary: false });
      expect(patches[1]!.patch).toMatch(/^@@ -9,6 \+9,7 @@\n row 8\n/);
      expect(patches[1]!.patch).toContain("\n+row 10.5\n");
      expect(patches[2]).toMatchObject({
        path: "new/name.txt",
        oldPath: "old/name.txt",
        status: "renamed",
        binary: false,
        patch: "",
      });
    },
  );

  it("refuses a comparison at GitHub's 300-file cap rather than review part of it", async () => {
    const files = Array.from({ length: 300 }, (_, i) => ({
      filename: `f${i}.txt`,
      status: "added",
      changes: 1,
      patch: "@@ -0,0 +1 @@\n+x",
    }));
    nock(API)
      .get(`${repoPath}/compare/${BASE_SHA}...${HEAD_SHA}`)
      .query(true)
      .reply(200, { merge_base_commit: { sha: BASE_SHA }, files });
    const host = githubHost(testOctokit());
    await expect(host.diff(BASE_SHA, HEAD_SHA)).rejects.toThrow(/300 files, GitHub's compare limit/);
  });

  it("resolves a named branch with one call and a full SHA with none", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    nock(API)
      .get(`${repoPath}/branches/release`)
      .reply(200, { commit: { sha: HEAD_SHA, commit: { tree: { sha: "1".repeat(40) } } } });
    const host = githubHost(octokit);
    expect(await host.resolveBase("release")).toEqual({ sha: HEAD_SHA, ref: "release" });
    expect(await host.resolveBase(BASE_SHA)).toEqual({ sha: BASE_SHA, ref: BASE_SHA });
    expect(calls).toEqual(["GET /repos/{owner}/{repo}/branches/{branch}"]);
  });

  it(
    "reads the snapshot of a commit from one tarball " + "and its tree listing, and reuses it for the same SHA",
    async () => {
      const octokit = testOctokit();
      const calls = recordCalls(octokit);
      serveTarball(
        BASE_SHA,
        await tarball(BASE_SHA, { "src/a.js": "a\n", "bin/x": { content: "#!/bin/sh\n", mode: 0o755 } }),
      );
      const host = githubHost(octokit);
      const snap = await host.loadSnapshot(BASE_SHA);
      expect(snap.read("src/a.js")).toBe("a\n");
      expect(snap.entry("bin/x")?.mode).toBe("100755");
      expect(await githubHost(octokit).loadSnapshot(BASE_SHA)).toBe(snap);
      // No .gitattributes in the listing: the tarball is the commit, no blob is fetched.
      expect(calls.sort()).toEqual([
        "GET /repos/{owner}/{repo}/git/trees/{tree_sha}",
        "GET /repos/{owner}/{repo}/tarball/{ref}",
      ]);
    },
  );
});
