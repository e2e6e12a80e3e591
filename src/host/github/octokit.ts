import type { ProbotOctokit } from "probot";
import { ConfigError } from "../../config/schema.js";
import { failureReason, isNoAnswer } from "./requests.js";

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

/**
 * Per-request options of `@octokit/plugin-retry` (inside `ProbotOctokit`) for the writes a reader depends on (the
 * status comment, the check run): one retry on a 5xx or 429, after the plugin's wait (`retryAfterBaseValue`, 1 s by
 * default; the app's tests configure a short one). Other requests keep the plugin's defaults (4xx never retried).
 */
export const RETRY_ONCE = { retries: 1 } as const;

/** Per-request options that switch the retry plugin off for a create a blind retry could repeat (a comment). */
export const NO_RETRY = { retries: 0 } as const;

/**
 * One line that says what failed, never a stack trace: a rate limit (403 with `x-ratelimit-remaining: 0` or a
 * "secondary rate limit" message, or 429), a GitHub server error (5xx) with the request that failed, a request that
 * got no answer (`GitHub did not answer on GET /…: no answer (ECONNREFUSED)`), a config error with its keys, else
 * the error's first line.
 */
export function describeFailure(error: unknown): string {
  if (error instanceof ConfigError) return `invalid ${error.source}: ${error.issues.join("; ")}`;
  const status = httpStatus(error);
  const message = ((error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "").trim();
  if (status === undefined) return message;
  const req = (error as { request?: { method?: string; url?: string } }).request;
  const where =
    req?.method && req.url ? ` on ${req.method} ${new URL(req.url, "https://api.github.com").pathname}` : "";
  // @octokit/request reports a request that got no answer (refused, reset, timed out) as status 500 without a
  // response: that is no GitHub server error.
  if (isNoAnswer(error)) return `GitHub did not answer${where}: ${failureReason(error)}`;
  const headers = (error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ?? {};
  const limited =
    status === 429 || (status === 403 && (headers["x-ratelimit-remaining"] === "0" || /rate limit/i.test(message)));
  if (limited) {
    const retry = headers["retry-after"] ? ` (retry after ${headers["retry-after"]} s)` : "";
    return `GitHub rate limit (HTTP ${status})${where}${retry}`;
  }
  if (status >= 500) return `GitHub server error (HTTP ${status})${where}`;
  return `GitHub answered HTTP ${status}${where}: ${message}`;
}
