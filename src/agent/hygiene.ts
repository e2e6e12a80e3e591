import { redactSecrets } from "../grounding/secrets.js";

/** What input hygiene removed from the problem text (DESIGN.md invariant 7; issue 4 gate 7). */
export interface InputRemoved {
  html_comments: number;
  invisible_chars: number;
  secrets: number;
}

/**
 * Zero-width and bidirectional control characters, plus Unicode tag characters (U+E0000–U+E007F, used to smuggle
 * invisible instructions). Bidi controls are the ones of Unicode TR9 (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI,
 * LRM, RLM, ALM) — the "Trojan Source" set (CVE-2021-42574).
 */
const INVISIBLE = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u061C\u180E\uFEFF\u00AD]|\uDB40[\uDC00-\uDC7F]/g;

/** An HTML comment; an unterminated `<!--` hides everything after it when GitHub renders Markdown. */
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/**
 * Clean untrusted problem text (issue body, alert message, comments) before a model sees it: remove HTML comments
 * (hidden when GitHub renders the issue, so a reader never saw them), zero-width/bidi/tag characters, and redact
 * token-like strings (src/grounding/secrets.ts).
 *
 * @returns the cleaned text and the counts of what was removed; pure, linear time.
 */
export function sanitizeProblemText(text: string): { text: string; removed: InputRemoved } {
  let html_comments = 0;
  let out = text.replace(HTML_COMMENT, () => {
    html_comments++;
    return "";
  });
  let invisible_chars = 0;
  out = out.replace(INVISIBLE, () => {
    invisible_chars++;
    return "";
  });
  const redacted = redactSecrets(out);
  return { text: redacted.text, removed: { html_comments, invisible_chars, secrets: redacted.count } };
}

/** Sum two removal counts. */
export function addRemoved(a: InputRemoved, b: InputRemoved): InputRemoved {
  return {
    html_comments: a.html_comments + b.html_comments,
    invisible_chars: a.invisible_chars + b.invisible_chars,
    secrets: a.secrets + b.secrets,
  };
}

/** What replaces a stripped block in the model's turn, so the history shows that something was there. */
export const STRIPPED_MARKER = "[groundfix removed text that imitated a tool result]";

/** Line that opens a ReAct-style fake result: `Observation:`, `Tool result:`, `Function output:`, `[tool output]`… */
const FAKE_RESULT_LINE =
  /^[ \t>*_#`]*(?:(?:observation|(?:tool|function)[ _-]?(?:result|output|response)s?)[ \t*_`]*(?::|$)|\[(?:tool|function)[ _-]?(?:result|output|response|call result)s?\b[^\]\n]*\])/i;
/** Line that ends a ReAct fake block: the model going on with its own reasoning. */
const REACT_RESUME = /^[ \t>*_#`]*(?:thought|action|action input|final answer|answer)[ \t*_`]*:/i;
/** XML-ish result elements: `<tool_result>…</tool_result>`, `<function_results>`, `<observation>`, `<tool_output>`. */
const FAKE_RESULT_TAG =
  /<(tool_result|tool_results|tool_output|tool_response|function_result|function_results|function_output|observation)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi;
/** A fenced block or a bare JSON object that looks like a tool/function result message. */
const FENCE = /```[^\n]*\n[\s\S]*?(?:```|$)/g;
const RESULT_JSON = /"role"\s*:\s*"(?:tool|function)"|"tool_call_id"\s*:|"type"\s*:\s*"(?:tool_result|function_call_output|tool-result)"|"(?:tool_result|function_result|observation)"\s*:/i;

/**
 * Transcript hygiene (issue 4 gate 6): remove text in a model turn that impersonates a tool result — ReAct
 * `Observation:` blocks, `Tool result:` / `[tool output]` style lines with what follows them, `<tool_result>`-like
 * elements, and JSON blocks shaped like tool/function result messages — before the turn enters the history.
 * A line block runs until a blank line followed by a ReAct keyword (`Thought:`, `Action:`…) or the end of the text.
 *
 * @returns the cleaned text (each block replaced by {@link STRIPPED_MARKER}) and how many blocks were removed.
 */
export function stripFakeToolResults(text: string): { text: string; stripped: number } {
  let stripped = 0;
  const mark = () => {
    stripped++;
    return STRIPPED_MARKER;
  };
  let out = text.replace(FAKE_RESULT_TAG, mark);
  out = out.replace(FENCE, (block) => (RESULT_JSON.test(block) ? mark() : block));

  const lines = out.split("\n");
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!FAKE_RESULT_LINE.test(line)) {
      // A bare JSON line shaped like a result message.
      if (/^\s*[{[]/.test(line) && RESULT_JSON.test(line)) {
        kept.push(mark());
        continue;
      }
      kept.push(line);
      continue;
    }
    kept.push(mark());
    // Skip the block body until the model resumes its own reasoning.
    while (i + 1 < lines.length && !REACT_RESUME.test(lines[i + 1] ?? "")) i++;
  }
  return { text: kept.join("\n"), stripped };
}
