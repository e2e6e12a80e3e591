import { isAscii, isUtf8 } from "node:buffer";
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

/** Characters of decoded non-ASCII files a snapshot keeps for repeated reads. */
const DECODED_CACHE_CHARS = 4_000_000;

/** The raw text of each snapshot built here (see {@link rawText}), and whether a path's raw text is not its text. */
const raws = new WeakMap<object, { raw: (path: string) => string | undefined; encoded: (path: string) => boolean }>();

/**
 * The bytes of a text file as a string of one character per byte (Latin-1 of its UTF-8), without decoding: every
 * ASCII character sits where it is in the file's bytes and every other character is two to four characters of 128
 * to 255, none of them ASCII. So a search for ASCII text (words, identifiers, ASCII literals) finds in it exactly
 * the lines and words it finds in the decoded text, at byte offsets. For snapshots not built by this module (test
 * doubles), the decoded text (`read`), which is as good for such searches.
 * @returns undefined for paths that are not text files.
 */
export function rawText(snapshot: Pick<Snapshot, "read">, path: string): string | undefined {
  const raw = raws.get(snapshot);
  return raw !== undefined ? raw.raw(path) : snapshot.read(path);
}

/**
 * Whether every {@link rawText} of `snapshot` is Latin-1, each code unit one byte of the file (at most 0xFF): true
 * for snapshots built by this module; false for others, whose raw text is `read`'s and may hold any code unit.
 */
export function rawIsLatin1(snapshot: Pick<Snapshot, "read">): boolean {
  return raws.has(snapshot);
}

/**
 * Whether {@link rawText} of `path` is its decoded text too (`read` gives the same string, nothing to decode): true
 * for ASCII files, for paths that are not text files, and for every path of snapshots not built by this module.
 * False for a file with bytes past ASCII, whose raw text is the Latin-1 of its UTF-8.
 */
export function rawIsText(snapshot: Pick<Snapshot, "read">, path: string): boolean {
  return raws.get(snapshot)?.encoded(path) !== true;
}

/**
 * Accumulates the entries of one archive under the caps and freezes them into a {@link Snapshot}.
 * Paths given to it are already repository-relative. Not exported from the package: use `snapshotFromTar`.
 *
 * Memory: text is kept as one string per file of one character per byte ({@link rawText}), which V8 stores one byte
 * per character: an ASCII file is its own text; any other is decoded from UTF-8 on `read` (the last few decoded, up
 * to {@link DECODED_CACHE_CHARS} characters, are kept). Decoded up front, a file with one character past U+00FF
 * would take two bytes per character: on a 109 MB tree of JavaScript sources a third of the characters are in such
 * files, and the strings took 152 MB of heap instead of 109 MB. Files added together ({@link addFiles}, from
 * `snapshotFromGit`) share one string per run of git output: Node makes a string of a large buffer an external string
 * (outside the garbage-collected heap), so the heap stays small and collections stay cheap.
 */
export class SnapshotBuilder {
  private readonly entries = new Map<string, SnapshotEntry>();
  private readonly contents = new Map<string, string>();
  /** Paths whose `contents` are the Latin-1 of UTF-8 bytes that are not all ASCII. */
  private readonly encoded = new Set<string>();
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
    const text = this.accept(path, mode, size, bytes);
    if (text !== null) this.keep(path, text, text.toString("latin1"));
  }

  /**
   * Record files whose contents are ranges `[start, end)` of one buffer (a run of `git cat-file --batch` output), in
   * order: regular files (git mode 100644 or 100755) and symbolic links (mode 120000, the range is the target). When
   * text files make up most of the buffer (three quarters or more), the buffer becomes one string and each file's
   * text a slice of it: V8 keeps a slice as a reference into its parent, so the files cost one allocation instead of
   * one each, and the garbage collector moves one large string instead of thousands of small ones. Otherwise
   * (binary files in between) each text file is a string of its own, so no binary byte is kept. Nothing refers to
   * `buffer` afterwards (strings are copies), so a caller may reuse it.
   */
  addFiles(buffer: Buffer, files: readonly { path: string; mode: string; start: number; end: number }[]): void {
    const texts: { path: string; start: number; end: number; bytes: Buffer }[] = [];
    let textBytes = 0;
    for (const f of files) {
      if (f.mode === "120000") {
        this.addSymlink(f.path, buffer.toString("utf8", f.start, f.end));
        continue;
      }
      const text = this.accept(f.path, f.mode, f.end - f.start, buffer.subarray(f.start, f.end));
      if (text === null) continue;
      texts.push({ path: f.path, start: f.start, end: f.end, bytes: text });
      textBytes += f.end - f.start;
    }
    const whole = textBytes * 4 >= buffer.length * 3 ? buffer.toString("latin1") : null;
    for (const t of texts)
      this.keep(
        t.path,
        t.bytes,
        whole !== null ? whole.slice(t.start, t.end) : buffer.toString("latin1", t.start, t.end),
      );
  }

  /**
   * Record the entry of a regular file under the caps and classify it.
   * @returns its bytes when it is a text file to keep (UTF-8 without NUL bytes, not an LFS pointer), else `null`.
   */
  private accept(path: string, mode: string, size: number, bytes: Uint8Array | null): Buffer | null {
    if (!this.admit(path)) return null;
    if (size > this.limits.maxFileBytes) {
      this.entries.set(path, { path, kind: "too_large", size, mode });
      return null;
    }
    if (bytes === null || this.loadedBytes + size > this.limits.maxTotalBytes) {
      this.leftOut.push({ path, reason: `total size cap (${formatMB(this.limits.maxTotalBytes)}) reached` });
      return null;
    }
    this.loadedBytes += size;
    // Text: UTF-8 without NUL bytes (validated without decoding: isUtf8 and isAscii run natively).
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const isText = !buf.includes(0) && (isAscii(buf) || isUtf8(buf));
    let kind: EntryKind = isText ? "text" : "binary";
    if (isText && size <= LFS_MAX_BYTES && buf.toString("latin1", 0, LFS_HEADER.length) === LFS_HEADER)
      kind = "lfs_pointer";
    this.entries.set(path, { path, kind, size, mode });
    return kind === "text" ? buf : null;
  }

  /** Keep the text of a text file: `raw` is the Latin-1 string of its `bytes` (see {@link rawText}). */
  private keep(path: string, bytes: Buffer, raw: string): void {
    this.contents.set(path, raw);
    if (!isAscii(bytes)) this.encoded.add(path);
  }

  /** True when `path` is recorded already (a file of any kind, a symlink or a submodule). */
  has(path: string): boolean {
    return this.entries.has(path);
  }

  /** Forget what was recorded at `path` (its entry, text and the bytes it counted), to record it again. */
  remove(path: string): void {
    const e = this.entries.get(path);
    if (e === undefined) return;
    this.entries.delete(path);
    if (e.kind === "text" || e.kind === "binary" || e.kind === "lfs_pointer") this.loadedBytes -= e.size;
    this.contents.delete(path);
    this.encoded.delete(path);
  }

  /** List `path` in `stats.leftOut` with `reason` (a file known to exist whose content could not be had). */
  leaveOut(path: string, reason: string): void {
    this.leftOut.push({ path, reason });
  }

  /** Record a submodule (a gitlink, git mode 160000), as a tree listing shows it. */
  addSubmodule(path: string): void {
    if (this.entries.has(path) || !this.admit(path)) return;
    this.entries.set(path, { path, kind: "submodule", size: 0, mode: "160000" });
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
    const gitmodules = this.read(".gitmodules", () => undefined);
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
    // The most recently decoded non-ASCII files (insertion order = recency), up to DECODED_CACHE_CHARS in all.
    const recent = new Map<string, string>();
    let recentChars = 0;
    const remember = (path: string, text: string): void => {
      if (text.length > DECODED_CACHE_CHARS) return;
      recent.set(path, text);
      recentChars += text.length;
      for (const [oldPath, old] of recent) {
        if (recentChars <= DECODED_CACHE_CHARS) break;
        recent.delete(oldPath);
        recentChars -= old.length;
      }
    };
    const cached = (path: string): string | undefined => {
      const hit = recent.get(path);
      if (hit !== undefined) {
        recent.delete(path);
        recent.set(path, hit);
      }
      return hit;
    };
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
    const snapshot: Snapshot = Object.freeze({
      sha,
      paths,
      stats,
      entry: (path: string) => entries.get(path),
      read: (path: string) => this.read(path, cached, remember),
    });
    raws.set(snapshot, { raw: (path) => contents.get(path), encoded: (path) => this.encoded.has(path) });
    return snapshot;
  }

  /** The decoded text of `path` (from the cache, or decoded and remembered), or undefined for non-text paths. */
  private read(
    path: string,
    cached: (path: string) => string | undefined,
    remember?: (path: string, text: string) => void,
  ): string | undefined {
    const raw = this.contents.get(path);
    if (raw === undefined || !this.encoded.has(path)) return raw;
    const hit = cached(path);
    if (hit !== undefined) return hit;
    const text = Buffer.from(raw, "latin1").toString("utf8");
    remember?.(path, text);
    return text;
  }
}

function formatMB(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}
