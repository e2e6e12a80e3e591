import { closestKey } from "../config/zod-issues.js";

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

/**
 * The one line for an option given without its value (`--repo` last, or followed by another option):
 * `<command>: --repo needs a value (a path to a git checkout)`. When it was followed by an argument starting with
 * `-` (`dashNext`), also how to give such a value: `--opt=<value>` (node's parseArgs reads `--opt -x` as a missing
 * value).
 */
export function missingValueMessage(command: string, option: string, takes: string | undefined, dashNext = false) {
  const what = takes ? ` (${takes})` : "";
  const dash = dashNext ? `; for a value starting with "-", write ${option}=<value>` : "";
  return `${command}: ${option} needs a value${what}${dash}`;
}

/**
 * The one line for an unknown option of `command`, with `did you mean --x?` when one of `known` (long names,
 * without dashes) is a near miss ({@link closestKey}), else a pointer to the command's help.
 */
export function unknownOptionMessage(command: string, option: string, known: readonly string[]): string {
  const name = option.replace(/^-+/, "").replace(/=.*$/, "");
  const near = option.startsWith("--") ? closestKey(name, known) : undefined;
  const hint = near ? `did you mean --${near}?` : `see groundfix ${command} --help`;
  return `${command}: unknown option ${option.replace(/=.*$/, "")} (${hint})`;
}
