import type { GroundfixConfig } from "../config/schema.js";
import type { Diagnosis, Outcome } from "../types.js";

/** The `reason` of a confident answer whose edits only add comments: why no pull request is opened. */
export const COMMENT_ONLY_REASON = "every edit only adds comments, which change nothing at run time";

/**
 * The `reason` of a confident answer with an edit that looks like a comment in its diff but changes code in its file
 * (`hidden` of `readCommentOnly`, src/agent/comment-only.ts): why no pull request is opened without a maintainer.
 */
export const HIDDEN_CODE_REASON =
  "an edit looks like a comment in its diff but changes code in the file (a string or other text that opens " +
  "outside the lines the diff shows takes it in), so a maintainer should read it before it is proposed";

/**
 * The outcome of an accepted answer (docs/ARCHITECTURE.md, "Outcomes, gates, models"; thresholds follow Sentry Seer's
 * public tiers, 0.40 comment / 0.70 pull request, configurable in `thresholds`):
 * - `needs_information`: confidence below `thresholds.comment`, or no verified affected file;
 * - `pr_ready`: every claim verified (none dropped), at least one applied edit, confidence ≥ `thresholds.pull_request`,
 *   and some edit changes code: edits that only add comments (`commentOnly`) are no pull request however confident
 *   the answer, unless a maintainer approved the run (`approved`, `/groundfix approve`); nor is an edit that only looks
 *   like a comment in its diff but changes code (`hiddenCode`, {@link HIDDEN_CODE_REASON}), unless approved;
 * - `diagnosis_only`: otherwise.
 *
 * @param claimsVerified false when the claims check dropped a claim after the last attempt (never `pr_ready` then)
 * @param commentOnly true when the applied edits change no code (`readCommentOnly`, src/agent/comment-only.ts)
 * @param hiddenCode true when an edit reads as a comment in its own hunks but changes code in its file
 */
export function decideOutcome(p: {
  diagnosis: Diagnosis;
  claimsVerified: boolean;
  editCount: number;
  commentOnly: boolean;
  hiddenCode?: boolean;
  approved?: boolean;
  config: GroundfixConfig;
}): {
  outcome: Outcome;
  reason: string | null;
} {
  const { diagnosis: d, config } = p;
  const t = config.thresholds;
  if (d.confidence < t.comment) {
    return {
      outcome: "needs_information",
      reason: `confidence ${d.confidence} is below the comment threshold ${t.comment}`,
    };
  }
  if (d.affected_file === null) {
    return { outcome: "needs_information", reason: "the answer names no verified affected file" };
  }
  if (!p.claimsVerified) {
    return { outcome: "diagnosis_only", reason: "some claims could not be verified and were dropped" };
  }
  if (p.editCount === 0) return { outcome: "diagnosis_only", reason: "no edit was applied" };
  if (d.confidence < t.pull_request) {
    return {
      outcome: "diagnosis_only",
      reason: `confidence ${d.confidence} is below the pull-request threshold ${t.pull_request}`,
    };
  }
  if (p.commentOnly && p.approved !== true) return { outcome: "diagnosis_only", reason: COMMENT_ONLY_REASON };
  if (p.hiddenCode === true && p.approved !== true) return { outcome: "diagnosis_only", reason: HIDDEN_CODE_REASON };
  return { outcome: "pr_ready", reason: null };
}
