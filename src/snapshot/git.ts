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
 * Read blobs with one `git cat-file --batch` process: ids go in on stdin, `<oid> blob <size>\n<bytes>\n` come back
 * in the same order; `onBlob` gets each blob's bytes. Raw object contents: no `.gitattributes` conversion at all.
 */
async function catBlobs(
  repoDir: string,
  oids: readonly string[],
  onBlob: (index: number, bytes: Buffer) => void,
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
  let pending: Buffer = Buffer.alloc(0);
  let index = 0;
  let need = -1; // bytes of the current blob still to come (plus its newline), or -1 while reading a header
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      if (need === -1) {
        const eol = pending.indexOf(10);
        if (eol === -1) break;
        const header = pending.toString("utf8", 0, eol);
        const m = /^[0-9a-f]+ (\w+) (\d+)$/.exec(header);
        if (!m) throw new Error(`git cat-file ${header}`);
        need = Number(m[2]) + 1;
        pending = pending.subarray(eol + 1);
      }
      if (pending.length < need) break;
      onBlob(index++, pending.subarray(0, need - 1));
      pending = pending.subarray(need);
      need = -1;
    }
  }
  const code = await exited;
  if (code !== 0 || index !== oids.length) throw new Error(stderr.trim() || `git cat-file exited with ${code}`);
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
      `git ls-tree ${sha} failed in ${repoDir}: ${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()}`,
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
      (i, bytes) => {
        const e = wanted[i]!;
        if (e.mode === "120000") builder.addSymlink(e.path, bytes.toString("utf8"));
        else builder.addFile(e.path, e.mode === "100755" ? "100755" : "100644", bytes.length, bytes);
      },
    );
  } catch (err) {
    throw new Error(`git cat-file failed in ${repoDir}: ${(err as Error).message}`);
  }
  return builder.finish(sha);
}
