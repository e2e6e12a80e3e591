/**
 * A problem with what the user asked of a local checkout (not a bug): the directory is not a git repository (the
 * message says what it is instead: missing, a file, a `.git` folder…), git is not installed (`no_git`),
 * the repository has no commit yet, a revision does not name a commit, a branch name is not a valid ref, a branch
 * already holds other commits (`branch_exists`, only from `Host.commitFiles`). The CLI reports it as bad input
 * (exit code 2) with `message`, which is one line.
 */
export class LocalInputError extends Error {
  constructor(
    readonly kind:
      "not_a_repository" | "no_git" | "no_commits" | "unknown_ref" | "bad_branch" | "bad_file" | "branch_exists",
    message: string,
  ) {
    super(message);
    this.name = "LocalInputError";
  }
}
