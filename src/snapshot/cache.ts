import type { Snapshot } from "../types.js";

/** How many snapshots a process keeps (least recently used is dropped first). */
export const SNAPSHOT_CACHE_SIZE = 4;

const cache = new Map<string, Promise<Snapshot>>();

/**
 * Reuse a snapshot within this process: the first call for `key` runs `load`, later calls (also concurrent ones)
 * get the same promise. Keys should name a commit, e.g. `owner/repo@<sha>` or `<dir>@<sha>`. A bounded LRU of
 * {@link SNAPSHOT_CACHE_SIZE} entries; a failed load is forgotten so a later call retries.
 */
export function cachedSnapshot(key: string, load: () => Promise<Snapshot>): Promise<Snapshot> {
  const hit = cache.get(key);
  if (hit !== undefined) {
    cache.delete(key);
    cache.set(key, hit);
    return hit;
  }
  const pending = load();
  cache.set(key, pending);
  pending.catch(() => {
    if (cache.get(key) === pending) cache.delete(key);
  });
  while (cache.size > SNAPSHOT_CACHE_SIZE) {
    const oldest = cache.keys().next().value as string;
    cache.delete(oldest);
  }
  return pending;
}

/** Forget every cached snapshot (for tests and long-lived processes that want memory back). */
export function clearSnapshotCache(): void {
  cache.clear();
}
