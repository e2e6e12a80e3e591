/**
 * Strings that span lines, per language: what src/lang/comments.ts needs to know that a comment-looking line is a
 * string's text (data), not a comment. Reading a line inside a string as a comment lets an edit that changes the
 * string be called comment-only; reading a string's end too late only calls a comment edit code. So where a form is
 * unsure the scan keeps the string open (ends late), never closes it early. Languages are the names of
 * src/lang/languages.ts.
 */

/**
 * A string left open at a line's end, for the next line: `close` ends it; `esc` is the character that escapes the one
 * after it inside (`\`, PowerShell's backtick; "" for none: shell's `'…'`, Rust's `r#"…"#`, C#'s `@"…"`); `nest`, when
 * set, opens a level that needs a close of its own (Ruby's `%q{a {b} c}`, Perl's `q{…}`); `atLineStart`: it closes
 * only at a line's very start (PowerShell's `"@`); `indent`: a YAML block scalar, going on while lines are blank or
 * indented more than that; `parts`: closes still needed after this one (Perl's `s/a/b/`).
 */
export interface OpenString {
  close: string;
  esc: string;
  nest?: string;
  depth?: number;
  atLineStart?: boolean;
  indent?: number;
  parts?: number;
  /** Where on its line the string opened (for the hunk reading's guess, {@link openAtEnd}). */
  from?: number;
}

/** Languages whose `"` strings span lines (a line break inside is part of the string). */
const DOUBLE_SPANS = new Set([
  "Rust",
  "Ruby",
  "Crystal",
  "Shell",
  "PHP",
  "Perl",
  "R",
  "Elixir",
  "Erlang",
  "Clojure",
  "Julia",
  "PowerShell",
  "CMake",
  "OCaml",
  "F#",
  "SQL",
]);
/** Languages whose `'` strings span lines. */
const SINGLE_SPANS = new Set(["Ruby", "Shell", "PHP", "Perl", "R", "Elixir", "PowerShell", "SQL"]);
/** Languages whose backtick strings span lines (template literals, Go's raw strings, shell and Ruby commands). */
const BACKTICK_SPANS = new Set(["JavaScript", "TypeScript", "Go", "Vue", "Svelte", "Shell", "Ruby", "PHP", "Perl"]);
/** Triple-quoted strings, by language (C#'s raw strings of three or more quotes are read apart). */
const TRIPLES = new Map<string, readonly string[]>([
  ["Python", ['"""', "'''"]],
  ["Starlark", ['"""', "'''"]],
  ["Kotlin", ['"""']],
  ["Java", ['"""']],
  ["Scala", ['"""']],
  ["Swift", ['"""']],
  ["Julia", ['"""']],
  ["GraphQL", ['"""']],
  ["Nim", ['"""']],
  ["F#", ['"""']],
  ["TOML", ['"""', "'''"]],
  ["Dart", ['"""', "'''"]],
  ["Elixir", ['"""', "'''"]],
]);
/** Languages whose `'` starts a character literal or a name (`'a'`, Rust's lifetime `'a`, OCaml's `'a`), no string. */
const CHAR_QUOTE = new Set(["Rust", "OCaml", "F#", "Julia", "Crystal"]);
/** A character literal at a `'` (sticky): `'a'`, `'\n'`, `'\u{1F600}'`, `'\''`. */
const CHAR_LITERAL = /'(?:\\(?:x[0-9a-fA-F]{2}|u\{[0-9a-fA-F]{1,6}\}|.)|[^\\'])'/y;
/** A `#` that starts a comment anywhere outside a string, also right after code (`x = 1#note`). */
const HASH_ANYWHERE = new Set(["Python", "Starlark", "Ruby", "Crystal", "Elixir", "R", "TOML", "Julia", "Nim"]);

/** The closing bracket of an opening one, or the character itself. */
const CLOSING: Record<string, string> = { "(": ")", "[": "]", "{": "}", "<": ">" };

const RUST_RAW = /(?<![\w])[bc]?r(#*)"/y;
const CPP_RAW = /(?<![\w])(?:u8|u|U|L)?R"([^()\\\s]{0,16})\(/y;
const CSHARP_RAW = /(?<![\w])[$@]{0,3}("{3,})/y;
const CSHARP_VERBATIM = /(?<![\w])(?:\$@|@\$|@)"/y;
const RUBY_PERCENT = /%([qQwWiIrsx]?)([^\w\s])/y;
const PERL_QUOTE = /(?<![\w$@%&:>-])(qq|qw|qr|qx|q|m|s|tr|y)([([{</|!])/y;
const ELIXIR_SIGIL = /~([a-zA-Z]+)(["']{3}|[/|"'([{<])/y;
const R_RAW = /(?<![\w])[rR]"(-*)([([{])/y;
const OCAML_QUOTED = /\{([a-z_]*)\|/y;
const LUA_LONG = /\[(=*)\[/y;
const CMAKE_BRACKET = /(?<!#)\[(=*)\[/y;
const POWERSHELL_HERE = /@(["'])$/y;

/**
 * The ASCII characters where a string, an escape or a comment of some language may start (`1` at their code): the
 * scan of a code line skips the others without asking. Letters start prefixed strings only in {@link LETTERS}'
 * languages (Rust's `r"`, C++'s `R"`, Perl's `q{`). Every comment start of src/lang/comments.ts begins with one of
 * these (`#`, `/`, `-`, `%`, `;`, `!`, `<`, `{`, `(`).
 */
const TRIGGERS = new Uint8Array(128);
for (const c of "\"'`\\#/-%;!<{([~@$*=?") TRIGGERS[c.charCodeAt(0)] = 1;
/** Letters that start a string of a language (before a quote or a delimiter). */
const LETTERS = new Map([
  ["Rust", "bcr"],
  ["C++", "uULR"],
  ["C/C++ header", "uULR"],
  ["Objective-C", "uULR"],
  ["Dart", "r"],
  ["R", "rR"],
  ["Perl", "qmsty"],
]);

/** What {@link openAtEnd} asks of the comment rules: where a comment starts at `i` of a code line. */
export type CommentAt = (line: string, i: number) => "line" | number | undefined;

/** `re` (sticky) matched at `i` of `line`, or null. */
function matchAt(re: RegExp, line: string, i: number): RegExpExecArray | null {
  re.lastIndex = i;
  return re.exec(line);
}

/** A string that opens at `i` and closes at `close` (no nesting), its opener `length` characters long. */
function plain(i: number, close: string, esc: string, length = close.length): { open: OpenString; length: number } {
  return { open: { close, esc, from: i }, length };
}

/** A string of `language` that opens at `i` of `line` (outside strings and comments), with its opener's length. */
function stringAt(line: string, i: number, language: string): { open: OpenString; length: number } | undefined {
  const c = line[i] as string;
  let m: RegExpExecArray | null;
  switch (language) {
    case "Rust":
      if ((m = matchAt(RUST_RAW, line, i))) return plain(i, `"${m[1] ?? ""}`, "", m[0].length);
      break;
    case "C++":
    case "C/C++ header":
    case "Objective-C":
      if ((m = matchAt(CPP_RAW, line, i))) return plain(i, `)${m[1] ?? ""}"`, "", m[0].length);
      break;
    case "C#":
      if ((m = matchAt(CSHARP_RAW, line, i))) return plain(i, m[1] as string, "", m[0].length);
      if ((m = matchAt(CSHARP_VERBATIM, line, i))) return plain(i, '"', "", m[0].length);
      break;
    case "F#":
      if ((m = matchAt(CSHARP_VERBATIM, line, i))) return plain(i, '"', "", m[0].length);
      break;
    case "Ruby":
    case "Crystal":
      if (c === "%" && (m = matchAt(RUBY_PERCENT, line, i))) {
        const delim = m[2] as string;
        const bracket = CLOSING[delim];
        // bare `%` is a literal only before a bracket where an operand starts (`x % (y)` is a modulo)
        if (m[1] !== "" || (bracket !== undefined && (i === 0 || /[\s(,=[{]/.test(line[i - 1] as string)))) {
          if (m[1] !== "" && i > 0 && /\w/.test(line[i - 1] as string)) break;
          return {
            open: { close: bracket ?? delim, esc: "\\", nest: bracket && delim, depth: 0, from: i },
            length: m[0].length,
          };
        }
      }
      break;
    case "Perl":
      if ((m = matchAt(PERL_QUOTE, line, i))) {
        const delim = m[2] as string;
        const bracket = CLOSING[delim];
        const op = m[1] as string;
        const parts = bracket === undefined && (op === "s" || op === "tr" || op === "y") ? 1 : 0;
        return {
          open: { close: bracket ?? delim, esc: "\\", nest: bracket && delim, depth: 0, parts, from: i },
          length: m[0].length,
        };
      }
      if (c === "/" && /[=!]~\s*$/.test(line.slice(0, i))) return plain(i, "/", "\\", 1);
      break;
    case "Elixir":
      if ((m = matchAt(ELIXIR_SIGIL, line, i))) {
        const delim = m[2] as string;
        const esc = /^[a-z]/.test(m[1] as string) ? "\\" : "";
        return plain(i, CLOSING[delim] ?? delim, esc, m[0].length);
      }
      break;
    case "R":
      if ((m = matchAt(R_RAW, line, i)))
        return plain(i, `${CLOSING[m[2] as string] ?? ""}${m[1] ?? ""}"`, "", m[0].length);
      break;
    case "OCaml":
      if ((m = matchAt(OCAML_QUOTED, line, i))) return plain(i, `|${m[1] ?? ""}}`, "", m[0].length);
      break;
    case "Lua":
      if ((m = matchAt(LUA_LONG, line, i))) return plain(i, `]${m[1] ?? ""}]`, "", m[0].length);
      break;
    case "CMake":
      if ((m = matchAt(CMAKE_BRACKET, line, i))) return plain(i, `]${m[1] ?? ""}]`, "", m[0].length);
      break;
    case "PowerShell":
      if ((m = matchAt(POWERSHELL_HERE, line, i)))
        return { open: { close: `${m[1] as string}@`, esc: "", atLineStart: true }, length: 2 };
      break;
    case "Dart":
      if (c === "r" && (line.startsWith("r'''", i) || line.startsWith('r"""', i))) {
        return plain(i, line.slice(i + 1, i + 4), "", 4);
      }
      break;
    default:
  }
  for (const triple of TRIPLES.get(language) ?? []) {
    if (line.startsWith(triple, i)) return plain(i, triple, language === "TOML" && triple === "'''" ? "" : "\\");
  }
  if (c === '"') return plain(i, '"', language === "PowerShell" ? "`" : "\\", 1);
  if (c === "`" && BACKTICK_SPANS.has(language)) return plain(i, "`", language === "Go" ? "" : "\\", 1);
  if (c === "'") {
    if (CHAR_QUOTE.has(language)) return undefined;
    const esc = language === "Shell" ? (line[i - 1] === "$" ? "\\" : "") : language === "PowerShell" ? "" : "\\";
    return plain(i, "'", esc, 1);
  }
  return undefined;
}

/** True when the string `open` of `language` goes on past the line's end (else the line's end closes it). */
function spans(open: OpenString, language: string, line: string): boolean {
  if (open.close === '"' && open.esc !== "") return DOUBLE_SPANS.has(language) || endsInBackslash(line);
  if (open.close === "'" && open.esc !== "" && open.nest === undefined) {
    return SINGLE_SPANS.has(language) || endsInBackslash(line);
  }
  if (open.close === "'") return SINGLE_SPANS.has(language); // shell's and PowerShell's '…', SQL's
  return true;
}

/** True when `line` ends in an odd number of backslashes (a string's line continuation in JavaScript, Python, C). */
function endsInBackslash(line: string): boolean {
  return /(?<!\\)(?:\\\\)*\\$/.test(line);
}

/**
 * A YAML line's reading: the quoted scalar (`"…`, `'…`) or block scalar (`|`, `>-`, `|2`: the lines below indented
 * more than this line are its text) it leaves open, read only where a value starts (after the indentation, `- `,
 * `key: `, `[`, `{` or `,`): a quote inside a plain value (`it's`) is text. `open` is a quoted scalar the line starts
 * inside. A `#` after a blank outside quotes starts a comment.
 */
function yamlOpenAtEnd(line: string, open: OpenString | undefined): OpenString | undefined {
  let q = open;
  let valueStart = q === undefined;
  const indent = line.length - line.trimStart().length;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (q !== undefined) {
      if (q.esc !== "" && c === q.esc) i++;
      else if (c === q.close) {
        if (q.close === "'" && line[i + 1] === "'") i++;
        else q = undefined;
      }
      continue;
    }
    if (c === " " || c === "\t") continue;
    if (c === "#" && (i === 0 || /\s/.test(line[i - 1] as string))) break;
    if (valueStart && (c === '"' || c === "'")) {
      q = { close: c, esc: c === '"' ? "\\" : "", from: i };
      continue;
    }
    if (valueStart && (c === "|" || c === ">") && /^[|>][-+0-9]*\s*(?:#.*)?$/.test(line.slice(i))) {
      return { close: "", esc: "", indent };
    }
    if (c === "-" && valueStart && /\s|$/.test(line[i + 1] ?? "")) continue;
    valueStart = c === "[" || c === "{" || c === "," || (c === ":" && /\s|$/.test(line[i + 1] ?? ""));
    if (c === "?" && /\s|$/.test(line[i + 1] ?? "")) valueStart = true;
  }
  return q;
}

/** A `.env` line's quoted value (`KEY="…`, `'…`, `` `…` `` right after the `=`) left open at its end (dotenv). */
function dotenvOpenAtEnd(line: string, open: OpenString | undefined): OpenString | undefined {
  let q = open;
  let i = 0;
  if (q === undefined) {
    const m = /^\s*(?:export\s+)?[\w.-]+\s*=\s*(["'`])/.exec(line);
    if (!m) return undefined;
    q = { close: m[1] as string, esc: m[1] === '"' ? "\\" : "", from: m[0].length - 1 };
    i = m[0].length;
  }
  for (; i < line.length; i++) {
    if (q.esc !== "" && line[i] === q.esc) i++;
    else if (line[i] === q.close) return undefined;
  }
  return q;
}

/**
 * The string that code `line` of `language` leaves open at its end, or undefined: the scan starts inside `open` (or
 * outside any string), skips strings that close on the line, escapes (`\` outside strings too: shell's `don\'t`), and
 * stops at a comment (`commentAt`: "line" for a line comment, the index after a block comment that closes on the
 * line). `known`: the run of lines starts at the file's start, so its state is known; else (a hunk, which may start
 * inside a string opened above it) a line whose text starts with the quote it leaves open is read as that string's
 * close, not as an opening.
 */
export function openAtEnd(
  line: string,
  language: string,
  open: OpenString | undefined,
  known: boolean,
  commentAt: CommentAt,
): OpenString | undefined {
  if (open?.indent !== undefined) return open; // a YAML block scalar: its end is read by indentation (lineKinds)
  if (language === "YAML") return reopenGuess(yamlOpenAtEnd(line, open), open, line, known);
  if (language === "Dotenv") return dotenvOpenAtEnd(line, open);
  let q = open;
  let i = 0;
  const letters = LETTERS.get(language);
  if (q?.atLineStart === true) {
    if (!line.startsWith(q.close)) return q;
    i = q.close.length;
    q = undefined;
  }
  for (; i < line.length; i++) {
    const c = line[i] as string;
    if (q !== undefined) {
      if (q.esc !== "" && c === q.esc) i++;
      else if (q.atLineStart === true) break;
      else if (q.nest !== undefined && c === q.nest) q.depth = (q.depth ?? 0) + 1;
      else if (line.startsWith(q.close, i)) {
        if ((q.depth ?? 0) > 0) q.depth = (q.depth ?? 0) - 1;
        else if ((q.parts ?? 0) > 0) q.parts = (q.parts ?? 0) - 1;
        else {
          i += q.close.length - 1;
          q = undefined;
        }
      }
      continue;
    }
    const code = c.charCodeAt(0);
    if (code < 128 && TRIGGERS[code] === 0 && !(letters?.includes(c) ?? false)) continue;
    if (c === "\\") {
      i++;
      continue;
    }
    const comment = commentAt(line, i);
    if (comment === "line") break;
    if (comment !== undefined) {
      if (comment === -1) break;
      i = comment - 1;
      continue;
    }
    if (c === "#" && HASH_ANYWHERE.has(language) && i > 0 && !/[$?]/.test(line[i - 1] as string)) break;
    // a character literal or a global that holds a quote: Ruby's and Elixir's `?"`, Ruby's and Perl's `$'`,
    // Erlang's `$"`
    if (
      (c === '"' || c === "'" || c === "`") &&
      i > 0 &&
      ((line[i - 1] === "?" && /^(?:Ruby|Crystal|Elixir)$/.test(language) && !/\w/.test(line[i + 1] ?? "")) ||
        (line[i - 1] === "$" && /^(?:Ruby|Perl|Erlang)$/.test(language)))
    ) {
      continue;
    }
    if (c === "'" && CHAR_QUOTE.has(language)) {
      CHAR_LITERAL.lastIndex = i;
      const m = CHAR_LITERAL.exec(line);
      if (m) i += m[0].length - 1;
      continue;
    }
    const s = stringAt(line, i, language);
    if (s !== undefined) {
      q = s.open;
      i += s.length - 1;
    }
  }
  if (q !== undefined && q !== open && !spans(q, language, line)) return undefined;
  return reopenGuess(q, open, line, known);
}

/**
 * The hunk reading's guess: a line (of a run not known from the file's start) whose text starts with the quote it
 * leaves open closes a string opened above the lines seen. Not for Lua's `[[`, closed by `]]`.
 */
function reopenGuess(
  q: OpenString | undefined,
  open: OpenString | undefined,
  line: string,
  known: boolean,
): OpenString | undefined {
  if (known || q === undefined || open !== undefined || q.indent !== undefined) return q;
  const reopened = !q.close.startsWith("]") && q.from === line.length - line.trimStart().length;
  return reopened ? undefined : q;
}
