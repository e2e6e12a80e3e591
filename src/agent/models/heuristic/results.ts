/**
 * Reading tool answers for the heuristic: the structured answers the read tools attach to their text
 * (`data`, see src/tools/results.ts), never the text parsed back. An answer without data (an invalid call, a
 * not-served file, a tool that has none) reads as "nothing known". Only `suggest_addition` and `submit_answer`
 * rejections are classified from their text: they are gate messages written for any model, with no object behind.
 */
import type { DefinitionSite, ToolData } from "../../../tools/results.js";
import { dataOf, type Step } from "./history.js";

/** Lines a `get_file_contents` answer quoted, by 1-based line number; lines cut by the tool's line cap are marked. */
export interface FileWindow {
  lines: Map<number, string>;
  /** Line numbers whose text the tool clipped or redacted: not usable as verbatim anchors. */
  clipped: Set<number>;
  /** Total lines of the file, when a read said. */
  totalLines: number | null;
}

type Of<T extends ToolData["tool"]> = Extract<ToolData, { tool: T }>;

/** The structured answer of a step when it is one of tool `tool`'s, else null. */
export function answerOf<T extends ToolData["tool"]>(step: Step, tool: T): Of<T> | null {
  return step.data?.tool === tool ? (step.data as Of<T>) : null;
}

/** Every line of `path` the reads so far have shown (later answers override earlier ones). */
export function knownLines(steps: readonly Step[], path: string): FileWindow {
  const merged: FileWindow = { lines: new Map(), clipped: new Set(), totalLines: null };
  for (const s of steps) {
    const w = answerOf(s, "get_file_contents");
    if (!w || w.path !== path) continue;
    for (const l of w.lines) {
      merged.lines.set(l.line, l.text);
      if (l.clipped) merged.clipped.add(l.line);
      else merged.clipped.delete(l.line);
    }
    merged.totalLines = w.totalLines;
  }
  return merged;
}

/** True when the window holds every line of the file (1..totalLines). */
export function coversWholeFile(w: FileWindow): boolean {
  if (w.totalLines === null) return false;
  for (let i = 1; i <= w.totalLines; i++) if (!w.lines.has(i)) return false;
  return true;
}

/**
 * The file's text (lines joined with `\n`) when the window holds every line of it (see {@link coversWholeFile}), else
 * null.
 */
export function wholeFileText(w: FileWindow): string | null {
  if (!coversWholeFile(w)) return null;
  return Array.from({ length: w.totalLines ?? 0 }, (_, i) => w.lines.get(i + 1) ?? "").join("\n");
}

/** The paths a `list_files(args)` call listed, or null when it was not made or gave no listing. */
export function listedPaths(steps: readonly Step[], args: Record<string, unknown>): string[] | null {
  return dataOf(steps, "list_files", args, "list_files")?.paths ?? null;
}

/** The hits of a `grep_codebase(args)` call (null when not made) and its total count. */
export function grepHits(
  steps: readonly Step[],
  args: Record<string, unknown>,
): { hits: { path: string; line: number; text: string }[]; total: number } | null {
  const d = dataOf(steps, "grep_codebase", args, "grep_codebase");
  return d ? { hits: d.hits, total: d.total } : null;
}

/** The definition sites a `verify_symbol_in_repo(args)` answer found ([] for NOT_FOUND), or null when not made. */
export function definitionSites(steps: readonly Step[], args: Record<string, unknown>): DefinitionSite[] | null {
  const d = dataOf(steps, "verify_symbol_in_repo", args, "verify_symbol_in_repo");
  return d ? d.sites : null;
}

/** Ranked file paths of a `search_codebase(args)` answer, best first; null when not made. */
export function searchFiles(steps: readonly Step[], args: Record<string, unknown>): string[] | null {
  return dataOf(steps, "search_codebase", args, "search_codebase")?.files ?? null;
}

/** True when a tool answer is a rejection by a gate or the verbatim rule. */
export function isRejected(text: string): boolean {
  return /^\s*REJECTED\b/.test(text);
}

/** True when a `suggest_addition` answer says the edit was applied. */
export function isApplied(text: string): boolean {
  return /^\s*APPLIED\b/.test(text);
}

/** Why an edit was rejected, in the terms the heuristic can act on. */
export type EditRejection = "ambiguous" | "unread" | "not_found" | "policy" | "budget" | "other";

/** Classify a `suggest_addition` rejection from its text. */
export function classifyEditRejection(text: string): EditRejection {
  const t = text.toLowerCase();
  if (
    /may not be edited|secret file|not a text file|deny rule|outside paths\.allow|not a file in the repository/.test(t)
  )
    return "policy";
  if (/at most \d+ (?:file|added line)/.test(t)) return "budget";
  if (/have not read|not read line|call get_file_contents/.test(t)) return "unread";
  if (/ambiguous|more than once|occurs \d+ times|\d+ times|exactly once/.test(t) && !/not found/.test(t))
    return "ambiguous";
  if (/not found|closest|differs/.test(t)) return "not_found";
  return "other";
}
