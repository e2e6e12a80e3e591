import { z } from "zod";
import { defaultConfig } from "../config/schema.js";
import { REVIEW_CHECK_NAME } from "../review/index.js";

/** A pull request to review: where it lives, which commits, and the head branch it came from. */
export interface ReviewRequest {
  owner: string;
  repo: string;
  prNumber: number;
  /** The pull request's html URL (the check run's details_url). */
  prUrl: string;
  headSha: string;
  /** The pull request's base commit as the payload reports it. */
  baseSha: string;
  headRef: string;
  /** The pull request's base branch as the payload reports it. */
  baseRef: string;
  /** True when its head branch lives in another repository (a fork; never a groundfix pull request). */
  fork: boolean;
  /**
   * True for an explicit "Re-run" (check_run / check_suite `rerequested`) or a change of the pull request's base
   * (`pull_request.edited` with `changes.base`): always a fresh check run.
   */
  rerequested: boolean;
  /** {@link ReviewEvent.joins}: a `pull_request` event, whose pull request now has this head on this base. */
  joins: boolean;
}

const repoRef = z.object({ id: z.number().optional(), url: z.string().optional(), full_name: z.string().optional() });
const repository = z.object({ name: z.string(), owner: z.object({ login: z.string() }), html_url: z.string() });
const pullRequestEvent = z.object({
  action: z.string(),
  repository,
  pull_request: z.object({
    number: z.number(),
    html_url: z.string(),
    state: z.string().optional(),
    head: z.object({ ref: z.string(), sha: z.string(), repo: repoRef.nullable() }),
    base: z.object({ ref: z.string(), sha: z.string(), repo: repoRef }),
  }),
});
/** The trimmed pull request objects of `check_run.pull_requests` / `check_suite.pull_requests`. */
const minimalPr = z.object({
  number: z.number(),
  head: z.object({ ref: z.string(), sha: z.string(), repo: repoRef.nullable().optional() }),
  base: z.object({ ref: z.string(), sha: z.string(), repo: repoRef.nullable().optional() }),
});
const checkRunEvent = z.object({
  action: z.string(),
  repository,
  check_run: z.object({ name: z.string(), head_sha: z.string(), pull_requests: z.array(minimalPr) }),
});
const checkSuiteEvent = z.object({
  action: z.string(),
  repository,
  check_suite: z.object({ head_sha: z.string(), pull_requests: z.array(minimalPr) }),
});

type RepoLike = z.infer<typeof repoRef> | null | undefined;

/** Same repository on both sides (a fork's PR has another head repository, or none when the fork was deleted). */
function sameRepo(head: RepoLike, base: RepoLike): boolean {
  if (!head || !base) return false;
  if (head.id !== undefined && base.id !== undefined) return head.id === base.id;
  if (head.full_name && base.full_name) return head.full_name === base.full_name;
  return head.url !== undefined && head.url === base.url;
}

/** Whether a `pull_request.edited` payload says the base branch changed (`changes.base`, an object). */
function baseChanged(payload: unknown): boolean {
  const base = (payload as { changes?: { base?: unknown } }).changes?.base;
  return typeof base === "object" && base !== null;
}

/** A review webhook, parsed (not yet decided): the repository, the head, the same-repository pull requests on it. */
export interface ReviewEvent {
  owner: string;
  repo: string;
  headSha: string;
  /** True for an explicit "Re-run" (check_run / check_suite `rerequested`) or a base change (`pull_request.edited`). */
  rerequested: boolean;
  /** True for `check_run.rerequested` of `groundfix/review`: ours by construction, whatever the branch. */
  ownCheck: boolean;
  /**
   * True for a `pull_request` event (opened, reopened, synchronize, a base change): its pull request — from this
   * repository or a fork — now has `headSha` as head on its base, so no check run made on `headSha` before covers it
   * (a check run belongs to the commit and shows on every pull request with that head).
   */
  joins: boolean;
  /**
   * The pull requests of the event, in payload order: the `pull_request` event's one (`fork` when its head branch is
   * in another repository), or the same-repository ones of a check event.
   */
  pulls: { number: number; prUrl: string; headRef: string; baseRef: string; baseSha: string; fork: boolean }[];
  /** The pull request body of a `pull_request` event (undefined for check events: the job asks GitHub). */
  prBody?: string | null;
}

/**
 * Parse a webhook that may ask for a `groundfix/review` check (plain JSON, so it can be queued):
 * - `pull_request` `opened` | `reopened` | `synchronize`, and `edited` when it changed the base branch
 *   (`changes.base`), from this repository or a fork (`fork`; never reviewed as a groundfix pull request, but a
 *   groundfix head it takes must be reviewed again, see `joins`): a check run belongs to the head COMMIT, and its
 *   verdict was reached against the old base (the evidence rule replays the record on the merge base), so a head
 *   reviewed against one base must be reviewed again against the new one, as a fresh check run even though the head
 *   has one (test/host/github/base-retarget-attack.test.ts); an edit of the title or body reviews nothing;
 * - `check_run.rerequested` for the check named `groundfix/review` (GitHub sends it only to the app that made the run);
 * - `check_suite.requested` | `rerequested`, with its same-repository pull requests.
 * For `check_run`/`check_suite` the head SHA is the run's or suite's, the base SHA comes from
 * `pull_requests[].base.sha` and the PR URL from `repository.html_url` + `/pull/N` (those trimmed PR objects carry only
 * the API URL).
 * @returns the event, or null for anything else (other events or actions, no such pull request, malformed payloads).
 */
export function reviewEventOf(name: string, payload: unknown): ReviewEvent | null {
  if (name === "pull_request") {
    const parsed = pullRequestEvent.safeParse(payload);
    if (!parsed.success) return null;
    const { action } = parsed.data;
    const retargeted = action === "edited" && baseChanged(payload);
    if (!retargeted && !["opened", "reopened", "synchronize"].includes(action)) return null;
    const { pull_request: pr, repository: repo } = parsed.data;
    const fork = !sameRepo(pr.head.repo, pr.base.repo);
    const prBody = (payload as { pull_request: { body?: string | null } }).pull_request.body ?? null;
    const { ref: headRef } = pr.head;
    const pulls = [
      { number: pr.number, prUrl: pr.html_url, headRef, baseRef: pr.base.ref, baseSha: pr.base.sha, fork },
    ];
    return {
      owner: repo.owner.login,
      repo: repo.name,
      headSha: pr.head.sha,
      rerequested: retargeted,
      ownCheck: false,
      joins: true,
      pulls,
      prBody,
    };
  }
  let found: {
    repo: z.infer<typeof repository>;
    headSha: string;
    prs: z.infer<typeof minimalPr>[];
    rerequested: boolean;
  } | null = null;
  if (name === "check_run") {
    const parsed = checkRunEvent.safeParse(payload);
    if (!parsed.success || parsed.data.action !== "rerequested" || parsed.data.check_run.name !== REVIEW_CHECK_NAME)
      return null;
    const run = parsed.data.check_run;
    found = { repo: parsed.data.repository, headSha: run.head_sha, prs: run.pull_requests, rerequested: true };
  } else if (name === "check_suite") {
    const parsed = checkSuiteEvent.safeParse(payload);
    if (!parsed.success || !["requested", "rerequested"].includes(parsed.data.action)) return null;
    const suite = parsed.data.check_suite;
    found = {
      repo: parsed.data.repository,
      headSha: suite.head_sha,
      prs: suite.pull_requests,
      rerequested: parsed.data.action === "rerequested",
    };
  }
  if (!found) return null;
  const htmlUrl = found.repo.html_url.replace(/\/$/, "");
  const pulls = found.prs
    .filter((p) => p.head.repo == null || p.base.repo == null || sameRepo(p.head.repo, p.base.repo))
    .map((p) => ({
      number: p.number,
      prUrl: `${htmlUrl}/pull/${p.number}`,
      headRef: p.head.ref,
      baseRef: p.base.ref,
      baseSha: p.base.sha,
      fork: false,
    }));
  if (pulls.length === 0) return null;
  return {
    owner: found.repo.owner.login,
    repo: found.repo.name,
    headSha: found.headSha,
    rerequested: found.rerequested,
    ownCheck: name === "check_run",
    joins: false,
    pulls,
  };
}

/**
 * The decision, made once (in the review job, with the repository's config): the first same-repository pull
 * request of `event` whose head branch starts with `branchPrefix` (with `anyBranch`, the event's first pull request,
 * a fork's too: a pull request that took a groundfix head, reviewed only to replace the verdict shown on it). `null`
 * for `branchPrefix` means the config could not be used: a re-run of our own check run is accepted on any branch,
 * other events are matched against the default prefix.
 */
export function reviewRequestFor(
  event: ReviewEvent,
  branchPrefix: string | null,
  anyBranch = false,
): ReviewRequest | null {
  const prefix = branchPrefix ?? (event.ownCheck ? "" : defaultConfig().pull_request.branch_prefix);
  const pr = anyBranch ? event.pulls[0] : event.pulls.find((p) => !p.fork && p.headRef.startsWith(prefix));
  if (!pr) return null;
  return {
    owner: event.owner,
    repo: event.repo,
    prNumber: pr.number,
    prUrl: pr.prUrl,
    headSha: event.headSha,
    baseSha: pr.baseSha,
    headRef: pr.headRef,
    baseRef: pr.baseRef,
    fork: pr.fork,
    rerequested: event.rerequested,
    joins: event.joins,
  };
}

/**
 * {@link reviewEventOf} then {@link reviewRequestFor}: whether a webhook asks for a review of a `branchPrefix` branch.
 */
export function reviewRequestFromEvent(name: string, payload: unknown, branchPrefix: string): ReviewRequest | null {
  const event = reviewEventOf(name, payload);
  return event ? reviewRequestFor(event, branchPrefix) : null;
}
