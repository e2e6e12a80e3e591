import { createHash } from "node:crypto";
import type { Snapshot } from "../types.js";
import type { SnapshotBuilder } from "./builder.js";
import { snapshotFromTar, type TarSnapshotOptions } from "./tar.js";

/**
 * One entry of a commit's recursive tree listing, as GitHub's `GET /repos/{o}/{r}/git/trees/{sha}?recursive=1`
 * answers it: `type` "blob" (mode 100644, 100755 or 120000 for a symlink), "tree" (a folder) or "commit" (a
 * submodule, mode 160000); `sha` is the object id; `size` the blob's size in bytes (blobs only).
 */
export interface TreeListingEntry {
  path: string;
  mode: string;
  type: string;
  sha: string;
  size?: number;
}

/** A commit's recursive tree listing; `truncated` when GitHub cut it (over 100,000 entries or 7 MB). */
export interface TreeListing {
  truncated: boolean;
  entries: readonly TreeListingEntry[];
}

/** Where {@link exactSnapshot} reads a commit from: its archive, its tree listing, and single blobs by id. */
export interface CommitSource {
  /** The archive of the commit (GitHub's tarball), already requested; only consumed once the listing is known. */
  tarball: Promise<NodeJS.ReadableStream | Uint8Array>;
  /** The recursive tree listing of the same commit. */
  tree: Promise<TreeListing>;
  /** The bytes of one blob exactly as committed (GitHub: `GET git/blobs/{sha}`, base64). */
  blob(sha: string): Promise<Uint8Array>;
}

/** At most this many blobs are fetched one by one for a snapshot; more are listed in `stats.leftOut`. */
export const MAX_BLOB_FETCHES = 200;
/** Blobs fetched at a time (GitHub allows 100 concurrent requests per token; see its REST "rate limits" page). */
const BLOB_CONCURRENCY = 8;

/** The git object id of a blob: SHA-1 of `blob <size>\0<bytes>` (git's object format, `git hash-object`). */
export function gitBlobSha(bytes: Uint8Array): string {
  return createHash("sha1").update(`blob ${bytes.length}\0`).update(bytes).digest("hex");
}

/**
 * The snapshot of a commit with every file exactly as committed, from an archive that may not be: `git archive`
 * (and GitHub's tarball, made by it) applies the commit's `.gitattributes` — `export-ignore` leaves files out (a
 * `.gitattributes` can hide itself), `export-subst` and `ident` rewrite contents, `text`/`eol`/`crlf` and
 * `working-tree-encoding` convert them (git's gitattributes(5), "Creating an archive" and "Checking-out").
 *
 * No `.gitattributes` anywhere in the tree listing: nothing can differ, and the archive is read as it is. Otherwise
 * every regular file the archive holds is checked against the listing by its blob id ({@link gitBlobSha}; a file
 * too large to read, by its size), and each file that differs, and each file, symlink or submodule of the listing
 * the archive lacks, is taken from the listing: its blob fetched (`source.blob`, at most {@link MAX_BLOB_FETCHES}
 * per snapshot, the rest listed in `stats.leftOut`), or recorded as too large from the listing's size. Which
 * attribute did it does not matter: the blob ids are the commit. When the listing is truncated, files hidden beyond
 * it cannot be known; `stats.leftOut` says so.
 *
 * Cost: the listing and the archive are one request each; blobs are fetched only for files the archive does not
 * hold as committed. Binary files the archive holds at their committed size are kept as they are (their bytes are
 * never served nor committed).
 *
 * @throws what the listing, the archive or a blob fetch throws, and `snapshotFromTar`'s errors.
 */
export async function exactSnapshot(
  source: CommitSource,
  options: Omit<TarSnapshotOptions, "amend">,
): Promise<Snapshot> {
  let tree: TreeListing;
  try {
    tree = await source.tree;
  } catch (error) {
    // The archive was requested too: release its connection.
    source.tarball.then(release, () => undefined);
    throw error;
  }
  const archive = await source.tarball;
  if (!tree.entries.some((e) => e.type === "blob" && isAttributesFile(e.path))) {
    return snapshotFromTar(archive, options);
  }
  const listed = new Map<string, TreeListingEntry>();
  for (const e of tree.entries) if (e.type === "blob" || e.type === "commit") listed.set(e.path, e);
  const differs = new Set<string>();
  return snapshotFromTar(archive, {
    ...options,
    amend: {
      keep(path, bytes, size) {
        const entry = listed.get(path);
        if (entry === undefined || entry.type !== "blob") return true;
        const same = bytes === null ? size === entry.size : gitBlobSha(bytes) === entry.sha;
        if (!same) differs.add(path);
        return same;
      },
      async complete(builder) {
        const wanted: TreeListingEntry[] = [];
        for (const e of listed.values()) {
          if (e.type === "commit") builder.addSubmodule(e.path);
          else if (differs.has(e.path) || !builder.has(e.path)) wanted.push(e);
        }
        await addCommitted(builder, wanted, source.blob);
        if (tree.truncated)
          builder.leaveOut(
            "",
            `GitHub's tree listing of ${options.sha} is truncated (over 100,000 entries or 7 MB): files .gitattributes hides from the archive beyond it are missing`,
          );
      },
    },
  });
}

/** Add `entries` from the listing: each blob fetched (within the caps and {@link MAX_BLOB_FETCHES}) or recorded by size. */
async function addCommitted(
  builder: SnapshotBuilder,
  entries: readonly TreeListingEntry[],
  blob: (sha: string) => Promise<Uint8Array>,
): Promise<void> {
  const fetch: TreeListingEntry[] = [];
  for (const e of entries) {
    const size = e.size ?? 0;
    const mode = e.mode === "100755" ? "100755" : "100644";
    if (e.mode !== "120000" && !builder.wantsContent(size)) builder.addFile(e.path, mode, size, null);
    else if (fetch.length < MAX_BLOB_FETCHES) fetch.push(e);
    else
      builder.leaveOut(
        e.path,
        `not in the archive as committed, and over ${MAX_BLOB_FETCHES} such files are fetched one by one per snapshot`,
      );
  }
  const fetched = new Array<Uint8Array | undefined>(fetch.length);
  let next = 0;
  const worker = async () => {
    while (next < fetch.length) {
      const k = next++;
      fetched[k] = await blob(fetch[k]!.sha);
    }
  };
  await Promise.all(Array.from({ length: Math.min(BLOB_CONCURRENCY, fetch.length) }, worker));
  // Added in listing order after all fetches, so the caps meet the files in the same order on every load.
  fetch.forEach((e, k) => {
    const bytes = fetched[k]!;
    if (e.mode === "120000") builder.addSymlink(e.path, Buffer.from(bytes).toString("utf8"));
    else builder.addFile(e.path, e.mode === "100755" ? "100755" : "100644", bytes.length, bytes);
  });
}

/** True for a `.gitattributes` file at any depth. */
function isAttributesFile(path: string): boolean {
  return path === ".gitattributes" || path.endsWith("/.gitattributes");
}

/** Let go of an archive that will not be read (a stream is destroyed, so its connection is released). */
function release(archive: NodeJS.ReadableStream | Uint8Array): void {
  const stream = archive as { destroy?: () => void };
  if (typeof stream.destroy === "function") stream.destroy();
}
