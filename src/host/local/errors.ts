/**
 * A problem with what the user asked of a local checkout (not a bug): the directory is not a git repository,
 * a revision does not name a commit, a branch name is not a valid ref. The CLI reports it as bad input
 * (exit code 2) with `message`, which is one line.
 */
export class LocalInputError extends Error {
  constructor(
    readonly kind: "not_a_repository" | "unknown_ref" | "bad_branch" | "bad_file",
    message: string,
  ) {
    super(message);
    this.name = "LocalInputError";
  }
}
