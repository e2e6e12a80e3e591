import type { Finding, Snapshot } from "../../types.js";
import type { Hunk } from "../types.js";

/** True when `path` is recorded in the snapshot (any kind), or was left out of it by a cap. */
export function existsAt(snapshot: Snapshot, path: string): boolean {
  return snapshot.entry(path) !== undefined || snapshot.stats.leftOut.some((l) => l.path === path);
}

/** The head line numbers (1-based) of the `added` lines of a patch's hunks. */
export function addedLineNumbers(hunks: readonly Hunk[]): Set<number> {
  const lines = new Set<number>();
  for (const h of hunks)
    for (const l of h.lines) if (l.kind === "added" && l.newLine !== undefined) lines.add(l.newLine);
  return lines;
}

/**
 * A recorder of `imports` failures on one line of `path`: `fail(message)` pushes a one-line `failure` finding into
 * `findings`. Shared by the JS/TS, Python and Go halves of the imports rule so that their findings look the same.
 */
export function importFailure(findings: Finding[], path: string, line: number): (message: string) => void {
  return (message) =>
    findings.push({ rule: "imports", path, start_line: line, end_line: line, level: "failure", message });
}

/**
 * The message for an import whose provider (`what`, e.g. `package "left-pad"`) only the same change declares (or, in
 * go.mod's words, `required`): a new dependency is for a human to vet, so the imports rule fails it rather than
 * waving it through.
 */
export function newDependencyMessage(shown: string, what: string, verb = "declared"): string {
  return `import "${shown}": ${what} is ${verb} by this same change; a new dependency needs a human to vet it`;
}
