/**
 * Bad input from the user of the `groundfix` command (unknown flag, missing option, unreadable issue file).
 * `main` prints `groundfix: <message>` as one line on stderr and exits with code 2.
 */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Exit codes of the `groundfix` command. `reviewFailed` (1, as `git diff --exit-code` uses 1 for "differences")
 * only with `review --exit-code` when the conclusion is failure.
 */
export const EXIT = { ok: 0, internal: 1, reviewFailed: 1, usage: 2 } as const;
