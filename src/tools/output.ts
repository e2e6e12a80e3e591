import { redactSecrets } from "../grounding/secrets.js";
import type { Snapshot, ToolResult } from "../types.js";
import { redactData } from "./results.js";

/** Most characters of one tool answer; the rest is cut with a visible line. */
export const MAX_OUTPUT_CHARS = 24_000;
/** Longest line a tool quotes before cutting it with "… (N more characters)". */
export const MAX_LINE_CHARS = 1_000;

/** `items` capped at `max`, then a visible line `… N more not shown<hint>` when some were left off. */
export function capList(items: readonly string[], max: number, hint = ""): string[] {
  if (items.length <= max) return [...items];
  return [...items.slice(0, max), `… ${items.length - max} more not shown${hint}`];
}

/** One line of quoted text, cut at {@link MAX_LINE_CHARS} with a visible marker. */
export function clipLine(line: string, max = MAX_LINE_CHARS): string {
  return line.length <= max ? line : `${line.slice(0, max)} … (${line.length - max} more characters)`;
}

/** A byte count for people and models: `512 B`, `3.4 KB`, `2.1 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** The first 7 characters of a commit SHA, as GitHub shows it. */
export function shortSha(sha: string): string {
  return /^[0-9a-f]{40}$/.test(sha) ? sha.slice(0, 7) : sha;
}

/** The note every tool appends when the snapshot's caps left files out, or "" when nothing was left out. */
export function truncationNote(snapshot: Snapshot): string {
  const { leftOut, truncated } = snapshot.stats;
  if (!truncated) return "";
  return (
    `Note: this snapshot is truncated: ${leftOut.length} file(s) were left out by ` +
    `its caps (${leftOut[0]?.reason ?? "cap reached"}); answers may be incomplete.`
  );
}

/**
 * The final form of every tool answer: secrets redacted (`[redacted]`, in `text` and in `data`), the truncation note
 * appended when the snapshot is truncated, and the text cut at {@link MAX_OUTPUT_CHARS} with a visible line.
 */
export function finish(snapshot: Snapshot, result: ToolResult): ToolResult {
  let text = result.text;
  const note = truncationNote(snapshot);
  if (note && result.status !== "invalid") text = `${text}\n${note}`;
  if (text.length > MAX_OUTPUT_CHARS) {
    const cut = text.lastIndexOf("\n", MAX_OUTPUT_CHARS);
    const keep = cut > 0 ? cut : MAX_OUTPUT_CHARS;
    const rest = text
      .slice(keep)
      .split("\n")
      .filter((l) => l !== "").length;
    text =
      `${text.slice(0, keep)}\n… ${rest} more lines not shown (answer ` +
      `capped at ${MAX_OUTPUT_CHARS} characters; narrow the call)`;
  }
  return {
    status: result.status,
    text: redactSecrets(text).text,
    ...(result.data ? { data: redactData(result.data) } : {}),
  };
}
