import type { Model, RunResult } from "../agent/index.js";
import type { GroundfixConfig } from "../config/schema.js";
import type { RunRequest } from "../events/types.js";
import type { Delivery, PullRequestRef } from "../host/types.js";
import type { FreshBase } from "./fresh-base.js";
import type { ReviewReport, RunRecord, Task } from "../types.js";

/** What one run of the pipeline is asked to do. */
export interface RunInput {
  /** The task before its base is pinned, the mode (`retry` forces the branch) and the branch suffix. */
  request: RunRequest;
  /** The ref to pin (default: the host's default branch / HEAD). */
  baseRef?: string;
  /** Id of this run: the `Groundfix-Run:` trailer, the run record and the check run's `external_id`. */
  runId: string;
  /** The model for the run's config, or why it is refused (the operator did not allow the config's `model:`). */
  model(config: GroundfixConfig): Model | { refused: string };
  /** Each agent step, for a progress line. */
  onStep?: (message: string) => void;
}

/**
 * How a run ended: `pull_request` (delivered; locally the branch stands for it), `review_failed` (the review rules
 * failed the edits, locally nothing is written), `held` (the branch holds something else; nothing written),
 * `outdated` (the base branch moved during the run and an edit no longer applies on its new head; nothing written),
 * `already_fixed` (the base branch moved and its new head already holds every edit; nothing written), `comment` (no
 * edit to deliver: the outcome was not `pr_ready`), `refused` (model not allowed), `error`.
 */
export type RunStatusName =
  "pull_request" | "review_failed" | "held" | "outdated" | "already_fixed" | "comment" | "refused" | "error";

/** What a failed run had already written (a pushed branch, an opened pull request), for its failure status. */
export interface Written {
  pushed?: { branch: string; headSha: string };
  pullRequest?: { number: number; url: string | null };
  /**
   * The undoing of a branch this run created when its pull request could not be opened: `deleted`, or why not
   * (`error`, one line; e.g. a pull request is open from it, or that could not be checked).
   */
  cleanup?: { branch: string; deleted: boolean; error?: string };
}

/**
 * A review check run that could not be written: `create` (there is none on the head) or `annotations` (created
 * concluded, but a later batch of annotations was refused), and why (one line).
 */
export interface ReviewCheckFailure {
  stage: "create" | "annotations";
  message: string;
  /** What the host could not do to warn about the missing check (GitHub: draft conversion, body warning). */
  warningError?: string;
}

/** Everything one run produced, the same shape for every host (`host` is the only field that names it). */
export interface RunReport {
  host: "github" | "local";
  runId: string;
  status: RunStatusName;
  request: RunRequest;
  /**
   * The task with its base (undefined when the run stopped before the base was resolved): the commit the delivery
   * is based on, which is the new head when the base moved (`baseMoved`).
   */
  task?: Task;
  base?: { sha: string; ref: string };
  /**
   * Set when the base branch had moved off the investigated commit before committing (`pipeline/fresh-base.ts`):
   * `from` → `to`, and whether the edits were applied again there (`moved`), are already there (`already_fixed`)
   * or no longer apply (`outdated`). `result` then holds the edits as applied on `to`.
   */
  baseMoved?: Exclude<FreshBase, { kind: "unmoved" }>;
  config?: GroundfixConfig;
  /** The model spec that ran. */
  model?: string;
  result?: RunResult;
  /** The branch the edits go to: `<branch_prefix><branchSuffix>`. */
  branch?: string;
  /** The commit message of the run's commit (also when the review stopped it before the commit was written). */
  message?: string;
  /** The record of the run's edits (lines of the base file), with `head_sha` once the commit exists. */
  record?: RunRecord;
  delivery?: Delivery;
  pullRequest?: PullRequestRef;
  review?: ReviewReport;
  reviewCheck?: ReviewCheckFailure;
  /**
   * What the reader must know about the snapshot, one line each: config files at names groundfix does not read
   * (`misplacedConfigNotes`, config/load.ts), and files the problem's stack trace names that cannot be read, binary
   * or Git LFS pointers (`unreadableFrameNotes`, pipeline/unreadable.ts).
   */
  snapshotNotes?: string[];
  /** Why nothing was delivered or what the reader must know (model refusal, approve without an edit). */
  note?: string;
  /** The error of an `error` run, and what it had already written. */
  error?: unknown;
  written: Written;
}

/**
 * What {@link Host.postStatus} shows: a stage still going, the end of a run (its report), or a failure with what was
 * already written. `refused` and `error` runs are final too.
 */
export type RunStatus =
  { kind: "stage"; request: RunRequest; stage: string; detail?: string } | { kind: "done"; report: RunReport };
