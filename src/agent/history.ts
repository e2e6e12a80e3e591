import type { Message, ToolSpec } from "./models/types.js";

/** Tool results up to this many characters are never shortened (a short answer costs less than its note). */
const SHORT_ENOUGH = 600;

/**
 * A tool result as it stays in the history once it is old: its first line — which for `get_file_contents` is the
 * header naming the path and the lines read (`src/a.ts (lines 1-40 of 200)`), for the other tools their summary —
 * and a note saying how much was left out and that the tool can be called again. The read-before-edit gate does
 * not depend on it: it checks the run's read log, not the history.
 */
export function shortenResult(text: string): string {
  if (text.length <= SHORT_ENOUGH) return text;
  const cut = text.indexOf("\n");
  const first = cut === -1 ? text.slice(0, 300) : text.slice(0, Math.min(cut, 300));
  const lines = text.split("\n").length - 1;
  const left = `${lines} more line(s), ${text.length - first.length} characters`;
  return (
    `${first}\n[shortened in the history: ${left}, were shown in ` +
    `full when the call was answered; call the tool again to see them]`
  );
}

/**
 * The last turn whose tool results are shortened when the model is asked for turn `step` (1-based), keeping the
 * results of at least `keep` and fewer than `2 × keep` recent turns in full. The boundary moves in steps of `keep`
 * turns, so the history's prefix — and a provider's prompt cache of it — stays the same for `keep` turns at a time.
 * 0 means nothing is shortened.
 */
export function shortenedThrough(step: number, keep: number): number {
  const done = step - 1;
  return done < keep ? 0 : Math.floor((done - keep) / keep) * keep;
}

/**
 * The conversation to send for turn `step`: tool results of turns up to {@link shortenedThrough} replaced by
 * {@link shortenResult}; everything else as is. `turnOf[i]` is the turn that produced `messages[i]` (0 for the
 * opening messages). Returns copies; `messages` is not changed.
 */
export function historyView(
  messages: readonly Message[],
  turnOf: readonly number[],
  step: number,
  keep: number,
): Message[] {
  const through = shortenedThrough(step, keep);
  return messages.map((m, i) =>
    m.role === "tool" && (turnOf[i] ?? 0) > 0 && turnOf[i]! <= through
      ? { ...m, content: shortenResult(m.content) }
      : { ...m },
  );
}

/**
 * groundfix's estimate of a request's size in tokens: characters / 4 of every message (tool-call arguments
 * included) plus the tool schemas and descriptions, which providers put in the prompt too.
 */
export function estimateTokens(messages: readonly Message[], tools: readonly ToolSpec[]): number {
  let chars = tools.length ? JSON.stringify(tools).length : 0;
  for (const m of messages) {
    chars += m.content.length;
    if (m.role === "assistant") chars += JSON.stringify(m.tool_calls).length;
  }
  return Math.ceil(chars / 4);
}
