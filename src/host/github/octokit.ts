import type { ProbotOctokit } from "probot";

/**
 * The authenticated Octokit a Probot context hands out (`context.octokit`): an installation token, REST methods
 * under `.rest.*`, plus `.request` and `.paginate`. Every function of `host/github` takes one explicitly.
 */
export type Octokit = InstanceType<typeof ProbotOctokit>;

/** A repository as `host/github` addresses it. */
export interface RepoRef {
  owner: string;
  name: string;
}

/** The HTTP status of an Octokit `RequestError`, or undefined for any other thrown value. */
export function httpStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

/** A one-line description of an error for a status comment or check-run summary (never a stack trace). */
export function describeError(error: unknown): string {
  const status = httpStatus(error);
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split("\n")[0] ?? "";
  return status ? `GitHub answered ${status}: ${firstLine}` : firstLine;
}
