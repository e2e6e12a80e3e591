import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { cachedSnapshot, snapshotFromGit, snapshotFromTar } from "../../src/snapshot/index.js";
import { makeGitHubTarball, makeGitRepo, type TestFile } from "./build-repo.js";

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9, 0x0a]); // "café" in ISO-8859-1: invalid UTF-8

const files: Record<string, TestFile> = {
  "src/app.js": "export function main() {\n  return 1;\n}\n",
  "bin/run.sh": { content: "#!/bin/sh\necho hi\n", executable: true },
  "assets/logo.png": png,
  "docs/latin1.txt": latin1,
  "big.txt": "x".repeat(5000),
  "link.js": { symlink: "src/app.js" },
  "win.txt": "one\r\ntwo\r\n",
  "bom.txt": "\uFEFFhello\n",
  "media/video.mp4": "version https://git-lfs.github.com/spec/v1\noid sha256:" + "0".repeat(64) + "\nsize 12345\n",
};

function checkCommon(s: Awaited<ReturnType<typeof snapshotFromTar>>) {
  expect(s.read("src/app.js")).toBe("export function main() {\n  return 1;\n}\n");
  expect(s.entry("src/app.js")).toMatchObject({ kind: "text", mode: "100644" });
  expect(s.entry("bin/run.sh")).toMatchObject({ kind: "text", mode: "100755" });
  expect(s.entry("assets/logo.png")?.kind).toBe("binary");
  expect(s.read("assets/logo.png")).toBeUndefined();
  expect(s.entry("docs/latin1.txt")?.kind).toBe("binary");
  expect(s.entry("big.txt")).toMatchObject({ kind: "too_large", size: 5000 });
  expect(s.read("big.txt")).toBeUndefined();
  expect(s.entry("link.js")).toMatchObject({ kind: "symlink", target: "src/app.js", mode: "120000" });
  expect(s.read("link.js")).toBeUndefined();
  expect(s.read("win.txt")).toBe("one\r\ntwo\r\n");
  expect(s.read("bom.txt")).toBe("\uFEFFhello\n");
  expect(s.entry("media/video.mp4")?.kind).toBe("lfs_pointer");
  expect([...s.paths]).toEqual([...s.paths].sort());
  expect(s.paths).not.toContain("src");
  expect(s.stats.truncated).toBe(false);
}

describe("snapshotFromGit", () => {
  it("reads a commit of a local checkout with kinds, modes and the resolved SHA", async () => {
    const { dir, sha } = makeGitRepo(files);
    const s = await snapshotFromGit(dir, "HEAD", { limits: { maxFileBytes: 4096 } });
    expect(s.sha).toBe(sha);
    checkCommon(s);
  });

  it("says which ref or folder is wrong", async () => {
    const { dir } = makeGitRepo({ "a.txt": "a\n" });
    await expect(snapshotFromGit(dir, "nope")).rejects.toThrow(`unknown ref 'nope' in ${dir}`);
    const { mkdtempSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const plain = mkdtempSync(`${tmpdir()}/not-a-repo-`);
    await expect(snapshotFromGit(plain, "HEAD")).rejects.toThrow(`not a git repository: ${plain}`);
  });

  it("records submodules listed in .gitmodules", async () => {
    const { execFileSync } = await import("node:child_process");
    // A submodule commit made with update-index, so no clone is needed.
    const host = makeGitRepo({
      ".gitmodules": '[submodule "vendor/lib"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n',
      "main.go": "package main\n",
    });
    execFileSync("git", ["update-index", "--add", "--cacheinfo", `160000,${"b".repeat(40)},vendor/lib`], {
      cwd: host.dir,
    });
    execFileSync("git", ["-c", "user.name=T", "-c", "user.email=t@e", "commit", "-q", "-m", "sub"], { cwd: host.dir });
    const s = await snapshotFromGit(host.dir, "HEAD");
    expect(s.entry("vendor/lib")).toMatchObject({ kind: "submodule", mode: "160000" });
  });
});

describe("snapshotFromTar", () => {
  it("reads a GitHub-shaped gzip tarball: strips the top folder, ignores the pax header", async () => {
    const tgz = await makeGitHubTarball(files);
    const s = await snapshotFromTar(tgz, { sha: "a".repeat(40), stripTopFolder: true, limits: { maxFileBytes: 4096 } });
    expect(s.sha).toBe("a".repeat(40));
    expect(s.paths).not.toContain("pax_global_header");
    checkCommon(s);
  });

  it("accepts a stream and sniffs gzip from the magic bytes", async () => {
    const tgz = await makeGitHubTarball({ "a.txt": "hello\n" });
    const stream = Readable.from([tgz.subarray(0, 1), tgz.subarray(1, 100), tgz.subarray(100)]);
    const s = await snapshotFromTar(stream, { sha: "b".repeat(40), stripTopFolder: true });
    expect(s.read("a.txt")).toBe("hello\n");
  });

  it("loads what fits under the total caps and lists what was left out", async () => {
    const many: Record<string, string> = {};
    for (let i = 0; i < 10; i++) many[`f${i}.txt`] = "0123456789\n".repeat(10); // 110 bytes each
    const tgz = await makeGitHubTarball(many);
    const byCount = await snapshotFromTar(tgz, { sha: "c".repeat(40), stripTopFolder: true, limits: { maxFiles: 4 } });
    expect(byCount.paths).toHaveLength(4);
    expect(byCount.stats.truncated).toBe(true);
    expect(byCount.stats.leftOut).toHaveLength(6);
    expect(byCount.stats.leftOut[0]?.reason).toMatch(/file count cap/);
    const byBytes = await snapshotFromTar(tgz, {
      sha: "c".repeat(40),
      stripTopFolder: true,
      limits: { maxTotalBytes: 500 },
    });
    expect(byBytes.stats.textFiles).toBe(4);
    expect(byBytes.stats.leftOut.map((l) => l.path)).toContain("f9.txt");
    expect(byBytes.stats.leftOut[0]?.reason).toMatch(/total size cap/);
  });

  it("rejects bytes that are not an archive with a clear error", async () => {
    await expect(
      snapshotFromTar(Buffer.from("this is not a tar archive at all".repeat(40)), { sha: "d".repeat(40) }),
    ).rejects.toThrow(/cannot read the tar archive/);
  });
});

describe("cachedSnapshot", () => {
  it("loads a commit once per process and retries after a failure", async () => {
    let loads = 0;
    const tgz = await makeGitHubTarball({ "a.txt": "a\n" });
    const load = () => {
      loads++;
      return snapshotFromTar(tgz, { sha: "e".repeat(40), stripTopFolder: true });
    };
    const [a, b] = await Promise.all([cachedSnapshot("o/r@e", load), cachedSnapshot("o/r@e", load)]);
    expect(a).toBe(b);
    expect(loads).toBe(1);
    await expect(cachedSnapshot("o/r@f", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    const again = await cachedSnapshot("o/r@f", load);
    expect(again.read("a.txt")).toBe("a\n");
  });
});
