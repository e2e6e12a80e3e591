import { createLocalHost } from "../host/local/index.js";
import { gitText, GitError } from "../host/local/git.js";
import { reviewCommit } from "../review/index.js";
import type { ReviewReport } from "../types.js";
import { UsageError } from "./errors.js";
import { reviewToJson, type ReviewJson } from "./json.js";

/**
 * The result of `groundfix review`: the commits compared and the review report. `baseSha` is where the reviewed
 * diff starts: the merge base of `--base` and `--head` (what `git diff base...head` and a GitHub pull request show),
 * or with `direct` the `--base` commit itself; `givenBaseSha` is the `--base` commit.
 */
export interface ReviewRun {
  baseSha: string;
  givenBaseSha: string;
  headSha: string;
  direct: boolean;
  review: ReviewReport;
}

/**
 * Run the review rules on the diff of a local checkout from the merge base of `base` and `head` to `head` (like
 * `git diff base...head`, and as a GitHub pull request's diff is made: a commit `base` gained after `head` forked
 * from it does not read as a removal), or with `direct` from `base` itself (`git diff base head`). The config
 * (`.github/groundfix.yml`) is the `base` commit's, as the App reads the base branch's; no run record.
 * @throws LocalInputError (not a repository, unknown revision), ConfigError (invalid config), UsageError (no
 *   merge base: the two commits share no history).
 */
export async function runReview(options: {
  repoDir: string;
  base: string;
  head: string;
  direct?: boolean;
}): Promise<ReviewRun> {
  const host = createLocalHost(options.repoDir);
  const base = await host.resolveBase(options.base);
  const head = await host.resolveBase(options.head);
  const direct = options.direct === true;
  const from = direct ? base.sha : await mergeBase(options.repoDir, base.sha, head.sha, options);
  const config = await host.readConfig(base.sha);
  const review = await reviewCommit(host, { baseSha: from, headSha: head.sha, config, record: null });
  return { baseSha: from, givenBaseSha: base.sha, headSha: head.sha, direct, review };
}

/**
 * `git merge-base a b`: the best common ancestor of two commit ids, as a 40-hex id; `names` are the revisions as the
 * user gave them, for the message. @throws UsageError when the two share no history.
 */
async function mergeBase(
  repoDir: string,
  a: string,
  b: string,
  names: { base: string; head: string },
): Promise<string> {
  try {
    return await gitText(repoDir, ["merge-base", a, b]);
  } catch (error) {
    if (!(error instanceof GitError) || error.exitCode !== 1) throw error; // 1 and no output: none
    throw new UsageError(
      `review: ${names.base} and ${names.head} have no common history (no merge-base); ` +
        `pass --direct to compare the two commits as they are`,
    );
  }
}

/** The `review --json` document: `base_sha` is where the reviewed diff starts (see {@link ReviewRun}). */
export function reviewRunToJson(run: ReviewRun): {
  base_sha: string;
  given_base_sha: string;
  head_sha: string;
  compared: "merge-base" | "direct";
  rules_checked: string[];
} & ReviewJson {
  return {
    base_sha: run.baseSha,
    given_base_sha: run.givenBaseSha,
    head_sha: run.headSha,
    compared: run.direct ? "direct" : "merge-base",
    ...reviewToJson(run.review),
    rules_checked: [...run.review.rulesChecked],
  };
}
