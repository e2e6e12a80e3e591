import { oneLine } from "./markdown.js";

/** Marks the PR-body warning that the review check is missing (not repeated when it is already there). */
export const REVIEW_MISSING_MARKER = "<!-- groundfix:review-missing -->";

/** The warning put at the top of a PR body when its `groundfix/review` check could not be created. */
export function reviewMissingWarning(reason: string): string {
  return [
    REVIEW_MISSING_MARKER,
    "> [!WARNING]",
    `> **Do not merge this pull request yet.** The \`groundfix/review\` check could not be created (${oneLine(reason, 300).replace(/</g, "&lt;")}).`,
    "> It must not be merged until `groundfix/review` has run: push to the branch, re-run the checks, or comment `/groundfix retry` on the issue to have it reviewed.",
  ].join("\n");
}
