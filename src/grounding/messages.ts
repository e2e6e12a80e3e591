import type { LostLine } from "./additive.js";
import type { NearestRegion } from "./diagnose.js";
import { numberLine } from "./lines.js";

/**
 * Model-facing rejection texts of `applyVerbatimEdit`. Each starts with "REJECTED: ", names the file when a path is
 * known, and says exactly how to fix the call in one retry. Quoted file lines use the `get_file_contents` format
 * `  12| text` and are capped (40 lines, 4,000 characters).
 */

const MAX_QUOTED_LINES = 40;
const MAX_QUOTED_CHARS = 4000;
const MAX_LISTED = 20;

const where = (path?: string) => (path ? ` in ${path}` : "");
const range = (a: number, b: number) => (a === b ? `line ${a}` : `lines ${a}-${b}`);

/** Lines of `text` numbered from `firstLine` as `  12| text`, capped; "\r" line endings are dropped. */
export function numberLines(text: string, firstLine: number): string {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const width = String(firstLine + lines.length - 1).length;
  const out: string[] = [];
  let chars = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = numberLine(firstLine + i, lines[i] ?? "", width);
    if (i >= MAX_QUOTED_LINES || chars + line.length > MAX_QUOTED_CHARS) {
      out.push(`  … (${lines.length - i} more lines)`);
      break;
    }
    out.push(line);
    chars += line.length + 1;
  }
  return out.join("\n");
}

/** reason "empty": code_before is blank. */
export const emptyMessage = () =>
  "REJECTED: code_before is empty or only whitespace. Set code_before to existing lines copied exactly from the file " +
  "(get_file_contents), next to which the new code goes.";

/** reason "no_change": code_after equals code_before. */
export const noChangeMessage = () =>
  "REJECTED: code_after is identical to code_before, so the edit changes nothing. Put the existing lines plus your " +
  "new lines in code_after.";

/** reason "binary": the file holds NUL bytes. */
export const binaryMessage = (path?: string) =>
  `REJECTED: the file${path ? ` ${path}` : ""} is binary (it ` +
  `contains NUL bytes) and cannot be edited. Choose a text file.`;

/** The edit is already in the file: `code_after` occurs there (`codeBeforeFound` false when code_before is gone). */
export const alreadyAppliedMessage = (path: string | undefined, start: number, end: number, codeBeforeFound: boolean) =>
  `REJECTED: ${codeBeforeFound ? "" : `code_before was not found${where(path)}, but `}code_after is already present` +
  `${codeBeforeFound ? where(path) : ""} at ${range(start, end)}: the edit was already applied. Do not repeat it; ` +
  `continue with the next step.`;

/** reason "not_found": the nearest region as `lines A-B`, the named cause, and the region's numbered lines to copy. */
export function notFoundMessage(path: string | undefined, nearest: NearestRegion | null): string {
  const head = `REJECTED: code_before was not found${where(path)}.`;
  if (!nearest) {
    return (
      `${head} No similar text is in the file. Read it with get_file_contents and copy code_before exactly ` +
      `(byte for byte, including indentation) from the lines you read.`
    );
  }
  const span = range(nearest.startLine, nearest.endLine);
  const quoted = numberLines(nearest.text, nearest.startLine);
  const why = nearest.cause ? `it differs only in ${nearest.cause}.` : "it differs in content.";
  return (
    `${head} The closest text is ${span}; ${why} Copy code_before exactly from these lines (without the "N| " ` +
    `prefixes):\n${quoted}`
  );
}

/** reason "ambiguous": the count and every start line (first 20 listed). */
export function ambiguousMessage(path: string | undefined, startLines: readonly number[]): string {
  const shown = startLines.slice(0, MAX_LISTED).join(", ");
  const more = startLines.length > MAX_LISTED ? ` and ${startLines.length - MAX_LISTED} more` : "";
  return (
    `REJECTED: code_before occurs ${startLines.length} times${where(path)} ` +
    `(starting at lines ${shown}${more}); it must occur exactly once. ` +
    "Add neighbouring lines to code_before (and the same lines to code_after) so it matches only the place you mean."
  );
}

/** reason "not_additive": each existing line the edit would remove or alter, numbered (first 20 listed). */
export function notAdditiveMessage(path: string | undefined, lost: readonly LostLine[]): string {
  const listed = lost
    .slice(0, MAX_LISTED)
    .map((l) => `  ${l.line}| ${l.text}`)
    .join("\n");
  const more = lost.length > MAX_LISTED ? `\n  … (${lost.length - MAX_LISTED} more lines)` : "";
  return (
    `REJECTED: only additions are allowed, but this edit${where(path)} removes or changes ` +
    `${lost.length === 1 ? "this existing line" : `these ${lost.length} existing lines`}:\n` +
    `${listed}${more}\n` +
    "Keep every line of code_before, unchanged and in the same order, in code_after, and only add new lines around " +
    "or between them."
  );
}
