import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import type { Snapshot } from "../types.js";
import type { SnapshotLimits } from "./limits.js";
import { snapshotFromTar } from "./tar.js";

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

/**
 * Snapshot of commit `rev` of a local checkout, read from `git archive --format=tar <sha>` (tracked files of that
 * commit only; the working tree and index are not looked at). `snapshot.sha` is the resolved commit.
 *
 * @throws Error for a folder that is not a git repository, an unknown rev, or a failing `git archive`.
 */
export async function snapshotFromGit(
  repoDir: string,
  rev: string,
  options: { limits?: Partial<SnapshotLimits> } = {},
): Promise<Snapshot> {
  const sha = await resolveCommit(repoDir, rev);
  const child = spawn("git", ["-C", repoDir, "archive", "--format=tar", sha], { stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (d: string) => {
    if (stderr.length < 2000) stderr += d;
  });
  const exited = new Promise<number>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
  let snapshot: Snapshot;
  try {
    snapshot = await snapshotFromTar(child.stdout, { sha, gzip: false, limits: options.limits });
  } catch (err) {
    child.kill();
    await exited.catch(() => 1);
    throw new Error(`git archive ${sha} failed in ${repoDir}: ${stderr.trim() || (err as Error).message}`);
  }
  const code = await exited;
  if (code !== 0) throw new Error(`git archive ${sha} failed in ${repoDir}: ${stderr.trim() || `exit code ${code}`}`);
  return snapshot;
}
