/**
 * The snapshot is the commit, byte for byte, on GitHub too: GitHub's tarball is `git archive`, which applies the
 * commit's .gitattributes (the fake makes it with the real git). The host computes the tarball's tree id; when it is
 * not the commit's, it reads the tree listing and takes every file the tarball hides or rewrites as a blob. A tarball
 * that is the commit costs no call beyond it. Then
 * the App, driven end to end, edits an attributed file: the commit changes its added lines and no other byte.
 */
import nock from "nock";
import { diffLines } from "diff";
import { afterEach, describe, expect, it } from "vitest";
import { createGitHubHost } from "../../src/host/github/host.js";
import type { Octokit } from "../../src/host/github/octokit.js";
import {
  clearSnapshotCache,
  exactSnapshot,
  gitBlobSha,
  gitTreeSha,
  MAX_BLOB_FETCHES,
  snapshotFromTar,
} from "../../src/snapshot/index.js";
import { createGitHubFake, type GitHubFake } from "../fixtures/github-fake.js";
import { TestOctokit } from "../fixtures/github.js";
import { CRASH_BODY, labeledIssue, SHOP_FILES, startApp } from "../app/harness.js";

/** Attributes that hide files (also themselves) and rewrite contents; one nested file hides itself as well. */
const FILES: Record<string, string> = {
  ".gitattributes": [
    ".gitattributes export-ignore",
    ".github/groundfix.yml export-ignore",
    "hidden.js export-ignore",
    "subst.js export-subst",
    "ident.js ident",
    "crlf.js text eol=crlf",
    "utf16.txt working-tree-encoding=UTF-16",
    "",
  ].join("\n"),
  ".github/groundfix.yml": "pull_request:\n  branch_prefix: fixes/\n",
  "hidden.js": "function hidden() {\n  return 1;\n}\n",
  "subst.js": "// built from $Format:%H$\nfunction subst() {\n  return 2;\n}\n",
  "ident.js": "// $Id$\nfunction ident() {\n  return 3;\n}\n",
  "crlf.js": "function crlf() {\n  return 4;\n}\n",
  "utf16.txt": "plain words\n",
  "lib/.gitattributes": ".gitattributes export-ignore\ninternal.js export-ignore\n",
  "lib/internal.js": "module.exports = 5;\n",
  "lib/public.js": "module.exports = 6;\n",
  "README.md": "# demo\n",
};

let fake: GitHubFake | undefined;
afterEach(() => {
  fake?.stop();
  fake = undefined;
  nock.enableNetConnect();
});

function hostOf(files: Record<string, string>) {
  nock.disableNetConnect();
  clearSnapshotCache();
  fake = createGitHubFake({ owner: "acme", name: "demo", files: files as Record<string, string> });
  const octokit = new TestOctokit({ auth: { token: "test-token" } }) as Octokit;
  const host = createGitHubHost({ octokit, repo: { owner: "acme", name: "demo" }, log: console });
  return { host, fake };
}

describe("a GitHub snapshot holds every file of the commit as committed", () => {
  it(
    "files the tarball hides (also a .gitattributes " + "that hides itself, at the root and nested) are there",
    async () => {
      const { host, fake } = hostOf(FILES);
      const base = await host.resolveBase("main");
      const snapshot = await host.loadSnapshot(base.sha);
      expect([...snapshot.paths].sort()).toEqual(Object.keys(FILES).sort());
      for (const [path, content] of Object.entries(FILES)) expect(snapshot.read(path), path).toBe(content);
      // The tarball's tree id differs from the commit's: the listing, then one blob per file hidden (the config,
      // hidden.js, lib/internal.js and both .gitattributes) or rewritten (subst.js, ident.js, crlf.js, utf16.txt).
      expect(fake.countByRoute()).toEqual({
        "GET /repos/{o}/{r}/branches/{branch}": 1,
        "GET /repos/{o}/{r}/tarball/{sha}": 1,
        "GET /repos/{o}/{r}/git/trees/{sha}": 1,
        "GET /repos/{o}/{r}/git/blobs/{sha}": 9,
      });
      expect(fake.state.unhandled).toEqual([]);
      expect(snapshot.stats.leftOut).toEqual([]);
    },
  );

  it("the fake's tarball really is git archive's rendering (what the snapshot must not be)", async () => {
    const { fake } = hostOf(FILES);
    const octokit = new TestOctokit({ auth: { token: "test-token" } }) as Octokit;
    const { data } = await octokit.request("GET /repos/{owner}/{repo}/tarball/{ref}", {
      owner: "acme",
      repo: "demo",
      ref: fake.baseSha,
    });
    const archived = await snapshotFromTar(new Uint8Array(data as ArrayBuffer), {
      sha: fake.baseSha,
      stripTopFolder: true,
    });
    expect(archived.paths).not.toContain(".github/groundfix.yml");
    expect(archived.paths).not.toContain(".gitattributes");
    expect(archived.paths).not.toContain("lib/internal.js");
    expect(archived.read("ident.js")).toMatch(/^\/\/ \$Id: [0-9a-f]{40} \$/);
    expect(archived.read("subst.js")).not.toContain("$Format");
    expect(archived.read("crlf.js")).toContain("\r\n");
    expect(archived.entry("utf16.txt")?.kind).toBe("binary");
  });

  it("a tarball that is the commit costs no call beyond it: its tree id matches the branch's", async () => {
    const big = "x".repeat(3 * 1024 * 1024) + "\n"; // over the 2 MB cap: hashed as it streams past, not kept
    const files = { "src/a.js": "a\r\n", "README.md": "# x\n", "data/big.txt": big, "bin/run": "#!/bin/sh\n" };
    const { host, fake } = hostOf(files);
    const base = await host.resolveBase("main");
    const snapshot = await host.loadSnapshot(base.sha);
    expect(snapshot.read("src/a.js")).toBe("a\r\n");
    expect(snapshot.entry("data/big.txt")).toMatchObject({ kind: "too_large", size: big.length });
    expect(fake.countByRoute()).toEqual({
      "GET /repos/{o}/{r}/branches/{branch}": 1,
      "GET /repos/{o}/{r}/tarball/{sha}": 1,
    });
  });

  it(
    "harmless attributes (text=auto, linguist) cost " + "nothing either: the tarball's tree id is the commit's",
    async () => {
      const files = { ".gitattributes": "* text=auto\n*.md linguist-documentation\n", "src/a.js": "a\n" };
      const { host, fake } = hostOf(files);
      const snapshot = await host.loadSnapshot((await host.resolveBase("main")).sha);
      expect(snapshot.read(".gitattributes")).toBe(files[".gitattributes"]);
      expect(Object.keys(fake.countByRoute()).sort()).toEqual([
        "GET /repos/{o}/{r}/branches/{branch}",
        "GET /repos/{o}/{r}/tarball/{sha}",
      ]);
    },
  );

  it("a commit whose tree id is not known (a SHA from a webhook) is checked against its listing", async () => {
    const { host, fake } = hostOf({ "src/a.js": "a\n" });
    await host.loadSnapshot(fake.baseSha);
    expect(fake.countByRoute()).toEqual({
      "GET /repos/{o}/{r}/tarball/{sha}": 1,
      "GET /repos/{o}/{r}/git/trees/{sha}": 1,
    });
  });

  it(`more than ${MAX_BLOB_FETCHES} hidden files: the rest are listed as left out, with the reason`, async () => {
    const files: Record<string, string> = { ".gitattributes": "tests/** export-ignore\n", "src/a.js": "a\n" };
    for (let i = 0; i < MAX_BLOB_FETCHES + 3; i++) files[`tests/t${String(i).padStart(3, "0")}.js`] = `test(${i});\n`;
    const { host, fake } = hostOf(files);
    const snapshot = await host.loadSnapshot(fake.baseSha);
    expect(fake.countByRoute()["GET /repos/{o}/{r}/git/blobs/{sha}"]).toBe(MAX_BLOB_FETCHES);
    expect(snapshot.stats.leftOut).toHaveLength(3);
    expect(snapshot.stats.leftOut[0]!.reason).toMatch(/not in the archive as committed/);
    expect(snapshot.stats.truncated).toBe(true);
  });
});

describe("the App edits an attributed file without touching any other byte", () => {
  const CART = SHOP_FILES["src/cart.js"] + "// $Id$\n// built from $Format:%H$\n";
  const REPO_FILES = {
    ...SHOP_FILES,
    "src/cart.js": CART,
    ".gitattributes": [
      ".gitattributes export-ignore",
      ".github/groundfix.yml export-ignore",
      "src/cart.js ident export-subst text eol=crlf",
      "index.js text eol=crlf",
      "",
    ].join("\n"),
    ".github/groundfix.yml": "pull_request:\n  branch_prefix: fixes/\n",
  };

  it(
    "the commit adds the guard to src/cart.js as committed " + "(LF, keywords unexpanded); the hidden config is read",
    async () => {
      const app = await startApp({ files: REPO_FILES, config: REPO_FILES[".github/groundfix.yml"] });
      try {
        await app.receive("issues", labeledIssue("groundfix", CRASH_BODY));
        const { state } = app.fake;
        expect(state.unhandled).toEqual([]);
        // The hidden config's branch prefix was used.
        expect(state.pulls).toHaveLength(1);
        expect(state.pulls[0]!.head).toBe("fixes/issue-1");
        const head = app.fake.filesOf("fixes/issue-1")!;
        const edited = Object.keys(REPO_FILES).filter(
          (p) => head[p]!.content !== REPO_FILES[p as keyof typeof REPO_FILES],
        );
        expect(edited).toEqual(["src/cart.js"]);
        const parts = diffLines(CART, head["src/cart.js"]!.content);
        expect(parts.filter((p) => p.removed)).toEqual([]);
        expect(parts.filter((p) => p.added).length).toBeGreaterThan(0);
        expect(head["src/cart.js"]!.content).not.toContain("\r");
        expect(head["src/cart.js"]!.content).toContain("// $Id$\n// built from $Format:%H$\n");
        // The review of the PR passed.
        expect(state.checkRuns[0]).toMatchObject({ status: "completed", conclusion: "success" });
      } finally {
        app.stop();
      }
    },
  );
});

describe("gitTreeSha is git's tree id", () => {
  it("equals git write-tree for nested folders, names git orders by bytes, an executable and a symlink", async () => {
    const { makeGitRepo } = await import("./build-repo.js");
    const { execFileSync } = await import("node:child_process");
    const files = {
      "a.b": "1\n",
      "a/x.js": "2\n",
      "a-b": "3\n",
      a0: "4\n",
      "a/b/c/d.txt": "5\n",
      "Z.md": "6\n",
      "bin/run": { content: "#!/bin/sh\n", executable: true },
      link: { symlink: "a/x.js" },
      "ü.txt": "7\n",
    };
    const { dir, sha } = makeGitRepo(files);
    const tree = execFileSync("git", ["-C", dir, "rev-parse", `${sha}^{tree}`], { encoding: "utf8" }).trim();
    const listing = execFileSync("git", ["-C", dir, "ls-tree", "-r", "-z", sha], { encoding: "utf8" })
      .split("\0")
      .filter(Boolean)
      .map((line) => {
        const [meta, path] = line.split("\t") as [string, string];
        const [mode, , oid] = meta.split(" ") as [string, string, string];
        return { path, mode, oid };
      });
    expect(gitTreeSha(listing)).toBe(tree);
    // …and the blob ids are git's too.
    expect(listing.find((f) => f.path === "a.b")!.oid).toBe(gitBlobSha(Buffer.from("1\n")));
  });

  it("git archive of a commit without attributes matches its tree id: no listing, no blob is asked", async () => {
    const { makeGitRepo } = await import("./build-repo.js");
    const { execFileSync } = await import("node:child_process");
    const big = "y".repeat(3 * 1024 * 1024); // over the cap: hashed while it streams past
    const { dir, sha } = makeGitRepo({
      "src/a.js": "a\n",
      "data/big.txt": big,
      "bin/run": { content: "#!/bin/sh\n", executable: true },
      link: { symlink: "src/a.js" },
    });
    const treeSha = execFileSync("git", ["-C", dir, "rev-parse", `${sha}^{tree}`], { encoding: "utf8" }).trim();
    const archive = execFileSync("git", ["-C", dir, "archive", "--format=tar", sha], { maxBuffer: 64 * 1024 * 1024 });
    const asked: string[] = [];
    const snapshot = await exactSnapshot(
      {
        tarball: Promise.resolve(new Uint8Array(archive)),
        treeSha,
        tree: () => (asked.push("tree"), Promise.reject(new Error("not asked"))),
        blob: (id) => (asked.push(id), Promise.reject(new Error("not asked"))),
      },
      { sha },
    );
    expect(asked).toEqual([]);
    expect(snapshot.entry("data/big.txt")).toMatchObject({ kind: "too_large" });
    expect(snapshot.entry("link")).toMatchObject({ kind: "symlink", target: "src/a.js" });
  });
});
