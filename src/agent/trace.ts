import { githubWebUrl } from "../grounding/permalink.js";
import { inertMarkdown, withoutUnseen } from "../grounding/posted.js";
import type { GateName, Outcome, ToolStatus } from "../types.js";
import type { InputRemoved } from "./hygiene.js";
import type { TurnUsage } from "./models/types.js";

/** Longest tool result / model text kept per entry in a trace (characters); the model saw the full text. */
export const TRACE_TEXT_LIMIT = 2000;

/** One tool call of a step, as dispatched and as answered. */
export interface TraceToolCall {
  id: string;
  name: string;
  /** The arguments the model sent (long strings cut to {@link TRACE_TEXT_LIMIT} characters). */
  arguments: unknown;
  status: ToolStatus;
  /** The gate that refused the call, when one did. */
  gate?: GateName;
  /** The tool result exactly as the model saw it, cut to {@link TRACE_TEXT_LIMIT} characters. */
  result: string;
  /** Length of the full result in characters. */
  result_chars: number;
  /** Time spent in the tool handler and gates, ms. */
  ms: number;
}

/** One model turn (a step) and what groundfix did with it. */
export interface TraceStep {
  /** 1-based. */
  step: number;
  /** The model's text after transcript hygiene (cut to {@link TRACE_TEXT_LIMIT}). */
  text: string;
  /** Blocks impersonating tool results removed from this turn. */
  observations_stripped: number;
  tool_calls: TraceToolCall[];
  /** The user message sent back when the turn had no tool call. */
  nudge?: string;
  /** Time the model took for this turn, ms. */
  model_ms: number;
  /** Tokens the model reported for this turn. */
  usage?: TurnUsage;
  /** Calls the model wrote as text in its message (taken as calls, through the same gates). */
  calls_from_text?: number;
}

/** The full record of one agent run; serialisable as JSON. */
export interface Trace {
  model: string;
  /** ISO 8601 start time. */
  started_at: string;
  steps: TraceStep[];
  input_removed: InputRemoved;
  observations_stripped: number;
  outcome: Outcome;
  reason: string | null;
  /** Wall time of the whole run, ms. */
  total_ms: number;
  /** What the reader of the report should know about the run's bounds (for example a budget not enforced). */
  notes?: string[];
}

/** Cut `text` to `limit` characters, noting how much was left out. */
export function truncate(text: string, limit = TRACE_TEXT_LIMIT): string {
  return text.length <= limit ? text : `${text.slice(0, limit)}… [${text.length - limit} more characters]`;
}

/** Copy of `value` with every string longer than `limit` cut (for storing tool arguments). */
export function truncateDeep(value: unknown, limit = TRACE_TEXT_LIMIT): unknown {
  if (typeof value === "string") return truncate(value, limit);
  if (Array.isArray(value)) return value.map((v) => truncateDeep(v, limit));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, truncateDeep(v, limit)]));
  }
  return value;
}

/** The first non-blank line of `text`, trimmed, cut to at most `max` characters (ending in "…" when cut). */
export function firstLine(text: string, max: number): string {
  const first = (text.split("\n").find((l) => l.trim() !== "") ?? "").trim();
  return first.length <= max ? first : `${first.slice(0, max - 1)}…`;
}

/** Compact argument list: the short scalar arguments, strings quoted, long ones shortened. */
function formatArgs(args: unknown): string {
  if (!args || typeof args !== "object" || Array.isArray(args)) return "";
  return Object.entries(args as Record<string, unknown>)
    .filter(
      ([k]) =>
        k !== "code_before" && k !== "code_after" && k !== "rationale" && k !== "summary" && k !== "root_cause_snippet",
    )
    .map(([k, v]) => `${k}=${typeof v === "string" ? JSON.stringify(firstLine(v, 60)) : JSON.stringify(v)}`)
    .join(", ");
}

/**
 * Escape characters that Markdown would treat as formatting inside a list item, then make the text inert
 * (`inertMarkdown` of src/grounding/posted.ts: no HTML, no autolink to another host, no closing keyword, no mention,
 * no unseen character): a tool result's first line quotes file content and arguments the model chose.
 */
function md(text: string): string {
  return inertMarkdown(text.replace(/([\\`*[\]|])/g, "\\$1"), `${githubWebUrl()}/`);
}

/**
 * `text` (a tool name and arguments the model chose) as one inline code span that nothing in it can close or break:
 * one line (whitespace runs become one space, unseen characters nothing), backticks written as `'`. GitHub reads no
 * HTML, link, mention or issue reference inside a code span.
 */
function codeSpan(text: string): string {
  return `\`${withoutUnseen(text.replace(/\s+/g, " ")).replace(/`/g, "'")}\``;
}

/**
 * Render a trace as a compact Markdown section for a PR body or an issue comment: a numbered list of steps
 * (`tool(args) → status, first line of the result`), gate rejections in bold, then the outcome.
 *
 * @param options.maxChars cap on the returned length (default 6000); when reached, later steps are left out and a
 *   note says how many.
 */
export function renderTraceMarkdown(trace: Trace, options: { maxChars?: number } = {}): string {
  const maxChars = options.maxChars ?? 6000;
  const head =
    `**Agent trace** (model \`${trace.model.replace(/`/g, "")}\`, ${trace.steps.length} ` +
    `step${trace.steps.length === 1 ? "" : "s"}, ${Math.round(trace.total_ms)} ms)`;
  const lines: string[] = [];
  let n = 0;
  for (const step of trace.steps) {
    const extra = step.observations_stripped
      ? ` _(removed ${step.observations_stripped} fake tool result${step.observations_stripped === 1 ? "" : "s"})_`
      : "";
    if (step.tool_calls.length === 0) {
      lines.push(`${++n}. step ${step.step}: no tool call${extra}`);
      continue;
    }
    for (const call of step.tool_calls) {
      const first = md(firstLine(call.result, 140));
      const called = codeSpan(`${call.name}(${formatArgs(call.arguments)})`);
      const body = `${called} → ${call.status}${first ? `: ${first}` : ""}`;
      lines.push(`${++n}. ${call.gate ? `**${call.gate}: ${body}**` : body}${extra}`);
    }
  }
  const removed = trace.input_removed;
  const hygiene =
    removed.html_comments + removed.invisible_chars + removed.secrets > 0
      ? `Input hygiene removed ${removed.html_comments} hidden comment(s), ` +
        `${removed.invisible_chars} invisible character(s), ${removed.secrets} secret(s).`
      : "";
  const tail = `Outcome: **${trace.outcome}**${trace.reason ? ` — ${md(firstLine(trace.reason, 300))}` : ""}`;
  const notes = (trace.notes ?? []).map((n) => `_Note: ${md(firstLine(n, 300))}_`).join("\n");
  const fixed = [head, hygiene, notes, tail].filter(Boolean).join("\n").length + 2;
  const out: string[] = [head, ""];
  let used = fixed + 1;
  let omitted = 0;
  for (const [i, line] of lines.entries()) {
    const note = `_… ${lines.length - i} more step(s) left out (trace capped at ${maxChars} characters)_`;
    if (used + line.length + 1 + note.length + 1 > maxChars) {
      omitted = lines.length - i;
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  if (omitted) out.push(`_… ${omitted} more step(s) left out (trace capped at ${maxChars} characters)_`);
  out.push("");
  if (hygiene) out.push(hygiene);
  if (notes) out.push(notes);
  out.push(tail);
  const text = out.join("\n");
  return text.length <= maxChars ? text : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}
