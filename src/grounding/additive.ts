import { diffArrays } from "diff";
import { BOM, lineAt, lineEndAfter, lineStartOf } from "./lines.js";

/** A line of the original file that an edit would remove or alter: its 1-based number and its text (no line break). */
export interface LostLine {
  line: number;
  text: string;
}

/**
 * The lines of the file that replacing `content.slice(offset, offset + length)` with `inserted` would remove or alter.
 * An empty answer means the edit is an addition: every whole line touched by the span survives, unchanged and in order,
 * as a subsequence of the new lines (new lines may be added anywhere between them).
 *
 * The comparison is over whole FILE lines, not snippet lines: the span is widened to the lines it touches (and to one
 * more line when the inserted text would join the next line onto its last line), so a partial-line `code_before`
 * cannot hide a change to the rest of its line. Lines are compared byte for byte, line-ending "\r" included; the
 * reported text drops the "\r". Uses jsdiff's `diffArrays` (Myers' minimal edit script) on the widened region only.
 * A byte-order mark at offset 0 that the span leaves alone is no text of line 1 (it stays in front of the file), so
 * text inserted right after it is new lines before line 1, not a change of line 1.
 */
export function lostLines(content: string, offset: number, length: number, inserted: string): LostLine[] {
  return lineChanges(...afterBom(content, offset), length, inserted).lost;
}

/**
 * The 1-based line numbers, in the file after the edit, of the lines that replacing
 * `content.slice(offset, offset + length)` with `inserted` adds (same widened-region comparison as {@link lostLines}).
 * For an addition (no lost lines), removing exactly these lines from the new file gives back `content`.
 */
export function addedLineNumbers(content: string, offset: number, length: number, inserted: string): number[] {
  return lineChanges(...afterBom(content, offset), length, inserted).added;
}

/** `content` and `offset` past a byte-order mark at offset 0 that the span starting at `offset` leaves alone. */
function afterBom(content: string, offset: number): [string, number] {
  return offset > 0 && content.startsWith(BOM) ? [content.slice(1), offset - 1] : [content, offset];
}

/**
 * The 1-based lines of `after` that an edit of lines `startLine..endLine` of `before` added: the two files are compared
 * over that span plus one line of margin on each side (jsdiff's `diffArrays`), so the cost does not grow with the file.
 * For an addition, removing exactly these lines from `after` gives back `before`. When both start with a byte-order
 * mark, it is no text of line 1 on either side (lines added before line 1 are added lines, line 1 is not changed);
 * a BOM only one side has is text of its line 1, so adding or removing one changes that line.
 */
export function addedLinesBetween(before: string, after: string, startLine: number, endLine: number): number[] {
  const [a, b] = sharedBomOff(before, after).map(rawLines) as [string[], string[]];
  const from = Math.max(0, startLine - 2);
  const delta = b.length - a.length;
  const to = Math.min(a.length, endLine + 1);
  const added: number[] = [];
  let at = from;
  for (const change of diffArrays(a.slice(from, to), b.slice(from, Math.max(from, to + delta)))) {
    if (change.added) for (let k = 0; k < change.count; k++) added.push(at + k + 1);
    if (!change.removed) at += change.count;
  }
  return added;
}

function lineChanges(
  content: string,
  offset: number,
  length: number,
  inserted: string,
): { lost: LostLine[]; added: number[] } {
  const spanEnd = offset + length;
  const from = lineStartOf(content, offset);
  let to = lineEndAfter(content, spanEnd);
  let oldRegion = content.slice(from, to);
  let newRegion = content.slice(from, offset) + inserted + content.slice(spanEnd, to);
  if (to < content.length && newRegion.length > 0 && !newRegion.endsWith("\n")) {
    // The inserted text does not end its line: the next file line is joined onto it, so compare that line too.
    const nl = content.indexOf("\n", to);
    const next = nl === -1 ? content.length : nl + 1;
    oldRegion += content.slice(to, next);
    newRegion += content.slice(to, next);
    to = next;
  }
  const firstLine = lineAt(content, from);
  const lost: LostLine[] = [];
  const added: number[] = [];
  let index = 0;
  let newIndex = 0;
  for (const change of diffArrays(rawLines(oldRegion), rawLines(newRegion))) {
    if (change.added) {
      for (let k = 0; k < change.count; k++) added.push(firstLine + newIndex + k);
      newIndex += change.count;
      continue;
    }
    if (change.removed) {
      change.value.forEach((text, k) => lost.push({ line: firstLine + index + k, text: text.replace(/\r$/, "") }));
    } else newIndex += change.count;
    index += change.count;
  }
  return { lost, added };
}

/** Lines split at "\n" only, each keeping a trailing "\r"; a final "\n" does not start another line. */
function rawLines(text: string): string[] {
  if (text.length === 0) return [];
  const lines = text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  return lines;
}

/**
 * `before` and `after` without their byte-order mark when BOTH start with one (the file kept its mark: it is no line
 * text on either side), else as they are (a mark one side gained or lost is text of its line 1, a change).
 */
export function sharedBomOff(before: string, after: string): [string, string] {
  return before.startsWith(BOM) && after.startsWith(BOM) ? [before.slice(1), after.slice(1)] : [before, after];
}
