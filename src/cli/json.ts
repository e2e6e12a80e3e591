import type { ReviewReport } from "../types.js";
import { BOM, isAllCrlf } from "../grounding/lines.js";
import { plainDiff, withBom, withCrlfLines } from "../grounding/unified-diff.js";
import { editBaseLines } from "../pipeline/record.js";
import type { FixReport } from "./fix.js";

/**
 * The one JSON document `groundfix fix --json` prints. `status` is the outcome, `review_failed` (the review rules
 * failed the edits) or `held` (a `pr_ready` run whose branch exists with other content); `branch`/`head_sha`
 * name the branch holding this run's commit, null unless the outcome was `pr_ready` and the commit is on the
 * branch (`branch_reused`: the branch already held exactly this commit). `delivery` is one line when the branch
 * was not the plain case (it exists with other content and was left untouched — then `status` is `held` and
 * `branch`, `head_sha` are null, `held_branch` names the branch and `reason` repeats the line — or `--force` replaced
 * it; or, with `status` `outdated` / `already_fixed`, why nothing was written after the base branch moved), else
 * null. `base_moved` is `{from, to}` when the base branch moved during the run (`base_sha` is then `to`, where the
 * edits were applied again), else null. `review` is set whenever the review ran. `notes`/`warnings` are one-line
 * messages also printed on stderr. `edits[].diff` is a plain unified diff (`--- a/PATH`, `+++ b/PATH`, hunks) with the
 * file's real line endings (CRLF files too): `git apply` takes it on the base commit. `reason` is
 * the agent's one-line reason for a non-`pr_ready` outcome (or null). Lines are 1-based,
 * inclusive, in the base commit.
 */
export interface FixJson {
  status: FixReport["status"];
  reason: string | null;
  base_sha: string;
  base_moved: { from: string; to: string } | null;
  branch: string | null;
  head_sha: string | null;
  branch_reused: boolean;
  delivery: string | null;
  held_branch: string | null;
  model: string;
  diagnosis: {
    summary: string;
    affected_file: string | null;
    affected_function: string | null;
    root_cause_snippet: string | null;
    confidence: number;
    citations: { path: string; start_line: number; end_line: number }[];
  } | null;
  edits: { path: string; start_line: number; end_line: number; kind: "addition" | "modification"; diff: string }[];
  review: ReviewJson | null;
  /** Why no edit is proposed for merging when every edit of an uncommitted run is a comment, else null. */
  no_fix: string | null;
  gates: { rejections: { gate: string; message: string }[]; observations_stripped: number };
  /** `estimated`: the tokens are characters / 4, the model reported no usage. */
  usage: { model_calls: number; tool_calls: number; input_tokens: number; output_tokens: number; estimated: boolean };
  notes: string[];
  warnings: string[];
}

/** The review part of the JSON documents (`fix --json`, `review --json`). */
export interface ReviewJson {
  conclusion: "success" | "failure";
  findings: { rule: string; path: string; start_line: number; end_line: number; level: string; message: string }[];
}

/** {@link ReviewJson} of a review report. */
export function reviewToJson(review: ReviewReport): ReviewJson {
  return {
    conclusion: review.conclusion,
    findings: review.findings.map((f) => ({
      rule: f.rule,
      path: f.path,
      start_line: f.start_line,
      end_line: f.end_line,
      level: f.level,
      message: f.message,
    })),
  };
}

/**
 * An edit's diff for `--json`: {@link plainDiff}, with its file's real bytes (a byte-order mark back on line 1, a
 * CRLF file's lines with their "\r"), so `git apply` takes it on the base commit.
 */
function jsonDiff(diff: string, path: string, files: readonly { path: string; content: string }[]): string {
  const file = files.find((f) => f.path === path);
  const plain = plainDiff(diff);
  if (!file) return plain;
  const marked = file.content.startsWith(BOM) ? withBom(plain) : plain;
  return isAllCrlf(file.content) ? withCrlfLines(marked) : marked;
}

/** Build the `fix --json` document from a run (pure; field order is stable). */
export function fixToJson(report: FixReport): FixJson {
  const { result } = report;
  const d = result.diagnosis;
  return {
    status: report.status,
    reason: report.status === "held" ? report.deliveryNote : result.reason,
    base_sha: report.baseSha,
    base_moved: report.baseMoved,
    branch: report.delivery?.branch ?? null,
    head_sha: report.delivery?.headSha ?? null,
    branch_reused: report.delivery?.reused ?? false,
    delivery: report.deliveryNote,
    held_branch: report.held?.branch ?? null,
    model: report.model,
    diagnosis: d
      ? {
          summary: d.summary,
          affected_file: d.affected_file,
          affected_function: d.affected_function,
          root_cause_snippet: d.root_cause_snippet,
          confidence: d.confidence,
          citations: d.citations.map((c) => ({ path: c.path, start_line: c.start_line, end_line: c.end_line })),
        }
      : null,
    edits: result.edits.map((e) => ({
      path: e.path,
      ...editBaseLines(e),
      kind: e.kind,
      diff: jsonDiff(e.diff, e.path, result.files),
    })),
    review: report.review ? reviewToJson(report.review) : null,
    no_fix: report.noFix,
    gates: {
      rejections: result.gates.rejections.map((r) => ({ gate: r.gate, message: r.message })),
      observations_stripped: result.gates.observations_stripped,
    },
    usage: {
      model_calls: result.usage.model_calls,
      tool_calls: result.usage.tool_calls,
      input_tokens: result.usage.input_tokens,
      output_tokens: result.usage.output_tokens,
      estimated: result.usage.estimated === true,
    },
    notes: [...report.notes],
    warnings: [...report.warnings],
  };
}
