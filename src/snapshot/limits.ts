/**
 * Caps of a snapshot. Bytes are uncompressed.
 * - `maxFileBytes`: a file larger than this is listed as `too_large` and its content is not kept (default 2 MB).
 * - `maxTotalBytes`: the sum of the sizes of loaded files; a file that would pass it is left out (default 200 MB).
 * - `maxFiles`: how many paths are recorded; later paths are left out (default 100,000 — the same count at which
 *   GitHub's recursive trees API truncates).
 */
export interface SnapshotLimits {
  maxFileBytes: number;
  maxTotalBytes: number;
  maxFiles: number;
}

/** The default caps: 2 MB per file, 200 MB in total, 100,000 files. */
export const DEFAULT_LIMITS: Readonly<SnapshotLimits> = Object.freeze({
  maxFileBytes: 2 * 1024 * 1024,
  maxTotalBytes: 200 * 1024 * 1024,
  maxFiles: 100_000,
});

/** `DEFAULT_LIMITS` with the given fields replaced. */
export function resolveLimits(limits?: Partial<SnapshotLimits>): SnapshotLimits {
  return { ...DEFAULT_LIMITS, ...limits };
}
