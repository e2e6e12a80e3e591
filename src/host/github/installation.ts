/**
 * A job's installation client: the token first, and the job's abort signal on every request.
 *
 * A job used to find out that it had no installation token only inside its first API call (the config read), which
 * then reported "could not read .github/groundfix.yml" although it was `POST /app/installations/N/access_tokens`
 * that failed. {@link prepareInstallationOctokit} asks for the token before anything else, so that failure is named
 * for what it is ({@link InstallationTokenError}) and the job fails as a whole (the queue retries it).
 */
import { failureReason, tokenRequestInstallation } from "./requests.js";
import type { Octokit } from "./octokit.js";

/**
 * No installation token could be had for installation `installationId`: the message names the installation and
 * what GitHub answered (`HTTP 401: …`) or that it did not answer (`no answer (ECONNREFUSED)`, `no answer within
 * 30 s`), and after how many attempts; `cause` is the request's error.
 */
export class InstallationTokenError extends Error {
  readonly installationId: number;
  constructor(installationId: number, cause: unknown) {
    const e = cause as { status?: unknown; response?: { data?: { message?: unknown } }; attempts?: unknown };
    const said = typeof e?.response?.data?.message === "string" ? `: ${e.response.data.message}` : "";
    const tries = typeof e?.attempts === "number" && e.attempts > 1 ? ` after ${e.attempts} attempts` : "";
    super(
      `could not get an installation token for installation ${installationId} ` +
        `(POST /app/installations/${installationId}/access_tokens): ${failureReason(cause)}${said}${tries}`,
      { cause },
    );
    this.name = "InstallationTokenError";
    this.installationId = installationId;
  }
}

/** True when `error` is the failure of an installation-token request (a `RequestError` of that URL). */
export function isTokenFailure(error: unknown): boolean {
  if (error instanceof InstallationTokenError) return true;
  const url = (error as { request?: { url?: unknown } } | null)?.request?.url;
  return typeof url === "string" && tokenRequestInstallation(url) !== undefined;
}

/** `error` as an {@link InstallationTokenError} when it is a token failure ({@link isTokenFailure}), else itself. */
export function asTokenError(error: unknown, installationId: number): unknown {
  if (error instanceof InstallationTokenError || !isTokenFailure(error)) return error;
  return new InstallationTokenError(installationId, error);
}

/**
 * Have `octokit`'s auth strategy fetch (and cache) its token without sending an API request: its documented
 * `auth.hook(request, route)` (`@octokit/auth-app`) gets the token through `request.defaults(…)`, which is the
 * client's own request (its base URL, its hooks: retries, signal, throttling), then hands the authorised request to
 * `request`, which here answers without sending it. (`octokit.auth({ type: "installation" })` would use Probot's
 * bare request instead: no GHE base URL, no retries, no signal.)
 */
async function fetchToken(octokit: Octokit): Promise<void> {
  const hook = (octokit.auth as { hook?: (request: unknown, route: string) => Promise<unknown> }).hook;
  if (!hook) return;
  const notSent = Object.assign(async () => ({ status: 204, url: "", headers: {}, data: undefined }), {
    endpoint: octokit.request.endpoint,
    defaults: octokit.request.defaults,
  });
  await hook(notSent, "GET /");
}

/**
 * Make `octokit` (an installation client, Probot's `app.auth(installationId)`) the job's: every request it sends
 * carries `signal` (unless the request has its own), the token request included, so aborting the job cuts its waits
 * at once; then fetch (and cache) the installation token.
 * @throws InstallationTokenError when the token request fails (after its retries, `server/requests.ts`); the
 *   abort's error as it is when `signal` aborted
 */
export async function prepareInstallationOctokit(
  octokit: Octokit,
  installationId: number,
  signal?: AbortSignal,
): Promise<Octokit> {
  if (signal) {
    octokit.hook.before("request", (options) => {
      options.request = { ...options.request, signal: options.request?.signal ?? signal };
    });
  }
  try {
    await fetchToken(octokit);
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new InstallationTokenError(installationId, error);
  }
  return octokit;
}
