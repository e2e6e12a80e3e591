import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { heldReason, isOwnCommit } from "../../pipeline/record.js";
import type { ChangedFile } from "../../types.js";
import type { BranchCommit, DeliverInput, Delivery } from "../types.js";
import { LocalInputError } from "./errors.js";
import { git, gitText, GitError } from "./git.js";

/** The file modes a commit made by groundfix may write: regular and executable files (git's octal modes). */
const WRITABLE_MODES = new Set(["100644", "100755"]);

/**
 * groundfix's own git identity: always the committer of the commits it writes (how a later run tells them from
 * anyone else's, with the `Groundfix-Run:` trailer), and the author too when the repository and environment define
 * no `user.name`/`user.email`.
 */
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
  if (bad)
    throw new LocalInputError(
      "bad_file",
      `refusing to commit path ${JSON.stringify(path)}: not a plain repository-relative path`,
    );
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
    if (error instanceof GitError)
      throw new LocalInputError("bad_branch", `invalid branch name ${JSON.stringify(branch)}`);
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

/**
 * Environment for commit-tree: the committer is always {@link FALLBACK_IDENTITY} (groundfix made the commit); the
 * author is the repository's or environment's identity, else that same identity.
 */
async function identityEnv(repoDir: string): Promise<Record<string, string>> {
  const get = async (key: string) => {
    try {
      return await gitText(repoDir, ["config", "--get", key]);
    } catch {
      return "";
    }
  };
  const env: Record<string, string> = {
    GIT_COMMITTER_NAME: FALLBACK_IDENTITY.name,
    GIT_COMMITTER_EMAIL: FALLBACK_IDENTITY.email,
  };
  if (!process.env.GIT_AUTHOR_NAME && !(await get("user.name"))) env.GIT_AUTHOR_NAME = FALLBACK_IDENTITY.name;
  if (!process.env.GIT_AUTHOR_EMAIL && !process.env.EMAIL && !(await get("user.email")))
    env.GIT_AUTHOR_EMAIL = FALLBACK_IDENTITY.email;
  return env;
}

/** Most commits named in a `held` or `replaced` delivery. */
const MAX_NAMED = 10;

/** A commit's parents, tree, author name, committer email and message (`git cat-file commit`, raw headers). */
interface RawCommit {
  parents: string[];
  tree: string;
  author: string;
  committerEmail: string;
  message: string;
}

/** Read one commit's headers and message (`git cat-file commit`): no format string a message could break out of. */
async function readCommit(repoDir: string, sha: string): Promise<RawCommit> {
  const raw = await gitText(repoDir, ["cat-file", "commit", sha]);
  const end = raw.indexOf("\n\n");
  const headers = (end < 0 ? raw : raw.slice(0, end)).split("\n");
  const field = (name: string) => headers.filter((h) => h.startsWith(`${name} `)).map((h) => h.slice(name.length + 1));
  // `author Name <email> 1700000000 +0000`
  const identity = (line: string | undefined) => /^(.*?) <([^>]*)>/.exec(line ?? "") ?? ["", "", ""];
  return {
    parents: field("parent"),
    tree: field("tree")[0] ?? "",
    author: identity(field("author")[0])[1]!,
    committerEmail: identity(field("committer")[0])[2]!,
    message: end < 0 ? "" : raw.slice(end + 2),
  };
}

/** The reflog message of every ref update groundfix makes on a branch: the record that it wrote that commit. */
export const OWN_REFLOG_MESSAGE = "groundfix: commit edits";

/** The commits the reflog of `refs/heads/<branch>` shows groundfix writing; empty when the branch has no reflog. */
async function writtenByGroundfix(repoDir: string, branch: string): Promise<Set<string>> {
  const log = await gitText(repoDir, ["log", "-g", "--format=%H%x00%gs", `refs/heads/${branch}`, "--"]).catch(() => "");
  const shas = new Set<string>();
  for (const line of log.split("\n")) {
    const [sha, subject] = line.split("\0");
    if (sha && subject === OWN_REFLOG_MESSAGE) shas.add(sha);
  }
  return shas;
}

/**
 * The commits reachable from `tip` (the head of `branch`) but not from `base` (newest first, at most 10 named) and
 * how many in all. A commit is `ours` when it carries the run trailer, its committer is {@link FALLBACK_IDENTITY},
 * and the branch's own reflog shows groundfix writing it ({@link OWN_REFLOG_MESSAGE}): an identity is typed by anyone
 * (`git -c user.email=…`, or a colleague's fetched branch), but a reflog is this repository's own record of who moved
 * the ref, and fetching never writes one with groundfix's message.
 */
async function commitsOnlyIn(
  repoDir: string,
  branch: string,
  tip: string,
  base: string,
): Promise<{ commits: BranchCommit[]; count: number }> {
  const count = Number(await gitText(repoDir, ["rev-list", "--count", tip, "--not", base]));
  const shas = (await gitText(repoDir, ["rev-list", `--max-count=${MAX_NAMED}`, tip, "--not", base]))
    .split("\n")
    .filter(Boolean);
  const written = await writtenByGroundfix(repoDir, branch);
  const commits: BranchCommit[] = [];
  for (const sha of shas) {
    const c = await readCommit(repoDir, sha);
    const madeByGroundfix = c.committerEmail.toLowerCase() === FALLBACK_IDENTITY.email && written.has(sha);
    commits.push({
      sha,
      author: c.author,
      subject: (c.message.split("\n")[0] ?? "").trim(),
      ours: isOwnCommit({ message: c.message, madeByGroundfix }),
    });
  }
  return { commits, count };
}

/**
 * Write `files` as one commit whose only parent is `baseSha` and point `refs/heads/<branch>` at it, using git
 * plumbing only: `hash-object -w --no-filters` (bytes exactly as given: UTF-8 of `content`, no clean filters or
 * line-ending conversion), a temporary index (`GIT_INDEX_FILE`) filled by `read-tree <baseSha>` and
 * `update-index --add --cacheinfo MODE,SHA,PATH`, `write-tree`, `commit-tree -p <baseSha>` and a compare-and-swap
 * `update-ref --create-reflog`. The working tree, the real index and HEAD are never read or written.
 *
 * The rule for an existing branch is the one of every host ({@link Delivery}): reused only when its head is exactly
 * what this call would write (only parent = `baseSha`, same tree) and groundfix's own commit (`isOwnCommit`: the
 * trailer, groundfix's committer identity and the branch's reflog); fast-forwarded when it has no commit beyond the
 * base; otherwise, without `force`, `held` (nothing written, the reason from `heldReason`); with `force`, moved
 * (`replaced`). A branch checked out in any working tree of the repository (`git worktree list`) is never moved:
 * `held` with `why: "checked_out"`, with or without `force`. Loose blob/tree objects may be written before that
 * decision; no ref is. The ref is written last, so a failure leaves no branch behind.
 * @throws LocalInputError for a bad path, mode or branch name;
 *   GitError when a git command fails (including a concurrent update of the branch).
 */
export async function deliverWithPlumbing(repoDir: string, input: DeliverInput): Promise<Delivery> {
  const { baseSha, branch, message, files } = input;
  await assertBranchName(repoDir, branch);
  if (files.length === 0) throw new LocalInputError("bad_file", "nothing to commit: no changed files");
  for (const file of files) {
    assertSafePath(file.path);
    if (!WRITABLE_MODES.has(file.mode)) {
      throw new LocalInputError(
        "bad_file",
        `refusing to commit ${file.path} with mode ${file.mode}: only 100644 and 100755 files`,
      );
    }
  }
  const base = await gitText(repoDir, ["rev-parse", "--verify", "--quiet", `${baseSha}^{commit}`]);
  const tree = await writeTree(repoDir, base, files);
  const existing = await branchHead(repoDir, branch);
  let replacing: { commits: BranchCommit[]; count: number } | null = null;
  if (existing) {
    const old = await readCommit(repoDir, existing);
    const beyond = await commitsOnlyIn(repoDir, branch, existing, base);
    const headOurs = beyond.commits[0]?.sha === existing && beyond.commits[0].ours;
    // This content is reused only as groundfix's own commit, never as someone else's with the same tree and parent.
    if (old.parents.length === 1 && old.parents[0] === base && old.tree === tree && headOurs && beyond.count === 1)
      return { kind: "reused", branch, headSha: existing };
    if (beyond.count > 0 && !input.force)
      return {
        kind: "held",
        branch,
        headSha: existing,
        headParent: old.parents[0] ?? null,
        why: heldReason({ parents: old.parents, ours: headOurs }, base),
        ...beyond,
      };
    // Moving a checked-out branch (fast-forward or --force) would leave its working tree and index behind the ref:
    // the user's next `git status` shows the new commit undone, and `git checkout` refuses to leave.
    const worktree = await checkedOutIn(repoDir, branch);
    if (worktree !== null)
      return {
        kind: "held",
        branch,
        headSha: existing,
        headParent: old.parents[0] ?? null,
        why: "checked_out",
        worktree,
        ...beyond,
      };
    if (beyond.count > 0) replacing = beyond;
  }

  const headSha = await gitText(repoDir, ["commit-tree", tree, "-p", base, "-F", "-"], {
    input: message,
    env: await identityEnv(repoDir),
  });
  // Compare-and-swap: "" = the ref must not exist yet; otherwise it must still point where we saw it.
  // --create-reflog: a replaced head stays recoverable (`git reflog <branch>`), also in a bare repository.
  await git(repoDir, [
    "update-ref",
    "--create-reflog",
    "-m",
    OWN_REFLOG_MESSAGE,
    `refs/heads/${branch}`,
    headSha,
    existing ?? "",
  ]);
  if (!existing) return { kind: "created", branch, headSha };
  if (!replacing) return { kind: "fast_forwarded", branch, headSha };
  return { kind: "replaced", branch, headSha, previousSha: existing, ...replacing };
}

/**
 * The working tree `refs/heads/<branch>` is checked out in (`git worktree list --porcelain`: the main one and every
 * linked one), or null. A bare repository's own entry has no branch line and so never matches.
 */
async function checkedOutIn(repoDir: string, branch: string): Promise<string | null> {
  const listing = await gitText(repoDir, ["worktree", "list", "--porcelain"]);
  let path: string | null = null;
  for (const line of listing.split("\n")) {
    if (line.startsWith("worktree ")) path = line.slice("worktree ".length);
    else if (line === `branch refs/heads/${branch}`) return path;
  }
  return null;
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
