import { randomUUID } from "node:crypto";
import { basename, resolve } from "node:path";
import { runAgent, type RunResult } from "../agent/index.js";
import { createModel } from "../agent/models/index.js";
import { createLocalHost, type CommitSummary } from "../host/local/index.js";
import { reviewCommit } from "../review/index.js";
import type { AppliedEdit, ReviewReport, RunRecord, Task } from "../types.js";
import { configFromSnapshot } from "./config.js";
import { slugFor } from "./slug.js";

/** The model used when neither `--model` nor `GROUNDFIX_MODEL` names one. */
export const DEFAULT_MODEL = "heuristic";

/** What `groundfix fix` (and the demo) asks for. Problem text is untrusted data. */
export interface FixOptions {
  repoDir: string;
  /** Revision to pin (default HEAD). */
  ref?: string;
  title: string;
  body: string;
  /** Model spec (see createModel); default {@link DEFAULT_MODEL}. */
  model?: string;
  /** Move an existing `groundfix/<slug>` branch that holds something else to the new commit (see {@link runFix}). */
  force?: boolean;
  env?: NodeJS.ProcessEnv;
  onProgress?: (message: string) => void;
}

/** The whole local run: the task, the pinned base, the agent's result, and the delivery (branch + review) if any. */
export interface FixReport {
  task: Task;
  baseSha: string;
  ref: string;
  model: string;
  result: RunResult;
  /**
   * Set when the outcome was `pr_ready` and the branch now holds this run's commit: its head, whether the branch
   * already held exactly that commit (`reused`), whether `--force` moved it off other commits (`replaced`).
   * Null when nothing was delivered, including when the branch exists with other content (see `deliveryNote`).
   */
  delivery: { branch: string; headSha: string; reused: boolean; replaced: boolean } | null;
  /**
   * One line about the branch when it was not the plain case: `branch X already exists at SHA …; rerun with
   * --force to replace it` (nothing written), or `replaced branch X (was SHA)` with `--force`; else null.
   */
  deliveryNote: string | null;
  /** The review rules on base..branch head (only with a delivery). */
  review: ReviewReport | null;
  /** One-line notes for the user (config `model:` not used by the CLI, what a replay is). */
  notes: string[];
  /** One-line warnings (commits dropped from a branch by `--force`). */
  warnings: string[];
}

/** The lines of an edit's `code_before` in the base file (falling back to the lines in the edited content). */
export function editBaseLines(e: AppliedEdit): { start_line: number; end_line: number } {
  return { start_line: e.baseStartLine ?? e.startLine, end_line: e.baseEndLine ?? e.endLine };
}

/** The record of the edits this run applied, for the review's evidence rule (lines are those of the base file). */
export function recordFromResult(result: RunResult, baseSha: string, headSha: string): RunRecord {
  return {
    version: 1,
    run_id: `local-${randomUUID()}`,
    base_sha: baseSha,
    head_sha: headSha,
    edits: result.edits.map((e) => ({ path: e.path, ...editBaseLines(e), code_before: e.code_before, code_after: e.code_after })),
  };
}

/**
 * Run the pipeline on a local checkout: resolve the ref, snapshot it (`git archive`), run the agent, and when the
 * outcome is `pr_ready` commit the edited files on `<branch_prefix><slug>` (git plumbing; the working tree, index
 * and current branch are untouched) and run the review rules on base..head.
 *
 * An existing branch is reused only when it already holds exactly this commit (only parent = base, same tree).
 * When it holds anything else (another base, other edits, someone's commits) nothing is written, `delivery` and
 * `review` are null and `deliveryNote` says why; with `force` the branch is replaced, and when the commits it
 * drops were not one groundfix commit on a base, `warnings` names them (they stay in the branch's reflog).
 *
 * @throws LocalInputError (not a repository, unknown ref), ModelSpecError (unknown model spec), ConfigError
 *   (invalid .github/groundfix.yml) — all bad input; anything else is an internal error.
 */
export async function runFix(options: FixOptions): Promise<FixReport> {
  const env = options.env ?? process.env;
  const progress = options.onProgress ?? (() => {});
  const modelSpec = options.model ?? (env.GROUNDFIX_MODEL?.trim() || DEFAULT_MODEL);
  const model = createModel(modelSpec, { env });
  const host = createLocalHost(options.repoDir);
  const ref = options.ref ?? "HEAD";
  const base = await host.resolveBase(ref);
  progress(`snapshot of ${base.sha.slice(0, 12)} (${ref})`);
  const snapshot = await host.loadSnapshot(base.sha);
  const config = configFromSnapshot(snapshot);
  const notes = runNotes(config.model, modelSpec, model.spec);

  const slug = slugFor(options.title, `${options.title}\n${options.body}`);
  const task: Task = {
    source: "local",
    key: `local:${slug}`,
    title: options.title,
    body: options.body,
    repo: { owner: "local", name: basename(resolve(options.repoDir)) },
    baseSha: base.sha,
  };
  progress(`agent with model ${model.spec}`);
  const result = await runAgent({
    task,
    snapshot,
    model,
    config,
    onProgress: (e) => progress(`step ${e.step}: ${e.message}`),
  });

  let delivery: FixReport["delivery"] = null;
  let deliveryNote: string | null = null;
  let review: ReviewReport | null = null;
  const warnings: string[] = [];
  if (result.outcome === "pr_ready" && result.files.length > 0) {
    const branch = `${config.pull_request.branch_prefix}${slug}`;
    progress(`commit on ${branch}`);
    const outcome = await host.deliver({
      baseSha: base.sha,
      branch,
      message: commitMessage(task, result),
      files: result.files,
      force: options.force,
    });
    if (outcome.kind === "exists") {
      return { task, baseSha: base.sha, ref, model: model.spec, result, delivery, deliveryNote: outcome.note, review, notes, warnings };
    }
    delivery = { branch, headSha: outcome.headSha, reused: outcome.kind === "reused", replaced: outcome.kind === "replaced" };
    if (outcome.kind === "replaced") {
      deliveryNote = `replaced branch ${branch} (was ${outcome.previousSha.slice(0, 12)})`;
      if (outcome.foreign && outcome.droppedCount > 0) warnings.push(droppedWarning(branch, outcome.dropped, outcome.droppedCount));
    }
    progress("review rules on the commit");
    review = await reviewCommit(host, {
      baseSha: base.sha,
      headSha: delivery.headSha,
      config,
      record: recordFromResult(result, base.sha, delivery.headSha),
    });
  }
  return { task, baseSha: base.sha, ref, model: model.spec, result, delivery, deliveryNote, review, notes, warnings };
}

/**
 * The notes of a run: the repository config's `model:` key differs from the model used (the CLI takes the model
 * from `--model` / `GROUNDFIX_MODEL` only; the key is for the GitHub App, when the operator allows it), and a
 * replay reproduces a recorded run (it is meaningful only on the repository, base and issue it was recorded on).
 */
export function runNotes(configModel: string | undefined, requested: string, used: string): string[] {
  const notes: string[] = [];
  if (configModel !== undefined && configModel.trim() !== requested.trim() && configModel.trim() !== used) {
    notes.push(
      `.github/groundfix.yml sets model: ${configModel}, which the CLI does not use; this run used ${used} (choose the model with --model or GROUNDFIX_MODEL)`,
    );
  }
  if (requested.trim().startsWith("replay:")) {
    notes.push("a replay reproduces a recorded run: use it with the same repository, base commit and issue it was recorded on");
  }
  return notes;
}

/** The warning for `--force` over commits not made by groundfix: which commits the branch no longer holds. */
function droppedWarning(branch: string, dropped: readonly CommitSummary[], count: number): string {
  const named = dropped.map((c) => `${c.sha} ${JSON.stringify(c.subject)}`).join(", ");
  const more = count > dropped.length ? ` and ${count - dropped.length} more` : "";
  return `--force replaced ${branch}, which held commits not made by groundfix; it no longer holds ${count} commit${count === 1 ? "" : "s"}: ${named}${more}; they stay in the reflog (git reflog ${branch})`;
}

/** `groundfix: <title>` (≤72 chars) and a body naming the diagnosis and the edited files. */
function commitMessage(task: Task, result: RunResult): string {
  const subject = `groundfix: ${task.title}`.replace(/\s+/g, " ");
  const head = subject.length > 72 ? `${subject.slice(0, 71)}…` : subject;
  const lines = [head, ""];
  if (result.diagnosis) lines.push(result.diagnosis.summary.trim(), "");
  for (const e of result.edits) lines.push(`- ${e.kind} in ${e.path} (lines ${editBaseLines(e).start_line}-${editBaseLines(e).end_line})`);
  lines.push("", `Task: ${task.key}`, `Base: ${task.baseSha}`);
  return lines.join("\n");
}
