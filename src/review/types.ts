import type { GroundfixConfig } from "../config/schema.js";
import type { FilePatch, Finding, RunRecord, Snapshot } from "../types.js";

/** The name of the check run the review publishes on a pull request's head commit. */
export const REVIEW_CHECK_NAME = "groundfix/review";

/**
 * One annotation of a check run output, as GitHub's REST API takes it (`output.annotations[]` of
 * `POST/PATCH /repos/{owner}/{repo}/check-runs`). Lines are 1-based and inclusive, on the head side of the diff.
 * GitHub limits: `title` ≤ 255 characters, `message` ≤ 64 KB; at most 50 annotations per request.
 */
export interface CheckAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: "notice" | "warning" | "failure";
  message: string;
  title?: string;
}

/**
 * What {@link reviewChange} reviews: the per-file diff from base to head plus both snapshots and the repository config.
 * `record` (the run record of the app's own pull request, trusted by the caller) enables the evidence rule: `head`
 * must be `base` with the record's edits replayed. `own` is the app's own commit (`record.base_sha` →
 * `record.head_sha`: its diff and both snapshots) when commits by others sit on top of it; the evidence rule then
 * checks that commit against the record too. `recordProblem` (no `record`) says why a pull request the app opened has
 * no record to trust; the evidence rule then fails with it.
 */
export interface ReviewInput {
  patches: FilePatch[];
  base: Snapshot;
  head: Snapshot;
  config: GroundfixConfig;
  record?: RunRecord | null;
  own?: { patches: FilePatch[]; base: Snapshot; head: Snapshot };
  recordProblem?: string;
}

/** What every rule receives; a rule is a pure function of it returning its findings. */
export interface RuleContext extends ReviewInput {
  /** Hunks of each patch, parsed once (same order as `patches`). */
  parsed: ParsedPatch[];
}

/** A patch with its hunks parsed. */
export interface ParsedPatch {
  patch: FilePatch;
  hunks: Hunk[];
  /** Set when the hunk text could not be read as unified diff hunks; the message says why. */
  error?: string;
}

/**
 * One line of a unified diff hunk. `oldLine` is set for context and removed lines (base side), `newLine` for context
 * and added lines (head side); `atNewLine` is the head line a removed line sits before (≥ 1), for annotations.
 * `text` excludes the leading marker and the line break, but keeps a trailing `\r` of CRLF files.
 * `noNewline` marks a line followed by `\ No newline at end of file`.
 */
export interface HunkLine {
  kind: "context" | "removed" | "added";
  text: string;
  oldLine?: number;
  newLine?: number;
  atNewLine: number;
  noNewline: boolean;
}

/** A hunk: its `@@ -oldStart,oldLines +newStart,newLines @@` header and its lines. */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  header: string;
  lines: HunkLine[];
}

/** The signature of a rule. */
export type Rule = (ctx: RuleContext) => Finding[];
