import { lostLines } from "./additive.js";
import { nearestRegion, regionText, type NearestRegion } from "./diagnose.js";
import { isAllCrlf, lineAt } from "./lines.js";
import {
  alreadyAppliedMessage,
  ambiguousMessage,
  binaryMessage,
  emptyMessage,
  noChangeMessage,
  notAdditiveMessage,
  notFoundMessage,
} from "./messages.js";
import { spanDiff } from "./unified-diff.js";
import { locateVerbatim, searchForm, type VerbatimMatch } from "./verbatim.js";

/** Why an edit was refused; see {@link applyVerbatimEdit}. */
export type VerbatimRejection = "empty" | "no_change" | "binary" | "not_found" | "ambiguous" | "not_additive";

/**
 * The outcome of {@link applyVerbatimEdit}.
 * - ok: the new file `content`, the 1-based inclusive lines of the matched span in the ORIGINAL file, whether the edit
 *   only adds lines (`addition`) or removes/alters some (`modification`), and the unified `diff` (see `spanDiff`).
 * - not ok: `reason`, a model-facing `message` starting "REJECTED: " that says how to fix the call, and per reason:
 *   `nearest` (not_found: the closest real region and the named cause), `occurrences` (ambiguous: every start line),
 *   `lostLines` (not_additive: the text of each existing line the edit would remove or alter), `present` (not_found
 *   or no_change: `code_after` is already in the file at these 1-based inclusive lines, i.e. the edit was applied).
 */
export type VerbatimEditResult =
  | { ok: true; content: string; startLine: number; endLine: number; kind: "addition" | "modification"; diff: string }
  | {
      ok: false;
      reason: VerbatimRejection;
      message: string;
      nearest?: NearestRegion;
      occurrences?: number[];
      lostLines?: string[];
      present?: { startLine: number; endLine: number };
    };

/**
 * Options of {@link applyVerbatimEdit}: `allow` defaults to "additions"; `path` names the file in messages and diff
 * headers.
 */
export interface VerbatimEditOptions {
  allow?: "additions" | "modifications";
  path?: string;
}

/**
 * Replace the one verbatim occurrence of `edit.code_before` in `content` with `edit.code_after`.
 *
 * Checks, in order: `empty` (code_before empty or whitespace only), `no_change` (code_after equals code_before, or
 * code_after is already in the file around the match: the edit was applied before), `binary` (content holds NUL),
 * `not_found` (no occurrence: names the nearest region and cause, or that code_after is already present),
 * `ambiguous` (more than one occurrence, overlapping ones counted), `not_additive` (with allow "additions", the
 * default, when a line of the file would be removed or altered: code_after must keep every line of code_before, in
 * order).
 *
 * Byte preservation: the new content is `content.slice(0, offset) + inserted + content.slice(end)` (no
 * `String.prototype.replace`, so `$&`, `$'`, `$$` and backslashes are inserted literally); BOM, final newline, tabs and
 * unicode outside the span are untouched. Matching is exact except that in a file whose every line break is CRLF,
 * code_before matches with CRLF→LF on both sides and code_after is written with CRLF line breaks.
 */
export function applyVerbatimEdit(
  content: string,
  edit: { code_before: string; code_after: string },
  options: VerbatimEditOptions = {},
): VerbatimEditResult {
  const { code_before: before, code_after: after } = edit;
  const path = options.path;
  if (before.trim() === "") return { ok: false, reason: "empty", message: emptyMessage() };
  if (after === before) return { ok: false, reason: "no_change", message: noChangeMessage() };
  if (content.includes("\0")) return { ok: false, reason: "binary", message: binaryMessage(path) };

  const crlf = isAllCrlf(content);
  const matches = locateVerbatim(content, before);
  const match = matches[0];
  if (!match) {
    const done = substantial(after) ? alreadyThere(content, after) : undefined;
    if (done) {
      const nearest: NearestRegion = {
        startLine: done.startLine,
        endLine: done.endLine,
        text: regionText(content, done.startLine, done.endLine),
        cause: "code_after is already present (the edit was already applied)",
      };
      return {
        ok: false,
        reason: "not_found",
        message: alreadyAppliedMessage(path, done.startLine, done.endLine, false),
        nearest,
        present: { startLine: done.startLine, endLine: done.endLine },
      };
    }
    const nearest = nearestRegion(content, before);
    return { ok: false, reason: "not_found", message: notFoundMessage(path, nearest), ...(nearest ? { nearest } : {}) };
  }
  if (matches.length > 1) {
    const occurrences = matches.map((m) => m.startLine);
    return { ok: false, reason: "ambiguous", message: ambiguousMessage(path, occurrences), occurrences };
  }

  const inserted = crlf ? after.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n") : after;
  const end = match.offset + match.length;
  const around = after.trim() === "" ? undefined : enclosing(content, after, crlf, match.offset, end);
  if (inserted === content.slice(match.offset, end))
    return { ok: false, reason: "no_change", message: noChangeMessage() };
  if (around) {
    return {
      ok: false,
      reason: "no_change",
      message: alreadyAppliedMessage(path, around.startLine, around.endLine, true),
      present: { startLine: around.startLine, endLine: around.endLine },
    };
  }
  const lost = lostLines(content, match.offset, match.length, inserted);
  if (lost.length > 0 && (options.allow ?? "additions") === "additions") {
    return {
      ok: false,
      reason: "not_additive",
      message: notAdditiveMessage(path, lost),
      lostLines: lost.map((l) => l.text),
    };
  }
  return {
    ok: true,
    content: content.slice(0, match.offset) + inserted + content.slice(end),
    startLine: match.startLine,
    endLine: match.endLine,
    kind: lost.length > 0 ? "modification" : "addition",
    diff: spanDiff(path ?? "file", content, match.offset, match.length, inserted, crlf),
  };
}

/**
 * Whether `code_after` is distinctive enough that finding it in the file (while code_before is absent) means the edit
 * was already applied: at least 12 non-space characters or two non-blank lines. A short `code_after` such as "}" or
 * "x" occurs by chance.
 */
function substantial(text: string): boolean {
  const nonBlank = text.split("\n").filter((l) => l.trim() !== "").length;
  return nonBlank >= 2 || text.replace(/\s+/g, "").length >= 12;
}

/** The first occurrence of `after` that spans whole lines (of at most 1,000 occurrences looked at). */
function alreadyThere(content: string, after: string): VerbatimMatch | undefined {
  let seen = 0;
  for (const m of locateVerbatim(content, after)) {
    if (isWholeLines(content, m.offset, m.offset + m.length)) return m;
    if (++seen >= 1000) break;
  }
  return undefined;
}

/**
 * An occurrence of `after` (in the file's search form, see `searchForm`) that contains the span `from..to`: the edit
 * was applied before. Only the neighbourhood of the span is searched.
 */
function enclosing(content: string, after: string, crlf: boolean, from: number, to: number): VerbatimMatch | undefined {
  const needle = searchForm(content, after, crlf);
  if (needle === null || needle.length < to - from) return undefined;
  for (
    let o = content.indexOf(needle, Math.max(0, to - needle.length));
    o !== -1 && o <= from;
    o = content.indexOf(needle, o + 1)
  ) {
    if (o + needle.length >= to) {
      const startLine = lineAt(content, o);
      return { offset: o, length: needle.length, startLine, endLine: lineAt(content, o + needle.length - 1) };
    }
  }
  return undefined;
}

/** True when `content.slice(from, to)` spans whole lines, ignoring indentation before it and spaces after it. */
function isWholeLines(content: string, from: number, to: number): boolean {
  const lineStart = content.lastIndexOf("\n", from - 1) + 1;
  if (content.slice(lineStart, from).trim() !== "") return false;
  if (to === 0 || content[to - 1] === "\n") return true;
  const nl = content.indexOf("\n", to);
  return content.slice(to, nl === -1 ? content.length : nl).trim() === "";
}
