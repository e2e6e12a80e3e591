import type { GroundfixConfig } from "../../config/schema.js";
import { REVIEW_CHECK_NAME, reviewCommit, toCheckRunOutputs } from "../../review/index.js";
import type { CheckRunOutput } from "../../review/output.js";
import type { ReviewReport, RunRecord } from "../../types.js";
import type { GitHubHost } from "./host.js";
import { capText } from "./markdown.js";
import { describeError, RETRY_ONCE, type Octokit } from "./octokit.js";

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
 * `toCheckRunOutputs`, then one more PATCH per further batch of ≤50 annotations (same title and summary; GitHub
 * appends annotations on each update). Each write is retried once on 5xx/429.
 * @throws {@link ReviewCheckError} `conclude` or `annotations` when GitHub still refuses a write.
 */
export async function concludeReviewCheck(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  checkRunId: number,
  report: ReviewReport,
): Promise<void> {
  const outputs = outputsOf(report);
  try {
    await octokit.rest.checks.update({
      ...repo,
      check_run_id: checkRunId,
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
  /** The hidden run record of the app's own PR (enables the evidence rule), or null. */
  record: RunRecord | null;
  /** A note appended to the summary (e.g. that later commits by others were reviewed without the evidence rule). */
  note?: string;
}

/**
 * The `groundfix/review` check run on a pull request head the App did not just write (a push, a re-run):
 * 1. {@link createReviewCheck};
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
  const checkRunId = await createReviewCheck(host.octokit, p);
  let report: ReviewReport;
  try {
    const { mergeBase } = await host.compare(p.baseSha, p.headSha);
    report = await reviewCommit(host, { baseSha: mergeBase, headSha: p.headSha, config: p.config, record: p.record });
  } catch (error) {
    report = {
      conclusion: "failure",
      title: "Review could not run",
      summary:
        `The review of ${p.headSha.slice(0, 12)} could not run, so this check ` +
        `fails closed: ${describeError(error)}.\n\nRe-run this check to try again.`,
      findings: [],
      rulesChecked: [],
    };
  }
  if (p.note) report = { ...report, summary: capText(`${report.summary}\n\n${p.note}`, CHECK_TEXT_LIMIT) };
  await concludeReviewCheck(host.octokit, { owner: p.owner, repo: p.repo }, checkRunId, report);
  return report;
}

/**
 * The run record to review a head commit with, and a note for the summary when commits by others sit on top of the
 * app's own (`record.head_sha !== headSha`): `reviewCommit` then applies the evidence rule to the app's own diff
 * `record.base_sha..record.head_sha` only, and every other rule to the whole pull request (a human push to the branch
 * is reviewed like the app's own commit).
 */
export function evidenceFor(record: RunRecord | null, headSha: string): { record: RunRecord | null; note?: string } {
  if (!record || !record.head_sha || record.head_sha === headSha) return { record };
  return {
    record,
    note:
      `Commits pushed after groundfix's own commit ${record.head_sha.slice(0, 12)} were ` +
      `reviewed with every rule except evidence, which checks groundfix's own commit only.`,
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
  const report: ReviewReport = {
    conclusion: "failure",
    title: p.title,
    summary:
      `${p.reason}\n\ngroundfix did not review ${p.headSha.slice(0, 12)} of ` +
      `#${p.prNumber}, so this check fails closed. Re-run this check to try again.`,
    findings: [],
    rulesChecked: [],
  };
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
