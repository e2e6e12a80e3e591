/**
 * Snapshots: every text file of one commit in memory (docs/ARCHITECTURE.md, "The pipeline"). `snapshotFromTar`
 * reads a GitHub tarball; `exactSnapshot` checks it against the commit's tree id and corrects it to the committed blobs
 * where `.gitattributes` changed it; `snapshotFromGit` reads a local commit's blobs as committed (`git ls-tree` +
 * `git cat-file --batch`, no `.gitattributes` conversion); `cachedSnapshot` reuses a snapshot within a process.
 */
export { snapshotFromTar, type TarSnapshotOptions } from "./tar.js";
export {
  exactSnapshot,
  gitBlobSha,
  gitTreeSha,
  MAX_BLOB_FETCHES,
  type CommitSource,
  type TreeListing,
  type TreeListingEntry,
  type TreeFile,
} from "./exact.js";
export { snapshotFromGit, resolveCommit } from "./git.js";
export { cachedSnapshot, clearSnapshotCache, SNAPSHOT_CACHE_SIZE } from "./cache.js";
export { DEFAULT_LIMITS, resolveLimits, type SnapshotLimits } from "./limits.js";
export { decodeText, rawIsText, rawText } from "./builder.js";
