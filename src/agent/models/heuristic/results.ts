/**
 * Reading tool answers as text, the way any model must (the heuristic has no snapshot: only tool results).
 * Formats follow the read tools (issue 3): numbered lines `  12| text`, grep hits `path:line: text`,
 * rejections starting with `REJECTED:`, NOT_FOUND answers starting with `NOT_FOUND`.
 * Parsers are lenient: unknown lines are ignored, never thrown on.
 */

/** Lines a `get_file_contents` answer quoted, by 1-based line number; lines cut by the tool's line cap are marked. */
export interface FileWindow {
  lines: Map<number, string>;
  /** Line numbers whose text the tool clipped (`… (N more characters)`): not usable as verbatim anchors. */
  clipped: Set<number>;
  /** Total lines of the file, when the answer says (`of N lines`, `N lines`). */
  totalLines: number | null;
}

/** Parse a `get_file_contents` answer: every `  12| text` line (one space after `|` removed), plus the total. */
export function parseFileWindow(text: string): FileWindow {
  const lines = new Map<number, string>();
  const clipped = new Set<number>();
  let totalLines: number | null = null;
  for (const raw of text.split("\n")) {
    const m = /^ *(\d+)\| ?(.*)$/.exec(raw);
    if (m) {
      const n = Number(m[1]);
      const body = m[2] ?? "";
      lines.set(n, body);
      if (/ … \(\d+ more characters\)$/.test(body)) clipped.add(n);
      continue;
    }
    const total = /\bof (\d+)(?: lines?)?\b|\b(\d+) lines? (?:in total|total)\b|\btotal[: ]+(\d+) lines?\b|\((\d+) lines?\)/i.exec(raw);
    if (total && totalLines === null) totalLines = Number(total[1] ?? total[2] ?? total[3] ?? total[4]);
  }
  if (totalLines === null && lines.size > 0 && lines.has(1)) {
    // No total given: assume the window is the whole file only when nothing says more lines follow.
    if (!/more (?:lines? )?not shown|\bcapped\b|start_line|end_line/i.test(text)) totalLines = Math.max(...lines.keys());
  }
  return { lines, clipped, totalLines };
}

/** True when the window holds every line of the file (1..totalLines). */
export function coversWholeFile(w: FileWindow): boolean {
  if (w.totalLines === null) return false;
  for (let i = 1; i <= w.totalLines; i++) if (!w.lines.has(i)) return false;
  return true;
}

/** The file's text (lines joined with `\n`) when the window holds every line of it (see {@link coversWholeFile}), else null. */
export function wholeFileText(w: FileWindow): string | null {
  if (!coversWholeFile(w)) return null;
  return Array.from({ length: w.totalLines ?? 0 }, (_, i) => w.lines.get(i + 1) ?? "").join("\n");
}

/** One grep hit. */
export interface GrepHit {
  path: string;
  line: number;
  text: string;
}

/** Parse `path:line: text` hits of a `grep_codebase` answer. */
export function parseGrepHits(text: string): GrepHit[] {
  const hits: GrepHit[] = [];
  for (const raw of text.split("\n")) {
    const m = /^([^\s:][^:]*?):(\d+):(?: (.*)|)$/.exec(raw);
    if (m?.[1]) hits.push({ path: m[1], line: Number(m[2]), text: m[3] ?? "" });
  }
  return hits;
}

/** Repository paths quoted in an answer (list_files, search_codebase, describe_repo, NOT_FOUND suggestions), in order. */
export function parsePaths(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?:^|[\s,(`'"[])((?:[\w.@+-]+\/)*[\w.@+-]*\w\.[A-Za-z0-9]{1,8})(?=$|[\s,):`'"\]])/gm)) {
    const p = m[1] ?? "";
    if (p.includes("..") || /^v?\d+(?:\.\d+)*$/.test(p) || /^\d/.test(p)) continue;
    if (!out.includes(p)) out.push(p);
  }
  return out;
}

/**
 * Paths of a `list_files` answer: one path per line (`path`, `path [binary, 2 KB]`, `path -> target [symlink]`);
 * a path may contain spaces (`src/my dir/a b.py`). The header (`N paths match …`) and the `… N more` line are skipped.
 */
export function parseListedPaths(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    if (/^\s*$|^\s|^…|^\d+ (?:paths? match|files?)\b/.test(raw)) continue;
    const p = raw.replace(/ -> .*$/, "").replace(/\s+\[[^\]]*\]\s*$/, "").trimEnd();
    if (/^['"`]/.test(p) || p.endsWith(":") || !/[\w-]\.[\w]+$|\//.test(p) || out.includes(p)) continue;
    out.push(p);
  }
  return out;
}

/** Definition sites of a `verify_symbol_in_repo` FOUND answer (`path:line[-end] kind`), in order. */
export function parseDefinitionSites(text: string): { path: string; line: number; endLine: number | null }[] {
  if (!/^\s*FOUND\b/.test(text)) return [];
  const out: { path: string; line: number; endLine: number | null }[] = [];
  for (const raw of text.split("\n").slice(1)) {
    const m = /^\s*(?:[-*]\s+)?(.+?):(\d+)(?:-(\d+))?\s+\S/.exec(raw);
    if (m?.[1]) out.push({ path: m[1], line: Number(m[2]), endLine: m[3] ? Number(m[3]) : null });
  }
  return out;
}

/** Ranked file paths of a `search_codebase` answer (`1. path — why` lines before the `Symbols` section), best first. */
export function parseSearchFiles(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    if (/^Symbols\b/.test(raw)) break;
    const m = /^\s*\d+\.\s+(\S+)\s+—/.exec(raw);
    if (m?.[1] && !out.includes(m[1])) out.push(m[1]);
  }
  return out.length ? out : parsePaths(text);
}

/** True when a tool answer is a rejection by a gate or the verbatim rule. */
export function isRejected(text: string): boolean {
  return /^\s*REJECTED\b/.test(text);
}

/** True when a tool answer says the thing asked for does not exist (or the arguments were invalid). */
export function isNotFound(text: string): boolean {
  return /^\s*(?:NOT_FOUND|NOT FOUND|INVALID)\b/.test(text);
}

/** True when a `suggest_addition` answer says the edit was applied. */
export function isApplied(text: string): boolean {
  return /^\s*APPLIED\b/.test(text) || (!isRejected(text) && !isNotFound(text) && /^@@ /m.test(text));
}

/** Why an edit was rejected, in the terms the heuristic can act on. */
export type EditRejection = "ambiguous" | "unread" | "not_found" | "policy" | "budget" | "other";

/** Classify a `suggest_addition` rejection from its text. */
export function classifyEditRejection(text: string): EditRejection {
  const t = text.toLowerCase();
  if (/may not be edited|secret file|not a text file|deny rule|outside paths\.allow|not a file in the repository/.test(t)) return "policy";
  if (/at most \d+ (?:file|added line)/.test(t)) return "budget";
  if (/have not read|not read line|call get_file_contents/.test(t)) return "unread";
  if (/ambiguous|more than once|occurs \d+ times|\d+ times|exactly once/.test(t) && !/not found/.test(t)) return "ambiguous";
  if (/not found|closest|differs/.test(t)) return "not_found";
  return "other";
}

/** Parse a `verify_symbol_in_repo` answer: found or not, and the paths it names. */
export function parseVerify(text: string): { found: boolean; paths: string[] } {
  const found = /^\s*FOUND\b/.test(text) || (/\bFOUND\b/.test(text) && !/NOT_FOUND|NOT FOUND/.test(text));
  return { found, paths: parsePaths(text) };
}
