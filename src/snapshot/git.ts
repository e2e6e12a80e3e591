import { execFile, spawn } from "node:child_process";
import { type FileHandle, mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Snapshot } from "../types.js";
import type { SnapshotLimits } from "./limits.js";
import { SnapshotBuilder } from "./builder.js";
import { resolveLimits } from "./limits.js";

const run = promisify(execFile);

/**
 * Resolve `rev` in the git checkout at `repoDir` to a 40-hex commit SHA (`git rev-parse --verify <rev>^{commit}`).
 * @throws Error `not a git repository: <dir>` or `unknown ref '<rev>' in <dir>`.
 */
export async function resolveCommit(repoDir: string, rev: string): Promise<string> {
  if (rev.startsWith("-")) throw new Error(`unknown ref '${rev}' in ${repoDir}`);
  try {
    await run("git", ["-C", repoDir, "rev-parse", "--git-dir"]);
  } catch {
    throw new Error(`not a git repository: ${repoDir}`);
  }
  try {
    const { stdout } = await run("git", ["-C", repoDir, "rev-parse", "--verify", "--quiet", `${rev}^{commit}`]);
    const sha = stdout.trim();
    if (/^[0-9a-f]{40}$/.test(sha)) return sha;
  } catch {
    // fall through
  }
  throw new Error(`unknown ref '${rev}' in ${repoDir}`);
}

/** One entry of `git ls-tree -r -z --long`: mode, object type, object id, size ("-" for a gitlink), path. */
interface TreeEntry {
  mode: string;
  type: string;
  oid: string;
  size: number;
  path: string;
}

/** A full object id as `git rev-parse` prints it (SHA-1). */
const FULL_SHA = /^[0-9a-f]{40}$/;

/**
 * List the tree of commit `sha` (`git ls-tree -r -z --long --full-tree <sha>^{commit}`: the peel makes git refuse
 * an id that is not a commit), handing on its entries (`<mode> SP <type> SP <oid> SP+ <size> TAB <path> NUL`) in
 * order, in batches as git writes them, so blobs can be asked for while the listing is still coming.
 * @returns the number of entries. @throws Error with git's message when it fails.
 */
function listTree(repoDir: string, sha: string, onEntries: (entries: TreeEntry[]) => void): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", ["-C", repoDir, "ls-tree", "-r", "-z", "--long", "--full-tree", `${sha}^{commit}`], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (d: string) => {
      if (stderr.length < 2000) stderr += d;
    });
    let rest: Buffer = Buffer.alloc(0); // the start of a record whose NUL has not come yet
    let count = 0;
    child.stdout.on("data", (chunk: Buffer) => {
      const out = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
      const entries: TreeEntry[] = [];
      let from = 0;
      for (let nul = out.indexOf(0, from); nul !== -1; from = nul + 1, nul = out.indexOf(0, from)) {
        const record = out.toString("utf8", from, nul);
        const tab = record.indexOf("\t");
        const [mode, type, oid, size] = record.slice(0, tab).split(/ +/);
        if (mode && type && oid)
          entries.push({ mode, type, oid, size: size === "-" ? 0 : Number(size), path: record.slice(tab + 1) });
      }
      rest = out.subarray(from);
      count += entries.length;
      if (entries.length > 0) onEntries(entries);
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0 && rest.length === 0) resolve(count);
      else reject(new Error(stderr.trim() || `git ls-tree exited with ${code}`));
    });
  });
}

/**
 * Bytes of `git cat-file --batch` output handed on at once (a run of whole blobs; a blob larger than this is one
 * run).
 */
const RUN_BYTES = 4 * 1024 * 1024;
/** How long the reader waits before looking again when it has read all git has written so far (milliseconds). */
const POLL_MS = 2;

/**
 * Where one blob's bytes are in a run of `git cat-file --batch` output: its index in the ids asked for, `[start,
 * end)`.
 */
interface BlobRange {
  index: number;
  start: number;
  end: number;
}

/**
 * Read blobs with one `git cat-file --batch` process: `feed(ask)` passes ids to it (`ask(oids)`, any number of times;
 * they go to git's stdin at once, so git works while `feed` still runs), and `<oid> blob <size>\n<bytes>\n` come back
 * in the same order. Once `feed` has resolved, the output is handed on in runs of whole blobs of about
 * {@link RUN_BYTES}: `onRun(run, blobs)` gets one buffer (the output's bytes, headers included) and where each blob's
 * bytes are in it, so a caller can decode a run once. The buffer is reused once `onRun` returns: a caller copies what
 * it keeps. Raw object contents: no `.gitattributes` conversion at all.
 *
 * git writes into a temporary file (its name removed as soon as git holds it open, where the system allows), which
 * this process reads in large reads into one reused buffer while git is still writing. Through a pipe, git stops
 * whenever the pipe's few hundred KB are full and this process is busy elsewhere (loading modules, parsing), and
 * each 64 KB chunk costs a stream event and an allocation; here git never waits, and the reads are a few dozen.
 *
 * @throws Error `git cat-file failed in <dir>: <git's message>`, or what `feed` throws (git is then stopped).
 */
async function catBlobs(
  repoDir: string,
  feed: (ask: (oids: readonly string[]) => void) => Promise<void>,
  onRun: (run: Buffer, blobs: readonly BlobRange[]) => void,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "groundfix-cat-file-"));
  let handle: FileHandle | undefined;
  let fed = false; // whether `feed` is done (what fails later is git's or this reader's)
  try {
    handle = await open(join(dir, "batch"), "w+");
    const child = spawn("git", ["-C", repoDir, "cat-file", "--batch"], { stdio: ["pipe", handle.fd, "pipe"] });
    let stderr = "";
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (d: string) => {
      if (stderr.length < 2000) stderr += d;
    });
    let exitCode: number | null = null;
    const exited = new Promise<number>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => resolve((exitCode = code ?? 1)));
    });
    exited.catch(() => undefined);
    const stdin = child.stdin!;
    stdin.on("error", () => undefined); // git may exit before reading every id (a bad repository): its code says so
    // git holds the file open now; on Windows an open file cannot be removed, so there `finally` removes it.
    if (process.platform !== "win32") await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    let asked = 0;
    try {
      await feed((oids) => {
        if (oids.length === 0) return;
        asked += oids.length;
        stdin.write(oids.join("\n") + "\n");
      });
    } catch (err) {
      child.kill();
      await exited.catch(() => undefined);
      throw err;
    }
    fed = true;
    stdin.end();
    let buf = Buffer.allocUnsafeSlow(RUN_BYTES + 256 * 1024);
    let filled = 0; // bytes of output in `buf`
    let position = 0; // where in the file the next read starts
    let at = 0; // the parse position in `buf`
    let runEnd = 0; // end in `buf` of the last whole blob (and its newline)
    let blobs: BlobRange[] = [];
    let index = 0;
    let size = -1; // size of the blob whose header was read, -1 while a header is expected
    let start = 0; // where in `buf` that blob's bytes start
    for (;;) {
      // Parse what has been read: headers, and blobs once all their bytes (and the newline after them) are in.
      for (;;) {
        if (size === -1) {
          const eol = buf.indexOf(10, at);
          if (eol === -1 || eol >= filled) break;
          const header = buf.toString("latin1", at, eol);
          const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
          if (!m) throw new Error(`git cat-file ${header}`);
          size = Number(m[2]);
          at = start = eol + 1;
        }
        if (start + size + 1 > filled) break;
        blobs.push({ index: index++, start, end: start + size });
        at = runEnd = start + size + 1;
        size = -1;
      }
      if (runEnd >= RUN_BYTES || (filled === buf.length && runEnd > 0)) {
        onRun(buf.subarray(0, runEnd), blobs);
        // Keep what follows (the start of the next blob) at the start of the buffer.
        buf.copyWithin(0, runEnd, filled);
        filled -= runEnd;
        at -= runEnd;
        start -= runEnd;
        runEnd = 0;
        blobs = [];
      }
      // A blob (or header) larger than the buffer: a larger buffer, keeping what was read.
      const need = size === -1 ? filled + 1 : start + size + 1;
      if (need > buf.length) {
        const larger = Buffer.allocUnsafeSlow(Math.max(need, buf.length * 2));
        buf.copy(larger, 0, 0, filled);
        buf = larger;
      }
      const gitDone = exitCode !== null;
      const { bytesRead } = await handle.read(buf, filled, buf.length - filled, position);
      filled += bytesRead;
      position += bytesRead;
      if (bytesRead > 0) continue;
      if (gitDone) break; // git had exited before this read found nothing more: all its output is read
      await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, POLL_MS))]);
    }
    if (blobs.length > 0) onRun(buf.subarray(0, runEnd), blobs);
    const code = await exited;
    if (code !== 0 || index !== asked || size !== -1 || at !== filled)
      throw new Error(stderr.trim() || `git cat-file exited with ${code}`);
  } catch (err) {
    if (!fed) throw err;
    throw new Error(`git cat-file failed in ${repoDir}: ${(err as Error).message}`);
  } finally {
    await handle?.close();
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}

/** A file whose content the builder takes, in tree order: read from git, or known over the total cap already. */
interface Wanted {
  path: string;
  mode: "100644" | "100755" | "120000";
  size: number;
  read: boolean;
}

/**
 * Snapshot of commit `rev` of a local checkout: every path of the commit's tree (`git ls-tree -r -z --long`) with
 * each blob exactly as committed (`git cat-file --batch`). Unlike `git archive`, no `.gitattributes` rule applies:
 * `export-ignore` hides no file, `export-subst` and `ident` rewrite nothing, `eol`/`text` and `core.autocrlf` convert
 * no line ending, so a commit built from the snapshot changes no byte the model did not touch. Gitlinks (mode 160000)
 * are submodules; symlinks keep their target. The working tree and index are never looked at. Blobs over the size
 * caps are not read (their sizes come from the tree listing): files larger than `maxFileBytes`, and files that the
 * total cap leaves out (the files before them in the tree already fill it).
 *
 * Cost: a full commit id is not resolved again (the listing refuses one that is not a commit); blobs are asked for
 * while the listing streams in.
 *
 * @throws Error for a folder that is not a git repository, an unknown rev, or a failing git command.
 */
export async function snapshotFromGit(
  repoDir: string,
  rev: string,
  options: { limits?: Partial<SnapshotLimits> } = {},
): Promise<Snapshot> {
  const sha = FULL_SHA.test(rev) ? rev : await resolveCommit(repoDir, rev);
  const limits = resolveLimits(options.limits);
  const builder = new SnapshotBuilder(limits);
  const wanted: Wanted[] = [];
  const asked: number[] = []; // for each blob asked for, its index in `wanted`
  // The bytes the builder will have counted when it meets each file: in tree order, every regular file it reads
  // adds its size unless that would pass the total cap (SnapshotBuilder.accept); such a file is not read at all.
  let loaded = 0;
  let entries = 0;
  let next = 0; // the first index in `wanted` not yet added to the builder
  await catBlobs(
    repoDir,
    async (ask) => {
      try {
        entries = await listTree(repoDir, sha, (batch) => {
          const oids: string[] = [];
          for (const e of batch) {
            const mode = e.mode === "120000" || e.mode === "100755" ? e.mode : "100644";
            if (e.type === "commit") builder.addSubmodule(e.path);
            else if (e.type !== "blob") continue;
            else if (mode !== "120000" && !builder.wantsContent(e.size)) builder.addFile(e.path, mode, e.size, null);
            else {
              const fits = mode === "120000" || loaded + e.size <= limits.maxTotalBytes;
              if (fits && mode !== "120000") loaded += e.size;
              if (fits) {
                asked.push(wanted.length);
                oids.push(e.oid);
              }
              wanted.push({ path: e.path, mode, size: e.size, read: fits });
            }
          }
          ask(oids);
        });
      } catch (err) {
        // Say what is wrong in the words resolveCommit uses (no repository, no such commit), else git's own.
        if (rev === sha) await resolveCommit(repoDir, rev);
        throw new Error(`git ls-tree ${sha} failed in ${repoDir}: ${(err as Error).message}`);
      }
      if (entries === 0) throw new Error(`commit ${sha} in ${repoDir} has no files`);
    },
    (run, blobs) => {
      let files: { path: string; mode: string; start: number; end: number }[] = [];
      for (const { index, start, end } of blobs) {
        const k = asked[index]!;
        if (next < k) {
          addRun(run, files);
          files = [];
          addUnread(k);
        }
        next = k + 1;
        files.push({ path: wanted[k]!.path, mode: wanted[k]!.mode, start, end });
      }
      addRun(run, files);
    },
  );
  addUnread(wanted.length);
  return builder.finish(sha);

  /** The wanted files before index `k` not yet added (all left out by the total cap), added as unread. */
  function addUnread(k: number): void {
    for (; next < k; next++) builder.addFile(wanted[next]!.path, wanted[next]!.mode, wanted[next]!.size, null);
  }
  /** Add `files` (ranges of `run`) as one part of the run, so the builder decides over their bytes only. */
  function addRun(run: Buffer, files: { path: string; mode: string; start: number; end: number }[]): void {
    if (files.length === 0) return;
    const from = files[0]!.start;
    const part = run.subarray(from, files[files.length - 1]!.end);
    builder.addFiles(
      part,
      files.map((f) => ({ ...f, start: f.start - from, end: f.end - from })),
    );
  }
}
