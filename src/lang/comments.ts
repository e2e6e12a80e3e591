/**
 * The one rule for comment lines, for every reader of code line by line: the heuristic model (where a statement goes,
 * the code part of a line), commit subjects and the comment-only check of a run's edits (src/pipeline/describe.ts,
 * src/agent/outcome.ts), and the eval's scores. Languages are the names of src/lang/languages.ts.
 */
import { parsePatch } from "diff";
import { languageOfBasename, languageOfExtension, languageOfShebang } from "./languages.js";
import { type CommentAt, type OpenString, openAtEnd } from "./strings.js";

/** Languages whose line comments start with `#`, also after code (Python, Ruby, shell, YAML, …). */
const HASH = new Set([
  "Python",
  "Ruby",
  "Shell",
  "Perl",
  "R",
  "Elixir",
  "Crystal",
  "YAML",
  "TOML",
  "GraphQL",
  "Starlark",
  "Pip Requirements",
]);

/**
 * How a language writes a comment: the starts of its line comments (`line`), those of them that also start a comment
 * after code on the same line (`trailing`: not in a Dockerfile, where `#` elsewhere is an argument, nor in a
 * Makefile, where the blanks before it stay in a variable's value, nor in `.gitignore`, where it is part of the
 * pattern), whether it has C's block comments (`/* … *\/`), whether it has markup comments (`<!-- … -->`) and its
 * other block comments ({@link OtherBlock}: Lua's `--[[ … ]]`, Haskell's `{- … -}`, …). A
 * language of src/lang/languages.ts named neither in {@link SYNTAX} nor in {@link HASH} reads as the C family: `//`
 * and `/* … *\/`; a file of no known language as {@link UNKNOWN}.
 */
interface Syntax {
  line: readonly string[];
  trailing: readonly string[];
  block: boolean;
  markup: boolean;
  other?: OtherBlock;
  /** A `'` right after a name or another `'` is part of the name (Haskell's `x'`), not a quote. */
  primes?: boolean;
  /** Lua's long strings `[[ … ]]`, `[==[ … ]==]`: their text is data, a `--` in them no comment. */
  longString?: boolean;
}

/**
 * A block comment other than C's and markup's. `open` finds its opener at a position (sticky) and `close` gives the
 * text that ends the block it opened; in a `nested` language (Haskell, OCaml, F#, Julia, Nim) an opener inside the
 * block needs a close of its own (`{- a {- b -} c -}` is one comment). The backward pass of {@link inertLines}: a
 * trimmed line matching `endsAbove` ends such a block whatever is above it in the run (up to the nearest line
 * matching `opensAbove`); only endings that nothing but a comment can have (Lua's `--]]`, not a bare `]]`, which also
 * ends a long string `[[ … ]]`). `closesAtStart` is the part of `endsAbove` that is at a line's start: what follows it
 * on the line is code.
 */
interface OtherBlock {
  open: RegExp;
  close: (m: RegExpExecArray) => string;
  nested?: boolean;
  closesAtStart: RegExp;
  endsAbove: RegExp;
  opensAbove: RegExp;
}
/** Long brackets after `lead`: Lua's `--[[ … ]]` and `--[==[ … ]==]`, CMake's `#[[ … ]]`. */
const longBracket = (lead: string): OtherBlock => ({
  open: new RegExp(String.raw`${lead}\[(=*)\[`, "y"),
  close: (m) => `]${m[1] ?? ""}]`,
  closesAtStart: new RegExp(String.raw`^${lead}\]=*\]`),
  endsAbove: new RegExp(String.raw`^${lead}\]=*\]`),
  opensAbove: new RegExp(String.raw`${lead}\[=*\[`),
});
/** Haskell's `{- … -}`, nested (a pragma `{-# … #-}` is one too, and a directive): a `-}` ends a line only in one. */
const HASKELL_BLOCK: OtherBlock = {
  open: /\{-/y,
  close: () => "-}",
  nested: true,
  closesAtStart: /^-\}/,
  endsAbove: /^-\}|-\}$/,
  opensAbove: /\{-/,
};
/** PowerShell's `<# … #>` (comment-based help). */
const POWERSHELL_BLOCK: OtherBlock = {
  open: /<#/y,
  close: () => "#>",
  closesAtStart: /^#>/,
  endsAbove: /^#>/,
  opensAbove: /<#/,
};
/**
 * The ML family's `(* … *)`, nested (OCaml, F#). F# reads `(*)` as the multiplication operator, not an opener. No
 * backward ending: a line starting with `*)` is also F#'s `( * )` written across lines, too rare to matter, but a
 * `*)` ends nothing that only a comment has.
 */
const mlBlock = (operator: boolean): OtherBlock => ({
  open: operator ? /\(\*(?!\))/y : /\(\*/y,
  close: () => "*)",
  nested: true,
  closesAtStart: /^\*\)/,
  endsAbove: /(?!)/,
  opensAbove: /\(\*/,
});
/** Pascal's `{ … }` and `(* … *)`, not nested; `{$…}` and `(*$…*)` are compiler directives, which are code. */
const PASCAL_BLOCK: OtherBlock = {
  open: /\{(?!\$)|\(\*(?!\$)/y,
  close: (m) => (m[0] === "{" ? "}" : "*)"),
  closesAtStart: /^(?:\}|\*\))/,
  endsAbove: /(?!)/,
  opensAbove: /\{|\(\*/,
};
/** Julia's `#= … =#` and Nim's `#[ … ]#` (`##[ … ]##` for documentation), nested. */
const hashBlock = (openText: RegExp, closeText: string, end: RegExp): OtherBlock => ({
  open: openText,
  close: (m) => (m[0].startsWith("##") && closeText === "]#" ? "]##" : closeText),
  nested: true,
  closesAtStart: end,
  endsAbove: end,
  opensAbove: new RegExp(openText.source),
});
/** A syntax whose line comments may also follow code, unless `trailing` says otherwise. */
const syntaxWith = (line: string[], more: Partial<Syntax> = {}): Syntax => ({
  line,
  trailing: line,
  block: false,
  markup: false,
  ...more,
});
const C_FAMILY = syntaxWith(["//"], { block: true });
const HASH_SYNTAX = syntaxWith(["#"]);
/** Only at a line's start: `#` behind code is part of the line (an argument, a value, a pattern). */
const HASH_LINE_START = syntaxWith(["#"], { trailing: [] });
/**
 * A file whose path (and shebang, where it shows) names no language (`bin/deploy`, `x.conf`, `app.nix`): every common
 * line comment start (`#`, `//`, `;`) and `/* … *\/` read as comments, `#` and `//` also behind code. Reading a
 * comment as code could let a comment-only edit open a pull request; reading code as a comment only keeps one back.
 */
const UNKNOWN = syntaxWith(["#", "//", ";"], { trailing: ["#", "//"], block: true });
const SYNTAX = new Map<string, Syntax>([
  ["PHP", syntaxWith(["//", "#"], { block: true })],
  ["Terraform", syntaxWith(["//", "#"], { block: true })],
  ["SQL", syntaxWith(["--"], { block: true })],
  // CSS has only `/* … */` (a `//` line swallows the rule after it); strict JSON (package.json) has no comments at
  // all, JSON with comments (`.jsonc`, tsconfig.json, …: {@link JSONC}) the C family's; a batch file's `;`, `::` and
  // `rem` are read as code (a leading `;` is only a delimiter: `;calc.exe` runs)
  ["CSS", syntaxWith([], { block: true })],
  ["JSON", syntaxWith([])],
  ["JSON with Comments", C_FAMILY],
  ["Batchfile", syntaxWith([])],
  ["Lua", syntaxWith(["--"], { other: longBracket("--"), longString: true })],
  ["Haskell", syntaxWith(["--"], { other: HASKELL_BLOCK, primes: true })],
  ["OCaml", syntaxWith([], { other: mlBlock(false), primes: true })],
  ["F#", syntaxWith(["//"], { other: mlBlock(true), primes: true })],
  ["Pascal", syntaxWith(["//"], { other: PASCAL_BLOCK })],
  ["Julia", syntaxWith(["#"], { other: hashBlock(/#=/y, "=#", /^=#/), primes: true })],
  ["Nim", syntaxWith(["#"], { other: hashBlock(/##?\[/y, "]#", /^\]##?/) })],
  ["CMake", syntaxWith(["#"], { other: longBracket("#") })],
  ["PowerShell", syntaxWith(["#"], { other: POWERSHELL_BLOCK })],
  ["Erlang", syntaxWith(["%"])],
  ["Clojure", syntaxWith([";"])],
  ["HTML", syntaxWith([], { markup: true })],
  ["XML", syntaxWith([], { markup: true })],
  ["Vue", syntaxWith(["//"], { block: true, markup: true })],
  ["Svelte", syntaxWith(["//"], { block: true, markup: true })],
  ["Dockerfile", HASH_LINE_START],
  ["Makefile", HASH_LINE_START],
  ["Ignore List", HASH_LINE_START],
  ["Git Attributes", HASH_LINE_START],
  ["EditorConfig", syntaxWith(["#", ";"], { trailing: [] })],
  ["INI", syntaxWith([";", "#"], { trailing: [] })],
  ["Java Properties", syntaxWith(["#", "!"], { trailing: [] })],
  // docker's --env-file keeps ` # x` in the value, and dotenv libraries differ: a `#` behind a value is the value's
  ["Dotenv", HASH_LINE_START],
  // prose and data: only an HTML comment is hidden (Markdown renders none)
  ["Markdown", syntaxWith([], { markup: true })],
  ["Text", syntaxWith([])],
  ["reStructuredText", syntaxWith([])],
]);

function syntaxOf(language: string | undefined): Syntax {
  if (language === undefined) return UNKNOWN;
  return SYNTAX.get(language) ?? (HASH.has(language) ? HASH_SYNTAX : C_FAMILY);
}

/**
 * Code that starts like a line comment of its language: a Haskell operator made of dashes and symbols (`-->`, `--|`),
 * a PHP 8 attribute (`#[Route("/")]`).
 */
const NOT_A_COMMENT = new Map([
  ["Haskell", /^--+[!#$%&*+./<=>?@\\^|~:]/],
  ["PHP", /^#\[/],
]);

/**
 * Comments that a compiler, an interpreter or a build reads (a change of one changes what is built or what runs):
 * a shebang, Go's `//go:` directives, `// +build`, `//line` and cgo's `//export`, TypeScript's `/// <reference …>`,
 * the JSX pragmas (`// @jsx h`, `/** @jsxImportSource preact *\/`), Python's and Ruby's encoding and magic comments
 * (PEP 263 `coding:`, `frozen_string_literal:`), Dockerfile parser directives (`# syntax=`, `# escape=`, `# check=`)
 * and Haskell's pragmas (`{-# LANGUAGE … #-}`). Not a checker's directive (`// @ts-expect-error`, `# noqa`): see
 * {@link SUPPRESSION}.
 */
const DIRECTIVE = new RegExp(
  String.raw`^(?:#!|\/\/go:|\/\/ ?\+build\b|\/\/line |\/\/export |\/\/\/ ?<(?:reference|amd)|` +
    String.raw`(?:\/\/|\/\*\*?) ?@jsx(?:Frag|Runtime|ImportSource)?\b|` +
    String.raw`#.*-\*-.*\bcoding[:=]|# ?(?:en)?coding[:=]|#.*\bfileencoding=|` +
    String.raw`# ?(?:frozen_string_literal|shareable_constant_value|warn_indent):|` +
    String.raw`# ?(?:syntax|escape|check)=|\{-#)`,
);

/** Languages where the indentation of a line is not part of the program (its leading blanks can change freely). */
const FREE_INDENT = new Set([
  "JavaScript",
  "TypeScript",
  "Go",
  "Java",
  "Kotlin",
  "Scala",
  "C#",
  "C",
  "C/C++ header",
  "C++",
  "Rust",
  "Swift",
  "Objective-C",
  "PHP",
  "Dart",
  "CSS",
  "SCSS",
  "Less",
  "JSON",
  "Protocol Buffers",
  "GraphQL",
  "Terraform",
  "SQL",
  "Lua",
]);

/**
 * JSON files whose readers take `//` and `/* … *\/` comments: `.jsonc`, TypeScript's and jsconfig's configs,
 * `.eslintrc.json`, `.babelrc`, VS Code's settings and a devcontainer's (other `.json` files are strict JSON).
 */
const JSONC = new RegExp(
  String.raw`(?:^|\/)(?:[^/]*\.jsonc|(?:tsconfig|jsconfig)(?:\.[\w.-]+)?\.json|\.eslintrc\.json|` +
    String.raw`\.babelrc(?:\.json)?|\.vscode\/[^/]+\.json|devcontainer\.json)$`,
);

/**
 * The language of a repository path: by basename (`Dockerfile`, `Gemfile`, `.gitignore`, `requirements-dev.txt`),
 * else by extension, else by the shebang of the file's `firstLine` when the caller knows it (`#!/usr/bin/env
 * python3` → Python; `languageOfShebang` of src/lang/languages.ts); undefined if none.
 */
export function languageOfPath(path: string, firstLine?: string): string | undefined {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  if (JSONC.test(path)) return "JSON with Comments";
  return (
    languageOfBasename(base) ??
    (dot > 0 ? languageOfExtension(base.slice(dot + 1)) : undefined) ??
    (firstLine === undefined ? undefined : languageOfShebang(firstLine))
  );
}

/**
 * True when `line` (no line break) is a comment and nothing else, in `language` (a name of src/lang/languages.ts; any
 * other name reads as the C family, undefined as a file of no known language, {@link UNKNOWN}):
 * - `#` languages ({@link HASH}, also CMake, Julia, Nim, pip's requirement files, Starlark): the line starts with
 *   `#`; Ruby's `=begin` / `=end` lines too. Also Dockerfile, Makefile, `.env` files, `.gitignore`-style ignore lists
 *   and `.gitattributes`, where a `#` behind code is no comment (nor a Makefile line starting with a tab: a recipe
 *   line, which make expands and runs); `#` and `;` in EditorConfig and INI; `#` and `!` in
 *   Java properties.
 * - the C family (JavaScript, TypeScript, Go, Java, Kotlin, C#, C, …): the line starts with `//`; or it is a block
 *   comment's line — `/* … *\/` (or an unclosed `/*`), a continuation ` * …` (`*` then a space, a tab or nothing)
 *   or the closing `*\/` — with nothing but white space or a `//` comment after its `*\/`. So `/* x *\/ run();` and
 *   Go's or C's `*p = v` are code.
 * - `--` in SQL (which also has `/* … *\/`), Lua and Haskell (not its operators such as `-->`); a block comment's
 *   line in Lua (`--[[ … ]]`, `--[==[ … ]==]`), Haskell (`{- … -}`, nested, also a pragma `{-# … #-}`), CMake
 *   (`#[[ … ]]`), PowerShell (`<# … #>`), OCaml and F# (`(* … *)`, nested; not F#'s `(*)` operator; F# also `//`),
 *   Pascal (`{ … }`, `(* … *)`, not the directives `{$…}`; also `//`), Julia (`#= … =#`, nested) and Nim (`#[ … ]#`,
 *   nested) — opening it, or starting with its end (`-}`, `--]]`) — with nothing but white space or a comment after
 *   the end (`--[[ x ]] os.exit()` is code); `#` and `//` in PHP
 *   (not an attribute `#[…]`) and Terraform; `%` in Erlang; `;` in Clojure; `<!-- … -->` (or an unclosed `<!--`,
 *   or a closing `-->`) in HTML, XML, Markdown, Vue and Svelte (the last two also read `//` and `/* … *\/`, for
 *   their scripts).
 * - CSS: only a block comment's line (`//` is no comment there; SCSS and Less have it). JSON with comments
 *   (`.jsonc`, tsconfig.json, …: `JSONC`): the C family's.
 * - Text (a `.txt` file that is no requirements file nor `CMakeLists.txt`), reStructuredText, strict JSON
 *   (package.json), Windows batch files (`;calc.exe` runs; `rem` and `::` are read as code too): never.
 * - no known language (an extension-less script whose shebang is not known, `x.conf`): `#`, `//`, `;`, `/* … *\/`.
 * A blank line is not a comment (see {@link isInertLine}).
 */
export function isCommentLine(line: string, language: string | undefined): boolean {
  const t = line.trim();
  if (t === "") return false;
  // A Makefile line that starts with a tab is a recipe line: make expands it (`# $(shell …)` runs) and hands it to
  // the shell; only a `#` line that does not start with a tab is make's own comment.
  if (language === "Makefile" && line.startsWith("\t")) return false;
  if (language === "Ruby" && /^=(?:begin|end)(?:\s|$)/.test(t)) return true;
  const syntax = syntaxOf(language);
  if (syntax.other !== undefined) {
    const rest = afterOtherBlock(t, syntax.other);
    if (rest !== undefined) return rest === null || rest === "" || isCommentLine(rest, language);
  }
  for (const start of syntax.line) {
    if (t.startsWith(start) && !(NOT_A_COMMENT.get(language ?? "")?.test(t) ?? false)) return true;
  }
  if (syntax.markup && (t.startsWith("<!--") || t.startsWith("-->"))) {
    const close = t.indexOf("-->", t.startsWith("<!--") ? 4 : 0);
    if (close === -1) return true;
    const after = t.slice(close + 3).trim();
    return after === "" || isCommentLine(after, language);
  }
  if (!syntax.block) return false;
  let rest: string;
  if (t.startsWith("/*")) rest = t.slice(2);
  else if (t.startsWith("*/")) rest = t;
  else if (isStarLine(t)) rest = t.slice(1);
  else return false;
  const close = rest.indexOf("*/");
  if (close === -1) return true;
  const after = rest.slice(close + 2).trim();
  return after === "" || after.startsWith("//") || isCommentLine(after, language);
}

/**
 * Where the block comment of `other` that `closer` ends, open `depth` levels deep (1 unless `other.nested`), ends in
 * `text` from `from` on: `at` is the index right after its last close, or -1 when it stays open, with the `depth`
 * still open then. In a nested block each opener on the way needs a close of its own.
 */
function otherEnd(
  text: string,
  from: number,
  other: OtherBlock,
  closer: string,
  depth = 1,
): { at: number; depth: number } {
  if (other.nested !== true) {
    const at = text.indexOf(closer, from);
    return { at: at === -1 ? -1 : at + closer.length, depth: at === -1 ? depth : 0 };
  }
  for (let i = from; i < text.length; i++) {
    if (text.startsWith(closer, i)) {
      i += closer.length - 1;
      if (--depth === 0) return { at: i + 1, depth };
      continue;
    }
    other.open.lastIndex = i;
    const m = other.open.exec(text);
    if (m) {
      depth++;
      i += m[0].length - 1;
    }
  }
  return { at: -1, depth };
}

/**
 * For a trimmed line that opens one of the language's other block comments at its start ({@link OtherBlock}): the
 * text after its end (trimmed), or null when it stays open; for a line that starts with the end of one (`-}`, `--]]`)
 * the text after that end; undefined for any other line.
 */
function afterOtherBlock(t: string, other: OtherBlock): string | null | undefined {
  other.open.lastIndex = 0;
  const m = other.open.exec(t);
  if (m) {
    const { at } = otherEnd(t, m[0].length, other, other.close(m));
    return at === -1 ? null : t.slice(at).trim();
  }
  const end = other.closesAtStart.exec(t);
  return end ? t.slice(end[0].length).trim() : undefined;
}

/**
 * What ends the block comment a trimmed comment line leaves open at its end, if it opens one of `other`'s (with the
 * levels left open, for a nested one); else "".
 */
function otherLeftOpen(t: string, other: OtherBlock): { closer: string; depth: number } {
  other.open.lastIndex = 0;
  const m = other.open.exec(t);
  if (!m) return { closer: "", depth: 0 };
  const closer = other.close(m);
  const end = otherEnd(t, m[0].length, other, closer);
  return end.at === -1 ? { closer, depth: end.depth } : otherLeftOpen(t.slice(end.at).trim(), other);
}

/** A block comment's continuation line (trimmed): `*` alone, or `*` then a space or a tab. */
function isStarLine(t: string): boolean {
  return t === "*" || t.startsWith("* ") || t.startsWith("*\t");
}

/** Arguments of an annotation or attribute, if any: `("unchecked")`, `({"a", "b"})`, one level of nested parens. */
const ARGS = String.raw`(?:\s*\((?:[^()]|\([^()]*\))*\))?`;
/** A C preprocessor line that only sets which warnings a compiler reports (MSVC, GCC, Clang, NVCC). */
const C_WARNING_PRAGMA = /^#\s*pragma\s+(?:warning\b|(?:GCC|clang)\s+diagnostic\b|(?:nv_)?diag_suppress\b)/;

/**
 * Code lines, by language, that only tell a checker what to report, each alone on its line: Java's, Kotlin's and
 * Scala's warning annotations (`@SuppressWarnings("unchecked")`, `@Suppress("UNUSED")`, `@nowarn`), C#'s `#pragma
 * warning disable|restore`, `#nullable` and `[SuppressMessage(…)]` / `[ExcludeFromCodeCoverage]`, Rust's
 * `#[allow(…)]` / `#[expect(…)]` / `#[rustfmt::skip]`, C's and C++'s warning pragmas. The comment forms of such
 * directives (`// eslint-disable-next-line`, `# noqa`, `# type: ignore`, `# pylint: disable=…`, `// @ts-ignore`,
 * `// @ts-expect-error`, `//nolint`, `// NOLINT`, `/* istanbul ignore next *\/`, `# pragma: no cover`) are comments.
 *
 * Both are inert ({@link isInertLine}): they change what a linter, type checker, coverage or formatter reports, not
 * what runs, and an edit that only silences a checker is no fix a maintainer would merge as one. So an edit that
 * only adds (or removes) such lines and comments is comment-only ({@link isCommentOnly}) and never ready for a pull
 * request unless a maintainer approved the run. What changes what is built or runs stays code: `DIRECTIVE`, and
 * `#pragma once`, `#pragma pack`, an annotation on the same line as a declaration (`@Suppress("X") val x = f()`).
 */
const SUPPRESSION = new Map<string, RegExp>([
  ["Java", new RegExp(String.raw`^@(?:java\.lang\.)?(?:SuppressWarnings|SuppressLint|SuppressFBWarnings)${ARGS}$`)],
  ["Kotlin", new RegExp(String.raw`^@(?:file:|kotlin\.)?(?:Suppress|SuppressWarnings|SuppressLint)${ARGS}$`)],
  ["Scala", new RegExp(String.raw`^@(?:scala\.annotation\.)?(?:nowarn|unused|SuppressWarnings)${ARGS}$`)],
  [
    "C#",
    new RegExp(
      String.raw`^(?:#\s*pragma\s+warning\s+(?:disable|restore)\b|#\s*nullable\s+(?:enable|disable|restore)\b|` +
        String.raw`\[(?:assembly:\s*|module:\s*)?(?:System\.Diagnostics\.CodeAnalysis\.)?` +
        String.raw`(?:SuppressMessage|ExcludeFromCodeCoverage)(?:Attribute)?${ARGS}\]$)`,
    ),
  ],
  ["Rust", /^#!?\[(?:(?:allow|expect)\((?:[^()[\]]|\([^()]*\))*\)|rustfmt::skip(?:::\w+)?)\]$/],
  ["C", C_WARNING_PRAGMA],
  ["C/C++ header", C_WARNING_PRAGMA],
  ["C++", C_WARNING_PRAGMA],
  ["Objective-C", C_WARNING_PRAGMA],
]);

/**
 * True when `line` does nothing when the program runs, in the file at `path`: blank, a comment
 * ({@link isCommentLine}) that is no directive (a shebang, `//go:embed`, `# coding: …`: see `DIRECTIVE`; a checker's
 * directive such as `// @ts-expect-error` or `# noqa` is a comment), a code line that only tells a checker what to
 * report ({@link SUPPRESSION}: `@SuppressWarnings("x")`, `#pragma warning disable`), or in Python a line that is only
 * a string literal (a docstring line: `"""…`, `'''…`, `"text"`).
 */
export function isInertLine(path: string, line: string): boolean {
  return isInert(line, languageOfPath(path));
}

/** {@link isInertLine} in `language` (a name of src/lang/languages.ts, undefined for no known language). */
function isInert(line: string, language: string | undefined): boolean {
  const t = line.trim();
  if (t === "") return true;
  if (isCommentLine(line, language)) return !DIRECTIVE.test(t);
  if (SUPPRESSION.get(language ?? "")?.test(t) === true) return true;
  return language === "Python" && (isDocstringStart(t) || /^[rRbBuU]?("[^"]*"|'[^']*')$/.test(t));
}

/**
 * A Python line (trimmed) that starts a string in `"""` or `'''` and holds nothing else: the string stays open at the
 * line's end, or only a comment follows its close (`"""doc""" + run()` runs `run()`).
 */
function isDocstringStart(t: string): boolean {
  const m = /^[rRbBuU]?("""|''')/.exec(t);
  if (!m) return false;
  const quote = m[1] as string;
  const raw = /^[rR]/.test(t);
  for (let i = m[0].length; i < t.length; i++) {
    if (t[i] === "\\" && !raw) i++;
    else if (t.startsWith(quote, i)) {
      const after = t.slice(i + 3).trim();
      return after === "" || after.startsWith("#");
    }
  }
  return true;
}

/**
 * The lines of a run of consecutive lines of the file at `path` (in order) that do nothing when the program runs:
 * each {@link isInertLine}, and also the lines inside a block comment that opens on an earlier line of the run
 * (`/*` … `*\/` in the C family, `<!--` … `-->` in markup, Ruby's `=begin` … `=end`, Perl's POD, a Python string
 * literal in `"""` or `'''` that spans lines, Lua's `--[[` … `]]`, Haskell's `{-` … `-}`, CMake's `#[[` … `]]`,
 * PowerShell's `<#` … `#>`, `(* … *)`, Julia's and Nim's; also one that opens behind code after a blank, `x = 1 --[[
 * note`), or that closes on a later line of it (a
 * line starting with `*\/`, or a ` * …` line holding `*\/`: every line back to the one holding `/*` is inside; a
 * line starting with `-}`, `--]]`, `#]]` or `#>`, or ending with `-}`: back to the one holding its opener), whatever
 * they hold (a bare `]]` ends a Lua long string as well as a comment: it says nothing about the lines above). A
 * ` * …` line in neither, whose nearest non-blank line above in the run is code, is code too: a continuation line
 * that breaks before a `*` (`return p` then `    * q;`), not a comment's. `firstLine`, when the caller knows it, is
 * the file's first line (a shebang names the language of an extension-less script: {@link languageOfPath}). A line
 * inside a multi-line string or here-document that a code line of the run opens is part of that code, never inert
 * ({@link lineKinds}). A line that may hide code however it looks is never inert: a Java `\u` escape, a PHP `?>`
 * (and the output outside `<?php … ?>`), a C comment that splices the next line on, cgo's preamble, a line break only
 * some compilers see, the lines after Ruby's `__END__` ({@link hidesCode}, `cgoPreamble`). Returns one boolean per
 * line.
 */
export function inertLines(path: string, lines: readonly string[], firstLine?: string): boolean[] {
  return inertLinesIn(languageOfPath(path, firstLine), lines);
}

/** {@link inertLines} in `language` (a name of src/lang/languages.ts, undefined for no known language). */
function inertLinesIn(language: string | undefined, lines: readonly string[]): boolean[] {
  return lineKinds(language, lines).inert;
}

/** A Perl line that starts POD where a statement may start: `=` and a letter at the line's very start (`=head1`). */
const POD_START = /^=[A-Za-z]/;
/** The line that ends POD: `=cut`, not `=cutter` (perl's own test). */
const POD_CUT = /^=cut(?![A-Za-z])/;

/**
 * The lines of a run of lines of `language` read in one pass, each: `inert` ({@link inertLines}) and `joined` (it goes
 * on the logical line above, {@link logicalLines}: a line inside a multi-line string or here-document that a code line
 * above opens, or after a line ending in a joining `\`). A line inside such a string or here-document is data: it
 * opens and closes no comment (`` `/*` `` in a template literal, `=begin` in a here-document) and is inert only as
 * part of an inert line (a `//` comment that a `\` continues, in C). Perl's POD (`=pod`, `=head1`, `=cut`, … at a
 * line's start where a statement may start, that is at the run's start or after a code line ending in `;`, `{` or
 * `}`, through the next `=cut` line) is inert. `kept`: lines that may hide code however they look ({@link hidesCode},
 * PHP's output outside `<?php … ?>` when the run starts at the file's start, a comment that splices the next line on,
 * cgo's preamble, the lines from Ruby's `__END__` or Perl's `__END__` / `__DATA__` on), never inert. `fileStart`: the
 * run starts at the file's line 1, so nothing is open above it (no string, no block comment a later line ends).
 * `data`: the lines inside a string or here-document a line above opens, and those of Ruby's or Perl's data section.
 */
function lineKinds(
  language: string | undefined,
  lines: readonly string[],
  fileStart = false,
): { inert: boolean[]; joined: boolean[]; kept: boolean[]; data: boolean[] } {
  const syntax = syntaxOf(language);
  const other = syntax.other;
  /** What closes the block the current line is in: `*\/`, `-->`, `=end`, `=cut`, `"""`, `'''`, or "" outside one. */
  let closer = "";
  /** The levels of a nested {@link OtherBlock} left open, when `closer` is its close. */
  let depth = 0;
  /** Lines known to be inside a block comment (opened above, or closed below, in the run). */
  const inside = lines.map(() => false);
  /** Lines inside a string or here-document: data, never a comment's start or end. */
  const data = lines.map(() => false);
  const joined = lines.map(() => false);
  /** Lines that may hide code however they look ({@link hidesCode}): compared as they are, never inert. */
  const kept = lines.map((line) => hidesCode(line.replace(/\r$/, ""), language));
  const out: boolean[] = [];
  /** The last code line that starts a logical line (Perl: whether a statement may start below it). */
  let lastCode: string | undefined;
  /** The comment reading of a line outside strings: inert or not, and the block comment it leaves open. */
  const comment = (line: string, i: number): boolean => {
    const t = line.trim();
    if (closer !== "") {
      inside[i] = true;
      let at: number;
      if (closer === "=end") at = /^=end(?:\s|$)/.test(t) ? 4 : -1;
      else if (closer === "=cut") at = POD_CUT.test(line) ? t.length : -1;
      else if (other !== undefined && depth > 0) {
        const end = otherEnd(t, 0, other, closer, depth);
        depth = end.depth;
        at = end.at;
      } else at = t.indexOf(closer) === -1 ? -1 : t.indexOf(closer) + closer.length;
      if (at === -1) return true;
      const after = t.slice(at).trim();
      closer = "";
      return after === "" || isInert(after, language);
    }
    if (language === "Perl" && POD_START.test(line)) {
      const code = lastCode === undefined ? "" : scanLine(lastCode, syntax).code.trim();
      if (code === "" || /[;{}]$/.test(code)) {
        closer = "=cut";
        return true;
      }
    }
    if (!isInert(line, language)) {
      // code that opens a block comment behind it (`x = 1 --[[ note`): the lines below are inside
      const scan = scanLine(line, syntax);
      closer = scan.closer;
      depth = scan.depth;
      return false;
    }
    depth = 0;
    if (language === "Ruby" && /^=begin(?:\s|$)/.test(t)) closer = "=end";
    else if (language === "Python") {
      const quote = /^[rRbBuU]?("""|''')/.exec(t)?.[1];
      if (quote !== undefined && !t.slice(t.indexOf(quote) + 3).includes(quote)) closer = quote;
    } else if (syntax.markup && t.startsWith("<!--") && !t.includes("-->", 4)) closer = "-->";
    else if (syntax.block && leavesBlockOpen(t)) closer = "*/";
    else if (other !== undefined) ({ closer, depth } = otherLeftOpen(t, other));
    return true;
  };
  const commentAt = language === undefined ? undefined : commentStarts(language);
  let open: OpenString | undefined;
  let here: { end: (line: string) => boolean } | undefined;
  let join = false;
  let start = 0;
  /** After Ruby's `__END__`, Perl's `__END__` / `__DATA__`: the rest of the file is the program's DATA. */
  let dataSection = false;
  /** PHP: outside `<?php … ?>` (the file's start, after a `?>`): the text is output, never a comment. */
  let html = language === "PHP" && fileStart;
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).replace(/\r$/, "");
    if (dataSection) {
      kept[i] = data[i] = true;
      out[i] = false;
      continue;
    }
    // a YAML block scalar ends at the first line that is not blank and not indented more than its key
    if (open?.indent !== undefined && line.trim() !== "" && line.length - line.trimStart().length <= open.indent) {
      open = undefined;
    }
    const cont = language !== undefined && (open !== undefined || here !== undefined || join);
    joined[i] = cont;
    data[i] = cont && (open !== undefined || here !== undefined);
    if (!cont) start = i;
    // a line a `\` joins to a line comment or to code is part of it; inside a block comment it is read as its line
    out[i] = data[i] || (cont && closer === "") ? (out[start] as boolean) : comment(line, i);
    if (language === "PHP" && !data[i]) {
      const closeAt = line.lastIndexOf("?>");
      const openAt = line.lastIndexOf("<?");
      if (html || closeAt !== -1) kept[i] = true;
      if (closeAt !== -1 || openAt !== -1) html = closeAt > openAt;
    }
    if (!cont && !out[i] && line.trim() !== "") lastCode = line;
    if (commentAt === undefined || language === undefined) continue;
    if (!data[i] && ((language === "Ruby" && line === "__END__") || (language === "Perl" && PERL_DATA.test(line)))) {
      dataSection = true;
      kept[i] = true;
      continue;
    }
    const startInert = out[start] as boolean;
    if (here !== undefined) {
      if (here.end(line)) here = undefined;
      join = false;
      continue;
    }
    if (!startInert || open !== undefined) {
      open = openAtEnd(line, language, open, fileStart, commentAt);
      if (open === undefined && !startInert && HEREDOC.has(language)) here = heredocOf(line, language);
    }
    join = SPLICED_COMMENTS.has(language)
      ? SPLICE.test(line)
      : CONTINUED.has(language) && /(?<!\\)(?:\\\\)*\\$/.test(line) && !startInert;
    // a comment that splices the next line on: compared as it is (compilers differ on `\` then blanks)
    if (join && startInert && SPLICED_COMMENTS.has(language)) kept[start] = true;
  }
  if (other !== undefined) {
    // A line that can only end a block comment (`-}`, `--]]`, `#>`) in a run that starts below the file's start and
    // shows no opener above it: the block opened above the run, every line above it is inside. An opener in the run
    // was read forwards (its block is open below it, or it closed on its own line and `--]]` is a line comment).
    const ends = (t: string) => other.endsAbove.test(t) && !other.opensAbove.test(t);
    for (const i of backwards(lines, data, fileStart, ends, (t) => other.opensAbove.test(t))) out[i] = true;
  }
  if (syntax.block) {
    const ends = (t: string) => t.startsWith("*/") || (isStarLine(t) && t.includes("*/"));
    for (const i of backwards(lines, data, fileStart, ends, (t) => t.includes("/*"))) out[i] = inside[i] = true;
    // Forwards: a ` * …` line in no block found above, whose nearest non-blank line above is code, is code.
    let above: boolean | undefined;
    for (let i = 0; i < lines.length; i++) {
      const t = (lines[i] as string).trim();
      if (t === "" || data[i]) continue;
      if (!inside[i] && isStarLine(t) && above === false) out[i] = false;
      above = out[i];
    }
  }
  if (language === "Go") cgoPreamble(lines, out, inside, data, kept);
  return { inert: out.map((inert, i) => inert && !kept[i]), joined, kept, data };
}

/** How one line of a file reads ({@link lineReadings}). */
export interface LineReading {
  /** It does nothing when the program runs ({@link inertLines}). */
  inert: boolean;
  /** It goes on the logical line above: inside a string or here-document a line above opens, or after a joining `\`. */
  joined: boolean;
  /** It may hide code however it looks, or its reading depends on far lines (PHP output, a data section). */
  kept: boolean;
  /** It is data: inside a string or here-document a line above opens, or in Ruby's or Perl's data section. */
  data: boolean;
}

/**
 * How each line of a whole file (`lines`, from its line 1) reads in `language` (a name of src/lang/languages.ts,
 * undefined for no known language): the one pass of {@link inertLines}, with each line's part in a logical line. An
 * addition that leaves every existing line reading the same has put no existing code into a comment, a string, a
 * here-document or a data section, and has taken none out of one (src/grounding/lexical.ts).
 */
export function lineReadings(language: string | undefined, lines: readonly string[]): LineReading[] {
  const kinds = lineKinds(language, lines, true);
  return lines.map((_, i) => ({
    inert: kinds.inert[i] === true,
    joined: kinds.joined[i] === true,
    kept: kinds.kept[i] === true,
    data: kinds.data[i] === true,
  }));
}

/** Perl's `__END__` and `__DATA__` at a line's start: the lines below are the program's DATA. */
const PERL_DATA = /^__(?:END|DATA)__(?!\w)/;

/**
 * The lines above the last line that can only end a block comment (`ends`, trimmed), in a run that starts below the
 * file's start and holds no opener (`opens`) above that line: inside a block opened above the run. Data lines
 * (strings) neither end nor open one. None when the run starts at the file's start (nothing is open there).
 */
function backwards(
  lines: readonly string[],
  data: readonly boolean[],
  fileStart: boolean,
  ends: (t: string) => boolean,
  opens: (t: string) => boolean,
): number[] {
  if (fileStart) return [];
  let last = -1;
  for (let i = 0; i < lines.length; i++) {
    if (data[i]) continue;
    const t = (lines[i] as string).trim();
    if (ends(t)) last = i;
    else if (opens(t)) break;
  }
  const inside: number[] = [];
  for (let i = 0; i < last; i++) if (!data[i]) inside.push(i);
  return inside;
}

/** A Go line that imports "C" (`import "C"`, or `"C"` alone in an import group). */
const CGO_IMPORT = /^\s*(?:import\s*)?(?:\(\s*)?(?:\w+\s+)?"C"\s*\)?\s*(?:\/\/.*)?$/;

/**
 * Go: the comment right above an `import "C"` (alone or in an import group) is cgo's preamble, C code that is
 * compiled and linked: its lines are kept (compared as they are), back to the first blank line outside it.
 */
function cgoPreamble(
  lines: readonly string[],
  out: readonly boolean[],
  inside: readonly boolean[],
  data: readonly boolean[],
  kept: boolean[],
): void {
  for (let i = 0; i < lines.length; i++) {
    if (data[i] || !CGO_IMPORT.test(lines[i] as string)) continue;
    for (let j = i - 1; j >= 0 && out[j] === true && ((lines[j] as string).trim() !== "" || inside[j]); j--) {
      kept[j] = true;
    }
  }
}

/**
 * True when a line of `language` may hide code however it reads, so that it is compared as it is and never inert:
 * a character some compiler takes for a line break (a lone CR, NEL, U+2028, U+2029: JavaScript ends a `//` comment at
 * U+2028, GCC at a lone CR); in Java and Scala (2) a `\u` escape, which javac turns into its character before it
 * reads comments (`// \u000a run();` runs `run()`); in PHP a `?>`, which ends a `//` or `#` comment (what follows is
 * output, or code again after a `<?php`).
 */
function hidesCode(line: string, language: string | undefined): boolean {
  if (/[\x85\u2028\u2029]|\r(?!$)/.test(line)) return true;
  if (language === "Java" || language === "Scala") return /(?<!\\)(?:\\\\)*\\u/.test(line);
  if (language === "PHP") return line.includes("?>");
  return false;
}

/** Whether a C-family comment line (trimmed) ends inside a block comment: `/* …` or ` * …` with no `*\/` after. */
function leavesBlockOpen(t: string): boolean {
  if (t.startsWith("/*")) return !t.includes("*/", 2);
  return t.startsWith("*") && !t.startsWith("*/") && !t.includes("*/");
}

/**
 * `line` read left to right outside strings (`"`, `'`, `` ` ``, with backslash escapes; in Haskell a `'` after a name
 * is part of it, `x'`) and outside block comments (`/* … *\/`, {@link OtherBlock}s such as `{- … -}`):
 * - `code`: the line without a line comment after its code (`run(); // note` → `run();`), for comparing code lines.
 *   The comment must start with one of the language's `trailing` markers right after a blank; a block comment right
 *   after a blank that ends the line counts too (`run(); /* note *\/`, `x = 1 --[[ note ]]`; one in the middle of
 *   the code stays: `a; /* b *\/ c;`). The line as it is when
 *   a string or block comment is left open at its end (it may go on to the next line), in markup languages, and in
 *   any language with no trailing comment.
 * - `closer`: what ends a block comment that opens at the line's start or after a blank and is left open at its end
 *   (`x = 1 --[[ the value` → `]]`), else "" (also when a string is left open: `/[/*]/` is no comment).
 */
function scanLine(line: string, syntax: Syntax): { code: string; closer: string; depth: number } {
  const whole = { code: line, closer: "", depth: 0 };
  const other = syntax.other;
  if (syntax.markup || (syntax.trailing.length === 0 && !syntax.block && other === undefined)) return whole;
  let quote = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    const blank = i > 0 && (line.charCodeAt(i - 1) === 32 || line.charCodeAt(i - 1) === 9);
    if (c === 92) {
      i++; // a backslash escapes the next character, in a string or not (a regular expression's `\/`)
      continue;
    }
    if (quote !== 0) {
      if (c === quote) quote = 0;
      continue;
    }
    if (c === 34 || c === 96 || (c === 39 && !(syntax.primes === true && i > 0 && /[\w']/.test(line[i - 1] ?? "")))) {
      quote = c;
      continue;
    }
    let closer = "";
    let from = 0;
    let end: { at: number; depth: number } | undefined;
    if (syntax.block && c === 47 && line.charCodeAt(i + 1) === 42) {
      closer = "*/";
      from = i + 2;
      const at = line.indexOf(closer, from);
      end = { at: at === -1 ? -1 : at + 2, depth: at === -1 ? 1 : 0 };
    } else if (other !== undefined) {
      other.open.lastIndex = i;
      const m = other.open.exec(line);
      if (m) {
        closer = other.close(m);
        end = otherEnd(line, i + m[0].length, other, closer);
      }
    }
    if (end === undefined && syntax.longString === true) {
      // a Lua long string: its text is data, however it looks
      LONG_STRING.lastIndex = i;
      const m = LONG_STRING.exec(line);
      if (m) {
        const at = line.indexOf(`]${m[1] ?? ""}]`, i + m[0].length);
        if (at === -1) return whole;
        i = at + m[0].length - 1;
        continue;
      }
    }
    if (end !== undefined) {
      if (end.at === -1) return { code: line, closer: blank || i === 0 ? closer : "", depth: end.depth };
      const rest = line.slice(end.at).trim();
      // a block comment that ends the line is a comment after its code, as a line comment is
      if (blank && (rest === "" || syntax.trailing.some((start) => rest.startsWith(start)))) {
        return { code: line.slice(0, i), closer: "", depth: 0 };
      }
      i = end.at - 1;
    } else if (blank) {
      for (const start of syntax.trailing) {
        if (line.startsWith(start, i)) return { code: line.slice(0, i), closer: "", depth: 0 };
      }
    }
  }
  return whole;
}

/** The opening of a Lua long string (sticky): `[[`, `[==[`; its close is `]]`, `]==]`. */
const LONG_STRING = /\[(=*)\[/y;

/**
 * The code of `line` in `language` (a name of src/lang/languages.ts, undefined for no known language) without a
 * comment after it: `run(); // may throw` → `run(); `, `x = f()  # note` → `x = f()  ` (the blanks before the
 * comment stay). The rule of {@link isCommentOnly}: the comment starts right after a blank, outside strings and block
 * comments; the line as it is when a string or block comment is left open at its end, in markup, and where the
 * language has no comment after code (a Dockerfile, a Makefile). A line that is only a comment is not cut: ask
 * {@link isCommentLine} first.
 */
export function codeOfLine(line: string, language: string | undefined): string {
  return scanLine(line, syntaxOf(language)).code;
}

/** Languages whose here-documents (`<<EOF` … `EOF`; PHP `<<<EOF`) hold lines of data. */
const HEREDOC = new Set(["Shell", "Ruby", "Perl", "PHP", "Dockerfile", "Terraform"]);
/**
 * Languages where a `\` at the end of a code line joins the next line to it before comments are read (not a
 * Dockerfile: Docker drops the comment lines of a continued instruction first).
 */
const CONTINUED = new Set(["C", "C++", "C/C++ header", "Objective-C", "Shell", "Makefile", "Python"]);
/**
 * Of those, the languages where a comment ending in `\` also takes in the next line (C's line splicing, make). GCC
 * and Clang also splice at a `\` followed by blanks, and C before C23 (C++ before C++17) reads the trigraph `??/` as
 * `\`: such a comment line is compared as it is, never inert ({@link hidesCode}).
 */
const SPLICED_COMMENTS = new Set(["C", "C++", "C/C++ header", "Objective-C", "Makefile"]);
/** A line end that splices the next line on, in {@link SPLICED_COMMENTS} languages (with the blanks GCC allows). */
const SPLICE = /(?:\\|\?\?\/)[ \t\f\v]*$/;

/**
 * Where a comment starts at `i` of a code line of `language`, for the string scan of src/lang/strings.ts: "line" for a
 * line comment (one of the language's `trailing` starts, or its `line` starts at the line's first non-blank), the
 * index right after a block comment that closes on the line (`/* … *\/`, an {@link OtherBlock}), -1 for one left
 * open; undefined for no comment.
 */
function commentStarts(language: string): CommentAt {
  const syntax = syntaxOf(language);
  const notComment = NOT_A_COMMENT.get(language);
  /** The line last asked about and the index of its first non-blank character. */
  let seen: string | undefined;
  let first = 0;
  return (line, i) => {
    if (line !== seen) {
      seen = line;
      first = line.length - line.trimStart().length;
    }
    const other = syntax.other;
    if (other !== undefined) {
      other.open.lastIndex = i;
      const m = other.open.exec(line);
      if (m) return otherEnd(line, i + m[0].length, other, other.close(m)).at;
    }
    if (syntax.block && line.startsWith("/*", i)) {
      const close = line.indexOf("*/", i + 2);
      return close === -1 ? -1 : close + 2;
    }
    for (const start of i <= first ? syntax.line : syntax.trailing) {
      if (!line.startsWith(start, i)) continue;
      if (start === "#" && i > 0 && !/\s/.test(line[i - 1] as string)) continue;
      if (notComment?.test(line.slice(i)) === true) continue;
      return "line";
    }
    return undefined;
  };
}

/**
 * The here-document a code `line` of `language` opens (`cat <<EOF`, `<<~SQL`, PHP `<<<EOT`, Terraform `<<-EOT`), or
 * undefined: `end` tells its closing line. Read strictly, so that a line that only looks like the end inside the
 * text does not end it early: shell's and Dockerfile's `<<EOF` end at `EOF` alone on its line, `<<-EOF` also after
 * tabs; Ruby's and Perl's `<<EOF` at `EOF` alone, `<<~` / `<<-` also after blanks; PHP's (7.3) and Terraform's also
 * after blanks (PHP's followed by `;`, `,`, `)`).
 */
function heredocOf(line: string, language: string): { end: (line: string) => boolean } | undefined {
  const m =
    language === "PHP"
      ? /<<<\s*(["']?)([A-Za-z_]\w*)\1/.exec(line)
      : language === "Ruby" || language === "Perl"
        ? /<<([-~]?)(["']?)([A-Z_][A-Z0-9_]*)\2/.exec(line)
        : /(?<![<\w])<<(-?)\s*(["']?)([A-Za-z_][\w.-]*)\2/.exec(line);
  if (!m) return undefined;
  if (language === "PHP") {
    const word = m[2] as string;
    return { end: (l) => new RegExp(String.raw`^\s*${word}(?![\w\x80-\uffff])`).test(l) };
  }
  const word = m[3] as string;
  if (language === "Terraform") return { end: (l) => l.trim() === word };
  const dash = m[1] as string;
  if (dash === "") return { end: (l) => l === word };
  if (language === "Ruby" || language === "Perl") return { end: (l) => l.trimStart() === word };
  return { end: (l) => l.replace(/^\t+/, "") === word };
}

/**
 * The logical lines of a run of lines (`kinds`: its {@link lineKinds}): a code line that leaves a multi-line string or
 * a here-document open takes in the lines up to its end, which are data, never comments (`` const q = ` `` … `` `; ``,
 * `x = """` … `"""`, `local s = [[` … `]]`, `cat <<EOF` … `EOF`); a line ending in a `\` that joins the next line
 * ({@link CONTINUED}) takes that line in. Each is one text (its lines joined by "\n"), inert when its first line is.
 */
function logicalLines(
  side: readonly string[],
  kinds: { inert: readonly boolean[]; joined: readonly boolean[]; kept: readonly boolean[] },
): { text: string; inert: boolean; kept: boolean }[] {
  const out: { text: string; inert: boolean; kept: boolean }[] = [];
  for (let i = 0; i < side.length; i++) {
    const last = out[out.length - 1];
    const kept = kinds.kept[i] === true;
    if (last !== undefined && kinds.joined[i] === true) {
      last.text += `\n${side[i] as string}`;
      if (kept) last.kept = true;
    } else out.push({ text: side[i] as string, inert: kinds.inert[i] as boolean, kept });
  }
  for (const l of out) if (l.kept) l.inert = false;
  return out;
}

/** A byte-order mark as a decoded file holds it (U+FEFF at offset 0): the file's mark, no text of its line 1. */
const BOM = "\uFEFF";

/** `line` without a byte-order mark at its start. */
function withoutBom(line: string): string {
  return line.startsWith(BOM) ? line.slice(1) : line;
}

/** The first line of the file a diff changes, when one of its hunks starts there: old side, else new side. */
function firstLineOf(files: ReturnType<typeof parsePatch>): string | undefined {
  for (const file of files) {
    for (const hunk of file.hunks) {
      const side = hunk.oldStart <= 1 ? [" ", "-"] : hunk.newStart <= 1 ? [" ", "+"] : null;
      const line = side && hunk.lines.find((l) => side.includes(l[0] ?? ""));
      if (line) return withoutBom(line.slice(1));
    }
  }
  return undefined;
}

/** The added (`+`) and removed (`-`) lines of a unified diff, without their marker, across its files and hunks. */
export function changedLines(diff: string): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const file of parsePatch(diff)) {
    for (const hunk of file.hunks) {
      for (const l of hunk.lines) {
        if (l.startsWith("+")) added.push(l.slice(1));
        else if (l.startsWith("-")) removed.push(l.slice(1));
      }
    }
  }
  return { added, removed };
}

/**
 * The code lines of a run of consecutive lines in `language`, in order: the logical lines ({@link logicalLines}: a
 * string or here-document a code line opens, or a joining `\`, takes in the lines after it) that are not inert
 * ({@link inertLines}), each without a comment after its code (`scanLine`) and its trailing blanks (also its leading
 * ones where indentation means nothing, `FREE_INDENT`): what {@link isCommentOnly} and {@link sameCode} compare.
 * A logical line that may hide code (`kept` of {@link lineKinds}) is compared as it is, its comment included. When
 * `fileStart`, the strings are read from the file's start (src/lang/strings.ts `openAtEnd`'s `known`).
 * When `fileStart` (the run starts at the file's line 1), a byte-order mark (U+FEFF) at its start is no code: it is
 * the file's mark, so a comment added before line 1 of a file with a BOM is a comment line, in every language.
 */
function codeOf(language: string | undefined, run: readonly string[], fileStart: boolean): string[] {
  const trimStart = FREE_INDENT.has(language ?? "");
  const syntax = syntaxOf(language);
  const lines = fileStart && run[0]?.startsWith(BOM) ? [run[0].slice(1), ...run.slice(1)] : run;
  return logicalLines(lines, lineKinds(language, lines, fileStart))
    .filter((l) => !l.inert)
    .map((l) => (l.kept ? l.text : scanLine(l.text, syntax).code))
    .map((l) => (trimStart ? l.trim() : l.trimEnd()));
}

/**
 * True when the file at `path` holds the same code before and after a change (whole texts, `\n` or `\r\n` line
 * ends): {@link isCommentOnly}'s comparison over the whole file instead of a diff's hunks, so a line edited inside a
 * block comment or docstring whose opening is far above the hunk reads as the comment it is, and code that only a
 * far line puts in or takes out of a comment reads as a change. The language is the path's, else the shebang's of
 * the file's first line (before the change). A byte-order mark at the start of either text is no code.
 */
export function sameCode(path: string, before: string, after: string): boolean {
  const lines = (text: string) => text.split(/\r?\n/);
  const old = lines(before);
  const language = languageOfPath(path, withoutBom(old[0] ?? ""));
  const a = codeOf(language, old, true);
  const b = codeOf(language, lines(after), true);
  return a.length === b.length && a.every((line, i) => line === b[i]);
}

/**
 * The first line of a file's text (without its `\r`), where a shebang names an extension-less script's language;
 * undefined for no text. For the `firstLine` arguments of {@link isCommentOnly} and {@link inertLines}.
 */
export function fileFirstLine(text: string | undefined): string | undefined {
  return text?.split("\n", 1)[0]?.replace(/\r$/, "");
}

/**
 * True when an edit (its `path` and unified `diff`) changes nothing the program does. Each hunk is read as two runs
 * of lines ({@link inertLines}): its old side (context and removed lines) and its new side (context and added
 * lines); the edit is comment-only when, in every hunk, both sides hold the same code lines in the same order. So an
 * edit that comments code out, wraps it in `/*` … `*\/` or takes it out of a comment is a change; a line added
 * inside a block comment that the hunk's context opens or closes is not; and a code line whose only change is its
 * trailing blanks (or, in a language where indentation means nothing, `FREE_INDENT`, its leading ones) is the same
 * line, as is one that only gains, loses or changes a comment after its code (`run();` → `run(); // may throw`; see
 * `scanLine`). Lines are compared as logical lines ({@link logicalLines}): a comment-looking line inside a string or
 * here-document a code line opens, or after a line ending in a joining `\`, is part of that code. The language is the
 * path's, else the shebang's of `firstLine` (the file's first line at the base, when the caller knows the file: a
 * shebang far above every hunk still names the language), else of the first line a hunk shows, else none
 * ({@link UNKNOWN}, which reads every common comment start as a comment: a Node script's `#n = 0;` field with it).
 */
export function isCommentOnly(edit: { path: string; diff: string }, firstLine?: string): boolean {
  const files = parsePatch(edit.diff);
  const language = languageOfPath(edit.path, firstLine === undefined ? firstLineOf(files) : withoutBom(firstLine));
  const code = (side: string[], fileStart: boolean) => codeOf(language, side, fileStart);
  for (const file of files) {
    for (const hunk of file.hunks) {
      const before: string[] = [];
      const after: string[] = [];
      for (const l of hunk.lines) {
        if (l.startsWith(" ") || l.startsWith("-")) before.push(l.slice(1));
        if (l.startsWith(" ") || l.startsWith("+")) after.push(l.slice(1));
      }
      const a = code(before, hunk.oldStart <= 1);
      const b = code(after, hunk.newStart <= 1);
      if (a.length !== b.length || a.some((line, i) => line !== b[i])) return false;
    }
  }
  return true;
}
