import { httpStatus } from "./octokit.js";
import { STATUS_MARKER } from "./render.js";

/**
 * A repository state in which no run can produce a pull request, whatever is retried:
 * - `archived`: the webhook payload's `repository.archived` is true; GitHub makes an archived repository read-only
 *   (no branch, no commit, no pull request, no comment can be written), so no model runs and nothing is posted;
 * - `empty`: the default branch has no commit, so there is no base to pin. GitHub answers `GET branches/{branch}`
 *   with 404 and the Git Data API with 409 "Git Repository is empty." in a repository without a commit.
 */
export type RepositoryState = "archived" | "empty";

/** Thrown by the GitHub host's `resolveBase` when the repository is {@link RepositoryState} `empty`. */
export class RepositoryStateError extends Error {
  constructor(
    readonly state: RepositoryState,
    readonly branch: string,
  ) {
    super(`the repository is ${state}`);
    this.name = "RepositoryStateError";
  }
}

/**
 * True for GitHub's refusal of a write to an archived repository: 403 "Repository was archived so is read-only."
 * (every write is refused, issue comments included). Nothing a retry does can change it until the repository is
 * unarchived, so a job that meets it ends without a retry.
 */
export function isArchivedRefusal(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error);
  return httpStatus(error) === 403 && /archived/i.test(message);
}

/**
 * The one status comment for a run stopped by a {@link RepositoryState}: it names the state and suggests no
 * `/groundfix retry`, which could not help (the state must change first).
 */
export function repositoryStateBody(state: RepositoryState, branch?: string): string {
  const line =
    state === "archived"
      ? "**groundfix** did not run: this repository is archived, so it is read-only " +
        "and no branch or pull request can be written to it. Nothing was investigated."
      : `**groundfix** did not run: this repository is ` +
        `empty${branch ? ` (its default branch \`${branch.replace(/`/g, "")}\` has no commit yet)` : ""}, ` +
        `so there is no code to investigate. Nothing was pushed. Label the issue again once the ` +
        `repository has a first commit.`;
  return `${STATUS_MARKER}\n${line}`;
}
