/**
 * The structured answers of the tools: the objects a tool renders into the text a model reads. A tool call's
 * {@link ToolResult} carries both (`text` and `data`); a model that reads text reads `text`, the heuristic model
 * reads `data`, and both come from the same object, so neither can drift from the other.
 *
 * Every string in `data` is redacted like the text (see {@link redactData}); a line of a file window that a
 * multi-line secret touches is replaced by `[redacted]` and marked clipped (never usable as a verbatim anchor).
 */
import { numberLine } from "../grounding/lines.js";
import { findSecrets, REDACTED, redactSecrets } from "../grounding/secrets.js";
import type { OwnPackage } from "./manifests.js";

/** One line of a file as `get_file_contents` quotes it: 1-based number, text (clipped at the line cap when `clipped`). */
export interface WindowLine {
  line: number;
  text: string;
  /** The tool cut this line at its cap, or redacted it: not the file's text, never an anchor. */
  clipped: boolean;
}

/** One definition site of a symbol, as `verify_symbol_in_repo` lists it. */
export interface DefinitionSite {
  path: string;
  line: number;
  /** Last line of the definition, when the symbol index knows it. */
  endLine: number | null;
  /** `function`, `method`, `class`, … as the symbol index names it. */
  kind: string;
}

/** The structured answer of one tool call, by tool (`tool` is the tool's name). */
export type ToolData =
  | { tool: "describe_repo"; ownPackages: OwnPackage[] }
  | { tool: "list_files"; glob: string | null; total: number; offset: number; paths: string[] }
  | { tool: "get_file_contents"; path: string; startLine: number; endLine: number; totalLines: number; lines: WindowLine[] }
  | { tool: "grep_codebase"; total: number; hits: { path: string; line: number; text: string }[] }
  | { tool: "search_codebase"; files: string[] }
  | { tool: "verify_symbol_in_repo"; found: boolean; sites: DefinitionSite[] };

/** The numbered lines of a file window, one {@link numberLine} each, aligned to the widest number. */
export function renderWindowLines(lines: readonly WindowLine[]): string[] {
  const width = String(lines[lines.length - 1]?.line ?? 0).length;
  return lines.map((l) => numberLine(l.line, l.text, width));
}

/**
 * `data` with every string redacted as {@link redactSecrets} redacts text. For a file window, a secret that spans
 * lines (a PEM block) is looked for in the joined lines too, and every line it touches becomes `[redacted]`, clipped.
 */
export function redactData(data: ToolData): ToolData {
  const deep = (v: unknown): unknown => {
    if (typeof v === "string") return redactSecrets(v).text;
    if (Array.isArray(v)) return v.map(deep);
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deep(x)]));
    return v;
  };
  if (data.tool !== "get_file_contents") return deep(data) as ToolData;
  const joined = data.lines.map((l) => l.text).join("\n");
  const hidden = new Set<number>();
  for (const s of findSecrets(joined)) {
    if (!s.match.includes("\n")) continue;
    const first = joined.slice(0, s.index).split("\n").length - 1;
    const last = first + s.match.split("\n").length - 1;
    for (let i = first; i <= last; i++) hidden.add(i);
  }
  const lines = data.lines.map((l, i) => (hidden.has(i) ? { ...l, text: REDACTED, clipped: true } : { ...l, text: redactSecrets(l.text).text }));
  return { ...data, path: redactSecrets(data.path).text, lines };
}
