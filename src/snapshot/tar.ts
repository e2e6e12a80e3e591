import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import tar from "tar-stream";
import type { Snapshot } from "../types.js";
import { SnapshotBuilder } from "./builder.js";
import { resolveLimits, type SnapshotLimits } from "./limits.js";

/** Options of {@link snapshotFromTar}. */
export interface TarSnapshotOptions {
  /** The commit the archive was made from (40 hex); becomes `snapshot.sha`. */
  sha: string;
  /** Whether the stream is gzip-compressed; default: sniffed from the magic bytes 1f 8b (RFC 1952). */
  gzip?: boolean;
  /** Drop the first path segment of every entry: GitHub tarballs put everything under `owner-repo-sha/`. */
  stripTopFolder?: boolean;
  limits?: Partial<SnapshotLimits>;
  /** Swap entries of the archive for the committed files (used by `exactSnapshot` of exact.ts). */
  amend?: TarAmend;
}

/** How a caller checks and corrects an archive that may not hold every file as committed (see `exactSnapshot`). */
export interface TarAmend {
  /** Called for each regular file the snapshot reads, with its git mode and bytes. */
  file(path: string, mode: string, bytes: Uint8Array): void;
  /** Called for each regular file it does not read (over the caps): the returned sink gets its chunks, then null. */
  unread(path: string, mode: string, size: number): (chunk: Buffer | null) => void;
  /** Called for each symlink with its target. */
  symlink(path: string, target: string): void;
  /** Called after the last entry, before the snapshot is frozen: replace or add what the archive did not hold. */
  complete(builder: SnapshotBuilder): Promise<void>;
}

/**
 * Build a snapshot from one tar stream: a GitHub tarball (`GET /repos/{owner}/{repo}/tarball/{sha}`, gzip, one top
 * folder, a pax global header carrying the commit id — ignored) or the output of `git archive --format=tar`.
 *
 * Regular files keep their git mode ("100755" when any execute bit is set, else "100644"); symlinks are recorded
 * with their target (mode "120000"), never followed; folders are not recorded (submodules are read from the root
 * `.gitmodules`, see `SnapshotBuilder.finish`). Entries whose names are absolute or contain `..` are ignored. Caps:
 * see {@link SnapshotLimits}; what they leave out is listed in `stats.leftOut` and sets `stats.truncated`.
 *
 * @throws Error when the stream is not a readable tar (or gzip) archive, or has no entry inside the repository
 *   (`cannot read the tar archive of SHA: it has no files`; `cachedSnapshot` then forgets the failed load).
 */
export async function snapshotFromTar(
  source: NodeJS.ReadableStream | Uint8Array,
  options: TarSnapshotOptions,
): Promise<Snapshot> {
  const builder = new SnapshotBuilder(resolveLimits(options.limits));
  const input = await withSniffedGzip(source, options.gzip);
  const extract = tar.extract();
  let entries = 0; // entries inside the repository (the stripped top folder does not count)
  // Entries are read with stream events rather than async iteration: one promise and iterator step per chunk
  // cost more than the parse itself on repositories of many small files.
  const done = new Promise<void>((resolve, reject) => {
    extract.on("entry", (header, entry, next) => {
      const path = repoPath(header.name, options.stripTopFolder === true);
      const type = header.type ?? "file";
      if (path !== null) entries += 1;
      const skip = () => {
        entry.on("end", () => next());
        entry.resume();
      };
      if (path === null || (type !== "file" && type !== "contiguous-file")) {
        if (path !== null && type === "symlink") {
          builder.addSymlink(path, header.linkname ?? "");
          options.amend?.symlink(path, header.linkname ?? "");
        }
        skip();
        return;
      }
      const size = header.size ?? 0;
      const mode = ((header.mode ?? 0o644) & 0o111) !== 0 ? "100755" : "100644";
      if (!builder.wantsContent(size)) {
        builder.addFile(path, mode, size, null);
        const sink = options.amend?.unread(path, mode, size);
        if (sink === undefined) return skip();
        entry.on("data", (chunk: Buffer) => sink(chunk));
        entry.on("end", () => {
          sink(null);
          next();
        });
        return;
      }
      const chunks: Buffer[] = [];
      entry.on("data", (chunk: Buffer) => chunks.push(chunk));
      entry.on("end", () => {
        try {
          const bytes = chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks);
          builder.addFile(path, mode, size, bytes);
          options.amend?.file(path, mode, bytes);
          next();
        } catch (err) {
          next(err as Error);
        }
      });
    });
    extract.on("finish", resolve);
    extract.on("error", reject);
  });
  input.on("error", (err: Error) => extract.destroy(err));
  input.pipe(extract);
  try {
    await done;
  } catch (err) {
    throw new Error(`cannot read the tar archive of ${options.sha}: ${(err as Error).message}`);
  }
  // An empty body (a 200 with no bytes) or an archive of nothing is never a commit's tree: fail, so nothing is cached.
  if (entries === 0) throw new Error(`cannot read the tar archive of ${options.sha}: it has no files`);
  await options.amend?.complete(builder);
  return builder.finish(options.sha);
}

/**
 * The repository-relative path of an archive entry name, or `null` for names to ignore (the top folder itself,
 * absolute names, names with `..`).
 */
function repoPath(name: string, stripTop: boolean): string | null {
  let segments = name.split("/").filter((s) => s !== "" && s !== ".");
  if (name.startsWith("/") || segments.includes("..")) return null;
  if (stripTop) segments = segments.slice(1);
  return segments.length === 0 ? null : segments.join("/");
}

/** A readable of the tar bytes: gunzipped when `gzip` is true, or (when undefined) when the first bytes are 1f 8b. */
async function withSniffedGzip(source: NodeJS.ReadableStream | Uint8Array, gzip?: boolean): Promise<Readable> {
  if (source instanceof Uint8Array) {
    const isGzip = gzip ?? (source[0] === 0x1f && source[1] === 0x8b);
    const raw = Readable.from([Buffer.from(source.buffer, source.byteOffset, source.byteLength)]);
    return isGzip ? raw.pipe(createGunzip()) : raw;
  }
  // A stream known to be plain tar (git archive) is parsed as it arrives, without a generator in between.
  if (gzip === false && source instanceof Readable) return source;
  const iterator = (source as AsyncIterable<Buffer | string>)[Symbol.asyncIterator]();
  let head = Buffer.alloc(0);
  while (head.length < 2) {
    const next = await iterator.next();
    if (next.done) break;
    head = Buffer.concat([head, Buffer.from(next.value)]);
  }
  const isGzip = gzip ?? (head[0] === 0x1f && head[1] === 0x8b);
  async function* rest(): AsyncGenerator<Buffer> {
    if (head.length > 0) yield head;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield Buffer.from(next.value);
    }
  }
  const raw = Readable.from(rest());
  if (!isGzip) return raw;
  const gunzip = createGunzip();
  raw.on("error", (err) => gunzip.destroy(err));
  return raw.pipe(gunzip);
}
