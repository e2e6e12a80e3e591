/**
 * Tool calls written as text. Some local models put their call in the message content instead of the native
 * tool-call field — qwen2.5-coder on Ollama writes `{"name": "grep_codebase", "arguments": {...}}`, Hermes-style
 * templates write `<tool_call>{...}</tool_call>`. Such a call is read here and then goes through every gate like a
 * native one; text that names no known tool stays text.
 */

/** A call found in the text: the tool's name and its arguments object. */
export interface TextCall {
  name: string;
  arguments: Record<string, unknown>;
}

const TAGGED = /<tool_call>\s*([\s\S]*?)\s*<\/tool_call>/g;
const FENCED = /```(?:json|tool_call)?[ \t]*\n([\s\S]*?)\n?```/g;

/**
 * The call in a JSON value: `{name, arguments|parameters}` or `{function: {name, arguments}}`; arguments may be JSON
 * text.
 */
function callOf(value: unknown, known: ReadonlySet<string>): TextCall | null {
  if (!value || typeof value !== "object" || Array.isArray(value)) return null;
  const v =
    (value as { function?: unknown }).function && typeof (value as { function?: unknown }).function === "object"
      ? (value as { function: Record<string, unknown> }).function
      : (value as Record<string, unknown>);
  const name = v.name;
  if (typeof name !== "string" || !known.has(name)) return null;
  let args = v.arguments ?? v.parameters ?? {};
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      return null;
    }
  }
  if (!args || typeof args !== "object" || Array.isArray(args)) return null;
  return { name, arguments: args as Record<string, unknown> };
}

/**
 * The top-level JSON texts of `text` when it is nothing but one or more JSON values separated by whitespace (a model
 * writing one call per line), else null. Strings are tracked so braces inside them do not count.
 */
function jsonValues(text: string): string[] | null {
  const values: string[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"' && depth > 0) inString = true;
    else if (ch === "{" || ch === "[") {
      if (depth === 0) start = i;
      depth++;
    } else if (ch === "}" || ch === "]") {
      depth--;
      if (depth < 0) return null;
      if (depth === 0) values.push(text.slice(start, i + 1));
    } else if (depth === 0 && !/\s/.test(ch)) return null;
  }
  return depth === 0 && values.length > 0 ? values : null;
}

function callsOf(json: string, known: ReadonlySet<string>): TextCall[] | null {
  const calls: (TextCall | null)[] = [];
  for (const piece of jsonValues(json) ?? []) {
    let value: unknown;
    try {
      value = JSON.parse(piece);
    } catch {
      return null;
    }
    for (const v of Array.isArray(value) ? value : [value]) calls.push(callOf(v, known));
  }
  return calls.length > 0 && calls.every((c) => c !== null) ? (calls as TextCall[]) : null;
}

/**
 * The tool calls written in `text`, in order, and the text left once they are taken out. Recognised: `<tool_call>`
 * blocks; fenced code blocks (```json) holding a call; the whole text being a call or a list of calls. A call must
 * name one of `known` and have an object of arguments, else the text is left alone.
 */
export function toolCallsFromText(text: string, known: readonly string[]): { calls: TextCall[]; rest: string } {
  const names = new Set(known);
  const whole = callsOf(text.trim(), names);
  if (whole) return { calls: whole, rest: "" };
  for (const re of [TAGGED, FENCED]) {
    const calls: TextCall[] = [];
    const rest = text.replace(re, (block, inner: string) => {
      const found = callsOf(inner, names);
      if (!found) return block;
      calls.push(...found);
      return "";
    });
    if (calls.length > 0) return { calls, rest: rest.trim() };
  }
  return { calls: [], rest: text };
}
