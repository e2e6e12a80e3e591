import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import type { Snapshot } from "../types.js";
import type { SnapshotLimits } from "./limits.js";
import { SnapshotBuilder } from "./builder.js";
import { resolveLimits } from "./limits.js";

const run = promisify(execFile);
const runBuffer = promisify(execFile) as (
  file: string,
  args: string[],
  options: { encoding: "buffer"; maxBuffer: number },
) => Promise<{ stdout: Buffer; stderr: Buffer }>;

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

/** Parse `git ls-tree -r -z --long` output (`<mode> SP <type> SP <oid> SP+ <size> TAB <path> NUL`). */
function parseTree(out: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let from = 0;
  for (let nul = out.indexOf(0, from); nul !== -1; from = nul + 1, nul = out.indexOf(0, from)) {
    const record = out.toString("utf8", from, nul);
    const tab = record.indexOf("\t");
    const [mode, type, oid, size] = record.slice(0, tab).split(/ +/);
    if (mode && type && oid)
      entries.push({ mode, type, oid, size: size === "-" ? 0 : Number(size), path: record.slice(tab + 1) });
  }
  return entries;
}

/**
 * Bytes of `git cat-file --batch` output handed on at once (a run of whole blobs; a blob larger than this is one run).
 */
const RUN_BYTES = 4 * 1024 * 1024;

/**
 * Where one blob's bytes are in a run of `git cat-file --batch` output: its index in the ids asked for, `[start, end)`.
 */
interface BlobRange {
  index: number;
  start: number;
  end: number;
}

/**
 * Read blobs with one `git cat-file --batch` process: ids go in on stdin, `<oid> blob <size>\n<bytes>\n` come back
 * in the same order. The output is handed on in runs of whole blobs of about {@link RUN_BYTES}: `onRun(run, blobs)`
 * gets one buffer (the output's bytes, headers included) and where each blob's bytes are in it, so a caller can
 * decode a run once. Raw object contents: no `.gitattributes` conversion at all.
 */
async function catBlobs(
  repoDir: string,
  oids: readonly string[],
  onRun: (run: Buffer, blobs: readonly BlobRange[]) => void,
): Promise<void> {
  if (oids.length === 0) return;
  const child = spawn("git", ["-C", repoDir, "cat-file", "--batch"], { stdio: ["pipe", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d: string) => {
    if (stderr.length < 2000) stderr += d;
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
  child.stdin.on("error", () => undefined);
  child.stdin.end(oids.join("\n") + "\n");
  // The current run: the chunks read since it started (`length` bytes) and the blobs complete in them.
  let chunks: Buffer[] = [];
  let length = 0;
  let blobs: BlobRange[] = [];
  let index = 0;
  let header = ""; // the part of a header line read so far
  let need = -1; // bytes of the current blob still to come (plus its newline), or -1 while reading a header
  let start = 0; // offset in the run of the current blob's first byte
  let size = 0;
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    let base = length; // offset in the run of chunk[0]
    chunks.push(chunk);
    length += chunk.length;
    let at = 0;
    while (at < chunk.length) {
      if (need === -1) {
        const eol = chunk.indexOf(10, at);
        header += chunk.toString("latin1", at, eol === -1 ? chunk.length : eol);
        if (eol === -1) break;
        at = eol + 1;
        const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
        if (!m) throw new Error(`git cat-file ${header}`);
        header = "";
        size = Number(m[2]);
        need = size + 1;
        start = base + at;
        continue;
      }
      const take = Math.min(need, chunk.length - at);
      need -= take;
      at += take;
      if (need > 0) break;
      need = -1;
      blobs.push({ index: index++, start, end: start + size });
      if (base + at < RUN_BYTES) continue;
      // A run is complete: hand it on, and start the next one with the rest of this chunk.
      chunks[chunks.length - 1] = chunk.subarray(0, at);
      onRun(Buffer.concat(chunks, base + at), blobs);
      chunks = [chunk.subarray(at)];
      length = chunk.length - at;
      base = -at;
      blobs = [];
    }
  }
  if (blobs.length > 0) onRun(Buffer.concat(chunks, length), blobs);
  const code = await exited;
  if (code !== 0 || index !== oids.length || need !== -1)
    throw new Error(stderr.trim() || `git cat-file exited with ${code}`);
}

/**
 * Snapshot of commit `rev` of a local checkout: every path of the commit's tree (`git ls-tree -r -z --long`) with
 * each blob exactly as committed (`git cat-file --batch`). Unlike `git archive`, no `.gitattributes` rule applies:
 * `export-ignore` hides no file, `export-subst` and `ident` rewrite nothing, `eol`/`text` and `core.autocrlf` convert
 * no line ending, so a commit built from the snapshot changes no byte the model did not touch. Gitlinks (mode 160000)
 * are submodules; symlinks keep their target. The working tree and index are never looked at. Blobs over the size
 * caps are not read (their sizes come from the tree listing).
 *
 * @throws Error for a folder that is not a git repository, an unknown rev, or a failing git command.
 */
export async function snapshotFromGit(
  repoDir: string,
  rev: string,
  options: { limits?: Partial<SnapshotLimits> } = {},
): Promise<Snapshot> {
  const sha = await resolveCommit(repoDir, rev);
  let tree: TreeEntry[];
  try {
    const { stdout } = await runBuffer("git", ["-C", repoDir, "ls-tree", "-r", "-z", "--long", "--full-tree", sha], {
      encoding: "buffer",
      maxBuffer: 1024 * 1024 * 1024,
    });
    tree = parseTree(stdout);
  } catch (err) {
    throw new Error(
      `git ls-tree ${sha} failed in ${repoDir}: ` +
        `${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()}`,
    );
  }
  if (tree.length === 0) throw new Error(`commit ${sha} in ${repoDir} has no files`);
  const builder = new SnapshotBuilder(resolveLimits(options.limits));
  const wanted: TreeEntry[] = [];
  for (const e of tree) {
    if (e.type === "commit") builder.addSubmodule(e.path);
    else if (e.type !== "blob") continue;
    else if (e.mode === "120000" || builder.wantsContent(e.size)) wanted.push(e);
    else builder.addFile(e.path, e.mode === "100755" ? "100755" : "100644", e.size, null);
  }
  try {
    await catBlobs(
      repoDir,
      wanted.map((e) => e.oid),
      (run, blobs) => {
        const files = blobs.map(({ index, start, end }) => {
          const { path, mode } = wanted[index]!;
          return { path, mode: mode === "120000" || mode === "100755" ? mode : "100644", start, end };
        });
        builder.addFiles(run, files);
      },
    );
  } catch (err) {
    throw new Error(`git cat-file failed in ${repoDir}: ${(err as Error).message}`);
  }
  return builder.finish(sha);
}
