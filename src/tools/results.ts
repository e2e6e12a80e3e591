/**
 * The structured answers of the tools: the objects a tool renders into the text a model reads. A tool call's
 * {@link ToolResult} carries both (`text` and `data`); a model that reads text reads `text`, the heuristic model
 * reads `data`, and both come from the same object, so neither can drift from the other.
 *
 * Every string in `data` is redacted like the text (see {@link redactData}); a line of a file window that holds a
 * redacted secret is marked clipped (never usable as a verbatim anchor).
 */
import { numberLine } from "../grounding/lines.js";
import { REDACTED, redactDeep } from "../grounding/secrets.js";
import type { OwnPackage } from "./manifests.js";

/**
 * One line of a file as `get_file_contents` quotes it: 1-based number, text (clipped at the line cap when `clipped`).
 */
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
  | {
      tool: "get_file_contents";
      path: string;
      startLine: number;
      endLine: number;
      totalLines: number;
      lines: WindowLine[];
    }
  | { tool: "grep_codebase"; total: number; hits: { path: string; line: number; text: string }[] }
  | { tool: "search_codebase"; files: string[] }
  | { tool: "verify_symbol_in_repo"; found: boolean; sites: DefinitionSite[] };

/** The numbered lines of a file window, one {@link numberLine} each, aligned to the widest number. */
export function renderWindowLines(lines: readonly WindowLine[]): string[] {
  const width = String(lines[lines.length - 1]?.line ?? 0).length;
  return lines.map((l) => numberLine(l.line, l.text, width));
}

/**
 * `data` with every string redacted as the text is (`redactDeep`). A file window line that holds `[redacted]` (the
 * tools serve redacted text, a key block line by line) is not the file's text: it is marked clipped, never an anchor.
 */
export function redactData(data: ToolData): ToolData {
  const out = redactDeep(data);
  if (out.tool !== "get_file_contents") return out;
  return { ...out, lines: out.lines.map((l) => (l.text.includes(REDACTED) ? { ...l, clipped: true } : l)) };
}
