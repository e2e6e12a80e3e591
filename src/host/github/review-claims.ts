import { LRUCache } from "lru-cache";

/**
 * Claim the review of a head commit: true the first time for `owner/repo@sha` (case-insensitive), false after.
 * The delivery path claims its own head SHA before it opens the PR, so the `pull_request.opened` and
 * `check_suite.requested` webhooks that follow do not review the same commit again. Explicit re-runs never ask.
 * Async when the claims live in Redis (shared by every process, `index.ts`), a boolean in process.
 */
export type ReviewClaims = (owner: string, repo: string, sha: string) => boolean | Promise<boolean>;

/**
 * A fresh set of review claims, oldest forgotten first past 10,000 head commits. The app makes one per process
 * (`createApp`) and hands it to both the delivery path and the review job; tests make one per case.
 */
export function createReviewClaims(): ReviewClaims {
  const claimed = new LRUCache<string, true>({ max: 10_000 });
  return (owner, repo, sha) => {
    const key = `${owner}/${repo}@${sha}`.toLowerCase();
    if (claimed.has(key)) return false;
    claimed.set(key, true);
    return true;
  };
}
