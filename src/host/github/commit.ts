import { heldReason, isOwnCommit } from "../../pipeline/record.js";
import type { BranchCommit, DeliverInput, Delivery } from "../types.js";
import { httpStatus, type Octokit, type RepoRef } from "./octokit.js";
import type { BotLogin } from "./status-comment.js";

/** Most commits named in a `held` or `replaced` delivery (the compare answer lists up to 250). */
const MAX_NAMED = 10;

type TreeMode = "100644" | "100755" | "040000" | "160000" | "120000";

function treeMode(mode: string): TreeMode {
  // Only regular files carry edits; anything else keeps the plain-file mode (the review refuses mode changes).
  return mode === "100755" ? "100755" : "100644";
}

/**
 * Who may count as groundfix on GitHub: the app's bot login (`<slug>[bot]`), or the process's lookup of it (asked
 * only when a branch holds commits to judge); without it no commit is groundfix's.
 */
export interface CommitOwner {
  botLogin?: string | BotLogin;
}

/** A commit of the compare answer, the fields {@link madeByApp} reads. */
interface ListedCommit {
  author?: { login?: string } | null;
  committer?: { login?: string } | null;
  commit: { verification?: { verified?: boolean } | null };
}

/**
 * True when GitHub proves the app made `c`: its author is the app's bot login, its committer the bot (or GitHub's
 * `web-flow`, which signs on its behalf), and GitHub verified its signature. GitHub signs a commit an app creates
 * through the REST API when no custom author, committer or signature is given ("About commit signature
 * verification", GitHub Docs), which is how {@link writeCommit} creates it; a human push that only sets its author
 * e-mail to the bot's, or a message that only quotes the `Groundfix-Run:` trailer, is not verified as the bot's.
 */
export function madeByApp(c: ListedCommit, botLogin: string | undefined): boolean {
  if (!botLogin) return false;
  const bot = botLogin.toLowerCase();
  const author = c.author?.login?.toLowerCase();
  const committer = c.committer?.login?.toLowerCase();
  return author === bot && (committer === bot || committer === "web-flow") && c.commit.verification?.verified === true;
}

/**
 * Write `files` as ONE commit on top of `baseSha`, through the Git Data API (no clone): `POST git/trees` with
 * `base_tree` and inline `content` (no blob calls; each file keeps its mode) and `POST git/commits` with
 * `parents: [baseSha]` and no author or committer (GitHub then signs it as the app's). `baseTree` is the base
 * commit's tree (the host knows it from `GET branches/{b}`; else one `GET git/commits/{sha}`). (GitHub docs: "Git
 * database" REST API; without `base_tree` every unlisted file would be deleted.) No ref is written.
 * @returns the new commit's SHA and its tree's SHA. @throws the Octokit `RequestError` of the failing step.
 */
export async function writeCommit(
  octokit: Octokit,
  repo: RepoRef,
  input: Pick<DeliverInput, "baseSha" | "message" | "files">,
  baseTree?: string,
): Promise<{ headSha: string; tree: string }> {
  if (input.files.length === 0) throw new Error("writeCommit: no files to commit");
  const owner = repo.owner;
  const name = repo.name;
  const base_tree =
    baseTree ?? (await octokit.rest.git.getCommit({ owner, repo: name, commit_sha: input.baseSha })).data.tree.sha;
  const tree = await octokit.rest.git.createTree({
    owner,
    repo: name,
    base_tree,
    tree: input.files.map((file) => ({
      path: file.path,
      mode: treeMode(file.mode),
      type: "blob" as const,
      content: file.content,
    })),
  });
  const commit = await octokit.rest.git.createCommit({
    owner,
    repo: name,
    message: input.message,
    tree: tree.data.sha,
    parents: [input.baseSha],
  });
  return { headSha: commit.data.sha, tree: tree.data.sha };
}

/** What {@link pointBranch} points where: the branch, the base, the commit {@link writeCommit} made and its tree. */
export interface BranchTarget {
  branch: string;
  baseSha: string;
  headSha: string;
  tree: string;
}

/**
 * Point `refs/heads/<branch>` at `t.headSha` (`POST git/refs`). A branch that exists (422 "Reference already
 * exists") is inspected (`GET git/ref`, `GET git/commits/{head}`, `GET compare/{base}...{head}`) and handled by the
 * rule of every host ({@link Delivery}): `reused` (this run's content, only parent = base and same tree, in a commit
 * that is groundfix's own), `fast_forwarded` (`PATCH git/refs`) or `held` (nothing written; {@link replaceBranch}
 * may then replace it): someone else's commit with this run's content is held like any other foreign commit. A
 * commit listed is `ours` only by `isOwnCommit` (the trailer AND {@link madeByApp} for `owner.botLogin`).
 * @throws the Octokit `RequestError` of the failing step; nothing of the ref is left behind by a failure, because
 *   the ref is the last write.
 */
export async function pointBranch(
  octokit: Octokit,
  repo: RepoRef,
  t: BranchTarget,
  owner: CommitOwner = {},
): Promise<Delivery> {
  const { branch, baseSha, headSha } = t;
  const o = repo.owner;
  const name = repo.name;
  try {
    await octokit.rest.git.createRef({ owner: o, repo: name, ref: `refs/heads/${branch}`, sha: headSha });
    return { kind: "created", branch, headSha };
  } catch (error) {
    if (!isReferenceExists(error)) throw error;
  }
  const current = (await octokit.rest.git.getRef({ owner: o, repo: name, ref: `heads/${branch}` })).data.object.sha;
  const move = () =>
    octokit.rest.git.updateRef({ owner: o, repo: name, ref: `heads/${branch}`, sha: headSha, force: false });
  if (current === baseSha) return (await move(), { kind: "fast_forwarded", branch, headSha });
  const { data: head } = await octokit.rest.git.getCommit({ owner: o, repo: name, commit_sha: current });
  const parents = head.parents.map((p) => p.sha);
  const sameContent = parents.length === 1 && parents[0] === baseSha && head.tree.sha === t.tree;
  const { data } = await octokit.rest.repos.compareCommits({
    owner: o,
    repo: name,
    base: baseSha,
    head: current,
    per_page: 100,
  });
  if (data.ahead_by === 0) return (await move(), { kind: "fast_forwarded", branch, headSha });
  // Newest first, like `git log`; an empty list (beyond the 250 listed) still means the branch holds work of its own.
  const bot = typeof owner.botLogin === "string" ? owner.botLogin : await owner.botLogin?.get();
  const listed: BranchCommit[] = data.commits.reverse().map((c) => ({
    sha: c.sha,
    author: c.author?.login ?? c.commit.author?.name ?? "unknown",
    subject: (c.commit.message.split("\n")[0] ?? "").trim(),
    ours: isOwnCommit({ message: c.commit.message, madeByGroundfix: madeByApp(c, bot) }),
  }));
  const all = listed.length ? listed : [{ sha: current, author: "unknown", subject: "", ours: false }];
  const beyond = { commits: all.slice(0, MAX_NAMED), count: Math.max(data.ahead_by, all.length) };
  const headOurs = all[0]!.sha === current && all[0]!.ours;
  // This run's content is reused only as groundfix's own commit: anyone's commit with the same tree and parent would
  // show their message and authorship on the app's pull request.
  if (sameContent && headOurs && data.ahead_by === 1) return { kind: "reused", branch, headSha: current };
  return {
    kind: "held",
    branch,
    headSha: current,
    headParent: parents[0] ?? null,
    why: heldReason({ parents, ours: headOurs }, baseSha),
    ...beyond,
  };
}

/**
 * Replace a branch {@link pointBranch} found `held` with `headSha` (`PATCH git/refs {force: true}`), without
 * inspecting it again: the caller decided from `held` that nothing in it may be kept (only groundfix's own commits).
 * GitHub's ref update has no compare-and-swap, so a push landing between the inspection and this call would be
 * dropped; the window is one request.
 * @returns the `replaced` delivery naming the commits dropped. @throws the Octokit `RequestError`.
 */
export async function replaceBranch(
  octokit: Octokit,
  repo: RepoRef,
  held: Delivery & { kind: "held" },
  headSha: string,
): Promise<Delivery & { kind: "replaced" }> {
  const { branch } = held;
  await octokit.rest.git.updateRef({
    owner: repo.owner,
    repo: repo.name,
    ref: `heads/${branch}`,
    sha: headSha,
    force: true,
  });
  return { kind: "replaced", branch, headSha, previousSha: held.headSha, commits: held.commits, count: held.count };
}

function isReferenceExists(error: unknown): boolean {
  if (httpStatus(error) !== 422) return false;
  const message = error instanceof Error ? error.message : "";
  return /already exists/i.test(message);
}

/**
 * Delete `refs/heads/<branch>` (`DELETE git/refs/heads/{branch}`), used to undo a branch created by a delivery
 * that failed afterwards (no branch without a pull request or a note). A 404/422 (already gone) counts as done.
 * @throws the Octokit `RequestError` of any other failure.
 */
export async function deleteBranch(octokit: Octokit, repo: RepoRef, branch: string): Promise<void> {
  try {
    await octokit.rest.git.deleteRef({ owner: repo.owner, repo: repo.name, ref: `heads/${branch}` });
  } catch (error) {
    const status = httpStatus(error);
    if (status !== 404 && status !== 422) throw error;
  }
}
