import { randomUUID } from "node:crypto";
import { basename, resolve } from "node:path";
import { runAgent, type RunResult } from "../agent/index.js";
import { createModel } from "../agent/models/index.js";
import { createLocalHost } from "../host/local/index.js";
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
  /** Move an existing `groundfix/<slug>` branch to the new commit instead of reusing it. */
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
  /** Set when the outcome was `pr_ready`: the branch holding the commit, its head, whether it already existed. */
  delivery: { branch: string; headSha: string; reused: boolean } | null;
  /** The review rules on base..branch head (only with a delivery). */
  review: ReviewReport | null;
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
  let review: ReviewReport | null = null;
  if (result.outcome === "pr_ready" && result.files.length > 0) {
    const branch = `${config.pull_request.branch_prefix}${slug}`;
    progress(`commit on ${branch}`);
    delivery = await host.commitFiles({
      baseSha: base.sha,
      branch,
      message: commitMessage(task, result),
      files: result.files,
      force: options.force,
    });
    progress("review rules on the new commit");
    review = await reviewCommit(host, {
      baseSha: base.sha,
      headSha: delivery.headSha,
      config,
      record: recordFromResult(result, base.sha, delivery.headSha),
    });
  }
  return { task, baseSha: base.sha, ref, model: model.spec, result, delivery, review };
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
