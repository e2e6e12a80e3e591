import type { GroundfixConfig } from "../../config/schema.js";
import { REVIEW_CHECK_NAME, reviewCommit, toCheckRunOutputs } from "../../review/index.js";
import type { ReviewReport, RunRecord } from "../../types.js";
import { createGitHubHost } from "./host.js";
import { capText } from "./markdown.js";
import { describeError, type Octokit } from "./octokit.js";
import { retryOnce, type Delay } from "./retry.js";

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

/** The input of {@link runReviewCheck}. */
export interface ReviewCheckInput {
  owner: string;
  repo: string;
  /** The pull request's head commit: the check run is attached to it. */
  headSha: string;
  /** The pull request's base commit (or base branch tip); the review diffs from its merge base with the head. */
  baseSha: string;
  prNumber: number;
  /** The pull request's html URL: the check run's `details_url`. */
  prUrl: string;
  config: GroundfixConfig;
  /** The hidden run record of the app's own PR (enables the evidence rule), or null. */
  record: RunRecord | null;
  /** The run id (`external_id` of the check run). */
  externalId?: string;
  /** A note appended to the summary (e.g. that later commits by others were reviewed without the evidence rule). */
  note?: string;
  /** The wait before the one retry of a check-run write on 5xx/429 (tests pass an instant one). */
  delay?: Delay;
}

/**
 * The `groundfix/review` check run on a pull request head (issue 6, DESIGN.md invariant 5):
 * 1. `POST /repos/{o}/{r}/check-runs` — name `groundfix/review`, `head_sha`, `status: in_progress`,
 *    `details_url` = the PR, `external_id` = the run id;
 * 2. `reviewCommit` over the diff from the merge base of base and head (what the PR shows) to head, with both
 *    snapshots (one compare call, tarballs reused from the process cache);
 * 3. `PATCH check-runs/{id}` with the conclusion and the first output of `toCheckRunOutputs`, then one more PATCH
 *    per further batch of ≤50 annotations (same title and summary; GitHub appends annotations on each update).
 *
 * If the review itself throws, the check run is completed with conclusion `failure` and a summary that says what
 * failed (a safety check that could not run must not pass and must never stay `in_progress`); the returned report
 * says the same. Each check-run write is retried once on 5xx/429 (`retry-after` honoured up to 5 s).
 * @throws {@link ReviewCheckError} when GitHub still refuses the create, the completing update or an annotation batch.
 */
export async function runReviewCheck(octokit: Octokit, p: ReviewCheckInput): Promise<ReviewReport> {
  const base = { owner: p.owner, repo: p.repo };
  const create = () => octokit.rest.checks.create({
    ...base,
    name: REVIEW_CHECK_NAME,
    head_sha: p.headSha,
    status: "in_progress",
    started_at: new Date().toISOString(),
    details_url: p.prUrl,
    ...(p.externalId ? { external_id: p.externalId } : {}),
    output: { title: "Reviewing the diff", summary: `Re-verifying every hunk of #${p.prNumber} against its base commit.` },
  });
  let checkRunId: number;
  try {
    checkRunId = (await retryOnce(create, p.delay)).data.id;
  } catch (error) {
    throw new ReviewCheckError("create", error);
  }

  let report: ReviewReport;
  try {
    const host = createGitHubHost(octokit, { owner: p.owner, name: p.repo });
    const { mergeBase } = await host.compare(p.baseSha, p.headSha);
    report = await reviewCommit(host, { baseSha: mergeBase, headSha: p.headSha, config: p.config, record: p.record });
  } catch (error) {
    report = {
      conclusion: "failure",
      title: "Review could not run",
      summary: `The review of ${p.headSha.slice(0, 12)} could not run, so this check fails closed: ${describeError(error)}.\n\nRe-run this check to try again.`,
      findings: [],
      rulesChecked: [],
    };
  }
  if (p.note) report = { ...report, summary: capText(`${report.summary}\n\n${p.note}`, CHECK_TEXT_LIMIT) };

  const outputs = toCheckRunOutputs(report);
  const [first, ...rest] = outputs.length ? outputs : [{ title: report.title, summary: report.summary, annotations: [] }];
  try {
    await retryOnce(
      () =>
        octokit.rest.checks.update({
          ...base,
          check_run_id: checkRunId,
          status: "completed",
          conclusion: report.conclusion,
          completed_at: new Date().toISOString(),
          output: first!,
        }),
      p.delay,
    );
  } catch (error) {
    throw new ReviewCheckError("conclude", error, report);
  }
  try {
    for (const batch of rest) {
      const output = { title: first!.title, summary: first!.summary, annotations: batch.annotations };
      await retryOnce(() => octokit.rest.checks.update({ ...base, check_run_id: checkRunId, output }), p.delay);
    }
  } catch (error) {
    throw new ReviewCheckError("annotations", error, report);
  }
  return report;
}

/**
 * The run record to review a head commit with, and a note for the summary when commits by others sit on top of the
 * app's own (`record.head_sha !== headSha`): `reviewCommit` then applies the evidence rule to the app's own diff
 * `record.base_sha..record.head_sha` only, and every other rule to the whole pull request (issue 6: "a human push to
 * the branch is reviewed like the app's own commit").
 */
export function evidenceFor(record: RunRecord | null, headSha: string): { record: RunRecord | null; note?: string } {
  if (!record || !record.head_sha || record.head_sha === headSha) return { record };
  return {
    record,
    note: `Commits pushed after groundfix's own commit ${record.head_sha.slice(0, 12)} were reviewed with every rule except evidence, which checks groundfix's own commit only.`,
  };
}
