import { REVIEW_CHECK_NAME } from "../../review/index.js";
import type { ReviewReport } from "../../types.js";
import { RETRY_ONCE, type Octokit } from "./octokit.js";
import { ReviewCheckError } from "./review-check.js";

/** Where {@link failReviewCheck} puts the check run and what it says. */
export interface ReviewFailureInput {
  owner: string;
  repo: string;
  /** The pull request head commit the check run is attached to. */
  headSha: string;
  prNumber: number;
  /** The pull request's html URL: the check run's `details_url`. */
  prUrl: string;
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
    summary: `${p.reason}\n\ngroundfix did not review ${p.headSha.slice(0, 12)} of #${p.prNumber}, so this check fails closed. Re-run this check to try again.`,
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
