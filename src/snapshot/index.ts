/**
 * Snapshots: every text file of one commit in memory, from one tar stream (docs/ARCHITECTURE.md, "The pipeline").
 * `snapshotFromTar` reads a GitHub tarball or `git archive` output; `snapshotFromGit` runs `git archive` on a local
 * checkout; `cachedSnapshot` reuses a snapshot within a process.
 */
export { snapshotFromTar, type TarSnapshotOptions } from "./tar.js";
export { snapshotFromGit, resolveCommit } from "./git.js";
export { cachedSnapshot, clearSnapshotCache, SNAPSHOT_CACHE_SIZE } from "./cache.js";
export { DEFAULT_LIMITS, resolveLimits, type SnapshotLimits } from "./limits.js";
export { decodeText, rawText } from "./builder.js";
