import { redactSecrets } from "../grounding/secrets.js";

/** What input hygiene removed from the problem text. */
export interface InputRemoved {
  /** Markup GitHub renders as nothing: HTML comments and Markdown link reference definitions (`[//]: # (…)`). */
  html_comments: number;
  invisible_chars: number;
  secrets: number;
}

/**
 * Characters a reader does not see, removed from problem text:
 * - zero-width characters and the bidirectional controls of Unicode TR9 (LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI,
 *   LRM, RLM, ALM) — the "Trojan Source" set (CVE-2021-42574); soft hyphen, Mongolian vowel separator, BOM;
 * - tag characters U+E0000–U+E007F (invisible ASCII look-alikes used to smuggle instructions);
 * - variation selectors U+FE00–U+FE0F and U+E0100–U+E01EF (invisible payload carriers);
 * - the combining grapheme joiner U+034F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0 and the braille blank
 *   U+2800, which render as blank space but are not whitespace.
 */
const INVISIBLE = new RegExp(
  String.raw`[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u061C\u180E\uFEFF\u00AD\uFE00-` +
    String.raw`\uFE0F\u034F\u115F\u1160\u3164\uFFA0\u2800]|\uDB40[\uDC00-\uDC7F\uDD00-\uDDEF]`,
  "g",
);

/** The Unicode line and paragraph separators: line breaks to some readers and not to others; they become a space. */
const LINE_SEPARATORS = /[\u2028\u2029]/g;

/** An HTML comment; an unterminated `<!--` hides everything after it when GitHub renders Markdown. */
const HTML_COMMENT = /<!--[\s\S]*?(?:-->|$)/g;

/**
 * A Markdown link reference definition on its own line (CommonMark 4.7): `[label]: destination "title"`. GitHub
 * renders nothing for it, so `[//]: # (instructions)` or `[x]: <> "instructions"` is text no reader saw.
 */
const LINK_DEFINITION =
  /^ {0,3}\[[^\]\n]{1,999}\]:[ \t]*(?:<[^>\n]*>|\S*)(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$/gm;

/**
 * Clean untrusted problem text (issue body, alert message, comments) before a model sees it: remove invisible
 * characters ({@link INVISIBLE}; U+2028/U+2029 become a space), then markup GitHub does not render (HTML comments,
 * link reference definitions), so a reader never saw it, and redact secrets (src/grounding/secrets.ts).
 * Invisible characters go first so that they cannot break up the markup patterns.
 *
 * @returns the cleaned text and the counts of what was removed; pure, linear time.
 */
export function sanitizeProblemText(text: string): { text: string; removed: InputRemoved } {
  let invisible_chars = 0;
  let out = text.replace(INVISIBLE, () => {
    invisible_chars++;
    return "";
  });
  out = out.replace(LINE_SEPARATORS, () => {
    invisible_chars++;
    return " ";
  });
  let html_comments = 0;
  out = out.replace(HTML_COMMENT, () => {
    html_comments++;
    return "";
  });
  out = out.replace(LINK_DEFINITION, () => {
    html_comments++;
    return "";
  });
  const redacted = redactSecrets(out);
  return { text: redacted.text, removed: { html_comments, invisible_chars, secrets: redacted.count } };
}

/**
 * Text that may sit inside the `<problem>` … `</problem>` envelope of the first user message without opening or
 * closing it: every tag-like `problem` element — any case, spaces or a slash anywhere (`</ problem >`, `< /PROBLEM>`,
 * `<problem x="1">`), also with the full-width or small-form less-than sign and the full-width, division or big
 * solidus (U+FF0F, U+2215, U+29F8) — has its `<` written as `&lt;`.
 */
export function neutralizeEnvelope(text: string): string {
  return text.replace(
    /[<\uFF1C\uFE64](?=\s{0,20}[\/\uFF0F\u2215\u29F8]?\s{0,20}problem\b[^>\uFF1E\uFE65]{0,200}[>\uFF1E\uFE65])/gi,
    "&lt;",
  );
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
const FAKE_RESULT_LINE = new RegExp(
  "^[ \\t>*_#`]*(?:(?:observation|(?:tool|function)[ _-]?(?:result|output|response)s?)[ \\t*_`]*(?::|$)|" +
    String.raw`\[(?:tool|function)[ _-]?(?:result|output|response|call result)s?\b[^\]\n]*\])`,
  "i",
);
/** Line that ends a ReAct fake block: the model going on with its own reasoning. */
const REACT_RESUME = /^[ \t>*_#`]*(?:thought|action|action input|final answer|answer)[ \t*_`]*:/i;
/** XML-ish result elements: `<tool_result>…</tool_result>`, `<function_results>`, `<observation>`, `<tool_output>`. */
const FAKE_RESULT_TAG = new RegExp(
  String.raw`<(tool_result|tool_results|tool_output|tool_response|function_result|` +
    String.raw`function_results|function_output|observation)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)`,
  "gi",
);
/** A fenced block or a bare JSON object that looks like a tool/function result message. */
const FENCE = /```[^\n]*\n[\s\S]*?(?:```|$)/g;
const RESULT_JSON = new RegExp(
  String.raw`"role"\s*:\s*"(?:tool|function)"|"tool_call_id"\s*:|"type"\s*:\s*"(?:tool_result|` +
    String.raw`function_call_output|tool-result)"|"(?:tool_result|function_result|observation)"\s*:`,
  "i",
);

/**
 * Transcript hygiene: remove text in a model turn that impersonates a tool result — ReAct
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
