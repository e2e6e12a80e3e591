import { LRUCache } from "lru-cache";

/**
 * Claim `key` (a head SHA, or a {@link deliveredKey}) of `owner/repo`: true the first time, false after; the
 * repository is matched case-insensitively, the key exactly (branch names are case-sensitive on GitHub). The
 * delivery path claims its own head SHA and its {@link deliveredKey} before it opens the PR, so the
 * `pull_request.opened` and `check_suite.requested` webhooks that follow do not review the same commit again.
 * Explicit re-runs never ask. `release` forgets a claim (a delivered key is taken once, {@link takeDelivered}).
 * Async when the claims live in Redis (shared by every process, `index.ts`), a boolean in process.
 */
export interface ReviewClaims {
  (owner: string, repo: string, key: string): boolean | Promise<boolean>;
  release?(owner: string, repo: string, key: string): void | Promise<void>;
}

/**
 * The claim the delivery path makes for the pull request it opens: its head commit as the head of branch `headRef`
 * of the repository itself, into `baseRef` — the one pull request the delivery reviewed that head for.
 */
export function deliveredKey(headSha: string, headRef: string, baseRef: string): string {
  return `${headSha.toLowerCase()}:${headRef}>${baseRef}`;
}

/**
 * Whether the delivery path claimed `key` ({@link deliveredKey}), taking the claim either way: true once for the
 * webhook its own pull request causes; any later event with the same head, branch and base (the pull request closed
 * and reopened, its branch pushed away and back) finds no claim and is reviewed, since the pull requests that show
 * the head's verdict may have changed since.
 */
export async function takeDelivered(claims: ReviewClaims, owner: string, repo: string, key: string) {
  const fresh = await claims(owner, repo, key);
  await claims.release?.(owner, repo, key);
  return !fresh;
}

/**
 * A fresh set of review claims, oldest forgotten first past 10,000 keys. The app makes one per process
 * (`createApp`) and hands it to both the delivery path and the review job; tests make one per case.
 */
export function createReviewClaims(): ReviewClaims {
  const claimed = new LRUCache<string, true>({ max: 10_000 });
  const keyOf = (owner: string, repo: string, key: string) => `${owner}/${repo}`.toLowerCase() + `@${key}`;
  const claim: ReviewClaims = (owner, repo, key) => {
    const k = keyOf(owner, repo, key);
    if (claimed.has(k)) return false;
    claimed.set(k, true);
    return true;
  };
  claim.release = (owner, repo, key) => void claimed.delete(keyOf(owner, repo, key));
  return claim;
}
