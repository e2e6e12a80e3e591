import { heldReason, isGroundfixMessage } from "../../pipeline/record.js";
import type { BranchCommit, DeliverInput, Delivery } from "../types.js";
import { httpStatus, type Octokit, type RepoRef } from "./octokit.js";

/** Most commits named in a `held` or `replaced` delivery (the compare answer lists up to 250). */
const MAX_NAMED = 10;

type TreeMode = "100644" | "100755" | "040000" | "160000" | "120000";

function treeMode(mode: string): TreeMode {
  // Only regular files carry edits; anything else keeps the plain-file mode (the review refuses mode changes).
  return mode === "100755" ? "100755" : "100644";
}

/**
 * Write `files` as ONE commit on top of `baseSha` and point `refs/heads/<branch>` at it, through the Git Data API
 * (no clone): `POST git/trees` with `base_tree` and inline `content` (no blob calls; each file keeps its mode),
 * `POST git/commits` with `parents: [baseSha]`, `POST git/refs`. `baseTree` is the base commit's tree (the host
 * knows it from `GET branches/{b}`; else one `GET git/commits/{sha}`). (GitHub docs: "Git database" REST API;
 * without `base_tree` every unlisted file would be deleted.)
 *
 * A branch that exists (422 "Reference already exists") is inspected (`GET git/ref`, `GET git/commits/{head}`, and
 * `GET compare/{base}...{head}` unless the head is this run's commit) and handled by the rule of every host
 * ({@link Delivery}): `reused`, `fast_forwarded` (`PATCH git/refs`), `held` (nothing written) or, with `force`,
 * `replaced` (`PATCH git/refs {force: true}`). The tree and commit objects made before are unreferenced and
 * collected by GitHub.
 *
 * @throws the Octokit `RequestError` of the failing step; nothing of the ref is left behind by a failure, because
 *   the ref is the last write.
 */
export async function commitFiles(
  octokit: Octokit,
  repo: RepoRef,
  input: DeliverInput,
  baseTree?: string,
): Promise<Delivery> {
  if (input.files.length === 0) throw new Error("commitFiles: no files to commit");
  const owner = repo.owner;
  const name = repo.name;
  const { branch, baseSha } = input;
  const base_tree =
    baseTree ?? (await octokit.rest.git.getCommit({ owner, repo: name, commit_sha: baseSha })).data.tree.sha;
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
    parents: [baseSha],
  });
  const headSha = commit.data.sha;
  try {
    await octokit.rest.git.createRef({ owner, repo: name, ref: `refs/heads/${branch}`, sha: headSha });
    return { kind: "created", branch, headSha };
  } catch (error) {
    if (!isReferenceExists(error)) throw error;
  }
  const current = (await octokit.rest.git.getRef({ owner, repo: name, ref: `heads/${branch}` })).data.object.sha;
  const move = (force: boolean) =>
    octokit.rest.git.updateRef({ owner, repo: name, ref: `heads/${branch}`, sha: headSha, force });
  if (current === baseSha) return (await move(false), { kind: "fast_forwarded", branch, headSha });
  const { data: head } = await octokit.rest.git.getCommit({ owner, repo: name, commit_sha: current });
  const parents = head.parents.map((p) => p.sha);
  if (parents.length === 1 && parents[0] === baseSha && head.tree.sha === tree.data.sha)
    return { kind: "reused", branch, headSha: current };
  const { data } = await octokit.rest.repos.compareCommits({
    owner,
    repo: name,
    base: baseSha,
    head: current,
    per_page: 100,
  });
  if (data.ahead_by === 0) return (await move(false), { kind: "fast_forwarded", branch, headSha });
  // Newest first, like `git log`; an empty list (beyond the 250 listed) still means the branch holds work of its own.
  const listed: BranchCommit[] = data.commits.reverse().map((c) => ({
    sha: c.sha,
    author: c.author?.login ?? c.commit.author?.name ?? "unknown",
    subject: (c.commit.message.split("\n")[0] ?? "").trim(),
    ours: isGroundfixMessage(c.commit.message),
  }));
  const all = listed.length ? listed : [{ sha: current, author: "unknown", subject: "", ours: false }];
  const beyond = { commits: all.slice(0, MAX_NAMED), count: Math.max(data.ahead_by, all.length) };
  if (!input.force) {
    return {
      kind: "held",
      branch,
      headSha: current,
      headParent: parents[0] ?? null,
      why: heldReason({ parents, message: head.message }, baseSha),
      ...beyond,
    };
  }
  await move(true);
  return { kind: "replaced", branch, headSha, previousSha: current, ...beyond };
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
