import type { ChangedFile, FilePatch, Snapshot } from "../types.js";

/**
 * Where a run reads its snapshot from and where its commit goes. Two implementations behind one interface,
 * the way Renovate has `platform/github` and `platform/local`: `host/github` (Git Data API, no clone) and
 * `host/local` (git plumbing in a checkout, never touching the working tree, index or current branch).
 * What only GitHub has (pull requests, check runs, comments, reactions) lives on the GitHub host alone.
 */
export interface Host {
  /** Resolve a ref (default: the default branch / HEAD) to the commit SHA the whole run pins. */
  resolveBase(ref?: string): Promise<{ sha: string; ref: string }>;
  /** Every text file of `sha`, from one tar stream. Reading the same SHA twice in a process reuses the snapshot. */
  loadSnapshot(sha: string): Promise<Snapshot>;
  /**
   * Write `files` as one commit whose only parent is `baseSha`, and point `branch` at it.
   *
   * When `branch` already exists: with `force` it is moved to the new commit; without it nothing is written and
   * `reused: true` is returned with the branch's current head, so a rerun never stacks a second identical edit.
   * @throws on any failure, after removing a branch it created in this call (no orphan branch).
   */
  commitFiles(input: {
    baseSha: string;
    branch: string;
    message: string;
    files: ChangedFile[];
    force?: boolean;
  }): Promise<{ headSha: string; branch: string; reused: boolean }>;
  /** The per-file diff from `baseSha` to `headSha`, hunks included, for the review. */
  diff(baseSha: string, headSha: string): Promise<FilePatch[]>;
}
