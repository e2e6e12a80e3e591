import { createLocalHost } from "../host/local/index.js";
import { reviewCommit } from "../review/index.js";
import type { ReviewReport } from "../types.js";
import { reviewToJson, type ReviewJson } from "./json.js";

/** The result of `groundfix review`: the pinned commits and the review report. */
export interface ReviewRun {
  baseSha: string;
  headSha: string;
  review: ReviewReport;
}

/**
 * Run the review rules on base..head of a local checkout, with the config (`.github/groundfix.yml`) of the base
 * commit and no run record.
 * @throws LocalInputError (not a repository, unknown revision), ConfigError (invalid config).
 */
export async function runReview(options: { repoDir: string; base: string; head: string }): Promise<ReviewRun> {
  const host = createLocalHost(options.repoDir);
  const base = await host.resolveBase(options.base);
  const head = await host.resolveBase(options.head);
  const config = await host.readConfig(base.sha);
  const review = await reviewCommit(host, { baseSha: base.sha, headSha: head.sha, config, record: null });
  return { baseSha: base.sha, headSha: head.sha, review };
}

/** The `review --json` document. */
export function reviewRunToJson(
  run: ReviewRun,
): { base_sha: string; head_sha: string; rules_checked: string[] } & ReviewJson {
  return {
    base_sha: run.baseSha,
    head_sha: run.headSha,
    ...reviewToJson(run.review),
    rules_checked: [...run.review.rulesChecked],
  };
}
