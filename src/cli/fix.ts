import { randomUUID } from "node:crypto";
import { existsSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { RunResult } from "../agent/index.js";
import { createModel, ModelSpecError } from "../agent/models/index.js";
import { CONFIG_PATH } from "../config/load.js";
import { problemCutNote } from "../agent/prompt.js";
import { createLocalHost, type LocalHost } from "../host/local/index.js";
import { gitText } from "../host/local/git.js";
import type { BranchCommit } from "../host/types.js";
import { commentOnlyNote } from "../pipeline/describe.js";
import { runPipeline } from "../pipeline/run.js";
import type { RunReport } from "../pipeline/types.js";
import type { ReviewReport, Task } from "../types.js";
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
  /**
   * Run as a maintainer's approval (the App's `/groundfix approve`): the pull-request threshold drops to the comment
   * threshold for this run; every gate and the review still apply. Default false.
   */
  approve?: boolean;
  env?: NodeJS.ProcessEnv;
  onProgress?: (message: string) => void;
  /**
   * The local host of `repoDir` to run on, when the caller made one already (the CLI checks the ref and starts
   * loading the snapshot with it before this module loads): what it resolved is not asked of git again. Default: a
   * new host reporting to `onProgress`.
   */
  host?: LocalHost;
}

/** The whole local run: the task, the pinned base, the agent's result, and the delivery (branch + review) if any. */
export interface FixReport {
  task: Task;
  baseSha: string;
  ref: string;
  model: string;
  /**
   * The outcome, or `review_failed` when the review rules failed the edits, or `held` when the outcome was
   * `pr_ready` but the branch exists with other content and was left untouched, or `outdated` / `already_fixed`
   * when the base branch moved during the run and an edit no longer applies on its new head / the new head already
   * holds the fix (no branch written in any of these cases; `deliveryNote` says why).
   */
  status: RunResult["outcome"] | "review_failed" | "held" | "outdated" | "already_fixed";
  /**
   * Set when the base branch moved during the run: `from` the investigated commit, `to` its new head. With a
   * delivery the edits were applied again on `to`, which is `baseSha` and the commit's parent.
   */
  baseMoved: { from: string; to: string } | null;
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
  /** The existing branch left untouched when `status` is `held` (name and head), else null. */
  held: { branch: string; headSha: string } | null;
  /** The review rules on the edits, whenever they ran (a `pr_ready` outcome: delivered, held or failed). */
  review: ReviewReport | null;
  /**
   * Set when every edit of a run that commits nothing is a comment: no edit is proposed for merging, and why
   * (`commentOnlyNote`, pipeline/describe.ts); the report then shows the comment as a note, not as a fix. Else null.
   */
  noFix: string | null;
  /** One-line notes for the user (config `model:` not used by the CLI, what a replay is). */
  notes: string[];
  /** One-line warnings (commits dropped from a branch by `--force`). */
  warnings: string[];
}

/**
 * Run the pipeline on a local checkout (`pipeline/run.ts` with the local host): resolve the ref, snapshot it
 * (`git archive`), read `.github/groundfix.yml` at it, run the agent, review the edits in memory, and only when the
 * outcome is `pr_ready` and the review passes commit the edited files on `<branch_prefix><slug>` (git plumbing; the
 * working tree, index and current branch are untouched). A failing review is `status: "review_failed"`: no branch.
 *
 * An existing branch is reused only when it already holds exactly this commit (only parent = base, same tree), and
 * moved forward when it holds nothing beyond the base. When it holds anything else (another base, other edits,
 * someone's commits) nothing is written, `status` is `held`, `delivery` is null and `deliveryNote` says why; with
 * `force` the branch is replaced, and when the commits it drops were not groundfix's, `warnings` names them (they stay
 * in the branch's reflog).
 *
 * @throws LocalInputError (not a repository, unknown ref), ModelSpecError (unknown model spec), ConfigError
 *   (invalid .github/groundfix.yml) — all bad input; anything else is an internal error.
 */
export async function runFix(options: FixOptions): Promise<FixReport> {
  const env = options.env ?? process.env;
  const progress = options.onProgress ?? (() => {});
  const modelSpec = options.model ?? (env.GROUNDFIX_MODEL?.trim() || DEFAULT_MODEL);
  const model = createNamedModel(modelSpec, options.model !== undefined ? "--model" : "GROUNDFIX_MODEL", env);
  const host = options.host ?? createLocalHost(options.repoDir, { onProgress: progress });
  const ref = options.ref ?? "HEAD";
  // The working tree's state is read while the run works (git status walks every tracked file).
  const status = ref === "HEAD" ? gitText(options.repoDir, ["status", "--porcelain", "-z"]).catch(() => "") : null;
  const slug = slugFor(options.title, `${options.title}\n${options.body}`);
  const repo = { owner: "local", name: basename(resolve(options.repoDir)) };
  const run = await runPipeline(host, {
    request: {
      task: { source: "local", key: `local:${slug}`, title: options.title, body: options.body, repo },
      mode: options.approve ? "approve" : options.force ? "retry" : "run",
      statusIssue: null,
      branchSuffix: slug,
    },
    baseRef: ref,
    runId: `local-${randomUUID()}`,
    model: () => model,
    onStep: progress,
  });
  if (run.status === "error") throw run.error;
  const report = fixReportOf(run, modelSpec);
  if (status !== null) {
    const sha = run.base!.sha;
    const committed = () =>
      gitText(options.repoDir, ["cat-file", "-e", `${sha}:${CONFIG_PATH}`]).then(
        () => true,
        () => false,
      );
    report.notes.push(
      ...(await uncommittedNotes(await status, sha, committed, (p) => existsSync(join(options.repoDir, p)))),
    );
  }
  return report;
}

/**
 * The notes about uncommitted changes in the working tree when the run read `HEAD` ({@link uncommittedNote}), with a
 * note of its own for {@link CONFIG_PATH}: the config that ran is the committed one (or the defaults), never the
 * working tree's. `status` is `git status --porcelain -z`; `committedConfig` tells whether the commit `sha` holds
 * the config (asked only when it has uncommitted changes); `exists` whether a working-tree path exists (for a config
 * inside an untracked folder, which git status shows as the folder).
 */
export async function uncommittedNotes(
  status: string,
  sha: string,
  committedConfig: () => Promise<boolean>,
  exists: (path: string) => boolean,
): Promise<string[]> {
  const entries = status.split("\0");
  const isEntry = (entry: string) => /^(?:[ MADRCU?]{2}) /.test(entry);
  const config = entries.find(
    (e) =>
      isEntry(e) &&
      (e.slice(3) === CONFIG_PATH ||
        (e.startsWith("?? ") && e.endsWith("/") && CONFIG_PATH.startsWith(e.slice(3)) && exists(CONFIG_PATH))),
  );
  const others = entries.filter((e) => isEntry(e) && e !== config).length;
  const notes: string[] = [];
  if (config) {
    const short = sha.slice(0, 12);
    const used = (await committedConfig())
      ? `this run used ${CONFIG_PATH} as committed at ${short}`
      : `there is none at ${short}, so this run used the defaults`;
    const what = config.startsWith("?? ") || config.startsWith("A") ? "is not committed" : "has uncommitted changes";
    notes.push(`${CONFIG_PATH} ${what}; ${used} (commit it to have groundfix read it)`);
  }
  const dirty = uncommittedNote(others, sha);
  if (dirty) notes.push(dirty);
  return notes;
}

/**
 * A note when the run read `HEAD` while the working tree holds `count` changes that are not committed (tracked files
 * changed, or files not yet added: entries of `git status --porcelain -z`, none for a bare repository): the snapshot
 * is the commit `sha`, so those changes were not seen. Null when there are none.
 */
function uncommittedNote(count: number, sha: string): string | null {
  if (count === 0) return null;
  return (
    `the working tree has ${count} uncommitted change(s); this run read the commit ${sha.slice(0, 12)} (HEAD) ` +
    `only: commit them to include them`
  );
}

/** The CLI's view of a local run (what `fix --json` and the readable report show). */
function fixReportOf(run: RunReport, requested: string): FixReport {
  const { delivery } = run;
  const result = run.result!;
  const notes = runNotes(run.config?.model, requested, run.model!);
  if (result.gates.input_cut) notes.push(problemCutNote(result.gates.input_cut));
  notes.push(...(run.snapshotNotes ?? []));
  const warnings: string[] = [];
  let deliveryNote: string | null = null;
  let delivered: FixReport["delivery"] = null;
  const moved = run.baseMoved;
  if (moved) {
    const head =
      `the base ${moved.ref} moved from ${moved.from.slice(0, 12)} ` + `to ${moved.to.slice(0, 12)} during the run`;
    if (moved.kind === "moved")
      notes.push(`${head}; every edit was applied again there (code_before found once) and the commit is based on it`);
    else if (moved.kind === "already_fixed")
      deliveryNote =
        `${head} and ${moved.to.slice(0, 12)} already holds this fix ` +
        `(${moved.present.map((p) => `${p.path}:${p.startLine}-${p.endLine}`).join(", ")}); nothing written`;
    else
      deliveryNote =
        `${head} and edit ${moved.edit} to ${moved.path} no longer applies there: ` +
        `${moved.why}; nothing written; run again to investigate the new head`;
  }
  if (delivery?.kind === "held" && delivery.why === "checked_out") {
    deliveryNote =
      `branch ${delivery.branch} is checked out in ${delivery.worktree ?? "a working tree"}; left untouched ` +
      `(moving it would leave that checkout's files and index behind); switch it to another branch and run again`;
  } else if (delivery?.kind === "held") {
    const where = {
      other_commits: "with other commits",
      other_edits: "with other edits on this base",
      other_base: "on another base",
    }[delivery.why as "other_commits" | "other_edits" | "other_base"];
    const base = delivery.why === "other_base" ? ` (${delivery.headParent?.slice(0, 12) ?? "none"})` : "";
    deliveryNote =
      `branch ${delivery.branch} already exists at ${delivery.headSha.slice(0, 12)} ` +
      `${where}${base}; left untouched; rerun with --force to replace it`;
  } else if (delivery) {
    delivered = {
      branch: delivery.branch,
      headSha: delivery.headSha,
      reused: delivery.kind === "reused",
      replaced: delivery.kind === "replaced",
    };
    if (delivery.kind === "replaced") {
      deliveryNote = `replaced branch ${delivery.branch} (was ${delivery.previousSha.slice(0, 12)})`;
      if (delivery.commits.some((c) => !c.ours))
        warnings.push(droppedWarning(delivery.branch, delivery.commits, delivery.count));
    }
  }
  return {
    task: run.task!,
    baseSha: run.base!.sha,
    ref: run.base!.ref,
    model: run.model!,
    status:
      run.status === "review_failed" ||
      run.status === "held" ||
      run.status === "outdated" ||
      run.status === "already_fixed"
        ? run.status
        : result.outcome,
    baseMoved: moved ? { from: moved.from, to: moved.to } : null,
    result,
    delivery: delivered,
    deliveryNote,
    held: delivery?.kind === "held" ? { branch: delivery.branch, headSha: delivery.headSha } : null,
    review: run.review ?? null,
    noFix: commentOnlyNote(result),
    notes,
    warnings,
  };
}

/**
 * {@link createModel} for the spec the user gave through `source` (`--model` or `GROUNDFIX_MODEL`): its
 * ModelSpecError names that source first (`GROUNDFIX_MODEL: unknown model spec "gpt4"; …`), as serve does, so a
 * user who never passed --model sees where the spec came from; a bad value of another variable the spec reads is
 * that variable's line (`GROUNDFIX_RUN_TIMEOUT_MS="abc" is not an integer … (read for GROUNDFIX_MODEL
 * openai:gpt-4o); correct or unset GROUNDFIX_RUN_TIMEOUT_MS`). The default spec (heuristic) cannot fail.
 * @throws ModelSpecError
 */
function createNamedModel(spec: string, source: "--model" | "GROUNDFIX_MODEL", env: NodeJS.ProcessEnv) {
  try {
    return createModel(spec, { env });
  } catch (error) {
    if (!(error instanceof ModelSpecError)) throw error;
    // A bad value of another variable (GROUNDFIX_RUN_TIMEOUT_MS="abc") is that variable's line, with the model it
    // was read for: under a "GROUNDFIX_MODEL:" prefix it read as a problem of the model spec.
    const other = /^([A-Z][A-Z0-9_]*)="/.exec(error.message)?.[1];
    if (other !== undefined && other !== source)
      throw new ModelSpecError(`${error.message} (read for ${source} ${spec}); correct or unset ${other}`);
    throw new ModelSpecError(`${source}: ${error.message}`);
  }
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
      `.github/groundfix.yml sets model: ${configModel}, which the CLI does not ` +
        `use; this run used ${used} (choose the model with --model or GROUNDFIX_MODEL)`,
    );
  }
  if (requested.trim().startsWith("replay:")) {
    notes.push(
      "a replay reproduces a recorded run: use it with the same repository, base commit and issue it was recorded on",
    );
  }
  return notes;
}

/**
 * The warning for `--force` over commits not made by groundfix: which commits the branch no longer holds, those not
 * made by groundfix first (with their author) and then groundfix's own (`BranchCommit.ours`), each as its short SHA
 * and subject (JSON-quoted: the subject is untrusted text); commits beyond the `dropped.length` named are counted.
 */
export function droppedWarning(branch: string, dropped: readonly BranchCommit[], count: number): string {
  const commit = (c: BranchCommit) => `${c.sha.slice(0, 12)} ${JSON.stringify(c.subject)}`;
  const theirs = dropped.filter((c) => !c.ours).map((c) => `${commit(c)} by ${JSON.stringify(c.author)}`);
  const ours = dropped.filter((c) => c.ours);
  const plural = (n: number) => `${n} commit${n === 1 ? "" : "s"}`;
  const parts = [
    `${theirs.length} not made by groundfix: ${theirs.join(", ")}`,
    ...(ours.length ? [`${ours.length} of groundfix's own: ${ours.map(commit).join(", ")}`] : []),
    ...(count > dropped.length ? [`${count - dropped.length} more, not looked at`] : []),
  ];
  return (
    `--force replaced ${branch}, which held commits not made by groundfix; it no longer holds ${plural(count)} ` +
    `(${parts.join("; ")}); they stay in the reflog (git reflog ${branch})`
  );
}
