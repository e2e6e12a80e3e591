import type { Snapshot } from "../../types.js";

/** True when `path` is recorded in the snapshot (any kind), or was left out of it by a cap. */
export function existsAt(snapshot: Snapshot, path: string): boolean {
  return snapshot.entry(path) !== undefined || snapshot.stats.leftOut.some((l) => l.path === path);
}
