/** Head commits this process has started a review for (`owner/repo@sha`), oldest first; bounded. */
const claimed = new Set<string>();
const LIMIT = 10_000;

/**
 * Claim the review of a head commit in this process: true the first time for `owner/repo@sha`, false after.
 * The delivery path claims its own head SHA before it opens the PR, so the `pull_request.opened` and
 * `check_suite.requested` webhooks that follow do not review the same commit again. Explicit re-runs never ask.
 */
export function claimReview(owner: string, repo: string, sha: string): boolean {
  const key = `${owner}/${repo}@${sha}`.toLowerCase();
  if (claimed.has(key)) return false;
  if (claimed.size >= LIMIT) claimed.delete(claimed.values().next().value!);
  claimed.add(key);
  return true;
}

/** Forget every claim (tests). */
export function forgetReviewClaims(): void {
  claimed.clear();
}
