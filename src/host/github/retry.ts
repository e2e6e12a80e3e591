import { httpStatus } from "./octokit.js";

/** Wait `ms` milliseconds. Injectable so tests retry instantly. */
export type Delay = (ms: number) => Promise<void>;

/** The real wait: a timer. */
export const sleep: Delay = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The longest `retry-after` honoured before the one retry (ms); a longer one is capped to this. */
export const MAX_RETRY_WAIT_MS = 5_000;
/** The wait before the retry when GitHub names none (ms). */
export const DEFAULT_RETRY_WAIT_MS = 1_000;

/** True for answers worth one more try: a GitHub server error (5xx) or a rate limit (429). */
export function isTransient(error: unknown): boolean {
  const status = httpStatus(error);
  return status !== undefined && (status >= 500 || status === 429);
}

/** The wait GitHub asks for (`retry-after` in seconds), capped at {@link MAX_RETRY_WAIT_MS}; else the default. */
export function retryWait(error: unknown): number {
  const header = (error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers?.["retry-after"];
  const seconds = header !== undefined ? Number(header) : NaN;
  if (!Number.isFinite(seconds) || seconds < 0) return DEFAULT_RETRY_WAIT_MS;
  return Math.min(seconds * 1000, MAX_RETRY_WAIT_MS);
}

/**
 * Run `call`; when it fails with a 5xx or 429 ({@link isTransient}), wait ({@link retryWait}) and run `retry` once
 * (default: `call` again; a write GitHub may have applied despite the 5xx passes one that looks first).
 * Any other error, or a second failure, is thrown as is. Used for the writes a reader depends on: the status
 * comment, the check run's create and its conclusion.
 */
export async function retryOnce<T>(call: () => Promise<T>, delay: Delay = sleep, retry: () => Promise<T> = call): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!isTransient(error)) throw error;
    await delay(retryWait(error));
    return retry();
  }
}
