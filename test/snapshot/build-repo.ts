import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { gzipSync } from "node:zlib";
import tar from "tar-stream";

/** A file of a test repository: text or bytes, optionally executable, or a symlink. */
export type TestFile =
  string | Uint8Array | { content: string | Uint8Array; executable?: boolean } | { symlink: string };

/** Create a temporary git repository with one commit holding `files`; returns its folder and commit SHA. */
export function makeGitRepo(files: Record<string, TestFile>): { dir: string; sha: string } {
  const dir = mkdtempSync(join(tmpdir(), "groundfix-snap-"));
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      [
        "-c",
        "user.name=Test",
        "-c",
        "user.email=test@example.com",
        "-c",
        "init.defaultBranch=main",
        "-c",
        "core.autocrlf=false",
        ...args,
      ],
      { cwd: dir, encoding: "utf8" },
    ).trim();
  git("init", "-q");
  for (const [path, file] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    if (typeof file === "object" && "symlink" in file) symlinkSync(file.symlink, full);
    else if (typeof file === "string" || file instanceof Uint8Array) writeFileSync(full, file);
    else {
      writeFileSync(full, file.content);
      if (file.executable) chmodSync(full, 0o755);
    }
  }
  git("add", "-A");
  git("commit", "-q", "-m", "test commit");
  return { dir, sha: git("rev-parse", "HEAD") };
}

/**
 * A gzipped tarball shaped like GitHub's: a pax global header with the commit id, then everything under
 * `owner-repo-sha/`.
 */
export async function makeGitHubTarball(
  files: Record<string, TestFile>,
  sha = "a".repeat(40),
  top = `octo-demo-${"a".repeat(7)}`,
): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    pack.on("data", (c: Buffer) => chunks.push(c));
    pack.on("end", () => resolve());
    pack.on("error", reject);
  });
  pack.entry({ name: "pax_global_header", type: "pax-global-header", pax: { comment: sha } } as tar.Headers, "");
  pack.entry({ name: `${top}/`, type: "directory", mode: 0o775 });
  const dirs = new Set<string>();
  for (const [path, file] of Object.entries(files)) {
    const parts = path.split("/");
    for (let i = 1; i < parts.length; i++) {
      const d = parts.slice(0, i).join("/");
      if (!dirs.has(d)) {
        dirs.add(d);
        pack.entry({ name: `${top}/${d}/`, type: "directory", mode: 0o775 });
      }
    }
    const name = `${top}/${path}`;
    if (typeof file === "object" && "symlink" in file)
      pack.entry({ name, type: "symlink", linkname: file.symlink, mode: 0o777 });
    else if (typeof file === "string" || file instanceof Uint8Array)
      pack.entry({ name, mode: 0o664 }, Buffer.from(file));
    else pack.entry({ name, mode: file.executable ? 0o775 : 0o664 }, Buffer.from(file.content));
  }
  pack.finalize();
  await done;
  return gzipSync(Buffer.concat(chunks));
}
