import type { ChangedFile } from "../../types.js";
import { httpStatus, type Octokit, type RepoRef } from "./octokit.js";

/** Tree SHAs of commits this process has seen (`owner/repo@commit` → tree), so a commit needs no extra lookup. */
const treeOfCommit = new Map<string, string>();
const TREE_CACHE_LIMIT = 1000;

/** Remember the tree of a commit (from `GET branches/{branch}`, which carries both). */
export function rememberTree(repo: RepoRef, commitSha: string, treeSha: string): void {
  if (treeOfCommit.size >= TREE_CACHE_LIMIT) {
    const oldest = treeOfCommit.keys().next().value;
    if (oldest !== undefined) treeOfCommit.delete(oldest);
  }
  treeOfCommit.set(`${repo.owner}/${repo.name}@${commitSha}`, treeSha);
}

async function treeSha(octokit: Octokit, repo: RepoRef, commitSha: string): Promise<string> {
  const known = treeOfCommit.get(`${repo.owner}/${repo.name}@${commitSha}`);
  if (known) return known;
  const { data } = await octokit.rest.git.getCommit({ owner: repo.owner, repo: repo.name, commit_sha: commitSha });
  rememberTree(repo, commitSha, data.tree.sha);
  return data.tree.sha;
}

/** The input of {@link commitFiles}; see `Host.commitFiles` in `src/host/types.ts`. */
export interface CommitInput {
  baseSha: string;
  branch: string;
  message: string;
  files: ChangedFile[];
  /** Replace a branch that holds other commits (`/groundfix retry`); the commits dropped are reported. */
  force?: boolean;
  /** The app's bot login (`<slug>[bot]`): commits authored by it are named as groundfix's own. */
  botLogin?: string;
}

/** A commit found on an existing branch and not on the base: short SHA material and who wrote it. */
export interface BranchCommit {
  sha: string;
  /** The GitHub login of the author, else the git author name, else "unknown". */
  author: string;
  /** True when the author is the app's bot login ({@link CommitInput.botLogin}). */
  ours: boolean;
}

/**
 * What {@link commitFiles} did. `created` is true only when this call created the branch (callers undo it).
 * - `reused`: the branch already held exactly this run's commit (one commit, parent = base, same tree); untouched.
 * - `held`: the branch holds commits beyond the base that are not this run's commit and `force` was not given:
 *   NOTHING was written; `headSha` is the branch's head and `held` lists its commits not on the base.
 * - `replaced`: with `force`, the branch was moved from `replaced.was` to the new commit, dropping `replaced.commits`.
 */
export interface CommitOutcome {
  headSha: string;
  branch: string;
  reused: boolean;
  created: boolean;
  held?: BranchCommit[];
  replaced?: { was: string; commits: BranchCommit[] };
}

type TreeMode = "100644" | "100755" | "040000" | "160000" | "120000";

function treeMode(mode: string): TreeMode {
  // Only regular files carry edits; anything else keeps the plain-file mode (the review refuses mode changes).
  return mode === "100755" ? "100755" : "100644";
}

/**
 * Write `files` as ONE commit on top of `baseSha` and point `refs/heads/<branch>` at it, through the Git Data API
 * (no clone): `POST git/trees` with `base_tree` and inline `content` (no blob calls; each file keeps its mode),
 * `POST git/commits` with `parents: [baseSha]`, `POST git/refs`. The base tree comes from the commit seen by
 * `resolveBase` in this process, else from one `GET git/commits/{sha}`. (GitHub docs: "Git database" REST API;
 * without `base_tree` every unlisted file would be deleted.)
 *
 * A branch that exists (422 "Reference already exists") is inspected (`GET git/ref`, `GET git/commits/{head}`, and
 * `GET compare/{base}...{head}` unless the head is this run's commit):
 * - head is exactly what this run writes (one commit, parent `baseSha`, the same tree SHA): kept, `reused`;
 * - head has no commit beyond the base (it is the base or an ancestor of it): fast-forwarded, nothing is lost;
 * - otherwise, without `force`: NOTHING is written, `held` lists the commits (a branch with someone else's work is
 *   never taken over); with `force`: moved (`PATCH git/refs {force: true}`), `replaced` names what was dropped.
 * The tree and commit objects made before are unreferenced and collected by GitHub.
 *
 * @throws the Octokit `RequestError` of the failing step; nothing of the ref is left behind by a failure, because
 *   the ref is the last write.
 */
export async function commitFiles(octokit: Octokit, repo: RepoRef, input: CommitInput): Promise<CommitOutcome> {
  if (input.files.length === 0) throw new Error("commitFiles: no files to commit");
  const owner = repo.owner;
  const name = repo.name;
  const baseTree = await treeSha(octokit, repo, input.baseSha);
  const tree = await octokit.rest.git.createTree({
    owner,
    repo: name,
    base_tree: baseTree,
    tree: input.files.map((file) => ({ path: file.path, mode: treeMode(file.mode), type: "blob" as const, content: file.content })),
  });
  const commit = await octokit.rest.git.createCommit({
    owner,
    repo: name,
    message: input.message,
    tree: tree.data.sha,
    parents: [input.baseSha],
  });
  const headSha = commit.data.sha;
  const done = (extra: Partial<CommitOutcome> = {}): CommitOutcome => ({ headSha, branch: input.branch, reused: false, created: false, ...extra });
  try {
    await octokit.rest.git.createRef({ owner, repo: name, ref: `refs/heads/${input.branch}`, sha: headSha });
    return done({ created: true });
  } catch (error) {
    if (!isReferenceExists(error)) throw error;
  }
  const current = (await octokit.rest.git.getRef({ owner, repo: name, ref: `heads/${input.branch}` })).data.object.sha;
  const onBranch = await branchState(octokit, repo, current, input, tree.data.sha);
  if (onBranch.kind === "same") return done({ headSha: current, reused: true });
  if (onBranch.kind === "held" && !input.force) return done({ headSha: current, held: onBranch.commits });
  const force = onBranch.kind === "held";
  await octokit.rest.git.updateRef({ owner, repo: name, ref: `heads/${input.branch}`, sha: headSha, force });
  return done(onBranch.kind === "held" ? { replaced: { was: current, commits: onBranch.commits } } : {});
}

/** How an existing branch head relates to the commit this run would write. */
async function branchState(
  octokit: Octokit,
  repo: RepoRef,
  head: string,
  input: CommitInput,
  ourTree: string,
): Promise<{ kind: "same" } | { kind: "behind" } | { kind: "held"; commits: BranchCommit[] }> {
  if (head === input.baseSha) return { kind: "behind" };
  const { data: commit } = await octokit.rest.git.getCommit({ owner: repo.owner, repo: repo.name, commit_sha: head });
  if (commit.parents.length === 1 && commit.parents[0]!.sha === input.baseSha && commit.tree.sha === ourTree) return { kind: "same" };
  const { data } = await octokit.rest.repos.compareCommits({ owner: repo.owner, repo: repo.name, base: input.baseSha, head, per_page: 100 });
  if (data.ahead_by === 0) return { kind: "behind" };
  const commits = data.commits.map((c) => {
    const author = c.author?.login ?? c.commit.author?.name ?? "unknown";
    return { sha: c.sha, author, ours: input.botLogin !== undefined && c.author?.login === input.botLogin };
  });
  // The compare answer lists at most 250 commits; an empty list still means the branch holds work of its own.
  return { kind: "held", commits: commits.length ? commits : [{ sha: head, author: "unknown", ours: false }] };
}

function isReferenceExists(error: unknown): boolean {
  if (httpStatus(error) !== 422) return false;
  const message = error instanceof Error ? error.message : "";
  return /already exists/i.test(message);
}

/**
 * Delete `refs/heads/<branch>` (`DELETE git/refs/heads/{branch}`), used to undo a branch created by a delivery
 * that failed afterwards (DESIGN.md invariant 6: no branch without a PR or a note). A 404/422 (already gone)
 * counts as done; other errors are returned, not thrown, so the original failure stays the one reported.
 */
export async function deleteBranch(octokit: Octokit, repo: RepoRef, branch: string): Promise<unknown> {
  try {
    await octokit.rest.git.deleteRef({ owner: repo.owner, repo: repo.name, ref: `heads/${branch}` });
    return undefined;
  } catch (error) {
    const status = httpStatus(error);
    return status === 404 || status === 422 ? undefined : error;
  }
}

/** Forget the remembered commit → tree SHAs (tests). */
export function forgetCommitTrees(): void {
  treeOfCommit.clear();
}
