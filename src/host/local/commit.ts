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

/**
 * Write `files` as one commit whose only parent is `baseSha` and point `refs/heads/<branch>` at it, using git
 * plumbing only: `hash-object -w --no-filters` (bytes exactly as given: UTF-8 of `content`, no clean filters or
 * line-ending conversion), a temporary index (`GIT_INDEX_FILE`) filled by `read-tree <baseSha>` and
 * `update-index --add --cacheinfo MODE,SHA,PATH`, `write-tree`, `commit-tree -p <baseSha>` and a compare-and-swap
 * `update-ref`. The working tree, the real index and HEAD are never read or written.
 *
 * An existing branch is left as it is (`reused: true`, its current head returned) unless `force`; with `force`
 * it is moved, except when it is the checked-out branch (that would change the user's working state).
 * The ref is written last, so a failure leaves no branch behind.
 * @throws LocalInputError for a bad path, mode or branch name; GitError when a git command fails.
 */
export async function commitFilesWithPlumbing(
  repoDir: string,
  input: { baseSha: string; branch: string; message: string; files: ChangedFile[]; force?: boolean },
): Promise<{ headSha: string; branch: string; reused: boolean }> {
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
  const existing = await branchHead(repoDir, branch);
  if (existing && !input.force) return { headSha: existing, branch, reused: true };
  if (existing) {
    const current = await gitText(repoDir, ["symbolic-ref", "--quiet", "HEAD"]).catch(() => "");
    if (current === `refs/heads/${branch}`) {
      throw new LocalInputError("bad_branch", `branch ${branch} is checked out; switch to another branch before using --force`);
    }
  }

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
    const tree = await gitText(repoDir, ["write-tree"], { env: indexEnv });
    const headSha = await gitText(repoDir, ["commit-tree", tree, "-p", base, "-F", "-"], {
      input: message,
      env: await identityEnv(repoDir),
    });
    // Compare-and-swap: "" = the ref must not exist yet; otherwise it must still point where we saw it.
    await git(repoDir, ["update-ref", "-m", "groundfix: commit edits", `refs/heads/${branch}`, headSha, existing ?? ""]);
    return { headSha, branch, reused: false };
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
}
