import { rmSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { rawText, snapshotFromGit } from "../../src/snapshot/index.js";
import { makeGitRepo, type TestFile } from "./build-repo.js";

/** `n` bytes of text: numbered lines, with a non-ASCII word now and then. */
function text(seed: number, n: number): string {
  let out = "";
  for (let i = 0; out.length < n; i++)
    out += i % 97 === 0 ? `// ${seed}.${i} Grüße\n` : `const v${seed}_${i} = ${i};\n`;
  return out.slice(0, n - 1) + "\n";
}

/** Binary bytes (NUL bytes in them). */
function binary(seed: number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) % 256);
}

describe("snapshotFromGit over several runs of git cat-file output", () => {
  it(
    "keeps every file exactly: runs mostly of text, runs " + "mostly of binaries, blobs larger than a run, links",
    async () => {
      const files: Record<string, TestFile> = {};
      // ~12 MB: first many small text files, then binaries with text between them, then large text files.
      for (let i = 0; i < 600; i++) files[`small/f${String(i).padStart(3, "0")}.js`] = text(i, 7_000 + i * 13);
      for (let i = 0; i < 12; i++) {
        files[`mixed/b${i}.bin`] = binary(i, 400_000);
        files[`mixed/t${i}.js`] = text(1000 + i, 30_000);
      }
      files["mixed/empty.txt"] = "";
      files["mixed/link.js"] = { symlink: "t1.js" };
      for (let i = 0; i < 3; i++) files[`large/l${i}.js`] = text(2000 + i, 1_900_000);
      files["large/zz.js"] = "export const last = true;\n";
      const { dir } = makeGitRepo(files);
      try {
        const s = await snapshotFromGit(dir, "HEAD");
        for (const [path, file] of Object.entries(files)) {
          const entry = s.entry(path);
          if (typeof file === "string") {
            expect(entry?.kind, path).toBe("text");
            expect(s.read(path), path).toBe(file);
            expect(rawText(s, path), path).toBe(Buffer.from(file, "utf8").toString("latin1"));
          } else if (file instanceof Uint8Array) {
            expect(entry?.kind, path).toBe("binary");
            expect(entry?.size, path).toBe(file.length);
            expect(s.read(path), path).toBeUndefined();
          } else {
            expect(entry, path).toMatchObject({ kind: "symlink", target: "t1.js", mode: "120000" });
          }
        }
        expect(s.stats.files).toBe(Object.keys(files).length);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
