import type { EntryKind, Snapshot, SnapshotEntry, SnapshotStats } from "../types.js";
import type { SnapshotLimits } from "./limits.js";

/** First line of a Git LFS pointer file (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md). */
const LFS_HEADER = "version https://git-lfs.github.com/spec/v1";
/** The LFS spec caps pointer files at 1024 bytes. */
const LFS_MAX_BYTES = 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Classify bytes as text or binary: any NUL byte, or bytes that are not valid UTF-8, make a file binary.
 * @returns the decoded string (a BOM stays as U+FEFF), or `null` for binary content.
 */
export function decodeText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Accumulates the entries of one archive under the caps and freezes them into a {@link Snapshot}.
 * Paths given to it are already repository-relative. Not exported from the package: use `snapshotFromTar`.
 */
export class SnapshotBuilder {
  private readonly entries = new Map<string, SnapshotEntry>();
  private readonly contents = new Map<string, string>();
  private readonly leftOut: { path: string; reason: string }[] = [];
  private loadedBytes = 0;

  constructor(private readonly limits: SnapshotLimits) {}

  /** True when the file count cap leaves room for one more path; otherwise records `path` as left out. */
  private admit(path: string): boolean {
    if (this.entries.size < this.limits.maxFiles) return true;
    this.leftOut.push({ path, reason: `file count cap (${this.limits.maxFiles} files) reached` });
    return false;
  }

  /** Whether a file of `size` bytes should be read at all (`false` for too-large or over-cap files). */
  wantsContent(size: number): boolean {
    return size <= this.limits.maxFileBytes && this.loadedBytes + size <= this.limits.maxTotalBytes;
  }

  /** Record a regular file. `bytes` is its content, or `null` when it was not read (see {@link wantsContent}). */
  addFile(path: string, mode: string, size: number, bytes: Uint8Array | null): void {
    if (!this.admit(path)) return;
    if (size > this.limits.maxFileBytes) {
      this.entries.set(path, { path, kind: "too_large", size, mode });
      return;
    }
    if (bytes === null || this.loadedBytes + size > this.limits.maxTotalBytes) {
      this.leftOut.push({ path, reason: `total size cap (${formatMB(this.limits.maxTotalBytes)}) reached` });
      return;
    }
    this.loadedBytes += size;
    const text = decodeText(bytes);
    let kind: EntryKind = text === null ? "binary" : "text";
    if (text !== null && size <= LFS_MAX_BYTES && text.startsWith(LFS_HEADER)) kind = "lfs_pointer";
    this.entries.set(path, { path, kind, size, mode });
    if (kind === "text" && text !== null) this.contents.set(path, text);
  }

  /** Record a symbolic link with its target as written in the archive; the target is never followed. */
  addSymlink(path: string, target: string): void {
    if (!this.admit(path)) return;
    this.entries.set(path, { path, kind: "symlink", size: Buffer.byteLength(target), mode: "120000", target });
  }

  /**
   * Freeze into a snapshot. Submodules are the `path = …` entries of the root `.gitmodules` (archives write a
   * submodule, git mode 160000, as an empty folder); each is recorded with kind `submodule` and mode "160000".
   */
  finish(sha: string): Snapshot {
    const gitmodules = this.contents.get(".gitmodules");
    if (gitmodules !== undefined) {
      for (const line of gitmodules.split("\n")) {
        const m = /^\s*path\s*=\s*(.+?)\s*$/.exec(line);
        const path = m?.[1]?.replace(/^\.\//, "").replace(/\/+$/, "");
        if (!path || this.entries.has(path) || !this.admit(path)) continue;
        this.entries.set(path, { path, kind: "submodule", size: 0, mode: "160000" });
      }
    }
    const entries = this.entries;
    const contents = this.contents;
    const paths = Object.freeze([...entries.keys()].sort());
    let textBytes = 0;
    let totalBytes = 0;
    for (const e of entries.values()) {
      totalBytes += e.size;
      if (e.kind === "text") textBytes += e.size;
    }
    const stats: SnapshotStats = Object.freeze({
      files: entries.size,
      textFiles: contents.size,
      textBytes,
      totalBytes,
      leftOut: Object.freeze([...this.leftOut]) as SnapshotStats["leftOut"],
      truncated: this.leftOut.length > 0,
    });
    return Object.freeze({
      sha,
      paths,
      stats,
      entry: (path: string) => entries.get(path),
      read: (path: string) => contents.get(path),
    });
  }
}

function formatMB(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}
