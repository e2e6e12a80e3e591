import { lostLines } from "./additive.js";
import { nearestRegion, regionText, type NearestRegion } from "./diagnose.js";
import { BOM, isAllCrlf, lineAt, splitBom } from "./lines.js";
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
 *   only adds lines (`addition`) or removes/alters some (`modification`), the unified `diff` (see `spanDiff`; of a
 *   file that starts with a byte-order mark, the diff of the text after it: the BOM shows on no line), and `edit`,
 *   the code_before/code_after that were applied (the given ones, or without a copy of the file's BOM, see below).
 * - not ok: `reason`, a model-facing `message` starting "REJECTED: " that says how to fix the call, and per reason:
 *   `nearest` (not_found: the closest real region and the named cause), `occurrences` (ambiguous: every start line),
 *   `lostLines` (not_additive: the text of each existing line the edit would remove or alter), `present` (not_found
 *   or no_change: `code_after` is already in the file at these 1-based inclusive lines, i.e. the edit was applied).
 */
export type VerbatimEditResult =
  | {
      ok: true;
      content: string;
      startLine: number;
      endLine: number;
      kind: "addition" | "modification";
      diff: string;
      edit: { code_before: string; code_after: string };
    }
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
 * `String.prototype.replace`, so `$&`, `$'`, `$$` and backslashes are inserted literally); final newline, tabs and
 * unicode outside the span are untouched. Matching is exact except that in a file whose every line break is CRLF,
 * code_before matches with CRLF→LF on both sides and code_after is written with CRLF line breaks.
 *
 * A byte-order mark at offset 0 (U+FEFF, `splitBom` of src/grounding/lines.ts) is the file's, not text of line 1: the
 * edit is matched and checked on the text after it, and the new content is that mark plus the edited text, so lines
 * added before line 1 go after the BOM and the file keeps exactly one BOM at offset 0. A `code_before` that copies
 * the BOM with line 1 is read without it (and `code_after` without its one copy at the start of a line), so an edit
 * can neither remove nor move the BOM (`code_before` "\uFEFFx" → `code_after` "x" is `no_change`). Any other U+FEFF
 * is text: a `code_after` that adds one adds it to a line.
 */
export function applyVerbatimEdit(
  content: string,
  edit: { code_before: string; code_after: string },
  options: VerbatimEditOptions = {},
): VerbatimEditResult {
  const path = options.path;
  if (edit.code_before.trim() === "") return { ok: false, reason: "empty", message: emptyMessage() };
  if (edit.code_after === edit.code_before) return { ok: false, reason: "no_change", message: noChangeMessage() };
  if (content.includes("\0")) return { ok: false, reason: "binary", message: binaryMessage(path) };

  // A byte-order mark is the file's, not text of line 1: the edit is matched, compared and diffed on the body after
  // it, and the mark is put back in front, so it stays exactly once at offset 0 whatever the edit adds before line 1.
  const { bom, body } = splitBom(content);
  const copied = bom ? copiedBom(content, edit) : undefined;
  const { code_before: before, code_after: after } = copied?.edit ?? edit;
  if (after === before) return { ok: false, reason: "no_change", message: noChangeMessage() };

  const crlf = isAllCrlf(body);
  const matches = copied?.matches ?? locateVerbatim(body, before);
  const match = matches[0];
  if (!match) {
    const done = substantial(after) ? alreadyThere(body, after) : undefined;
    if (done) {
      const nearest: NearestRegion = {
        startLine: done.startLine,
        endLine: done.endLine,
        text: regionText(body, done.startLine, done.endLine),
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
    const nearest = nearestRegion(body, before);
    return { ok: false, reason: "not_found", message: notFoundMessage(path, nearest), ...(nearest ? { nearest } : {}) };
  }
  if (matches.length > 1) {
    const occurrences = matches.map((m) => m.startLine);
    return { ok: false, reason: "ambiguous", message: ambiguousMessage(path, occurrences), occurrences };
  }

  const inserted = crlf ? after.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n") : after;
  const end = match.offset + match.length;
  const around = after.trim() === "" ? undefined : enclosing(body, after, crlf, match.offset, end);
  if (inserted === body.slice(match.offset, end)) return { ok: false, reason: "no_change", message: noChangeMessage() };
  if (around) {
    return {
      ok: false,
      reason: "no_change",
      message: alreadyAppliedMessage(path, around.startLine, around.endLine, true),
      present: { startLine: around.startLine, endLine: around.endLine },
    };
  }
  const lost = lostLines(content, bom.length + match.offset, match.length, inserted);
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
    content: bom + body.slice(0, match.offset) + inserted + body.slice(end),
    startLine: match.startLine,
    endLine: match.endLine,
    kind: lost.length > 0 ? "modification" : "addition",
    diff: spanDiff(path ?? "file", body, match.offset, match.length, inserted, crlf),
    edit: { code_before: before, code_after: after },
  };
}

/**
 * For a file that starts with a byte-order mark: when `code_before` starts with U+FEFF and occurs at offset 0 (the
 * model copied line 1 with the file's BOM), the edit without that copy — `code_before` without its first character,
 * `code_after` without its one U+FEFF when it has exactly one, at the start of a line (wherever the model put the
 * copied line, even after new lines: the file's BOM stays at offset 0 and is never moved) — and its matches in the
 * body (the one at offset 0 shortened by the BOM; others, at a U+FEFF inside the file, are kept for the ambiguity
 * message). Otherwise undefined: the edit is matched on the body as it is, so a U+FEFF of `code_before` matches only
 * a U+FEFF inside the file, and one of `code_after` is text the edit adds (refused by the added-text check of
 * src/tools/suggest-addition.ts, or as a changed line).
 */
function copiedBom(
  content: string,
  edit: { code_before: string; code_after: string },
): { edit: { code_before: string; code_after: string }; matches: VerbatimMatch[] } | undefined {
  if (!edit.code_before.startsWith(BOM)) return undefined;
  const found = locateVerbatim(content, edit.code_before);
  if (found[0]?.offset !== 0) return undefined;
  const marks = [...edit.code_after.matchAll(/\uFEFF/g)].map((m) => m.index);
  const at = marks.length === 1 ? marks[0]! : -1;
  const after =
    at === 0 || (at > 0 && edit.code_after[at - 1] === "\n")
      ? edit.code_after.slice(0, at) + edit.code_after.slice(at + 1)
      : edit.code_after;
  const matches = found.map((m) => (m.offset === 0 ? { ...m, length: m.length - 1 } : { ...m, offset: m.offset - 1 }));
  return { edit: { code_before: edit.code_before.slice(1), code_after: after }, matches };
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
