import type { Snapshot } from "../../types.js";

/** True when `path` is recorded in the snapshot (any kind), or was left out of it by a cap. */
export function existsAt(snapshot: Snapshot, path: string): boolean {
  return snapshot.entry(path) !== undefined || snapshot.stats.leftOut.some((l) => l.path === path);
}

/** The 1-based line of a UTF-16 offset in `text`. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let k = 0; k < offset && k < text.length; k++) if (text.charCodeAt(k) === 10) line++;
  return line;
}
