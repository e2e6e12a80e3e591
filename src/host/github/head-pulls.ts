import { escapeInline } from "./markdown.js";
import { describeFailure, RETRY_ONCE, type Octokit, type RepoRef } from "./octokit.js";

/**
 * An open pull request whose head is one commit: what a `groundfix/review` verdict on that commit is shown on.
 * `fork` is true when its head branch lives in another repository (or in a fork that was deleted: no head repository).
 */
export interface HeadPull {
  number: number;
  /** Its html URL (a check run's `details_url`). */
  url: string;
  /** `owner:branch` of its head, as GitHub labels it. */
  headLabel: string;
  headRef: string;
  fork: boolean;
  baseRef: string;
  /** The base branch's head commit as GitHub reports it now. */
  baseSha: string;
  body: string | null;
}

/** The fields of a pull request object of the REST API that {@link headPullOf} reads. */
interface PullLike {
  number: number;
  html_url: string;
  state: string;
  body?: string | null;
  head: { sha: string; ref: string; label?: string; repo?: { id?: number; full_name?: string } | null };
  base: { sha: string; ref: string; repo?: { id?: number; full_name?: string } | null };
}

/** The {@link HeadPull} of a pull request object of the REST API (`GET commits/{sha}/pulls`, `GET pulls/{n}`). */
export function headPullOf(p: PullLike): HeadPull {
  const head = p.head.repo;
  const base = p.base.repo;
  const same =
    !!head &&
    !!base &&
    (head.id !== undefined && base.id !== undefined ? head.id === base.id : head.full_name === base.full_name);
  return {
    number: p.number,
    url: p.html_url,
    headLabel: p.head.label ?? `${head?.full_name?.split("/")[0] ?? "?"}:${p.head.ref}`,
    headRef: p.head.ref,
    fork: !same,
    baseRef: p.base.ref,
    baseSha: p.base.sha,
    body: p.body ?? null,
  };
}

/**
 * The open pull requests into `repo` whose head is exactly `headSha`, forks included: ONE
 * `GET /repos/{o}/{r}/commits/{sha}/pulls` (per_page 100; retried once on 5xx/429), which lists the pull requests
 * associated with the commit — also those that merely contain it or are closed, so only the open ones whose
 * `head.sha` is `headSha` are kept. A check run belongs to the commit, not to a pull request
 * (test/host/github/base-retarget-attack.test.ts), so these are the pull requests a verdict on `headSha` is shown on.
 * @throws the Octokit `RequestError` of the lookup.
 */
export async function openPullsWithHead(octokit: Octokit, repo: RepoRef, headSha: string): Promise<HeadPull[]> {
  const { data } = await octokit.rest.repos.listPullRequestsAssociatedWithCommit({
    owner: repo.owner,
    repo: repo.name,
    commit_sha: headSha,
    per_page: 100,
    request: RETRY_ONCE,
  });
  return (data as PullLike[])
    .filter((p) => p.state === "open" && p.head.sha.toLowerCase() === headSha.toLowerCase())
    .map(headPullOf);
}

/** `#12 (`owner:branch` into `base`)`, the branch names escaped (anyone who can push names them). */
function pullText(p: HeadPull): string {
  return `#${p.number} (\`${escapeInline(p.headLabel, 120)}\` into \`${escapeInline(p.baseRef, 120)}\`)`;
}

/**
 * Why a `groundfix/review` verdict on `headSha` cannot pass when `pulls` are the open pull requests with that head,
 * or undefined when there is exactly one, from a same-repository branch starting with `branchPrefix` and, when
 * `baseRef` is given, into that base (the one it was reviewed against):
 * - more than one: one check run shows on each of them, but it can be reached against one base only, so a head
 *   shared by several pull requests fails, naming them all (a second pull request into another base would
 *   otherwise show the verdict made for the first);
 * - one that is not a groundfix pull request (a fork, another branch): the verdict shown there was made for a
 *   groundfix pull request that is no longer open with this head;
 * - one into another base than `baseRef`.
 * No pull request at all (a head whose pull request was closed) is no problem here: the caller reviews its request.
 */
export function sharedHeadProblem(
  headSha: string,
  pulls: readonly HeadPull[],
  branchPrefix: string,
  baseRef?: string,
): { title: string; reason: string } | undefined {
  const commit = headSha.slice(0, 7);
  const after =
    "A check run belongs to the commit, not to a pull request, so GitHub shows this one verdict on every open pull " +
    "request with this head; groundfix reviews a head as the head of one groundfix pull request only, against " +
    "its base.";
  if (pulls.length > 1)
    return {
      title: "Head of more than one pull request",
      reason:
        `Commit ${commit} is the head of ${pulls.length} open pull requests: ${pulls.map(pullText).join(", ")}. ` +
        `${after} Close all but one of them (or push another commit to their branches), then re-run this check.`,
    };
  const [only] = pulls;
  if (!only) return undefined;
  if (only.fork || !only.headRef.startsWith(branchPrefix))
    return {
      title: "Head of a pull request groundfix did not open",
      reason:
        `The one open pull request with commit ${commit} as its head is ${pullText(only)}, which does not come from ` +
        `a \`${escapeInline(branchPrefix, 120)}\` branch of this repository. ${after}`,
    };
  if (baseRef !== undefined && only.baseRef !== baseRef)
    return {
      title: "Pull request into another base",
      reason:
        `Commit ${commit} was reviewed against \`${escapeInline(baseRef, 120)}\`, but its pull request is ` +
        `${pullText(only)}. ${after}`,
    };
  return undefined;
}

/** The problem a check run fails with when {@link openPullsWithHead} threw `error` for `headSha`. */
export function listFailure(headSha: string, error: unknown): { title: string; reason: string } {
  return {
    title: "Pull requests could not be listed",
    reason:
      `groundfix could not list the open pull requests with ${headSha.slice(0, 12)} as head ` +
      `(${describeFailure(error)}), so it cannot tell which bases this check would be shown against.`,
  };
}

/**
 * {@link openPullsWithHead} then {@link sharedHeadProblem}: why a verdict on `headSha` reached against `baseRef`
 * for a pull request from a `branchPrefix` branch cannot pass, or undefined. A lookup that fails is a problem too
 * ({@link listFailure}): it fails closed. Never throws.
 */
export async function headProblem(
  octokit: Octokit,
  repo: RepoRef,
  headSha: string,
  branchPrefix: string,
  baseRef: string,
): Promise<{ title: string; reason: string } | undefined> {
  try {
    return sharedHeadProblem(headSha, await openPullsWithHead(octokit, repo, headSha), branchPrefix, baseRef);
  } catch (error) {
    return listFailure(headSha, error);
  }
}
