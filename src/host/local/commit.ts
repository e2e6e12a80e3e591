import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ChangedFile } from "../../types.js";
import { LocalInputError } from "./errors.js";
import { git, gitText, GitError } from "./git.js";

/** The file modes a commit made by groundfix may write: regular and executable files (git's octal modes). */
const WRITABLE_MODES = new Set(["100644", "100755"]);

/** Identity used for the commit when the repository and environment define none (`user.name`/`user.email`). */
export const FALLBACK_IDENTITY = { name: "groundfix", email: "groundfix@users.noreply.local" } as const;

/**
 * Check a repository-relative path before it reaches git: forward slashes, no leading `/`, no empty, `.` or `..`
 * segment, no `.git` segment, no control characters.
 * @throws LocalInputError (kind `bad_file`) naming the path and the rule it breaks.
 */
export function assertSafePath(path: string): void {
  const segments = path.split("/");
  const bad =
    path === "" ||
    path.startsWith("/") ||
    path.includes("\\") ||
    /[\u0000-\u001f\u007f]/.test(path) ||
    segments.some((s) => s === "" || s === "." || s === ".." || s.toLowerCase() === ".git");
  if (bad) throw new LocalInputError("bad_file", `refusing to commit path ${JSON.stringify(path)}: not a plain repository-relative path`);
}

/**
 * Check a branch name with `git check-ref-format --branch` (git's own rules).
 * @throws LocalInputError (kind `bad_branch`).
 */
export async function assertBranchName(repoDir: string, branch: string): Promise<void> {
  if (branch.startsWith("-")) throw new LocalInputError("bad_branch", `invalid branch name ${JSON.stringify(branch)}`);
  try {
    await git(repoDir, ["check-ref-format", "--branch", branch]);
  } catch (error) {
    if (error instanceof GitError) throw new LocalInputError("bad_branch", `invalid branch name ${JSON.stringify(branch)}`);
    throw error;
  }
}

/** The commit `refs/heads/<branch>` points at, or null when the branch does not exist. */
export async function branchHead(repoDir: string, branch: string): Promise<string | null> {
  try {
    return await gitText(repoDir, ["rev-parse", "--verify", "--quiet", `refs/heads/${branch}^{commit}`]);
  } catch (error) {
    if (error instanceof GitError) return null;
    throw error;
  }
}

/** Environment that gives commit-tree an author/committer when the repository has no `user.name`/`user.email`. */
async function identityEnv(repoDir: string): Promise<Record<string, string>> {
  const get = async (key: string) => {
    try {
      return await gitText(repoDir, ["config", "--get", key]);
    } catch {
      return "";
    }
  };
  const env: Record<string, string> = {};
  if (!process.env.GIT_AUTHOR_NAME && !process.env.GIT_COMMITTER_NAME && !(await get("user.name"))) {
    env.GIT_AUTHOR_NAME = env.GIT_COMMITTER_NAME = FALLBACK_IDENTITY.name;
  }
  if (!process.env.GIT_AUTHOR_EMAIL && !process.env.GIT_COMMITTER_EMAIL && !process.env.EMAIL && !(await get("user.email"))) {
    env.GIT_AUTHOR_EMAIL = env.GIT_COMMITTER_EMAIL = FALLBACK_IDENTITY.email;
  }
  return env;
}

/** One commit of an existing branch, for messages: abbreviated SHA and subject line (untrusted text). */
export interface CommitSummary {
  sha: string;
  subject: string;
}

/**
 * What {@link deliverWithPlumbing} did with `refs/heads/<branch>`:
 * - `created`: the branch did not exist; it now points at a new commit (parent = base).
 * - `reused`: the branch already held exactly this commit's content (its only parent is the base and its tree is
 *   the tree this run would write); nothing was written.
 * - `exists`: the branch holds something else (another base, other edits, or commits not made by groundfix) and
 *   `force` was not given; nothing was written and `note` says so in one line.
 * - `replaced`: `force` moved the branch from `previousSha` to a new commit; `dropped` lists the commits the branch
 *   no longer reaches (at most 10 named, `droppedCount` in all), `foreign` is true when they were not one groundfix
 *   commit on a base (the CLI then prints a warning). The old head stays in the branch's reflog.
 */
export type DeliveryOutcome =
  | { kind: "created" | "reused"; branch: string; headSha: string }
  | { kind: "exists"; branch: string; existingSha: string; why: "other_base" | "other_edits" | "other_commits"; note: string }
  | { kind: "replaced"; branch: string; headSha: string; previousSha: string; foreign: boolean; dropped: CommitSummary[]; droppedCount: number };

/** Most commits named in a `replaced` outcome. */
const MAX_NAMED_DROPPED = 10;

/** Parents, tree and message of a commit (`git cat-file commit`). */
async function readCommit(repoDir: string, sha: string): Promise<{ parents: string[]; tree: string; message: string }> {
  const raw = await gitText(repoDir, ["cat-file", "commit", sha]);
  const end = raw.indexOf("\n\n");
  const headers = (end < 0 ? raw : raw.slice(0, end)).split("\n");
  const field = (name: string) => headers.filter((h) => h.startsWith(`${name} `)).map((h) => h.slice(name.length + 1));
  return { parents: field("parent"), tree: field("tree")[0] ?? "", message: end < 0 ? "" : raw.slice(end + 2) };
}

/**
 * True when `commit` looks like one groundfix commit on a base: exactly one parent, and the message's
 * `Base: <sha>` line (written by the CLI's commit message) names that parent.
 */
function isGroundfixCommit(commit: { parents: string[]; message: string }): boolean {
  const [parent, ...more] = commit.parents;
  return parent !== undefined && more.length === 0 && new RegExp(`^Base: ${parent}$`, "m").test(commit.message);
}

/** The commits reachable from `tip` but not from `base` (newest first): what moving the branch off `tip` drops. */
async function commitsOnlyIn(repoDir: string, tip: string, base: string): Promise<{ named: CommitSummary[]; count: number }> {
  const count = Number(await gitText(repoDir, ["rev-list", "--count", tip, "--not", base]));
  const log = await gitText(repoDir, ["log", `--max-count=${MAX_NAMED_DROPPED}`, "--format=%h %s", tip, "--not", base]);
  const named = log === "" ? [] : log.split("\n").map((l) => ({ sha: l.slice(0, l.indexOf(" ")), subject: l.slice(l.indexOf(" ") + 1) }));
  return { named, count };
}

/**
 * Write `files` as one commit whose only parent is `baseSha` and point `refs/heads/<branch>` at it, using git
 * plumbing only: `hash-object -w --no-filters` (bytes exactly as given: UTF-8 of `content`, no clean filters or
 * line-ending conversion), a temporary index (`GIT_INDEX_FILE`) filled by `read-tree <baseSha>` and
 * `update-index --add --cacheinfo MODE,SHA,PATH`, `write-tree`, `commit-tree -p <baseSha>` and a compare-and-swap
 * `update-ref --create-reflog`. The working tree, the real index and HEAD are never read or written.
 *
 * An existing branch is reused only when its head is exactly what this call would write (only parent = `baseSha`,
 * same tree); otherwise, without `force`, nothing is written and the outcome is `exists` (see
 * {@link DeliveryOutcome}); with `force` the branch is moved (`replaced`), except when it is checked out.
 * Loose blob/tree objects may be written before that decision; no ref is. The ref is written last, so a failure
 * leaves no branch behind.
 * @throws LocalInputError for a bad path, mode or branch name, or `--force` on the checked-out branch;
 *   GitError when a git command fails (including a concurrent update of the branch).
 */
export async function deliverWithPlumbing(
  repoDir: string,
  input: { baseSha: string; branch: string; message: string; files: ChangedFile[]; force?: boolean },
): Promise<DeliveryOutcome> {
  const { baseSha, branch, message, files } = input;
  await assertBranchName(repoDir, branch);
  if (files.length === 0) throw new LocalInputError("bad_file", "nothing to commit: no changed files");
  for (const file of files) {
    assertSafePath(file.path);
    if (!WRITABLE_MODES.has(file.mode)) {
      throw new LocalInputError("bad_file", `refusing to commit ${file.path} with mode ${file.mode}: only 100644 and 100755 files`);
    }
  }
  const base = await gitText(repoDir, ["rev-parse", "--verify", "--quiet", `${baseSha}^{commit}`]);
  const tree = await writeTree(repoDir, base, files);
  const existing = await branchHead(repoDir, branch);
  let replacing: { previousSha: string; foreign: boolean } | null = null;
  if (existing) {
    const old = await readCommit(repoDir, existing);
    if (old.parents.length === 1 && old.parents[0] === base && old.tree === tree) return { kind: "reused", branch, headSha: existing };
    const ours = isGroundfixCommit(old);
    if (!input.force) {
      const why = !ours ? "other_commits" : old.parents[0] === base ? "other_edits" : "other_base";
      const where =
        why === "other_commits" ? "with other commits" : why === "other_edits" ? "with other edits on this base" : `on another base (${old.parents[0]!.slice(0, 12)})`;
      const note = `branch ${branch} already exists at ${existing.slice(0, 12)} ${where}; left untouched; rerun with --force to replace it`;
      return { kind: "exists", branch, existingSha: existing, why, note };
    }
    const current = await gitText(repoDir, ["symbolic-ref", "--quiet", "HEAD"]).catch(() => "");
    if (current === `refs/heads/${branch}`) {
      throw new LocalInputError("bad_branch", `branch ${branch} is checked out; switch to another branch before using --force`);
    }
    replacing = { previousSha: existing, foreign: !ours };
  }

  const headSha = await gitText(repoDir, ["commit-tree", tree, "-p", base, "-F", "-"], {
    input: message,
    env: await identityEnv(repoDir),
  });
  // Compare-and-swap: "" = the ref must not exist yet; otherwise it must still point where we saw it.
  // --create-reflog: a replaced head stays recoverable (`git reflog <branch>`), also in a bare repository.
  await git(repoDir, ["update-ref", "--create-reflog", "-m", "groundfix: commit edits", `refs/heads/${branch}`, headSha, existing ?? ""]);
  if (!replacing) return { kind: "created", branch, headSha };
  const dropped = await commitsOnlyIn(repoDir, replacing.previousSha, headSha);
  return { kind: "replaced", branch, headSha, ...replacing, dropped: dropped.named, droppedCount: dropped.count };
}

/** The tree of `base` with `files` written over it (blobs and a tree object; a temporary index, no ref). */
async function writeTree(repoDir: string, base: string, files: ChangedFile[]): Promise<string> {
  const tmp = await mkdtemp(join(tmpdir(), "groundfix-index-"));
  try {
    const indexEnv = { GIT_INDEX_FILE: join(tmp, "index") };
    const cacheinfo: string[] = [];
    for (const file of files) {
      const blob = await gitText(repoDir, ["hash-object", "-w", "--no-filters", "--stdin"], {
        input: Buffer.from(file.content, "utf8"),
      });
      cacheinfo.push("--cacheinfo", `${file.mode},${blob},${file.path}`);
    }
    await git(repoDir, ["read-tree", base], { env: indexEnv });
    await git(repoDir, ["update-index", "--add", ...cacheinfo], { env: indexEnv });
    return await gitText(repoDir, ["write-tree"], { env: indexEnv });
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}

/**
 * `Host.commitFiles` for a checkout: {@link deliverWithPlumbing}, with `created`/`replaced` as `reused: false` and
 * `reused` as `reused: true`.
 * @throws LocalInputError (kind `branch_exists`, message = the outcome's note) when the branch holds something else
 *   and `force` was not given; otherwise as {@link deliverWithPlumbing}.
 */
export async function commitFilesWithPlumbing(
  repoDir: string,
  input: { baseSha: string; branch: string; message: string; files: ChangedFile[]; force?: boolean },
): Promise<{ headSha: string; branch: string; reused: boolean }> {
  const outcome = await deliverWithPlumbing(repoDir, input);
  if (outcome.kind === "exists") throw new LocalInputError("branch_exists", outcome.note);
  return { headSha: outcome.headSha, branch: outcome.branch, reused: outcome.kind === "reused" };
}
