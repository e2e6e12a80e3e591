import { runAgent, type RunResult } from "../agent/index.js";
import type { GroundfixConfig } from "../config/schema.js";
import type { Host } from "../host/types.js";
import type { ReviewReport, Snapshot, Task } from "../types.js";
import { freshBase } from "./fresh-base.js";
import { commitMessage, runRecord } from "./record.js";
import { misplacedConfigNotes } from "../config/load.js";
import { unreadableFrameNotes } from "./unreadable.js";
import type { ReviewCheckFailure, RunInput, RunReport } from "./types.js";

/** The head label of a review that ran before its commit existed; replaced by the commit's SHA once it does. */
const UNCOMMITTED = "uncommitted";

/** The config of an approved rerun: the pull-request threshold drops to the comment threshold; nothing else changes. */
function approvedConfig(config: GroundfixConfig): GroundfixConfig {
  return { ...config, thresholds: { ...config.thresholds, pull_request: config.thresholds.comment } };
}

function modeDetail(input: RunInput): string {
  const { mode, task } = input.request;
  if (mode === "retry") return task.source === "local" ? "rerun with --force" : "rerun requested with /groundfix retry";
  if (mode === "approve")
    return "rerun approved with /groundfix approve (pull-request threshold waived, verification kept)";
  return `task from ${task.source.replace("_", " ")}`;
}

/**
 * One run, whatever the host (the App's queued job and `groundfix fix` both call this; nothing else calls the agent):
 * 1. status `starting`; pin the base ONCE (`host.resolveBase`), read the config at it (`host.readConfig`), pick the
 *    model (`input.model`: a refusal ends the run with status `refused`);
 * 2. the snapshot of the base (one archive), then the agent on it (`approve`: the pull-request threshold is lowered
 *    to the comment threshold; every gate still applies). An outcome other than `pr_ready` ends as `comment`;
 * 3. the review rules on the run's own edits, in memory (base snapshot + the edited files: no second archive). A
 *    failing review on the local host, or an edited file that does not parse on any host, ends as `review_failed`
 *    with NOTHING written; other failing rules on GitHub open the pull request with a failing `groundfix/review`
 *    check, so a person sees why;
 * 4. `host.deliver` on `<branch_prefix><branchSuffix>` with the one commit message and its `Groundfix-Run:` trailer
 *    (`retry` forces the branch): `held` ends the run, nothing written;
 * 5. `host.openPullRequest` (a branch this run created is deleted when that fails), then the check run with the
 *    report of step 3 (`host.publishReviewCheck`: on GitHub created already concluded);
 * 6. the final status (`host.postStatus`), which names what was written.
 *
 * Never throws for run trouble: an error ends as status `error` with `error` and `written` set, after the final
 * status was posted; it throws only when posting that status fails.
 */
export async function runPipeline(host: Host, input: RunInput): Promise<RunReport> {
  const { request } = input;
  const report: RunReport = { host: host.name, runId: input.runId, status: "error", request, written: {} };
  const finish = async (status: RunReport["status"]): Promise<RunReport> => {
    report.status = status;
    await host.postStatus({ kind: "done", report });
    return report;
  };
  const stage = (stage: string, detail?: string) =>
    host.postStatus({ kind: "stage", request, stage, ...(detail ? { detail } : {}) });
  try {
    await stage("starting", modeDetail(input));
    const base = await host.resolveBase(input.baseRef);
    report.base = base;
    const config = await host.readConfig(base.sha);
    report.config = config;
    const model = input.model(config);
    if ("refused" in model) {
      report.note = model.refused;
      return await finish("refused");
    }
    report.model = model.spec;
    await stage("loading the repository", `snapshot of ${base.sha.slice(0, 12)} (${base.ref})`);
    const snapshot = await host.loadSnapshot(base.sha);
    const notes = [
      ...misplacedConfigNotes(snapshot.paths),
      ...unreadableFrameNotes(`${request.task.title}\n${request.task.body}`, snapshot),
    ];
    if (notes.length > 0) report.snapshotNotes = notes;
    const task: Task = { ...request.task, baseSha: base.sha };
    report.task = task;

    await stage("investigating", `model ${model.spec}, reading code at ${base.sha.slice(0, 12)}`);
    const runConfig = request.mode === "approve" ? approvedConfig(config) : config;
    // The agent's progress messages already start with "step N:".
    const onProgress = input.onStep ? (e: { step: number; message: string }) => input.onStep!(e.message) : undefined;
    const result = await runAgent({
      task,
      snapshot,
      model,
      config: runConfig,
      approved: request.mode === "approve",
      ...(onProgress ? { onProgress } : {}),
    });
    report.result = result;
    if (result.outcome !== "pr_ready" || result.files.length === 0) {
      if (request.mode === "approve") {
        report.note =
          "approved, but the rerun has no applicable edit at or " +
          "above the comment threshold, so there is nothing to open";
      }
      return await finish("comment");
    }

    return await finish(await deliverEdits(host, report, { task, result, snapshot, config, base }));
  } catch (error) {
    report.error = error;
    return await finish("error");
  }
}

/**
 * What {@link deliverEdits} works from: the pinned base, its snapshot and config, the task and its `pr_ready` result.
 */
export interface EditsToDeliver {
  task: Task;
  result: RunResult;
  snapshot: Snapshot;
  config: GroundfixConfig;
  base: { sha: string; ref: string };
}

/**
 * Steps 3 to 5 of {@link runPipeline} for a `pr_ready` result: review the edits in memory, read the base branch's
 * head again ({@link freshBase}: one host call, plus one read per edited file when it moved), deliver them on the
 * run's branch, open the pull request and publish the review check. Fills `report` (branch, message, record,
 * review, `baseMoved`, delivery, pull request, what was written) and returns the run's status.
 * @throws what the host throws while delivering or opening the pull request. When opening it fails, a branch this
 *   call created is deleted first (`host.deleteBranch`, which refuses the head of an open pull request); either way
 *   `report.written` keeps what was pushed and `written.cleanup` what became of it.
 */
export async function deliverEdits(host: Host, report: RunReport, edits: EditsToDeliver): Promise<RunReport["status"]> {
  let { task, result, snapshot, base } = edits;
  const { config } = edits;
  // The review rules (and the parsers they load) are loaded only for a run that has edits to review.
  const [{ reviewFiles, snapshotWithFiles }, { short }] = await Promise.all([
    import("../review/commit.js"),
    import("../review/rules/grounded.js"),
  ]);
  const { request, runId } = report;
  const branch = `${config.pull_request.branch_prefix}${request.branchSuffix}`;
  report.branch = branch;
  const stoppedByReview = async (): Promise<boolean> => {
    report.message = commitMessage(task, result, config, runId, (path) => snapshot.read(path));
    report.record = runRecord(runId, base.sha, result.edits);
    report.review = await reviewFiles({
      base: snapshot,
      files: result.files,
      headLabel: UNCOMMITTED,
      config,
      record: report.record,
    }).catch((error: unknown) => failedReview(error));
    // An edit that does not parse never reaches a branch, on either host; other failing rules stop a local run only
    // (on GitHub the pull request is opened and its failing check says why).
    const unparsable = report.review.findings.some((f) => f.rule === "syntax" && f.level === "failure");
    return report.review.conclusion === "failure" && (host.name === "local" || unparsable);
  };
  if (await stoppedByReview()) return "review_failed";

  // A fresh base: the base branch may have moved while the agent ran. The edits are applied again on its new head
  // (the same verbatim rule), and the commit, the review and the pull request are then based on that head.
  const fresh = await freshBase(host, { base, edits: result.edits, files: result.files }, config);
  if (fresh.kind !== "unmoved") {
    report.baseMoved = fresh;
    if (fresh.kind !== "moved") return fresh.kind;
    base = { sha: fresh.to, ref: base.ref };
    task = { ...task, baseSha: fresh.to };
    result = { ...result, edits: fresh.edits, files: fresh.files };
    snapshot = snapshotWithFiles(snapshot, fresh.baseFiles, fresh.to);
    Object.assign(report, { base, task, result });
    if (await stoppedByReview()) return "review_failed";
  }
  let review = report.review!;
  const message = report.message!;

  await host.postStatus({
    kind: "stage",
    request,
    stage: "delivering",
    detail:
      `committing ${result.files.length} file(s) on ` +
      `${branch}` +
      `${report.baseMoved ? ` (the base moved to ${short(base.sha)}; the edits were applied again there)` : ""}`,
  });
  const delivery = await host.deliver({
    baseSha: base.sha,
    branch,
    message,
    files: result.files,
    force: request.mode === "retry",
  });
  report.delivery = delivery;
  if (delivery.kind === "held") return "held";
  report.branch = delivery.branch; // another name when a retry's branch holds commits groundfix did not make
  if (delivery.kind !== "reused") report.written.pushed = { branch: delivery.branch, headSha: delivery.headSha };
  report.record = runRecord(runId, base.sha, result.edits, delivery.headSha);
  review = { ...review, summary: review.summary.replace(`\`${UNCOMMITTED}\``, `\`${short(delivery.headSha)}\``) };
  report.review = review;

  let pr;
  try {
    pr = await host.openPullRequest({
      branch: delivery.branch,
      baseRef: base.ref,
      delivery,
      title: message.split("\n")[0]!,
      task,
      result,
      record: report.record,
      config,
      ...(report.baseMoved?.kind === "moved" ? { baseMoved: report.baseMoved } : {}),
    });
  } catch (error) {
    // A branch this run created and no pull request: undo it. The host refuses to delete the head of an open pull
    // request (GitHub may have created one it answered 5xx for); what happened is kept for the status.
    if (delivery.kind === "created") {
      try {
        await host.deleteBranch(delivery.branch);
        report.written.cleanup = { branch: delivery.branch, deleted: true };
      } catch (cleanup) {
        const why = (cleanup instanceof Error ? cleanup.message : String(cleanup)).split("\n")[0]!;
        report.written.cleanup = { branch: delivery.branch, deleted: false, error: why };
      }
    }
    throw error;
  }
  report.pullRequest = pr;
  report.written.pullRequest = { number: pr.number, url: pr.url };
  const failure = await publishReview(host, pr, runId, review);
  if (failure) report.reviewCheck = failure;
  return "pull_request";
}

/** A review that could not run fails closed: a safety check that could not run must not pass. */
function failedReview(error: unknown): ReviewReport {
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0];
  return {
    conclusion: "failure",
    title: "Review could not run",
    summary: `The review could not run, so this check fails closed: ${message}.\n\nRe-run this check to try again.`,
    findings: [],
    rulesChecked: [],
  };
}

/** Publish the review check run; a write the host could not make is returned, never thrown. */
async function publishReview(
  host: Host,
  pr: NonNullable<RunReport["pullRequest"]>,
  runId: string,
  review: ReviewReport,
): Promise<ReviewCheckFailure | undefined> {
  try {
    await host.publishReviewCheck(pr, runId, review);
    return undefined;
  } catch (error) {
    return checkFailure("create", error);
  }
}

function checkFailure(stage: ReviewCheckFailure["stage"], error: unknown): ReviewCheckFailure {
  const known = error as { stage?: ReviewCheckFailure["stage"]; message?: string; warningError?: string };
  return {
    stage: known.stage ?? stage,
    message: known.message ?? String(error),
    ...(known.warningError ? { warningError: known.warningError } : {}),
  };
}
