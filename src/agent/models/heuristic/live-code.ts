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
 *   `\N{NAME}` is a named escape, not an interpolation; in a raw string (`r` in the prefix) a backslash escapes
 *   nothing (`rf'\{x}'` reads `x`) except that `\'`/`\\` stay inside the literal;
 * - Ruby: `"…#{expr}…"`, `"…#@ivar…"`/`"…#$global…"` (only the name) and `` `…#{expr}…` `` (`'…'` has none);
 * - Kotlin: `"…${expr}…"`, `"…$name…"` (only the name: `"$user.email"` reads `user`), also in `"""…"""`;
 * - C#: `$"…{expr}…"`, `$@"…"`, `@$"…"` (`{{`/`}}` text; an alignment or format after the expression is text);
 *   `@"…"` is verbatim (`""` a quote, no backslash escapes);
 * - Go: `` `raw` `` strings (no escapes); Java: `"""` text blocks; neither has interpolation.
 * Sources: the languages' reference manuals (ECMAScript template literals, PEP 498/701, Ruby syntax/literals, Kotlin
 * string templates, C# interpolated and verbatim strings, the Go spec's raw string literals, JEP 378).
 *
 * Quotes that open no string:
 * - JavaScript/TypeScript and Ruby regular expression literals (`/'/`, `/[`/]/`, Ruby `/#{x}"/` with its
 *   interpolation kept as code): their text and flags are blanked like a string's. A `/` opens one where an
 *   expression starts: at the start, after an operator or an opening bracket, `}` or a keyword (`return`, `typeof`,
 *   Ruby `if`, …); after a name, a number, `)`, `]` or a closing quote it divides (JS also after `<`: a JSX closing
 *   tag). Ruby also reads `name /x/` (a space before the `/`, none after) as a regex, as Ruby's own lexer does for a
 *   method call. A regex that does not close on its line was a division after all;
 * - Ruby character literals (`?"`, `?'`, `?\n`: a `?` after no name or closing bracket, before one character that
 *   no name character follows) and punctuation globals (`$"`, `$'`, `` $` ``, `$/`, …).
 * A misread division blanks code (a guard not written), never makes text code.
 *
 * Rough by design (a lexer, not a parser): Ruby `%q{}`/`%r{}`/here-documents and C# raw strings are not recognised.
 */
import type { CodeLanguage } from "./code.js";

/** JavaScript/TypeScript keywords after which a `/` starts a regular expression (ECMAScript's expression starts). */
const JS_BEFORE_REGEX = new Set(
  "return typeof instanceof in of new delete void throw case do else yield await".split(" "),
);

/** Ruby keywords after which a `/` starts a regular expression. */
const RUBY_BEFORE_REGEX = new Set("if elsif unless while until when and or not return then do case in".split(" "));

/** How one kind of string literal reads: its closing quote and what may appear inside. */
interface StringKind {
  close: string;
  /** A backslash escapes the next character. */
  escapes: boolean;
  /** The literal may span lines (else a newline ends it, unterminated). */
  multiline: boolean;
  /** A doubled closing quote is a quote (C# verbatim `""`). */
  doubled?: boolean;
  /** Python raw: a backslash escapes only the quote or a backslash (it stays text either way). */
  raw?: boolean;
  /** Python (not raw): `\N{NAME}` is one escape. */
  namedEscape?: boolean;
  /** A regular expression literal: the close is no close inside a class `[…]`. */
  regex?: boolean;
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
  const regexLang = lang === "javascript" || lang === "typescript" || lang === "ruby";
  let i = 0;

  /** True when a `/` at `i` (not a comment's) starts a regular expression literal; `start`: where the code began. */
  const regexStarts = (start: number): boolean => {
    let k = i - 1;
    while (k >= start && /\s/.test(out[k] as string)) k--;
    if (k < start) return true;
    const p = out[k] as string;
    if (/[\w$@]/.test(p)) {
      let b = k;
      while (b > start && /[\w$@]/.test(out[b - 1] as string)) b--;
      const word = out.slice(b, k + 1).join("");
      if ((lang === "ruby" ? RUBY_BEFORE_REGEX : JS_BEFORE_REGEX).has(word)) return true;
      // Ruby reads `puts /x/` (a space before the slash, none after) as a method call's regex argument
      return lang === "ruby" && k < i - 1 && !/\s/.test(text[i + 1] ?? " ") && !/^\d/.test(word);
    }
    if (p === ")" || p === "]" || p === '"' || p === "'" || p === "`") return false;
    if (lang !== "ruby" && (p === "<" || (p === "}" && text[i + 1] === ">"))) return false; // JSX `</a>`, `{…} />`
    return true;
  };

  /** Characters the regex scans below may still read: linear time on a hostile line of `(/[` repeated. */
  let scanBudget = 4 * n + 10_000;

  /** True when the regular expression literal opening at `i` closes on its line (false once the budget is spent). */
  const regexCloses = (): boolean => {
    let inClass = false;
    for (let k = i + 1; k < n; k++) {
      if (--scanBudget < 0) return false;
      const c = text[k] as string;
      if (c === "\n") return false;
      if (c === "\\") {
        k++;
        continue;
      }
      if (lang === "ruby" && c === "#" && text[k + 1] === "{") {
        // an interpolation: skip to its closing brace on the line
        let depth = 0;
        for (; k < n && text[k] !== "\n"; k++) {
          if (text[k] === "{") depth++;
          else if (text[k] === "}" && --depth === 0) break;
        }
        if (text[k] !== "}") return false;
        continue;
      }
      if (inClass) inClass = c !== "]";
      else if (c === "[") inClass = true;
      else if (c === "/") return true;
    }
    return false;
  };

  /**
   * Ruby: the length of a character literal (`?"`, `?\n`) or a punctuation global (`$"`, `$/`) at `i`, else 0. A `?`
   * after a name or a closing bracket, or before a space or a name character, is the ternary's (or a method name's).
   */
  const rubyCharAt = (): number => {
    const next = text[i + 1] ?? "";
    if (text[i] === "$") return /^[!@~=\/\\,;.<>*$?:"&`'+0]$/.test(next) ? 2 : 0;
    if (/[\w)\]}"'`?!]/.test(text[i - 1] ?? "") || next === "" || /[\s\w]/.test(next)) return 0;
    if (next === "\\") return text[i + 2] === undefined || text[i + 2] === "\n" ? 0 : 3;
    return /\w/.test(text[i + 2] ?? "") ? 0 : 2;
  };

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
        const raw = /[rR]/.test(prefix);
        const kind: StringKind = { close, escapes: !raw, raw, namedEscape: !raw, multiline: triple };
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
    const start = i;
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
      if (lang === "ruby" && (c === "?" || c === "$")) {
        const len = rubyCharAt();
        if (len > 0) {
          if (c === "?") blank(i + 1, i + len);
          i += len;
          continue;
        }
      }
      const s = stringAt();
      if (s) {
        i += s.open;
        literal(s.kind);
        continue;
      }
      if (c === "/" && regexLang && regexStarts(start) && regexCloses()) {
        i++;
        literal({
          close: "/",
          escapes: true,
          multiline: false,
          regex: true,
          ...(lang === "ruby" && { interp: "hash" }),
        });
        while (i < n && /[a-z]/.test(text[i] as string)) blank(i, ++i); // flags
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
    let inClass = false;
    while (i < n) {
      const c = text[i] as string;
      if (c === "\n" && !kind.multiline) return;
      if (!inClass && text.startsWith(kind.close, i)) {
        if (kind.doubled && text.startsWith(kind.close, i + kind.close.length)) {
          blank(i, i + 2 * kind.close.length);
          i += 2 * kind.close.length;
          continue;
        }
        i += kind.close.length;
        return;
      }
      if (kind.escapes && c === "\\") {
        const named = kind.namedEscape && text[i + 1] === "N" ? /^N\{[^}\n]*\}/.exec(text.slice(i + 1, i + 100)) : null;
        const len = named ? 1 + named[0].length : 2;
        blank(i, i + len);
        i += len;
        continue;
      }
      if (kind.raw && c === "\\") {
        // raw: the backslash is text, and it keeps a quote or a backslash after it inside the literal
        const len = text[i + 1] === "\\" || text[i + 1] === kind.close[0] ? 2 : 1;
        blank(i, i + len);
        i += len;
        continue;
      }
      if (kind.regex) inClass = inClass ? c !== "]" : c === "[";
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
      if (kind.interp === "hash" && c === "#" && /^(?:@@?|\$)[A-Za-z_]/.test(text.slice(i + 1, i + 4))) {
        // Ruby's `#@ivar`, `#@@cvar`, `#$global`: the name is code
        blank(i, i + 1);
        i += text[i + 2] === "@" ? 3 : 2;
        while (i < n && /\w/.test(text[i] as string)) i++;
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
