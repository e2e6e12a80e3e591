import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { parseUnifiedDiff } from "../../src/review/index.js";
import type { FilePatch, Snapshot, SnapshotEntry } from "../../src/types.js";

/** A file of a test tree: content, or content with a git mode ("100755") or a binary marker. */
export type TestFile = string | { content: string; mode?: string; binary?: boolean };
export type TestTree = Record<string, TestFile>;

/** A tiny in-memory Snapshot over `files` (binary entries have no content). */
export function memSnapshot(sha: string, files: TestTree): Snapshot {
  const entries = new Map<string, { entry: SnapshotEntry; content?: string }>();
  for (const [path, f] of Object.entries(files)) {
    const content = typeof f === "string" ? f : f.content;
    const binary = typeof f !== "string" && f.binary === true;
    const mode = typeof f === "string" ? "100644" : (f.mode ?? "100644");
    entries.set(path, {
      entry: { path, kind: binary ? "binary" : "text", size: Buffer.byteLength(content), mode },
      ...(binary ? {} : { content }),
    });
  }
  const paths = [...entries.keys()].sort();
  return {
    sha,
    paths,
    entry: (p) => entries.get(p)?.entry,
    read: (p) => entries.get(p)?.content,
    stats: { files: paths.length, textFiles: paths.length, textBytes: 0, totalBytes: 0, leftOut: [], truncated: false },
  };
}

function git(dir: string, args: string[]): string {
  return execFileSync("git", args, {
    cwd: dir,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@example.com",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@example.com",
    },
  });
}

function writeTree(dir: string, files: TestTree): void {
  for (const [path, f] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    const content = typeof f === "string" ? f : f.content;
    writeFileSync(
      full,
      typeof f !== "string" && f.binary ? Buffer.from([0, 1, 2, 0, ...Buffer.from(content)]) : content,
    );
    if (typeof f !== "string" && f.mode === "100755") chmodSync(full, 0o755);
  }
}

/**
 * Build a real two-commit git repository (base tree, then head tree) in a temp folder, and return the parsed
 * `git diff --full-index -M` between them, the raw diff, and in-memory snapshots of both trees.
 */
export function gitChange(
  baseFiles: TestTree,
  headFiles: TestTree,
): { patches: FilePatch[]; diff: string; base: Snapshot; head: Snapshot } {
  const dir = mkdtempSync(join(tmpdir(), "groundfix-review-"));
  try {
    git(dir, ["init", "-q", "-b", "main"]);
    git(dir, ["config", "core.autocrlf", "false"]);
    writeTree(dir, baseFiles);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-q", "--allow-empty", "-m", "base"]);
    const baseSha = git(dir, ["rev-parse", "HEAD"]).trim();
    git(dir, ["rm", "-rq", "--ignore-unmatch", "."]);
    writeTree(dir, headFiles);
    git(dir, ["add", "-A"]);
    git(dir, ["commit", "-q", "--allow-empty", "-m", "head"]);
    const headSha = git(dir, ["rev-parse", "HEAD"]).trim();
    const diff = git(dir, ["diff", "--full-index", "-M", baseSha, headSha]);
    return {
      patches: parseUnifiedDiff(diff),
      diff,
      base: memSnapshot(baseSha, baseFiles),
      head: memSnapshot(headSha, headFiles),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
