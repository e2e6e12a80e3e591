import type { GroundfixConfig } from "../../config/schema.js";
import { REVIEW_CHECK_NAME, reviewCommit, toCheckRunOutputs } from "../../review/index.js";
import type { CheckRunOutput } from "../../review/output.js";
import type { ReviewReport, RunRecord } from "../../types.js";
import type { GitHubHost } from "./host.js";
import { capText } from "./markdown.js";
import { describeError, describeFailure, RETRY_ONCE, type Octokit } from "./octokit.js";
import { isOwnCommit } from "../../pipeline/record.js";
import { quote } from "../../review/rules/grounded.js";
import { madeByApp } from "./commit.js";

/**
 * The `groundfix/review` check run could not be written: `create` (there is no check run on the head), `conclude`
 * (it was created but stays `in_progress`), or `annotations` (concluded, but a later annotation batch was refused).
 * `message` is one line for a status comment; `report` is the review's verdict when it ran.
 */
export class ReviewCheckError extends Error {
  constructor(
    readonly stage: "create" | "conclude" | "annotations",
    readonly failure: unknown,
    readonly report: ReviewReport | null = null,
  ) {
    super(describeError(failure));
    this.name = "ReviewCheckError";
  }
}

/** GitHub's cap on a check run's `output.summary` and `output.text` (characters). */
const CHECK_TEXT_LIMIT = 65_535;

/** Where a check run goes: the repository, the pull request head it is attached to, the run id. */
export interface CheckTarget {
  owner: string;
  repo: string;
  /** The pull request's head commit: the check run is attached to it. */
  headSha: string;
  prNumber: number;
  /** The pull request's html URL: the check run's `details_url`. */
  prUrl: string;
  /** The run id (`external_id` of the check run). */
  externalId?: string;
}

/**
 * `POST /repos/{o}/{r}/check-runs`: name `groundfix/review`, `head_sha`, `status: in_progress`, `details_url` = the
 * PR, `external_id` = the run id; retried once on 5xx/429 (`RETRY_ONCE`).
 * @returns the check run id. @throws {@link ReviewCheckError} `create` when GitHub still refuses it.
 */
export async function createReviewCheck(octokit: Octokit, p: CheckTarget): Promise<number> {
  try {
    const { data } = await octokit.rest.checks.create({
      owner: p.owner,
      repo: p.repo,
      name: REVIEW_CHECK_NAME,
      head_sha: p.headSha,
      status: "in_progress",
      started_at: new Date().toISOString(),
      details_url: p.prUrl,
      ...(p.externalId ? { external_id: p.externalId } : {}),
      output: {
        title: "Reviewing the diff",
        summary: `Re-verifying every hunk of #${p.prNumber} against its base commit.`,
      },
      request: RETRY_ONCE,
    });
    return data.id;
  } catch (error) {
    throw new ReviewCheckError("create", error);
  }
}

/** The outputs of `report` for the Checks API: the first carries ≤50 annotations, each further one the next ≤50. */
function outputsOf(report: ReviewReport): [CheckRunOutput, ...CheckRunOutput[]] {
  const [first, ...rest] = toCheckRunOutputs(report);
  return first ? [first, ...rest] : [{ title: report.title, summary: report.summary, annotations: [] }];
}

/**
 * Send the annotation batches after the first: one `PATCH check-runs/{id}` each, with the first output's title and
 * summary (GitHub appends the annotations of each update). Each write is retried once on 5xx/429.
 * @throws {@link ReviewCheckError} `annotations` when GitHub still refuses one.
 */
async function appendAnnotations(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  checkRunId: number,
  report: ReviewReport,
  [first, ...rest]: [CheckRunOutput, ...CheckRunOutput[]],
): Promise<void> {
  try {
    for (const batch of rest)
      await octokit.rest.checks.update({
        ...repo,
        check_run_id: checkRunId,
        output: { title: first.title, summary: first.summary, annotations: batch.annotations },
        request: RETRY_ONCE,
      });
  } catch (error) {
    throw new ReviewCheckError("annotations", error, report);
  }
}

/**
 * Conclude check run `checkRunId` with `report`: `PATCH check-runs/{id}` with the conclusion and the first output of
 * `toCheckRunOutputs` (and `external_id` / `details_url` when `known` gives them: learnt after the create), then one
 * more PATCH per further batch of ≤50 annotations (same title and summary; GitHub appends annotations on each
 * update). Each write is retried once on 5xx/429.
 * @throws {@link ReviewCheckError} `conclude` or `annotations` when GitHub still refuses a write.
 */
export async function concludeReviewCheck(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  checkRunId: number,
  report: ReviewReport,
  known: { externalId?: string; prUrl?: string } = {},
): Promise<void> {
  const outputs = outputsOf(report);
  try {
    await octokit.rest.checks.update({
      ...repo,
      check_run_id: checkRunId,
      ...(known.externalId ? { external_id: known.externalId } : {}),
      ...(known.prUrl ? { details_url: known.prUrl } : {}),
      status: "completed",
      conclusion: report.conclusion,
      completed_at: new Date().toISOString(),
      output: outputs[0],
      request: RETRY_ONCE,
    });
  } catch (error) {
    throw new ReviewCheckError("conclude", error, report);
  }
  await appendAnnotations(octokit, repo, checkRunId, report, outputs);
}

/**
 * The `groundfix/review` check run of a review that already ran (the App's own pull request, reviewed in memory
 * before its commit was written), created already concluded: ONE `POST /repos/{o}/{r}/check-runs` with
 * `status: completed`, the report's conclusion and its first output (GitHub accepts a completed run on create and
 * takes at most 50 annotations per request; docs "Create a check run"), so it is never seen `in_progress`; one
 * `PATCH` per further batch of ≤50 annotations. Name, `details_url` and `external_id` as {@link createReviewCheck}.
 * Each write is retried once on 5xx/429.
 * @returns the check run id. @throws {@link ReviewCheckError} `create` (there is no check run) or `annotations`
 *   (created and concluded, but a later batch was refused).
 */
export async function publishReviewCheck(octokit: Octokit, p: CheckTarget, report: ReviewReport): Promise<number> {
  const outputs = outputsOf(report);
  const now = new Date().toISOString();
  let id: number;
  try {
    const { data } = await octokit.rest.checks.create({
      owner: p.owner,
      repo: p.repo,
      name: REVIEW_CHECK_NAME,
      head_sha: p.headSha,
      status: "completed",
      conclusion: report.conclusion,
      started_at: now,
      completed_at: now,
      details_url: p.prUrl,
      ...(p.externalId ? { external_id: p.externalId } : {}),
      output: outputs[0],
      request: RETRY_ONCE,
    });
    id = data.id;
  } catch (error) {
    throw new ReviewCheckError("create", error, report);
  }
  await appendAnnotations(octokit, { owner: p.owner, repo: p.repo }, id, report, outputs);
  return id;
}

/** The check-run text of one that a job left unfinished and a later attempt concluded. */
const STALE_OUTPUT = {
  title: "Stopped before it finished",
  summary:
    "The groundfix job that created this check stopped before it concluded it (its worker died or " +
    "lost access to GitHub), so it is cancelled rather than left in progress. A later attempt took " +
    "over: see the newest `groundfix/review` check on this commit, or re-run this check to review again.",
};

/**
 * Conclude the `groundfix/review` check runs on `headSha` that an earlier attempt of the same job left unfinished:
 * `GET commits/{sha}/check-runs?check_name=groundfix/review&filter=all`, then for each one not `completed` a
 * `PATCH check-runs/{id}` to `completed` / `cancelled` (not `neutral`, which a required check counts as passing)
 * with a summary that says the earlier run died. Only the app that created a check run may update it; a refused
 * PATCH is skipped. Call it only where no other attempt can be running (a retry of a job, whose key admits one at a
 * time): a check in progress there is a dead attempt's.
 * @returns how many were concluded and how many were already completed. @throws the lookup's `RequestError`.
 */
export async function concludeStaleChecks(
  octokit: Octokit,
  p: { owner: string; repo: string; headSha: string },
): Promise<{ concluded: number; completed: number }> {
  const { data } = await octokit.rest.checks.listForRef({
    owner: p.owner,
    repo: p.repo,
    ref: p.headSha,
    check_name: REVIEW_CHECK_NAME,
    filter: "all",
    per_page: 100,
    request: RETRY_ONCE,
  });
  let concluded = 0;
  for (const run of data.check_runs.filter((r) => r.status !== "completed")) {
    const done = await octokit.rest.checks
      .update({
        owner: p.owner,
        repo: p.repo,
        check_run_id: run.id,
        status: "completed",
        conclusion: "cancelled",
        completed_at: new Date().toISOString(),
        output: STALE_OUTPUT,
        request: RETRY_ONCE,
      })
      .then(
        () => true,
        () => false,
      );
    if (done) concluded++;
  }
  return { concluded, completed: data.check_runs.filter((r) => r.status === "completed").length };
}

/** The input of {@link runReviewCheck}. */
export interface ReviewCheckInput extends CheckTarget {
  /** The pull request's base commit (or base branch tip); the review diffs from its merge base with the head. */
  baseSha: string;
  config: GroundfixConfig;
  /** The run record of the app's own PR, once trusted ({@link evidenceFor}; enables the evidence rule), or null. */
  record: RunRecord | null;
  /** Why a pull request on a groundfix branch has no record to trust ({@link evidenceFor}): evidence fails with it. */
  recordProblem?: string;
  /** A note appended to the summary (e.g. that later commits by others were reviewed without the evidence rule). */
  note?: string;
  /** The check run, when the caller created it already ({@link createReviewCheck}); else it is created first. */
  checkRunId?: number;
}

/**
 * The `groundfix/review` check run on a pull request head the App did not just write (a push, a re-run):
 * 1. {@link createReviewCheck}, unless `p.checkRunId` names the one the caller created;
 * 2. `reviewCommit` over the diff from the merge base of base and head (what the PR shows) to head, with both
 *    snapshots (one compare call, tarballs reused by the host);
 * 3. {@link concludeReviewCheck}.
 *
 * If the review itself throws, the check run is completed with conclusion `failure` and a summary that says what
 * failed (a safety check that could not run must not pass and must never stay `in_progress`); the returned report
 * says the same.
 * @throws {@link ReviewCheckError} when GitHub still refuses the create, the completing update or an annotation batch.
 */
export async function runReviewCheck(host: GitHubHost, p: ReviewCheckInput): Promise<ReviewReport> {
  const checkRunId = p.checkRunId ?? (await createReviewCheck(host.octokit, p));
  let report: ReviewReport;
  try {
    const { mergeBase } = await host.compare(p.baseSha, p.headSha);
    report = await reviewCommit(host, {
      baseSha: mergeBase,
      headSha: p.headSha,
      config: p.config,
      record: p.record,
      ...(p.recordProblem !== undefined ? { recordProblem: p.recordProblem } : {}),
    });
  } catch (error) {
    report = {
      conclusion: "failure",
      title: "Review could not run",
      summary:
        `The review of ${p.headSha.slice(0, 12)} could not run, so this check ` +
        `fails closed: ${describeFailure(error)}.\n\nRe-run this check to try again.`,
      findings: [],
      rulesChecked: [],
    };
  }
  if (p.note) report = { ...report, summary: capText(`${report.summary}\n\n${p.note}`, CHECK_TEXT_LIMIT) };
  const known =
    p.checkRunId === undefined ? {} : { prUrl: p.prUrl, ...(p.externalId ? { externalId: p.externalId } : {}) };
  await concludeReviewCheck(host.octokit, { owner: p.owner, repo: p.repo }, checkRunId, report, known);
  return report;
}

/**
 * What GitHub says of the commit a run record names: the answer of `GET compare/{record.base_sha}...{record.head_sha}`
 * (`ahead_by`, the merge base, and of its first commit whether it is groundfix's own: `isOwnCommit` of
 * src/pipeline/record.ts, the `Groundfix-Run:` trailer AND `madeByApp` of src/host/github/commit.ts, the app's bot as
 * author and committer and a signature GitHub verified), or why it could not be asked.
 */
export type NamedCommit =
  | { aheadBy: number; mergeBase: string; first: { sha: string; author: string; ours: boolean } | null }
  | { error: string };

/** The run record to review a head with ({@link evidenceFor}): the record, or the reason it cannot be trusted. */
export interface Evidence {
  /** The record, when it names a commit groundfix made; else null. */
  record: RunRecord | null;
  /** Why a pull request on a groundfix branch has no record to trust; the evidence rule fails with it. */
  problem?: string;
  /** For the summary, when commits by others sit on top of groundfix's own. */
  note?: string;
}

/** A full commit SHA (SHA-1, 40 hex digits): the only thing a record's `base_sha`/`head_sha` may be looked up as. */
const FULL_SHA = /^[0-9a-f]{40}$/i;

/** A SHA from a run record for a message: its first 7 digits, or, when it is not a SHA, a short quoted form. */
function shaText(sha: string): string {
  return FULL_SHA.test(sha) ? sha.slice(0, 7) : quote(sha.slice(0, 40));
}

/**
 * Ask GitHub about the commit `record` names ({@link NamedCommit}) with one compare call, which `reviewCommit`
 * reuses (the host caches it) for the app's own range. Undefined when there is no record or it names no commit.
 * Never throws: a failed call is `{ error }`.
 */
export async function lookupNamedCommit(host: GitHubHost, record: RunRecord | null): Promise<NamedCommit | undefined> {
  if (!record?.head_sha) return undefined;
  if (!FULL_SHA.test(record.head_sha) || !FULL_SHA.test(record.base_sha))
    return { error: "its base_sha and head_sha are not both full commit SHAs" };
  try {
    const [found, bot] = await Promise.all([host.compare(record.base_sha, record.head_sha), host.botLogin()]);
    if (!bot) return { error: "the app's own bot login could not be read (`GET /app`)" };
    const c = found.first;
    const first = c
      ? {
          sha: c.sha,
          author: c.author?.login ?? "an unknown author",
          ours: isOwnCommit({ message: c.commit.message, madeByGroundfix: madeByApp(c, bot) }),
        }
      : null;
    return { aheadBy: found.aheadBy, mergeBase: found.mergeBase, first };
  } catch (error) {
    return { error: describeFailure(error) };
  }
}

/**
 * Whether the run record in the body of a pull request on a groundfix branch can be trusted, and so whether the
 * evidence rule checks the head against it. Anyone who can push to the branch can also edit the body
 * (test/host/github/record-forgery-attack.test.ts), so the record counts only when it names, as
 * `head_sha`, a commit groundfix made: `named` (see {@link lookupNamedCommit}) shows one commit from `base_sha` to
 * it, and that commit is the app's own. The edits are then held to that commit by the evidence rule (replayed on
 * `base_sha` they must give its files), and the pull request head to the same edits on its base. Otherwise the
 * answer is `problem`, which fails the evidence rule: no record (deleted, or edited so it no longer decodes), a
 * record naming no commit, one whose commit could not be looked up, is not one commit on `base_sha`, or is not
 * groundfix's. `note` says so when the head is not groundfix's commit itself.
 */
export function evidenceFor(record: RunRecord | null, headSha: string, named: NamedCommit | undefined): Evidence {
  const fails = (why: string): Evidence => ({
    record: null,
    problem:
      `${why} So nothing shows which edits groundfix made, and the evidence rule fails: on a groundfix branch ` +
      "this check passes only a head that is groundfix's own recorded edits on its base. Comment " +
      "`/groundfix retry` on the issue to have groundfix make the change again.",
  });
  if (!record)
    return fails(
      "The pull request body holds no run record (the hidden `groundfix:run` comment groundfix writes there), " +
        "or one that cannot be read: it was deleted or edited.",
    );
  const sha = record.head_sha;
  if (!sha) return fails("The run record in the pull request body names no commit (`head_sha`).");
  if (!named) return fails(`The commit the run record names, ${shaText(sha)}, was not looked up.`);
  if ("error" in named)
    return fails(`The commit the run record names, ${shaText(sha)}, could not be looked up (${named.error}).`);
  if (named.aheadBy !== 1 || named.mergeBase !== record.base_sha || named.first?.sha !== sha)
    return fails(
      `The run record names commit ${shaText(sha)} on base ${shaText(record.base_sha)}, but GitHub does not show ` +
        `it as one commit on that base.`,
    );
  if (!named.first.ours)
    return fails(
      `The run record names commit ${shaText(sha)} (by ${named.first.author}), which groundfix did not make: ` +
        `GitHub shows no verified commit by the app with a \`Groundfix-Run:\` trailer there.`,
    );
  if (sha === headSha) return { record };
  return {
    record,
    note:
      `Commits were pushed after groundfix's own commit ${shaText(sha)}: evidence checked that commit against ` +
      `the run record, and that the pull request still holds exactly those edits on its base; anything else the ` +
      `later commits change fails it. The other rules reviewed the whole pull request.`,
  };
}

/** Where {@link failReviewCheck} puts the check run and what it says. */
export interface ReviewFailureInput extends CheckTarget {
  /** The check run's title, e.g. "Config could not be read". */
  title: string;
  /** Why the review did not run, readable on its own (markdown, one or two sentences). */
  reason: string;
}

/**
 * The report of a review that did not run: conclusion `failure`, `p.title`, and a summary of `p.reason` followed
 * by "groundfix did not review <head> of #<n>, so this check fails closed. Re-run this check to try again."
 */
export function failureReport(p: ReviewFailureInput): ReviewReport {
  return {
    conclusion: "failure",
    title: p.title,
    summary:
      `${p.reason}\n\ngroundfix did not review ${p.headSha.slice(0, 12)} of ` +
      `#${p.prNumber}, so this check fails closed. Re-run this check to try again.`,
    findings: [],
    rulesChecked: [],
  };
}

/**
 * A `groundfix/review` check run that says the review could not run, created already concluded: ONE
 * `POST /repos/{o}/{r}/check-runs` with `status: completed`, `conclusion: failure` (GitHub accepts a completed run
 * on create; docs "Create a check run"), so it can never stay `in_progress`. Used when something fails before the
 * review's own check run exists (the repository config cannot be read or is invalid, `GET pulls/{n}` fails): a
 * safety check that could not run fails closed rather than passing under default rules the repository may have
 * tightened. The summary ends with "Re-run this check to try again." (a re-run sends `check_run.rerequested`).
 * Retried once on 5xx/429.
 * @returns the report the check run shows. @throws {@link ReviewCheckError} (`create`) when GitHub refuses it twice.
 */
export async function failReviewCheck(octokit: Octokit, p: ReviewFailureInput): Promise<ReviewReport> {
  const report = failureReport(p);
  const now = new Date().toISOString();
  try {
    await octokit.rest.checks.create({
      owner: p.owner,
      repo: p.repo,
      name: REVIEW_CHECK_NAME,
      head_sha: p.headSha,
      details_url: p.prUrl,
      status: "completed",
      conclusion: "failure",
      started_at: now,
      completed_at: now,
      output: { title: report.title, summary: report.summary },
      request: RETRY_ONCE,
    });
  } catch (error) {
    throw new ReviewCheckError("create", error, report);
  }
  return report;
}
