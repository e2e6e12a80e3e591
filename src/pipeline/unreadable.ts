import {
  baseName,
  cleanFramePath,
  parseStackFrames,
  pathSegments,
  sharedTailLength,
} from "../agent/models/heuristic/frames.js";
import type { Snapshot } from "../types.js";

/** Most files {@link unreadableFrameNotes} names (a trace may repeat one file in many frames; each is named once). */
const MAX_NOTES = 5;

/**
 * Notes for the files a problem's stack trace names that the snapshot holds but cannot serve as text, one line each:
 * a binary file (a NUL byte, or bytes that are not UTF-8: src/snapshot/builder.ts) or a Git LFS pointer. The read
 * tools answer NOT_FOUND for them, so no model can read or edit them; without a note the report would be silent on
 * the file the trace points at. A frame's path is matched to the repository path that shares the most trailing
 * segments with it, the whole of the shorter of the two (`/app/lib/x.js` → `lib/x.js`; Java's `com/acme/A.java` →
 * `src/main/java/com/acme/A.java`); a tie between paths names none. At most {@link MAX_NOTES} notes, in trace order.
 */
export function unreadableFrameNotes(problem: string, snapshot: Pick<Snapshot, "sha" | "paths" | "entry">): string[] {
  const frames = parseStackFrames(problem);
  if (frames.length === 0) return [];
  const names = new Set(frames.map((f) => baseName(cleanFramePath(f.rawPath))));
  const byName = new Map<string, string[]>();
  for (const path of snapshot.paths) {
    const name = baseName(path);
    if (names.has(name)) byName.set(name, [...(byName.get(name) ?? []), path]);
  }
  const notes: string[] = [];
  const seen = new Set<string>();
  for (const frame of frames) {
    const segments = pathSegments(cleanFramePath(frame.rawPath));
    const path = bestMatch(segments, byName.get(segments[segments.length - 1] ?? "") ?? []);
    if (path === null || seen.has(path)) continue;
    seen.add(path);
    const kind = snapshot.entry(path)?.kind;
    const at = snapshot.sha.slice(0, 12);
    if (kind === "binary") {
      notes.push(
        `${path}, named in the issue's stack trace, is a binary file at ${at} (a NUL byte, or bytes that are ` +
          `not UTF-8): groundfix can neither read nor edit it, so nothing in it was checked`,
      );
    } else if (kind === "lfs_pointer") {
      notes.push(
        `${path}, named in the issue's stack trace, is a Git LFS pointer at ${at} (the file itself is not in ` +
          `the commit): groundfix can neither read nor edit it, so nothing in it was checked`,
      );
    }
    if (notes.length === MAX_NOTES) break;
  }
  return notes;
}

/** The one path of `candidates` one of whose segment lists ends the other, sharing the most segments; else null. */
function bestMatch(frame: readonly string[], candidates: readonly string[]): string | null {
  let best: string | null = null;
  let bestShared = 0;
  let tie = false;
  for (const path of candidates) {
    const segments = pathSegments(path);
    const shared = sharedTailLength(frame, segments);
    if (shared < Math.min(frame.length, segments.length)) continue;
    if (shared > bestShared) [best, bestShared, tie] = [path, shared, false];
    else if (shared === bestShared) tie = true;
  }
  return tie ? null : best;
}
