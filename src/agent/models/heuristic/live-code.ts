/**
 * The code of a source text, as the heuristic reads it to find what a line really does at run time: string literal
 * text and comments blanked, the code inside a string's interpolation kept. `f"{user.email}"` reads `user.email`;
 * `"user.email"` reads nothing. One rule for every reader of the heuristic (the crash's receiver, the function's
 * member reads, a caller's call of the relaying function), so a read or call inside an interpolation is never
 * text to one and code to another.
 *
 * Interpolation per language (string kinds without it are text throughout):
 * - JavaScript/TypeScript: `` `…${expr}…` `` (template literals; `'…'` and `"…"` have none);
 * - Python: `f"…{expr}…"` (any f-prefix: `f`, `rf`, `Fr`, …; `'`, `"`, `'''`, `"""`); `{{`/`}}` are text, a
 *   conversion or format spec after the expression (`{x!r:>10}`) is text, a nested `{width}` in the spec is code;
 * - Ruby: `"…#{expr}…"` and `` `…#{expr}…` `` (`'…'` has none);
 * - Kotlin: `"…${expr}…"`, `"…$name…"` (only the name: `"$user.email"` reads `user`), also in `"""…"""`;
 * - C#: `$"…{expr}…"`, `$@"…"`, `@$"…"` (`{{`/`}}` text; an alignment or format after the expression is text);
 *   `@"…"` is verbatim (`""` a quote, no backslash escapes);
 * - Go: `` `raw` `` strings (no escapes); Java: `"""` text blocks; neither has interpolation.
 * Sources: the languages' reference manuals (ECMAScript template literals, PEP 498/701, Ruby syntax/literals, Kotlin
 * string templates, C# interpolated and verbatim strings, the Go spec's raw string literals, JEP 378).
 *
 * Rough by design (a lexer, not a parser): regular expression literals, Ruby `%q{}`/here-documents and C# raw
 * strings are not recognised.
 */
import type { CodeLanguage } from "./code.js";

/** How one kind of string literal reads: its closing quote and what may appear inside. */
interface StringKind {
  close: string;
  /** A backslash escapes the next character. */
  escapes: boolean;
  /** The literal may span lines (else a newline ends it, unterminated). */
  multiline: boolean;
  /** A doubled closing quote is a quote (C# verbatim `""`). */
  doubled?: boolean;
  /**
   * `dollar`: `${expr}`; `hash`: `#{expr}`; `brace`: `{expr}` with `{{`/`}}` as text and a spec after the expression
   * (Python f-strings, C# `$"…"`); none when absent.
   */
  interp?: "dollar" | "hash" | "brace";
  /** Kotlin's `$name`. */
  dollarName?: boolean;
  /** For `brace`: the characters that end the expression and start the spec (`!` only before no `=`). */
  specStart?: string;
}

/**
 * `text` (one line or several) with the text of its string literals and its comments blanked to spaces, the quotes,
 * newlines and every code character kept at its position (so offsets and columns of `text` hold), and the code
 * inside interpolations kept as code (the `${`, `#{`, `{` and `}` around it blanked). See the module comment for
 * the kinds per language.
 */
export function liveCode(text: string, lang: CodeLanguage): string {
  const out = text.split("");
  const n = text.length;
  const blank = (from: number, to: number) => {
    for (let k = from; k < Math.min(to, n); k++) if (out[k] !== "\n") out[k] = " ";
  };
  const hashComment = lang === "python" || lang === "ruby";
  let i = 0;

  /** The string literal opening at `i` (its opening quote's length and kind), or null. */
  const stringAt = (): { open: number; kind: StringKind } | null => {
    const c = text[i];
    if (c !== '"' && c !== "'" && c !== "`") return null;
    const triple = text.startsWith(c.repeat(3), i);
    switch (lang) {
      case "javascript":
      case "typescript":
        return c === "`"
          ? { open: 1, kind: { close: "`", escapes: true, multiline: true, interp: "dollar" } }
          : { open: 1, kind: { close: c, escapes: true, multiline: false } };
      case "python": {
        if (c === "`") return null;
        const prefix = /(?:^|[^\w])([rRbBuUfF]{1,2})$/.exec(text.slice(Math.max(0, i - 3), i))?.[1] ?? "";
        const f = /[fF]/.test(prefix);
        const close = triple ? c.repeat(3) : c;
        const kind: StringKind = { close, escapes: true, multiline: triple };
        if (f) Object.assign(kind, { interp: "brace", specStart: ":!" });
        return { open: close.length, kind };
      }
      case "ruby":
        return c === "'"
          ? { open: 1, kind: { close: c, escapes: true, multiline: true } }
          : { open: 1, kind: { close: c, escapes: true, multiline: true, interp: "hash" } };
      case "kotlin":
        if (c === "`") return null; // a backticked name
        if (c === "'") return { open: 1, kind: { close: c, escapes: true, multiline: false } };
        return triple
          ? { open: 3, kind: { close: '"""', escapes: false, multiline: true, interp: "dollar", dollarName: true } }
          : { open: 1, kind: { close: c, escapes: true, multiline: false, interp: "dollar", dollarName: true } };
      case "csharp": {
        if (c === "`") return null;
        if (c === "'") return { open: 1, kind: { close: c, escapes: true, multiline: false } };
        const before = text.slice(Math.max(0, i - 2), i);
        const interpolated = /(?:\$@?|@\$)$/.test(before);
        const verbatim = /@\$?$/.test(before);
        const kind: StringKind = verbatim
          ? { close: '"', escapes: false, multiline: true, doubled: true }
          : { close: '"', escapes: true, multiline: false };
        if (interpolated) Object.assign(kind, { interp: "brace", specStart: ":," });
        return { open: 1, kind };
      }
      case "go":
        return c === "`"
          ? { open: 1, kind: { close: "`", escapes: false, multiline: true } }
          : { open: 1, kind: { close: c, escapes: true, multiline: false } };
      case "java":
        if (c === "`") return null;
        return triple
          ? { open: 3, kind: { close: '"""', escapes: true, multiline: true } }
          : { open: 1, kind: { close: c, escapes: true, multiline: false } };
    }
  };

  /**
   * Code from `i` to the end of `text`, or (inside an interpolation, `stops` the characters that end it at depth 0)
   * to the unmatched closing `}` or a stop character, left at `i`.
   */
  const code = (interp: boolean, stops = ""): void => {
    let depth = 0;
    while (i < n) {
      const c = text[i] as string;
      if (interp) {
        if (c === "(" || c === "[" || c === "{") depth++;
        else if (c === ")" || c === "]" || c === "}") {
          if (depth === 0) return;
          depth--;
        } else if (depth === 0 && stops.includes(c) && !(c === "!" && text[i + 1] === "=")) return;
      }
      if (!interp && ((hashComment && c === "#") || (!hashComment && text.startsWith("//", i)))) {
        const end = text.indexOf("\n", i);
        blank(i, end === -1 ? n : end);
        i = end === -1 ? n : end;
        continue;
      }
      if (!hashComment && text.startsWith("/*", i)) {
        const end = text.indexOf("*/", i + 2);
        const to = end === -1 ? n : end + 2;
        blank(i, to);
        i = to;
        continue;
      }
      const s = stringAt();
      if (s) {
        i += s.open;
        literal(s.kind);
        continue;
      }
      i += c === "\\" ? 2 : 1; // a backslash outside strings escapes the next character (a regex's `\/`)
    }
  };

  /** An interpolation's code from `i`, then its closing `}` blanked. */
  const interpolation = (stops = ""): void => {
    code(true, stops);
    if (stops !== "" && i < n && text[i] !== "}") {
      // the spec after the expression (`!r:>10`, `,8:N2`): text, except a nested `{expr}`
      while (i < n && text[i] !== "}" && text[i] !== "\n") {
        if (text[i] === "{") {
          blank(i, i + 1);
          i++;
          interpolation();
          continue;
        }
        blank(i, i + 1);
        i++;
      }
    }
    if (text[i] === "}") {
      blank(i, i + 1);
      i++;
    }
  };

  /** A string literal's text from `i` (after its opening quote) to and past its closing quote. */
  const literal = (kind: StringKind): void => {
    while (i < n) {
      const c = text[i] as string;
      if (c === "\n" && !kind.multiline) return;
      if (text.startsWith(kind.close, i)) {
        if (kind.doubled && text.startsWith(kind.close, i + kind.close.length)) {
          blank(i, i + 2 * kind.close.length);
          i += 2 * kind.close.length;
          continue;
        }
        i += kind.close.length;
        return;
      }
      if (kind.escapes && c === "\\") {
        blank(i, i + 2);
        i += 2;
        continue;
      }
      const opener =
        kind.interp === "dollar" ? "${" : kind.interp === "hash" ? "#{" : kind.interp === "brace" ? "{" : null;
      if (kind.interp === "brace" && (text.startsWith("{{", i) || text.startsWith("}}", i))) {
        blank(i, i + 2);
        i += 2;
        continue;
      }
      if (opener !== null && text.startsWith(opener, i)) {
        blank(i, i + opener.length);
        i += opener.length;
        interpolation(kind.specStart ?? "");
        continue;
      }
      if (kind.dollarName && c === "$" && /[A-Za-z_]/.test(text[i + 1] ?? "")) {
        blank(i, i + 1);
        i++;
        while (i < n && /\w/.test(text[i] as string)) i++;
        continue;
      }
      blank(i, i + 1);
      i++;
    }
  };

  code(false);
  return out.join("");
}
