/**
 * Tool-call arguments that arrive as text. Providers send arguments as a JSON string; the AI SDK parses it and, when
 * it is not valid JSON, hands back the raw text. This module parses such text and, when that fails, says what is
 * wrong in the words a model can act on (a line break inside a string, a trailing comma, single quotes, text cut off).
 */

/** The parsed arguments object, or a one-sentence problem naming what is wrong with the text. */
export type ParsedArguments = { ok: true; value: Record<string, unknown> } | { ok: false; problem: string };

/**
 * Turn the arguments a model sent into an object. An object is returned as is; a string is parsed as JSON (a
 * double-encoded string is parsed again once); `undefined`/`null`/`""` mean `{}`. Anything else, or JSON that is
 * not an object, is a problem.
 */
export function parseArguments(raw: unknown): ParsedArguments {
  if (raw === undefined || raw === null) return { ok: true, value: {} };
  if (typeof raw === "object" && !Array.isArray(raw)) return { ok: true, value: raw as Record<string, unknown> };
  if (typeof raw !== "string")
    return { ok: false, problem: `the arguments are a ${Array.isArray(raw) ? "list" : typeof raw}, not a JSON object` };
  if (raw.trim() === "") return { ok: true, value: {} };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    return { ok: false, problem: describeJsonProblem(raw, (err as Error).message) };
  }
  if (typeof value === "string" && value.trim().startsWith("{")) return parseArguments(value);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return {
      ok: false,
      problem:
        `the arguments are JSON ` +
        `${value === null ? "null" : Array.isArray(value) ? "list" : typeof value}, not an object`,
    };
  }
  return { ok: true, value: value as Record<string, unknown> };
}

/**
 * What is wrong with `text`, which `JSON.parse` refused with `message`: the first known cause found by scanning the
 * text (strings tracked, escapes honoured), else the parser's own message.
 */
export function describeJsonProblem(text: string, message: string): string {
  let inString = false;
  let quote = "";
  let depth = 0;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === "\n") line++;
    if (inString) {
      if (ch === "\\") {
        i++;
        continue;
      }
      if (ch === quote) inString = false;
      else if (ch === "\n" || ch === "\r") {
        return (
          `a raw line break inside a string (line ${line - (ch === "\n" ? 1 : 0)}): ` +
          `inside JSON strings write line breaks as \\n and tabs as \\t`
        );
      } else if (ch === "\t") return "a raw tab inside a string: inside JSON strings write tabs as \\t";
      continue;
    }
    if (ch === '"') {
      inString = true;
      quote = ch;
    } else if (ch === "'") {
      return "a single-quoted string or key: JSON needs double quotes around every key and string";
    } else if (ch === "{" || ch === "[") depth++;
    else if (ch === "}" || ch === "]") depth--;
    else if (ch === ",") {
      const next = /\S/.exec(text.slice(i + 1));
      if (next && (next[0] === "}" || next[0] === "]"))
        return `a trailing comma before "${next[0]}" (line ${line}): remove the comma after the last item`;
    }
  }
  if (inString || depth > 0)
    return (
      "the JSON ends early (an unclosed string, { or [): the arguments " +
      "were cut off; send a shorter call, for example a smaller code_before"
    );
  return `the arguments are not valid JSON (${message.split("\n")[0]})`;
}
