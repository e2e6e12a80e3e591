/**
 * Bounded GitHub requests for the App's Octokit (`server/octokit.ts`), in place of `@octokit/plugin-retry` (which
 * Probot's Octokit carries): the same retry rule, plus what that plugin cannot do.
 *
 * - The same rule: a request that fails with a status of 400 or above other than 400/401/403/404/410/422/451, or
 *   without an answer (a network error, which `@octokit/request` reports as status 500 without a response), is
 *   tried again, at most `attempts` times in all (default 4, the plugin's 3 retries), waiting `waitBaseMs` × n²
 *   before retry n (default 1 s: 1 s, 4 s, 9 s). A request's own `request.retries` (`RETRY_ONCE`, `NO_RETRY` of
 *   `host/github/octokit.ts`) still counts, as it did for the plugin.
 * - No pause of an answer may last longer than `attemptTimeoutMs` (default 30 s): its status line and headers must
 *   come within it (else the attempt is given up as `no answer within 30 s`, and tried again), then each chunk of
 *   its body within it of the one before (else `the answer stopped: nothing more came within 30 s`, also tried
 *   again: the body is read before the answer is handed on). A body that streams
 *   (`request.parseSuccessResponseBody: false`: a snapshot's tarball, a large file) is handed on as a stream that
 *   fails the same way with {@link AnswerStoppedError} naming the request, for its reader to report; no retry, part
 *   of it was read. A body that keeps coming is never cut for its length. Without this a GitHub that accepts the
 *   connection and never answers, or stops half-way, holds a job (a run or a review) for undici's 300 s per wait.
 * - Every retry is logged at `warn` as it is scheduled: what is retried (method and path, and for the token request
 *   the installation it is for), why, attempt n of m, and the wait.
 * - A request's `request.signal` (the job's, see `host/github/installation.ts`) also cuts the wait between
 *   attempts and any wait inside (the throttling plugin's queue): an aborted job stops at once, with the signal's
 *   reason.
 * - No retry inside a retry: the installation-token request runs inside the first request of a client (the auth hook
 *   fetches it), so it is retried by its own call; when it has failed for good, the request that needed it fails
 *   at once instead of fetching the token `attempts` times again (4 × 4 tries, which held a job for 158 s against a
 *   refused connection before this).
 */
import type { Octokit as CoreOctokit } from "@octokit/core";

/** The retry and timeout policy of {@link boundedRequests}; every field has the default given in the module comment. */
export interface RequestPolicy {
  /** Tries per request, the first included (default 4). */
  attempts?: number;
  /** The wait before retry n is `waitBaseMs` × n² (ms, default 1,000). */
  waitBaseMs?: number;
  /** Time to the answer's headers, per attempt (ms, default 30,000). */
  attemptTimeoutMs?: number;
}

/** Statuses never retried (the same list as `@octokit/plugin-retry`'s `doNotRetry`). */
const DO_NOT_RETRY = new Set([400, 401, 403, 404, 410, 422, 451]);

/** Marks an error that already went through a retry loop of this plugin (a nested token request's). */
const SETTLED = Symbol("groundfix.requestSettled");

/** The timeout reason of an attempt that got no answer in time. */
export class AttemptTimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${formatSeconds(ms)}`);
    this.name = "AttemptTimeoutError";
  }
}

/**
 * The error of an answer whose body paused longer than the time limit ({@link boundedRequests}); `label` names the
 * request when the error reaches a stream's reader instead of the request's caller.
 */
export class AnswerStoppedError extends Error {
  constructor(ms: number, label?: string) {
    const what = label ? `GitHub's answer to ${label}` : "the answer";
    super(`${what} stopped: nothing more came within ${formatSeconds(ms)}`);
    this.name = "AnswerStoppedError";
  }
}

function formatSeconds(ms: number): string {
  return ms >= 1_000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

/** `POST /app/installations/{id}/access_tokens` in a request's path: the installation id, or undefined. */
export function tokenRequestInstallation(url: string | undefined): number | undefined {
  const match = /\/app\/installations\/(\d+)\/access_tokens$/.exec(new URL(url ?? "", "https://x").pathname);
  return match ? Number(match[1]) : undefined;
}

/**
 * The network error code of a failed request (`ECONNREFUSED`, `ENOTFOUND`, `ECONNRESET`, `UND_ERR_…`), found on the
 * error or its causes (`RequestError` → fetch's `TypeError` → the socket error), or undefined for an HTTP answer.
 */
export function networkErrorCode(error: unknown): string | undefined {
  let e = error as { code?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (typeof e.code === "string" && e.code !== "") return e.code;
    e = e.cause as typeof e;
  }
  return undefined;
}

/** True when `error` is a failure without an HTTP answer: a network error or an attempt's timeout. */
export function isNoAnswer(error: unknown): boolean {
  const e = error as { status?: unknown; response?: unknown; cause?: unknown } | undefined;
  return (
    e?.response === undefined &&
    (e?.status === 500 || e?.cause instanceof AttemptTimeoutError || e?.cause instanceof AnswerStoppedError)
  );
}

/**
 * Why a request failed, in a few words: `HTTP 502`, `no answer (ECONNREFUSED)`, `no answer within 30 s`,
 * `aborted (…)`. For logs and the errors that name a failed request.
 */
export function failureReason(error: unknown): string {
  const e = error as { status?: unknown; message?: unknown; response?: unknown; cause?: unknown; name?: unknown };
  if (e?.cause instanceof AttemptTimeoutError || e?.cause instanceof AnswerStoppedError) return e.cause.message;
  const stopped = [e, e?.cause as typeof e].find((x) => x?.name === "AbortError" || x?.name === "JobStoppedError");
  if (stopped) return `stopped (${String(stopped.message)})`;
  if (isNoAnswer(error)) {
    const code = networkErrorCode(error);
    return `no answer${code ? ` (${code})` : typeof e.message === "string" ? ` (${e.message})` : ""}`;
  }
  if (typeof e?.status === "number") return `HTTP ${e.status}`;
  return typeof e?.message === "string" ? e.message.split("\n")[0]! : String(error);
}

/** `METHOD /path` of a request (and the installation the token request is for), for a log line. */
function requestLabel(method: string | undefined, url: string | undefined): string {
  const path = new URL(url ?? "", "https://x").pathname;
  const installation = tokenRequestInstallation(url);
  const what = installation === undefined ? "" : ` (the installation token of installation ${installation})`;
  return `${method ?? "GET"} ${path}${what}`;
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * `work`, or the abort of `signal`, whichever comes first: a request can wait in layers the signal does not reach
 * (the throttling plugin's limiter queue), and an aborted job must not wait on them.
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    work.catch(() => {});
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      work.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** `response` with `body` in place of its own (the status, headers and URL kept). */
function withBody(response: Response, body: ConstructorParameters<typeof Response>[0]): Response {
  const { status, statusText, headers } = response;
  const copy = new Response(body, { status, statusText, headers });
  Object.defineProperty(copy, "url", { value: response.url });
  return copy;
}

/** The next chunk of `reader`, or {@link AnswerStoppedError} when none comes within `ms`. */
async function nextChunk(reader: ReadableStreamDefaultReader<Uint8Array>, ms: number, label?: string) {
  let timer: NodeJS.Timeout | undefined;
  const stopped = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AnswerStoppedError(ms, label)), ms);
  });
  try {
    return await Promise.race([reader.read(), stopped]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A `fetch` whose answer must come without a pause longer than `ms`: its headers within `ms` (else
 * {@link AttemptTimeoutError}), then each chunk of its body within `ms` of the one before (else
 * {@link AnswerStoppedError}). The body is read here, so a pause fails the request itself (retried), unless it is
 * `streamed`: then it is handed on as a stream that fails on a pause, for its reader to report. A body that keeps
 * coming is never cut for its length. It also stops when `init.signal` (the caller's) aborts.
 */
function timedFetch(inner: typeof fetch, ms: number, streamed: boolean): typeof fetch {
  return async (input, init = {}) => {
    const attempt = new AbortController();
    const timer = setTimeout(() => attempt.abort(new AttemptTimeoutError(ms)), ms);
    const signals = init.signal ? [init.signal, attempt.signal] : [attempt.signal];
    let response: Response;
    try {
      // On a timeout fetch rejects with the signal's reason, which @octokit/request wraps (status 500, its message).
      response = await inner(input, { ...init, signal: AbortSignal.any(signals) });
    } finally {
      clearTimeout(timer);
    }
    if (response.body === null) return response;
    const reader = response.body.getReader();
    if (streamed) {
      const label = requestLabel(init.method, String(input));
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const next = await nextChunk(reader, ms, label);
            if (next.done) controller.close();
            else controller.enqueue(next.value);
          } catch (error) {
            reader.cancel(error).catch(() => {});
            controller.error(error);
          }
        },
        cancel: (reason) => reader.cancel(reason),
      });
      return withBody(response, body);
    }
    const chunks: Uint8Array[] = [];
    for (;;) {
      const next = await nextChunk(reader, ms).catch((error: unknown) => {
        reader.cancel(error).catch(() => {});
        throw error;
      });
      if (next.done) return withBody(response, Buffer.concat(chunks));
      chunks.push(next.value);
    }
  };
}

type RequestOptions = {
  method?: string;
  url?: string;
  request?: { retries?: number; signal?: AbortSignal; fetch?: typeof fetch; parseSuccessResponseBody?: boolean };
  [key: string]: unknown;
};

/**
 * The Octokit plugin (see the module comment). Its policy is the client option `requestPolicy`
 * ({@link RequestPolicy}); Probot's installation clients inherit it from the app's client. Use it with
 * `retry: { enabled: false }`, or `@octokit/plugin-retry` retries under it as well.
 */
export function boundedRequests(octokit: CoreOctokit, options: { requestPolicy?: RequestPolicy }): void {
  const policy = options.requestPolicy ?? {};
  const attempts = Math.max(1, policy.attempts ?? 4);
  const waitBase = Math.max(0, policy.waitBaseMs ?? 1_000);
  const timeout = Math.max(1, policy.attemptTimeoutMs ?? 30_000);
  octokit.hook.wrap("request", async (request, raw) => {
    const options = raw as RequestOptions;
    const own = options.request?.retries;
    const max = typeof own === "number" ? Math.max(0, own) + 1 : attempts;
    const signal = options.request?.signal;
    const fetchImpl = options.request?.fetch ?? ((input, init) => globalThis.fetch(input, init));
    const streamed = options.request?.parseSuccessResponseBody === false;
    options.request = { ...options.request, fetch: timedFetch(fetchImpl, timeout, streamed) };
    for (let attempt = 1; ; attempt++) {
      try {
        return await untilAborted(Promise.resolve(request(options as never)), signal);
      } catch (error) {
        const e = error as { status?: unknown; [SETTLED]?: boolean };
        const status = typeof e?.status === "number" ? e.status : undefined;
        const retryable =
          !e?.[SETTLED] &&
          !signal?.aborted &&
          (error as { name?: unknown })?.name !== "AbortError" &&
          status !== undefined &&
          status >= 400 &&
          !DO_NOT_RETRY.has(status);
        if (!retryable || attempt >= max) {
          if (e && typeof e === "object") Object.defineProperty(e, SETTLED, { value: true, configurable: true });
          if (e && typeof e === "object" && attempt > 1)
            Object.defineProperty(e, "attempts", { value: attempt, configurable: true, enumerable: false });
          throw error;
        }
        const wait = waitBase * attempt * attempt;
        const req = (error as { request?: { method?: string; url?: string } }).request;
        (octokit.log.warn as unknown as (obj: object, msg: string) => void)(
          { attempt, attempts: max, waitMs: wait },
          `groundfix: GitHub request ${requestLabel(req?.method ?? options.method, req?.url ?? options.url)} ` +
            `failed: ${failureReason(error)}; attempt ${attempt} of ${max}, next in ${formatSeconds(wait)}`,
        );
        await sleep(wait, signal);
      }
    }
  });
}
