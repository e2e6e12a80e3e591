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

/** Where {@link exactSnapshot} reads a commit from: its archive, its tree id, its tree listing, and blobs by id. */
export interface CommitSource {
  /** The archive of the commit (GitHub's tarball), already requested. */
  tarball: Promise<NodeJS.ReadableStream | Uint8Array>;
  /** The id of the commit's root tree when known (GitHub's `GET branches/{b}` answers it); else the listing is read. */
  treeSha?: string;
  /** The recursive tree listing of the commit; asked only when the archive is not the commit. */
  tree(): Promise<TreeListing>;
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

/** One file of a tree as {@link gitTreeSha} takes it: its path, git mode (100644, 100755, 120000) and blob id. */
export interface TreeFile {
  path: string;
  mode: string;
  oid: string;
}

/**
 * The git object id of the root tree holding `files` (folders are implied by the paths): each tree object is the
 * entries `<mode> <name>\0<20-byte id>` in git's order (a folder sorts as its name followed by "/"), folders with
 * mode 40000, hashed as `tree <size>\0<entries>` (git's object format, `git mktree`).
 */
export function gitTreeSha(files: Iterable<TreeFile>): string {
  interface Folder {
    files: Map<string, { mode: string; oid: string }>;
    folders: Map<string, Folder>;
  }
  const root: Folder = { files: new Map(), folders: new Map() };
  for (const f of files) {
    const parts = f.path.split("/");
    let at = root;
    for (const part of parts.slice(0, -1)) {
      let next = at.folders.get(part);
      if (next === undefined) at.folders.set(part, (next = { files: new Map(), folders: new Map() }));
      at = next;
    }
    at.files.set(parts[parts.length - 1]!, { mode: f.mode, oid: f.oid });
  }
  const hash = (folder: Folder): string => {
    const entries: { key: string; name: string; mode: string; oid: string }[] = [];
    for (const [name, f] of folder.files) entries.push({ key: name, name, mode: f.mode, oid: f.oid });
    for (const [name, sub] of folder.folders) entries.push({ key: `${name}/`, name, mode: "40000", oid: hash(sub) });
    entries.sort((x, y) => Buffer.compare(Buffer.from(x.key), Buffer.from(y.key)));
    const body = Buffer.concat(
      entries.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.oid, "hex")]),
    );
    return createHash("sha1").update(`tree ${body.length}\0`).update(body).digest("hex");
  };
  return hash(root);
}

/**
 * The snapshot of a commit with every file exactly as committed, from an archive that may not be: `git archive`
 * (and GitHub's tarball, made by it) applies the commit's `.gitattributes` — `export-ignore` leaves files out (a
 * `.gitattributes` can hide itself), `export-subst` and `ident` rewrite contents, `text`/`eol`/`crlf` and
 * `working-tree-encoding` convert them (git's gitattributes(5), "Creating an archive" and "Checking-out").
 *
 * Every entry of the archive is hashed as git would ({@link gitBlobSha}; files too large to keep are hashed as they
 * stream past) and the root tree id is computed from them ({@link gitTreeSha}). When it equals `source.treeSha`, the
 * archive is the commit and nothing more is asked. Otherwise (or when the tree id is unknown, or the archive holds a
 * submodule, whose commit id an archive does not carry) the tree listing is read, and each file the archive lacks
 * or holds with another blob id is taken from it: its blob fetched (`source.blob`, at most {@link MAX_BLOB_FETCHES}
 * per snapshot, the rest listed in `stats.leftOut`), or recorded as too large from the listing's size. Which
 * attribute did it does not matter: the blob ids are the commit. When the listing is truncated, files hidden beyond
 * it cannot be known; `stats.leftOut` says so.
 *
 * Cost: one SHA-1 pass over the archive's bytes; no request beyond the archive for a commit it renders exactly,
 * else the listing and one request per file to fetch.
 *
 * @throws what the archive, the listing or a blob fetch throws, and `snapshotFromTar`'s errors.
 */
export async function exactSnapshot(
  source: CommitSource,
  options: Omit<TarSnapshotOptions, "amend">,
): Promise<Snapshot> {
  const seen = new Map<string, TreeFile>();
  const record = (path: string, mode: string, oid: string) => seen.set(path, { path, mode, oid });
  return snapshotFromTar(await source.tarball, {
    ...options,
    amend: {
      file: (path, mode, bytes) => record(path, mode, gitBlobSha(bytes)),
      unread(path, mode, size) {
        const hash = createHash("sha1").update(`blob ${size}\0`);
        return (chunk) => (chunk === null ? record(path, mode, hash.digest("hex")) : hash.update(chunk));
      },
      symlink: (path, target) => record(path, "120000", gitBlobSha(Buffer.from(target, "utf8"))),
      async complete(builder) {
        const submodules = builder.has(".gitmodules");
        if (source.treeSha !== undefined && !submodules && gitTreeSha(seen.values()) === source.treeSha) return;
        const tree = await source.tree();
        const wanted: TreeListingEntry[] = [];
        for (const e of tree.entries) {
          if (e.type === "commit") builder.addSubmodule(e.path);
          else if (e.type === "blob" && seen.get(e.path)?.oid !== e.sha) {
            builder.remove(e.path);
            wanted.push(e);
          }
        }
        await addCommitted(builder, wanted, source.blob);
        if (tree.truncated)
          builder.leaveOut(
            "",
            `GitHub's tree listing of ${options.sha} is truncated (over 100,000 entries ` +
              `or 7 MB): files .gitattributes hides from the archive beyond it are missing`,
          );
      },
    },
  });
}

/**
 * Add `entries` from the listing: each blob fetched (within the caps and {@link MAX_BLOB_FETCHES}) or recorded by size.
 */
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
