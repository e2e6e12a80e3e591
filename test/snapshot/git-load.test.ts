import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { rawText, snapshotFromGit } from "../../src/snapshot/index.js";
import { makeGitRepo } from "./build-repo.js";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function repo(files: Parameters<typeof makeGitRepo>[0]): { dir: string; sha: string } {
  const r = makeGitRepo(files);
  made.push(r.dir);
  return r;
}

const git = (dir: string, ...args: string[]) => execFileSync("git", args, { cwd: dir, encoding: "utf8" }).trim();

describe("snapshotFromGit under the caps", () => {
  it("leaves out by the total cap the files that pass it in tree order, and loads a later file that fits", async () => {
    const { dir } = repo({
      "a.txt": "a".repeat(99) + "\n", // 100 bytes: 100 loaded
      "b.bin": new Uint8Array(300), // binary, counted: 400
      "c.txt": "c".repeat(2999) + "\n", // over the per-file cap: too_large, not counted
      "d.txt": "d".repeat(149) + "\n", // 550
      "e.txt": "e".repeat(99) + "\n", // 650 > 600: left out
      "f.txt": "f".repeat(49) + "\n", // 600: fits
      "g.txt": "g".repeat(9) + "\n", // 610: left out
      "h.js": { symlink: "a.txt" }, // links do not count
    });
    const s = await snapshotFromGit(dir, "HEAD", { limits: { maxFileBytes: 2000, maxTotalBytes: 600 } });
    expect(s.entry("a.txt")?.kind).toBe("text");
    expect(s.entry("b.bin")).toMatchObject({ kind: "binary", size: 300 });
    expect(s.entry("c.txt")).toMatchObject({ kind: "too_large", size: 3000 });
    expect(s.read("d.txt")).toBe("d".repeat(149) + "\n");
    expect(s.read("f.txt")).toBe("f".repeat(49) + "\n");
    expect(s.entry("h.js")).toMatchObject({ kind: "symlink", target: "a.txt" });
    expect(s.entry("e.txt")).toBeUndefined();
    expect(s.read("e.txt")).toBeUndefined();
    expect(s.stats.leftOut).toEqual([
      { path: "e.txt", reason: "total size cap (0 MB) reached" },
      { path: "g.txt", reason: "total size cap (0 MB) reached" },
    ]);
    expect(s.stats.textFiles).toBe(3);
  });

  it("counts files against the file cap in the same order as before: listing-only entries first", async () => {
    const { dir } = repo({
      "a.txt": "a\n",
      "big.txt": "x".repeat(5000),
      "c.txt": "c\n",
      "d.txt": "d\n",
    });
    const s = await snapshotFromGit(dir, "HEAD", { limits: { maxFileBytes: 1000, maxFiles: 2 } });
    // The too-large file is recorded from the listing before any content is read.
    expect([...s.paths]).toEqual(["a.txt", "big.txt"]);
    expect(s.stats.leftOut.map((l) => l.path)).toEqual(["c.txt", "d.txt"]);
  });

  it("reads a blob larger than the read buffer exactly, with the files around it", async () => {
    let big = "";
    for (let i = 0; big.length < 6_000_000; i++) big += `line ${i} ü\n`;
    const { dir } = repo({ "a.txt": "first\n", "m/big.txt": big, "z.txt": "last\n" });
    const s = await snapshotFromGit(dir, "HEAD", { limits: { maxFileBytes: 8 * 1024 * 1024 } });
    expect(s.read("m/big.txt")).toBe(big);
    expect(rawText(s, "m/big.txt")).toBe(Buffer.from(big, "utf8").toString("latin1"));
    expect(s.read("a.txt")).toBe("first\n");
    expect(s.read("z.txt")).toBe("last\n");
  });
});

describe("snapshotFromGit given a full commit id", () => {
  it("loads it without resolving it first, and refuses ids of trees, blobs and missing objects", async () => {
    const { dir, sha } = repo({ "a.txt": "a\n" });
    expect((await snapshotFromGit(dir, sha)).read("a.txt")).toBe("a\n");
    const tree = git(dir, "rev-parse", "HEAD^{tree}");
    const blob = git(dir, "rev-parse", "HEAD:a.txt");
    for (const id of [tree, blob, "0123456789abcdef0123456789abcdef01234567"])
      await expect(snapshotFromGit(dir, id)).rejects.toThrow(`unknown ref '${id}' in ${dir}`);
    const plain = mkdtempSync(join(tmpdir(), "not-a-repo-"));
    made.push(plain);
    await expect(snapshotFromGit(plain, sha)).rejects.toThrow(`not a git repository: ${plain}`);
  });
});

describe("snapshotFromGit's temporary file", () => {
  it("leaves nothing behind in the temporary folder, after a load and after a failed one", async () => {
    const { dir, sha } = repo({ "a.txt": "a\n" });
    const saved = process.env.TMPDIR;
    const tmp = mkdtempSync(join(tmpdir(), "groundfix-tmpdir-"));
    made.push(tmp);
    process.env.TMPDIR = tmp;
    try {
      expect((await snapshotFromGit(dir, sha)).read("a.txt")).toBe("a\n");
      expect(readdirSync(tmp)).toEqual([]);
      await expect(snapshotFromGit(dir, "f".repeat(40))).rejects.toThrow(/unknown ref/);
      expect(readdirSync(tmp)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
