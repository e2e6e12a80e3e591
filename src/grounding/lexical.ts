import { codeOfLine, fileFirstLine, languageOfPath, lineReadings, type LineReading } from "../lang/comments.js";
import {
  emptyLoopMessage,
  structureLanguage,
  structureProblems,
  type AdditionProblem,
  type StructureLanguage,
} from "./structure.js";

/**
 * The rule for additions in every language (invariant 7 of docs/ARCHITECTURE.md, "an addition changes nothing that
 * exists"), shared by `suggest_addition` (src/tools/suggest-addition.ts `additionRefusal`) and the review's edit-policy
 * rule (src/review/rules/policy.ts): the parse comparison of src/grounding/structure.ts where a parser reads the file
 * (JS/TS by extension or by a `#!/usr/bin/env node` shebang, Python and Go by extension), else the line reading of
 * {@link lexicalProblems}.
 */

/**
 * How {@link additionProblems} reads the file at `path`: `parser`, a {@link StructureLanguage} (by extension; an
 * extension-less script whose shebang names Node, Bun, Deno or ts-node is JS or TS), or `lexical`, the language name of
 * src/lang/languages.ts (by basename, extension, else the shebang of `before`'s first line; undefined for none). A
 * Python script known only by its shebang is read lexically: its grammar is loaded by path (`prepareSuggestAddition`).
 */
export function additionReading(
  path: string,
  before: string,
): { parser: StructureLanguage; lexical?: undefined } | { parser?: undefined; lexical: string | undefined } {
  const first = fileFirstLine(before);
  const parser = structureLanguage(path);
  if (parser !== undefined) return { parser };
  const language = languageOfPath(path, first);
  if (language === "JavaScript") return { parser: "js" };
  if (language === "TypeScript") return { parser: "ts" };
  return { lexical: language };
}

/**
 * Whether adding lines to the file at `path` leaves every existing piece of code as it was: `after` is the whole file
 * after the addition, `addedLines` the 1-based lines of `after` that are new (removing them must give `before`).
 * Through a parser where one reads the file (`structureProblems` of src/grounding/structure.ts), else
 * {@link lexicalProblems}. Both texts without a byte-order mark.
 *
 * @returns the problems in line order (empty when the addition may stand); undefined when the Python or Go grammar
 *   is not loaded (the caller fails closed).
 */
export function additionProblems(
  path: string,
  before: string,
  after: string,
  addedLines: readonly number[],
): AdditionProblem[] | undefined {
  const reading = additionReading(path, before);
  if (reading.parser !== undefined) return structureProblems(reading.parser, before, after, addedLines);
  return lexicalProblems(reading.lexical, before, after, addedLines);
}

// ───────────────────────────── the line reading ─────────────────────────────

/** How blocks, statements and conditions are written in a family of languages ({@link FAMILY}). */
interface Family {
  /** A line break does not end a statement (C, Java, …: `if (x)` then `return;` on the next line is one statement). */
  semicolons: boolean;
  /** Words that open a block closed by one of `closers`, at a statement's start (Ruby's `if`, shell's `then`). */
  openers: ReadonlySet<string>;
  /** Words that open a block anywhere (Ruby's and Elixir's `do`, Lua's `then`). */
  anywhere: ReadonlySet<string>;
  closers: ReadonlySet<string>;
  /** Words that close a block and open the next (Lua's `elseif`, shell's `elif`: `then` opens it again). */
  reopen: ReadonlySet<string>;
  /** Blocks by indentation (a line ending in `:` opens one: Python). */
  indent?: boolean;
  /** `{` … `}` is a block (not in Ruby, where it is a hash or a block argument, or in shell's `${x}`). */
  braces: boolean;
  /** The condition keyword may be followed by a modifier form (`return if x`, `die "…" unless $ok`). */
  modifiers: boolean;
}

const none = new Set<string>();
const BRACE: Family = {
  semicolons: true,
  openers: none,
  anywhere: none,
  closers: none,
  reopen: none,
  braces: true,
  modifiers: false,
};
const BRACE_NEWLINE: Family = { ...BRACE, semicolons: false };
const PERL: Family = { ...BRACE, modifiers: true };
const RUBY: Family = {
  semicolons: false,
  openers: new Set(["if", "unless", "while", "until", "case", "begin", "def", "class", "module", "for"]),
  anywhere: new Set(["do"]),
  closers: new Set(["end"]),
  reopen: none,
  braces: true,
  modifiers: true,
};
const ELIXIR: Family = { ...RUBY, openers: none, anywhere: new Set(["do", "fn"]) };
const JULIA: Family = {
  ...RUBY,
  openers: new Set(["if", "while", "for", "function", "begin", "let", "try", "struct", "module", "macro", "quote"]),
  modifiers: false,
};
const LUA: Family = {
  semicolons: false,
  openers: new Set(["function", "repeat"]),
  anywhere: new Set(["then", "do", "function"]),
  closers: new Set(["end", "until"]),
  reopen: new Set(["elseif"]),
  braces: false,
  modifiers: false,
};
const SHELL: Family = {
  semicolons: false,
  openers: new Set(["then", "do", "case"]),
  anywhere: none,
  closers: new Set(["fi", "done", "esac"]),
  reopen: new Set(["elif"]),
  braces: true,
  modifiers: false,
};
const PYTHON: Family = {
  semicolons: false,
  openers: none,
  anywhere: none,
  closers: none,
  reopen: none,
  indent: true,
  braces: false,
  modifiers: false,
};

/**
 * The languages whose statements {@link lexicalProblems} reads (names of src/lang/languages.ts); in any other file
 * (markup, data, build files) only the comment, string and preprocessor readings run.
 */
const FAMILY = new Map<string, Family>([
  ...["Java", "C", "C++", "C/C++ header", "Objective-C", "C#", "PHP", "Rust", "Dart"].map(
    (l) => [l, BRACE] as [string, Family],
  ),
  ...["Kotlin", "Swift", "Scala", "R", "PowerShell"].map((l) => [l, BRACE_NEWLINE] as [string, Family]),
  ["Perl", PERL],
  ["Ruby", RUBY],
  ["Crystal", RUBY],
  ["Elixir", ELIXIR],
  ["Julia", JULIA],
  ["Lua", LUA],
  ["Shell", SHELL],
  ["Python", PYTHON],
]);

/** Keywords whose condition follows them: a block they open, or the statement they govern, runs only sometimes. */
const CONDITIONS = new Set([
  "if",
  "unless",
  "elif",
  "elsif",
  "elseif",
  "else",
  "while",
  "until",
  "for",
  "foreach",
  "guard",
  "when",
  "case",
  "switch",
  "match",
  "select",
  "catch",
  "rescue",
  "except",
  "loop",
]);
/** Of {@link CONDITIONS}, the ones whose condition must test a value (else the branch always or never runs). */
const TESTED = new Set(["if", "unless", "elif", "elsif", "elseif", "while", "until", "guard"]);
/** Loops: an added one with an empty body only waits (see `emptyLoopMessage` of src/grounding/structure.ts). */
const LOOPS = new Set(["while", "until", "for", "foreach", "loop"]);
/** Operators after which the rest of a statement runs only sometimes (`x || exit 1`, `$ok or die`, `u ?: return`). */
const CONDITION_OPERATORS = new Set(["&&", "||", "and", "or", "?:", "??"]);
/** Words that begin a definition: a block they open is code of its own, whose `return` ends only it. */
const DEFINITIONS = new Set([
  "def",
  "function",
  "fn",
  "func",
  "sub",
  "lambda",
  "proc",
  "class",
  "module",
  "struct",
  "interface",
  "enum",
  "impl",
  "trait",
  "object",
  "namespace",
  "macro",
  "->",
  "=>",
]);
/** Words a definition cannot be named: `while (x) {` and `synchronized (x) {` are no method. */
const CONTROL = new Set([...CONDITIONS, "do", "try", "finally", "synchronized", "using", "lock", "with", "return"]);
/** Statements that end the block they are in (or the program): a guard must test a value before one of them. */
const EXITS = new Set([
  "return",
  "throw",
  "raise",
  "exit",
  "die",
  "abort",
  "goto",
  "break",
  "continue",
  "panic",
  "fail",
  "next",
  "redo",
  "retry",
  "last",
  "croak",
  "confess",
  "fatalError",
  "preconditionFailure",
  "exitProcess",
  "TODO",
  "_exit",
  "quick_exit",
  "quit",
  "stop",
  "exec",
  "error",
]);
/** Of {@link EXITS}, the words that end a program only in some languages (elsewhere they name a function or a log). */
const EXITS_IN = new Map<string, ReadonlySet<string>>([
  ["exec", new Set(["Shell"])],
  ["error", new Set(["Lua", "Kotlin", "Julia"])],
  ["stop", new Set(["R"])],
  ["quit", new Set(["R", "Python"])],
  ["next", new Set(["Ruby", "Crystal", "Perl", "R"])],
  ["last", new Set(["Perl"])],
  ["fail", new Set(["Ruby", "Crystal"])],
  ["redo", new Set(["Ruby", "Crystal", "Perl"])],
  ["retry", new Set(["Ruby", "Crystal"])],
  ["TODO", new Set(["Kotlin"])],
]);
/** Functions that end the program when called on `EXIT_OWNERS`: `System.exit(1)`, `os.Exit(1)`, `process::exit`. */
const QUALIFIED_EXITS = new Set(["exit", "Exit", "halt", "abort", "_exit", "FailFast", "terminate"]);
const EXIT_OWNERS = new Set(["System", "Environment", "os", "sys", "process", "std", "Kernel", ")", "Runtime"]);
/** Rust's macros that end the function: `panic!`, `todo!`, `unimplemented!`, `unreachable!`. */
const RUST_EXITS = new Set(["panic", "todo", "unimplemented", "unreachable"]);
/** Words that test no value: literals, and the shell's `true` and `:`. */
const LITERALS = new Set([
  "true",
  "false",
  "null",
  "nil",
  "None",
  "undefined",
  "NULL",
  "nullptr",
  "TRUE",
  "FALSE",
  "True",
  "False",
  "YES",
  "NO",
  "not",
  "and",
  "or",
  "is",
  "in",
  "then",
  "do",
  "test",
  "new",
  "nothing",
  "missing",
]);
/** Statements a loop body may hold and still only wait: `:`, `true`, `sleep 1`, `pass`, `nil`, `;`. */
const IDLE = new Set([":", "true", "pass", "nil", "sleep", "usleep", ";", "continue", "next", "wait"]);
/** An existing line that only ends or divides a block: code after an added exit above it was not cut off. */
const BOUNDARY = new RegExp(
  String.raw`^\s*(?:[}\])]|(?:end|fi|done|esac|else|elsif|elif|elseif|when|rescue|ensure|catch|finally|except|case|` +
    String.raw`default|until)\b|;;|[\w\s|*'"-]*\)\s*$)`,
);

/** One token of the added code: its text and the 0-based line of the file after the addition it is on. */
interface Token {
  text: string;
  line: number;
}

/** A block opened by added code: what governs whether the code inside runs. */
interface Frame {
  /** The condition that governs it, the definition it is the body of, or nothing (a bare block, `begin`, `try`). */
  guard: Header | "definition" | undefined;
  /** Its kind: `}` for a brace block, a keyword block's usual closer (`end`, `fi`), `:` for an indented one. */
  closer: string;
  /** A `do { … }` body, whose `while (x);` after it is its condition, not an empty loop. */
  isDo?: boolean;
  indent?: number;
  /** For a loop's body: its header, and true while the body held only {@link IDLE} tokens. */
  loop?: Header;
  idle: boolean;
  line: number;
}

/** A condition keyword (or operator) and the tokens of its condition, collected until its header ends. */
interface Header {
  keyword: string;
  tokens: string[];
  line: number;
  open: boolean;
  /** The bracket depth at the keyword: a `(` … `)` header closes back there. */
  depth: number;
}

/**
 * The lexical rule for a file no parser reads, in `language` (a name of src/lang/languages.ts, undefined for none):
 * `after` is the whole file after the addition, `addedLines` its 1-based added lines. Refused, in line order, first
 * per kind:
 * - an existing line that reads differently after the addition (src/lang/comments.ts `lineReadings`): put into a
 *   comment (`/*` … `*\/`, Ruby's `=begin` … `=end`, Perl's POD), a string or a here-document (`: <<'SKIP'` …
 *   `SKIP`), a data section (`__END__`) or PHP's output (`?>`), joined onto an added line (an added line ending in
 *   `\`), or taken out of one; or an added line inside an existing string or continued line;
 * - in C, C++, Objective-C and C#, an added preprocessor conditional (`#if 0`, `#ifdef`, `#else`, `#endif`) that
 *   changes which conditionals govern an existing line, or an added `#define` / `#undef` of a name existing code
 *   uses after it;
 * - in the languages of {@link FAMILY} (statements and blocks read from tokens outside strings and comments): added
 *   lines that open a block existing code would sit in or close one existing code opened; an added `if`/`while`
 *   (`unless`, `elif`, `guard`, …) whose condition tests no value (`if (true)`, `if [ 1 -eq 1 ]`, `while :`, `for
 *   (;;)`, `loop`); an added loop whose body is empty or only waits (`while (u != null) {}`, `while x; do :; done`);
 *   an added exit (`return`, `throw`, `raise`, `exit`, `die`, `goto`, `break`, `System.exit(…)`, `panic!`, …) that
 *   no value test guards (an `if` around it or before it in its statement, a modifier `return if x.nil?`, `x || exit
 *   1`, `u ?: return`), outside an added definition, with existing code after it before the block ends; an added
 *   definition of a name an existing one defines, in the languages where the later one replaces it (Ruby's `def`,
 *   a shell function, Lua's and Perl's, Python's).
 * A guard that tests a value and returns, raises or exits is what stays allowed (`if (u == null) return;`, `return
 * if x.nil?`, `[ -z "$X" ] && exit 1`). Also in Java and Scala an added Unicode escape of a comment, string or line
 * character (`\u002f\u002a`), and where block comments nest (Rust, Swift, Kotlin, Scala, Dart) added lines that
 * open more of them than they close. A read of tokens cannot see everything a parser would: a constant behind a name
 * (`Boolean.TRUE`, `u == u`), a call of the file's own function that exits, an added line that changes an existing
 * expression's value without moving a block; those pass here and are the review reader's to catch.
 *
 * @returns the problems (one sentence each, naming the line of `after`), empty when the addition may stand.
 */
export function lexicalProblems(
  language: string | undefined,
  before: string,
  after: string,
  addedLines: readonly number[],
): AdditionProblem[] {
  const a = before.split("\n");
  const b = after.split("\n");
  const added = new Set(addedLines.map((n) => n - 1));
  const kept = b.filter((_, i) => !added.has(i));
  const trim = (x: string[]) => (x.length > 0 && x[x.length - 1] === "" ? x.slice(0, -1) : x);
  if (trim(kept).join("\n") !== trim(a).join("\n")) {
    return [{ line: 1, message: "the file after the change is not the file before plus the added lines" }];
  }
  if (added.size === 0) return [];
  /** For each line of `after`, its 0-based line in `before`, or -1 for an added line. */
  const origin: number[] = [];
  let j = 0;
  for (let i = 0; i < b.length; i++) origin.push(added.has(i) ? -1 : j++);
  const problems: AdditionProblem[] = [];
  const ra = lineReadings(language, a);
  const rb = lineReadings(language, b);
  for (const problem of [
    readingProblem(ra, rb, origin),
    preprocessorProblem(language, a, b, ra, rb, origin),
    escapeProblem(language, b, origin),
    nestingProblem(language, b, origin),
  ]) {
    if (problem) problems.push(problem);
  }
  const family = language === undefined ? undefined : FAMILY.get(language);
  if (family !== undefined && problems.length === 0) {
    const directives = PREPROCESSED.has(language!);
    const code = rb.map((r, i) => {
      const line = b[i]!.replace(/\r$/, "");
      // a preprocessor line is no statement (its conditionals are `preprocessorProblem`'s)
      if (r.inert || r.data || (directives && /^\s*#/.test(line))) return "";
      return masked(codeOfLine(line, language), language!);
    });
    problems.push(...statementProblems(language!, family, b, code, origin));
    const shadow = redefinitionProblem(language!, b, code, origin);
    if (shadow) problems.push(shadow);
  }
  return problems.sort((x, y) => x.line - y.line);
}

/** The nearest added line at or above 0-based line `i` of `after` (its 1-based number), else the first added line. */
function causeOf(origin: readonly number[], i: number): number {
  for (let k = i; k >= 0; k--) if (origin[k] === -1) return k + 1;
  return origin.indexOf(-1) + 1;
}

/**
 * The first existing line of `after` whose reading (comment, string, joined line: `ra` of `before`, `rb` of `after`)
 * the addition changed, or an added line that goes on an existing line.
 */
function readingProblem(
  ra: readonly LineReading[],
  rb: readonly LineReading[],
  origin: readonly number[],
): AdditionProblem | undefined {
  for (let i = 0; i < rb.length; i++) {
    const o = origin[i]!;
    const now = rb[i]!;
    if (o === -1) {
      if (now.joined && i > 0 && origin[i - 1] !== -1) {
        return {
          line: i + 1,
          message:
            `the added line ${i + 1} goes on the existing line ${i} (inside its string, here-document or continued ` +
            `line), which changes what that line does; add a statement of its own instead`,
        };
      }
      continue;
    }
    const was = ra[o]!;
    const same = was.inert === now.inert && was.joined === now.joined && was.data === now.data;
    if (same && was.kept === now.kept && !(now.joined && i > 0 && origin[i - 1] === -1)) continue;
    const cause = causeOf(origin, i);
    const what = now.data
      ? "part of a string, a here-document or a data section"
      : now.inert && !was.inert
        ? "part of a comment"
        : was.inert && !now.inert
          ? "code instead of a comment"
          : now.joined
            ? "part of the added line above it"
            : "read differently (outside the string, comment or program text it was in)";
    return {
      line: cause,
      message:
        `the added line ${cause} makes the existing line ${i + 1} ${what}, so it would no longer run as before; an ` +
        `addition must leave existing code as it is`,
    };
  }
  return undefined;
}

/** Languages with the C preprocessor's conditionals (C# has `#if`/`#define` too). */
const PREPROCESSED = new Set(["C", "C++", "C/C++ header", "Objective-C", "C#"]);
const CONDITIONAL_DIRECTIVE = /^\s*#\s*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b/;
const DEFINE_DIRECTIVE = /^\s*#\s*(?:define|undef)\s+([A-Za-z_]\w*)/;

/**
 * C preprocessor: the first existing line whose governing conditionals (`#if` … `#else` … `#endif`) an added line
 * changed, or an added `#define`/`#undef` of a name an existing code line after it uses.
 */
function preprocessorProblem(
  language: string | undefined,
  a: readonly string[],
  b: readonly string[],
  ra: readonly LineReading[],
  rb: readonly LineReading[],
  origin: readonly number[],
): AdditionProblem | undefined {
  if (language === undefined || !PREPROCESSED.has(language)) return undefined;
  /** For each line, the directives (as lines of `before`, -1 for added ones) that govern it, joined as a key. */
  const governing = (lines: readonly string[], readings: readonly LineReading[], map: (i: number) => number) => {
    const stack: number[] = [];
    return lines.map((line, i) => {
      const key = stack.join(",");
      const r = readings[i]!;
      const m = r.inert || r.data ? null : CONDITIONAL_DIRECTIVE.exec(line);
      if (m) {
        if (m[1]!.startsWith("if")) stack.push(map(i));
        else if (m[1] === "endif") stack.pop();
        else if (stack.length > 0) stack[stack.length - 1] = map(i);
      }
      return key;
    });
  };
  const was = governing(a, ra, (i) => i);
  const now = governing(b, rb, (i) => origin[i]!);
  for (let i = 0; i < b.length; i++) {
    const o = origin[i]!;
    if (o === -1 || b[i]!.trim() === "" || rb[i]!.inert) continue;
    if (now[i] === was[o]) continue;
    const cause = causeOf(origin, i);
    return {
      line: cause,
      message:
        `the added preprocessor line ${cause} changes whether the existing line ${i + 1} is compiled (an added ` +
        `#if, #else or #endif around existing code); add the guard as a statement instead`,
    };
  }
  for (let i = 0; i < b.length; i++) {
    if (origin[i] !== -1 || rb[i]!.inert || rb[i]!.data) continue;
    const name = DEFINE_DIRECTIVE.exec(b[i]!)?.[1];
    if (name === undefined) continue;
    const word = new RegExp(String.raw`(?<![\w$])${name}(?![\w$])`);
    for (let k = i + 1; k < b.length; k++) {
      if (origin[k] === -1 || rb[k]!.inert || !word.test(b[k]!)) continue;
      return {
        line: i + 1,
        message:
          `the added line ${i + 1} defines the macro ${name}, which the existing line ${k + 1} uses: it would ` +
          `change what that code means`,
      };
    }
  }
  return undefined;
}

/** A Unicode escape javac (and scalac 2) decode before they read comments and strings: `\u002a`, `\uu000a`. */
const UNICODE_ESCAPE = /(?<!\\)(?:\\\\)*\\u+([0-9a-fA-F]{4})/g;

/**
 * Java and Scala: an added line with a Unicode escape of a character that ends or opens a comment, a string or a line
 * (`\u002f\u002a` is `/*` to javac, which decodes escapes before it reads comments): what the compiler reads is not
 * what the line shows, so no reading of it can be trusted.
 */
function escapeProblem(
  language: string | undefined,
  b: readonly string[],
  origin: readonly number[],
): AdditionProblem | undefined {
  if (language !== "Java" && language !== "Scala") return undefined;
  for (let i = 0; i < b.length; i++) {
    if (origin[i] !== -1) continue;
    for (const m of b[i]!.matchAll(UNICODE_ESCAPE)) {
      const ch = String.fromCharCode(parseInt(m[1]!, 16));
      if (!"/*\"'\\\n\r\u2028\u2029".includes(ch)) continue;
      return {
        line: i + 1,
        message:
          `the added line ${i + 1} holds the Unicode escape ${m[0].slice(m[0].indexOf("\\u"))}, which the compiler ` +
          `reads as ${JSON.stringify(ch)} before it reads comments and strings; write the character itself`,
      };
    }
  }
  return undefined;
}

/** Languages whose block comments nest (`/* a /* b *\/ c *\/`): a `/*` inside a comment needs a `*\/` of its own. */
const NESTED_COMMENTS = new Set(["Rust", "Swift", "Kotlin", "Scala", "Dart"]);

/**
 * Languages whose block comments nest: a run of added lines that opens more block comments than it closes (or the
 * other way round), counted outside strings. Where comments nest, an added `/*` inside an existing comment leaves
 * the code after that comment's `*\/` commented out, which the line reading (one level) does not see.
 */
function nestingProblem(
  language: string | undefined,
  b: readonly string[],
  origin: readonly number[],
): AdditionProblem | undefined {
  if (language === undefined || !NESTED_COMMENTS.has(language)) return undefined;
  let balance = 0;
  for (let i = 0; i < b.length; i++) {
    if (origin[i] === -1) {
      const text = masked(b[i]!, language, false);
      balance += (text.match(/\/\*/g) ?? []).length - (text.match(/\*\//g) ?? []).length;
      if (i + 1 < b.length && origin[i + 1] === -1) continue;
    }
    if (balance !== 0) {
      return {
        line: i + 1,
        message:
          `the added lines up to line ${i + 1} open ${balance > 0 ? "more" : "fewer"} block comments than they ` +
          `close; ${language}'s comments nest, so existing code next to them would become part of a comment`,
      };
    }
    balance = 0;
  }
  return undefined;
}

/**
 * `code` (one line's code, its comment already cut) with the text of its strings and inline block comments blanked:
 * what is left are the tokens that say what runs. A variable a double-quoted string interpolates stays
 * (`"$X"` keeps `$X`, `"#{x}"` and `"${x}"` keep `x`): it is a value a condition tests. A string left open runs to
 * the line's end.
 */
function masked(code: string, language: string, comments = true): string {
  const out = code.split("");
  const charQuote = language === "Rust" || language === "Julia" || language === "Crystal";
  for (let i = 0; i < code.length; i++) {
    const c = code[i]!;
    if (comments && c === "/" && code[i + 1] === "*") {
      const end = code.indexOf("*/", i + 2);
      const stop = end === -1 ? code.length : end + 2;
      for (let k = i; k < stop; k++) out[k] = " ";
      i = stop - 1;
      continue;
    }
    if (c !== '"' && c !== "'" && c !== "`") continue;
    if (c === "'" && charQuote && !/^'(?:\\.[^']{0,8}|[^\\'])'/.test(code.slice(i))) continue;
    if (c === "'" && language === "Shell" && code[i - 1] === "$") continue;
    if (c === "'" && /\w/.test(code[i - 1] ?? "") && language !== "Shell") continue; // `don't` in a word, Rust's 'a
    const interpolates = c !== "'" || language === "PowerShell";
    let k = i + 1;
    for (; k < code.length; k++) {
      const d = code[k]!;
      if (d === "\\" && !(c === "'" && language === "Shell")) {
        out[k] = " ";
        if (k + 1 < code.length) out[k + 1] = " ";
        k++;
        continue;
      }
      if (d === c) break;
      if (interpolates) {
        // `$x`, `$#`, `@x` stay; of `${x}`, `#{x}`, `@{x}` only the name (a bracket there opens no block)
        const v = /^(?:[$@][A-Za-z_]\w*|\$[#?@*!$0-9-]|([$#@]\{)[A-Za-z_]\w*)/.exec(code.slice(k));
        if (v) {
          if (v[1] !== undefined) out[k] = out[k + 1] = " ";
          k += v[0].length - 1;
          continue;
        }
      }
      out[k] = " ";
    }
    i = k;
  }
  return out.join("");
}

/**
 * The tokens of a masked code line: words (with Ruby's `?`/`!`, sigils), numbers, operators, brackets, and the quotes
 * of a string (its text is blanked: a quote stands for a value, as in `raise Error, "x" unless u`).
 */
const TOKEN = new RegExp(
  String.raw`[$@]?[A-Za-z_]\w*[?!]?|\$[#?@*!$0-9-]|\d[\w.]*|&&|\|\||\?:|\?\?|::|->|=>|==|!=|<=|>=|` +
    String.raw`[{}()[\];:,.=!?<>|&+*/%^~$"'\x60-]`,
  "g",
);

/** Tokenize one masked line. */
function tokens(code: string, line: number): Token[] {
  return [...code.matchAll(TOKEN)].map((m) => ({ text: m[0], line }));
}

/**
 * True when a condition's tokens test no value: no name (a variable, a call, a `$X`) among them, only literals,
 * numbers, operators and the shell's test flags (`-eq`, `-z`).
 */
function constant(header: Header): boolean {
  let toks = header.tokens;
  if (header.keyword === "for") {
    // `for (init; cond; step)`: only the condition counts; `for x in xs` iterates values.
    const semis = toks.map((t, k) => (t === ";" ? k : -1)).filter((k) => k >= 0);
    if (semis.length < 2) return false;
    toks = toks.slice(semis[0]! + 1, semis[1]);
  }
  if (header.keyword === "loop") return true;
  if (header.keyword === "else") return false;
  // `x || true`, `true or x`: whatever x is, the condition holds
  const truthy = (t: string | undefined) => t !== undefined && /^(?:true|TRUE|True|YES|1)$/.test(t);
  if (toks.some((t, k) => (t === "||" || t === "or") && (truthy(toks[k + 1]) || truthy(toks[k - 1])))) return true;
  return !toks.some((t, k) => {
    if (!/^[$@]?[A-Za-z_]/.test(t) && !t.startsWith("$")) return false;
    if (LITERALS.has(t)) return false;
    if (k > 0 && toks[k - 1] === "-") return false; // a shell test flag: `-eq`, `-z`, `-n`
    // a member (`"a".equals`, `u.isAdmin`): its receiver is the value; Kotlin's `::rect` is a value itself
    const receiver = toks[k - 2];
    if ((toks[k - 1] === "." || toks[k - 1] === "::") && receiver !== undefined && /^[\w"'`)\]]/.test(receiver)) {
      return false;
    }
    return true;
  });
}

/** The value test that guards a statement or a frame, as found so far: "value", "constant" or undefined (none). */
function judged(h: Header | "definition" | undefined): "value" | "constant" | undefined {
  if (h === undefined || h === "definition") return undefined;
  return constant(h) ? "constant" : "value";
}

/** The keyword of a word token (no sigil, no `?`/`!`), when `prev` lets it be one (not `.end`, `:if`, `$if`). */
function keywordOf(t: Token, prev: Token | undefined): string | undefined {
  if (!/^[A-Za-z_]\w*$/.test(t.text)) return undefined;
  if (prev !== undefined && [".", "::", "->", ":", "$", "@"].includes(prev.text) && prev.line === t.line) {
    return undefined;
  }
  return t.text;
}

/**
 * The statement and block problems of the added runs of {@link lexicalProblems} (see there): each run of consecutive
 * added lines is read as tokens (`code`: each line's masked code, "" for a comment or string line).
 */
function statementProblems(
  language: string,
  family: Family,
  b: readonly string[],
  code: readonly string[],
  origin: readonly number[],
): AdditionProblem[] {
  const problems: AdditionProblem[] = [];
  const kinds = new Set<string>();
  const report = (kind: string, line: number, message: string) => {
    if (kinds.has(kind)) return;
    kinds.add(kind);
    problems.push({ line, message });
  };
  for (let i = 0; i < b.length; i++) {
    if (origin[i] !== -1) continue;
    let end = i;
    while (end + 1 < b.length && origin[end + 1] === -1) end++;
    readRun(language, family, b, code, origin, i, end, report);
    i = end;
  }
  return problems;
}

/** One added run, lines `from`..`to` (0-based, of `after`): see {@link statementProblems}. */
function readRun(
  language: string,
  family: Family,
  b: readonly string[],
  code: readonly string[],
  origin: readonly number[],
  from: number,
  to: number,
  report: (kind: string, line: number, message: string) => void,
): void {
  const frames: Frame[] = [];
  /** Brackets `(`/`[` open in the run: a `;` or a block word inside them ends or opens nothing. */
  let depth = 0;
  let stmt: Statement = { tokens: [], exits: [] };
  /** A header whose block or body has not started yet (shell's `if x; then`, a brace-less `if (x)` line). */
  let pending: Header | undefined;
  /** Headers still collecting their condition's tokens, and all headers of the run. */
  const collecting: Header[] = [];
  const headers: Header[] = [];
  let underflow: number | undefined;
  const header = (keyword: string, line: number, tokens: string[] = []): Header => {
    const h: Header = { keyword, tokens, line, open: true, depth };
    collecting.push(h);
    headers.push(h);
    return h;
  };
  const closeHeader = (h: Header | undefined) => {
    if (h === undefined || !h.open) return;
    h.open = false;
    collecting.splice(collecting.indexOf(h), 1);
  };
  const guarded = (h: Header | undefined, exit: Token): void => {
    if (frames.some((f) => f.guard === "definition" || judged(f.guard) === "value") || judged(h) === "value") return;
    if (!existingCodeAfter(b, code, origin, to)) return;
    const constantly =
      judged(h) === "constant" || frames.some((f) => f.guard !== "definition" && judged(f.guard) === "constant");
    report(
      "exit",
      exit.line + 1,
      `the added ${exit.text} at line ${exit.line + 1} ` +
        `${constantly ? "is guarded by a constant" : "runs whatever the values are"}, so the existing code after ` +
        `it would no longer run; a guard must test a value first (for example "if (x == null) return;")`,
    );
  };
  const endStatement = () => {
    for (const exit of stmt.exits) guarded(stmt.modifier ?? stmt.header ?? pending, exit);
    const m = stmt.modifier;
    if (m && LOOPS.has(m.keyword)) {
      // `sleep 1 while x`, `nil until ready?`: a loop whose body only waits
      const body = stmt.tokens.slice(
        0,
        stmt.tokens.findIndex((t) => t.text === m.keyword),
      );
      if (body.every((t) => IDLE.has(t.text) || /^\d/.test(t.text) || t.text === "begin" || t.text === "end")) {
        report("loop", m.line + 1, emptyLoopMessage(loopName(m), m.line + 1));
      }
    }
    if (stmt.exits.length > 0 || (stmt.tokens.length > 0 && stmt.header === undefined)) pending = undefined;
    for (const h of [...collecting]) closeHeader(h);
    stmt = { tokens: [], exits: [] };
  };
  const open = (closer: string, line: number, indent?: number, atKeyword = false) => {
    const h = stmt.header ?? pending;
    const words = stmt.tokens.map((t) => t.text);
    const last = words[words.length - 1] ?? "";
    // A block that is code of its own: a definition, a method's body (`void log(String s) {`), a block argument
    // (`items.each do |x|`, Kotlin's `list.forEach {`).
    const definition =
      words.some((w) => DEFINITIONS.has(w)) ||
      (h === undefined &&
        words.length > 0 &&
        !CONTROL.has(words[0]!) &&
        !words.includes("=") &&
        (closer !== "}" || /^[A-Za-z_]\w*$|^\)$/.test(last)));
    const isDo = h === undefined && words.length === 1 && words[0] === "do";
    const loop =
      h !== undefined && LOOPS.has(h.keyword)
        ? h
        : isDo
          ? { keyword: "do", tokens: [], line, open: false, depth }
          : undefined;
    frames.push({
      ...(isDo ? { isDo } : {}),
      guard: definition && (h === undefined || DEFINITIONS.has(words[0] ?? "")) ? "definition" : h,
      closer,
      ...(indent !== undefined ? { indent } : {}),
      ...(loop ? { loop } : {}),
      idle: true,
      line,
    });
    // A block opened at its keyword (Ruby's `if x.nil?`) has its condition still to come.
    if (!atKeyword) closeHeader(h);
    if (pending === h) pending = undefined;
    stmt = { tokens: [], exits: [] };
  };
  const ended = (f: Frame) => {
    if (f.loop && f.idle) report("loop", f.loop.line + 1, emptyLoopMessage(loopName(f.loop), f.loop.line + 1));
  };
  const close = (t: Token) => {
    endStatement();
    const f = frames.pop();
    if (f === undefined) underflow ??= t.line;
    else ended(f);
    if (f?.isDo === true) stmt.afterDo = true;
  };
  for (let i = from; i <= to; i++) {
    const line = code[i]!;
    if (line.trim() === "") continue;
    const toks = tokens(line, i);
    if (family.indent) {
      const indent = line.length - line.trimStart().length;
      while (frames.length > 0 && frames[frames.length - 1]!.indent !== undefined) {
        if (frames[frames.length - 1]!.indent! < indent) break;
        ended(frames.pop()!);
      }
    }
    for (let k = 0; k < toks.length; k++) {
      const t = toks[k]!;
      const prev = k > 0 ? toks[k - 1] : undefined;
      const word = keywordOf(t, prev);
      const atStart = stmt.tokens.length === 0;
      const top = frames[frames.length - 1];
      if (top && !IDLE.has(t.text) && !/^\d/.test(t.text) && t.text !== "}" && !family.closers.has(t.text)) {
        top.idle = false;
      }
      // Headers collect their condition's tokens until the block or the body starts.
      for (const h of [...collecting]) {
        const groupEnds = t.text === ")" && depth === h.depth + 1 && family.braces && h.tokens[0] === "(";
        if (groupEnds) h.tokens.push(")");
        const ends =
          groupEnds ||
          (t.text === "{" && depth === h.depth && family.braces) ||
          word === "then" ||
          word === "do" ||
          (family.indent === true && t.text === ":" && depth === h.depth);
        if (ends) closeHeader(h);
        else h.tokens.push(t.text);
      }
      if (t.text === "(" || t.text === "[") {
        depth++;
        stmt.tokens.push(t);
        continue;
      }
      if (t.text === ")" || t.text === "]") {
        const pattern = language === "Shell" && depth === 0 && frames.some((f) => caseFrame(f));
        if (depth === 0 && !pattern) underflow ??= t.line;
        depth = Math.max(0, depth - 1);
        stmt.tokens.push(t);
        continue;
      }
      if (depth > 0) {
        stmt.tokens.push(t);
        continue;
      }
      if (t.text === "{" && family.braces) {
        if (prev?.text === "$") {
          // the shell's `${X:-default}`: a value, no block
          depth++;
          stmt.tokens.push(t);
          continue;
        }
        open("}", t.line);
        continue;
      }
      if (t.text === "}" && family.braces) {
        close(t);
        continue;
      }
      if (t.text === ";" || (t.text === "&" && language === "Shell" && prev?.text !== "&")) {
        // `while (x);`: a loop whose body is the empty statement
        const h = stmt.header;
        const empty = stmt.tokens.at(-1)?.text === ")" && family.semicolons && stmt.afterDo !== true;
        if (h && LOOPS.has(h.keyword) && !h.open && empty) {
          report("loop", h.line + 1, emptyLoopMessage(loopName(h), h.line + 1));
        }
        endStatement();
        continue;
      }
      if (word !== undefined && family.reopen.has(word)) {
        close(t);
        stmt.header = header(word, t.line);
        pending = stmt.header;
        continue;
      }
      if (word !== undefined && family.closers.has(word) && (language !== "Shell" || atStart)) {
        close(t);
        if (word === "until") stmt.header = header(word, t.line); // Lua's `repeat … until x`
        continue;
      }
      const expression = prev !== undefined && /^(?:[$@]?[A-Za-z_]\w*[?!]?|\d.*|[)\]}"'`])$/.test(prev.text);
      if (word !== undefined && CONDITIONS.has(word)) {
        const modifier = family.modifiers && !atStart && expression && !CONDITIONS.has(prev.text);
        if (modifier) stmt.modifier = header(word, t.line);
        else if (family.modifiers || stmt.exits.length === 0) {
          stmt.header = header(word, t.line);
          if (TESTED.has(word) || LOOPS.has(word)) pending = stmt.header;
        }
        stmt.tokens.push(t);
        if (family.openers.has(word) && !modifier && (language !== "Shell" || atStart)) {
          open(closerOf(family), t.line, undefined, true);
        }
        continue;
      }
      if ((word !== undefined && CONDITION_OPERATORS.has(word)) || CONDITION_OPERATORS.has(t.text)) {
        // `x || exit 1`, `$ok or die`, `u ?: return`: what follows runs only as the tokens before it say
        stmt.header = header(
          t.text,
          t.line,
          stmt.tokens.map((x) => x.text),
        );
        closeHeader(stmt.header);
        stmt.tokens.push(t);
        continue;
      }
      if (word !== undefined && (family.openers.has(word) || family.anywhere.has(word))) {
        if (family.anywhere.has(word) || atStart) {
          open(closerOf(family), t.line);
          continue;
        }
      }
      if (isExit(toks, k, word, language)) stmt.exits.push(t);
      stmt.tokens.push(t);
    }
    if (family.indent === true && /:\s*$/.test(line) && depth === 0) {
      open(":", i, line.length - line.trimStart().length);
      continue;
    }
    // A line break ends a statement where statements need no `;`, unless a bracket is open or a `\` continues it;
    // a header line with no body yet (`if (x)` on its own line) governs the next statement.
    const continued = depth > 0 || /\\$/.test(b[i]!.replace(/\r$/, ""));
    if (!family.semicolons && !continued) {
      const last = stmt.tokens.at(-1)?.text;
      const h = stmt.header;
      if (h !== undefined && stmt.exits.length === 0 && (last === ")" || last === "else" || h.open)) pending = h;
      endStatement();
    }
  }
  endStatement();
  for (const f of frames) if (f.indent !== undefined) ended(f);
  for (const h of headers) {
    const tested = TESTED.has(h.keyword) || h.keyword === "loop" || (h.keyword === "for" && h.tokens.includes(";"));
    if (!tested || !constant(h)) continue;
    report(
      "constant",
      h.line + 1,
      h.keyword === "loop"
        ? `the added loop at line ${h.line + 1} tests no condition, so it runs until something ends it; a guard ` +
            `must test a value (for example a parameter or a result)`
        : `the added ${h.keyword} at line ${h.line + 1} tests a constant; a guard must test a value (for example a ` +
            `parameter or a result)`,
    );
  }
  const unclosed = frames.filter((f) => f.indent === undefined);
  if (underflow !== undefined || unclosed.length > 0) {
    const line = (underflow ?? unclosed[0]!.line) + 1;
    report(
      "block",
      line,
      underflow !== undefined
        ? `the added line ${line} closes a block that existing code opened, so existing code would move out of it`
        : `the added line ${line} opens a block that existing code closes, so existing code would run inside it ` +
            `(only when its condition holds); close every block you open in the added lines`,
    );
  }
  if (family.indent === true && /:\s*$/.test(code[to]!) && existingCodeAfter(b, code, origin, to)) {
    report(
      "block",
      to + 1,
      `the added line ${to + 1} opens a block that the existing lines after it would become the body of; give it a ` +
        `body of its own`,
    );
  }
}

/** How a loop's header is named in a refusal: "while loop", "loop". */
function loopName(h: Header): string {
  return h.keyword === "loop" ? "loop" : `${h.keyword} loop`;
}

/** A frame of a shell `case … esac` (its `)` patterns close no bracket). */
function caseFrame(f: Frame): boolean {
  return f.guard !== undefined && f.guard !== "definition" && f.guard.keyword === "case";
}

/** The statement being read: its tokens, its header (`if`, `x ||`), the exits in it, a modifier after them. */
interface Statement {
  tokens: Token[];
  header?: Header;
  exits: Token[];
  modifier?: Header;
  /** It follows a `do { … }` body (`while (x);` is that loop's condition). */
  afterDo?: boolean;
}

/** What closes a keyword block of `family` (`end` for Ruby, Lua, Julia, Elixir; `fi`/`done`/`esac` for shell). */
function closerOf(family: Family): string {
  return family === SHELL ? "fi" : "end";
}

/**
 * True when token `k` of a line's tokens is a statement that ends its block or the program ({@link EXITS}; a name
 * after `.`/`::` of {@link QUALIFIED_EXITS} called on one of `EXIT_OWNERS`: `System.exit(1)`, `os.Exit(1)`).
 */
function isExit(toks: readonly Token[], k: number, word: string | undefined, language: string): boolean {
  const t = toks[k]!;
  const prev = toks[k - 1];
  const next = toks[k + 1];
  const bang = /^([A-Za-z_]\w*)!$/.exec(t.text)?.[1];
  if (bang !== undefined && (prev === undefined || ![".", "::", "->"].includes(prev.text))) {
    // Rust's `panic!(…)`, `todo!()`; Ruby's `exit!`
    return language === "Rust" ? RUST_EXITS.has(bang) : bang === "exit" || bang === "abort";
  }
  if (word === undefined) {
    if (!QUALIFIED_EXITS.has(t.text) || prev === undefined || ![".", "::"].includes(prev.text)) return false;
    return next?.text === "(" && EXIT_OWNERS.has(toks[k - 2]?.text ?? "");
  }
  if (next !== undefined && ["=", ":", ".", "+", ",", ")", "?", "->"].includes(next.text)) {
    return false; // `exit = 1`, `next: …`, `error.message`: a name, not the statement
  }
  if (!EXITS.has(word)) return false;
  const only = EXITS_IN.get(word);
  return only === undefined || only.has(language);
}

/**
 * Whether existing code follows the added lines ending at 0-based line `to` before the block they are in ends: the
 * next existing line with code is not only a block's end or divider (`}`, `end`, `fi`, `else`, `case x:`), nor the
 * file's end.
 */
function existingCodeAfter(
  b: readonly string[],
  code: readonly string[],
  origin: readonly number[],
  to: number,
): boolean {
  for (let k = to + 1; k < b.length; k++) {
    if (origin[k] === -1 || code[k]!.trim() === "") continue;
    return !BOUNDARY.test(code[k]!);
  }
  return false;
}

/** Languages where a later definition of a name replaces the earlier one, with how a line defines one. */
const REDEFINES = new Map<string, RegExp>([
  ["Ruby", /^\s*def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)/],
  ["Crystal", /^\s*def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)/],
  ["Shell", /^\s*(?:function\s+([A-Za-z_][\w-]*)|([A-Za-z_][\w-]*)\s*\(\s*\))/],
  ["Lua", /^\s*(?:local\s+)?function\s+([A-Za-z_][\w.:]*)/],
  ["Perl", /^\s*sub\s+([A-Za-z_]\w*)/],
  ["Python", /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/],
]);

/**
 * An added definition of a name that an existing definition (or, in shell, an existing command) of the file has:
 * the later one replaces the existing one (Ruby's `def`, a shell function, Lua's `function`, Perl's `sub`).
 */
function redefinitionProblem(
  language: string,
  b: readonly string[],
  code: readonly string[],
  origin: readonly number[],
): AdditionProblem | undefined {
  const re = REDEFINES.get(language);
  if (re === undefined) return undefined;
  const nameOf = (line: string) => {
    const m = re.exec(line);
    return m ? (m[1] ?? m[2]) : undefined;
  };
  const existing = new Set<string>();
  for (let i = 0; i < b.length; i++) {
    if (origin[i] === -1 || code[i]!.trim() === "") continue;
    const name = nameOf(code[i]!);
    if (name !== undefined) existing.add(name);
    if (language === "Shell") {
      const command = /^\s*([A-Za-z_][\w-]*)/.exec(code[i]!)?.[1];
      if (command !== undefined) existing.add(command);
    }
  }
  for (let i = 0; i < b.length; i++) {
    if (origin[i] !== -1) continue;
    const name = nameOf(code[i]!);
    if (name === undefined || !existing.has(name)) continue;
    return {
      line: i + 1,
      message:
        `the added line ${i + 1} defines ${JSON.stringify(name)}, which existing code of the file defines or runs: ` +
        `the added definition would replace it`,
    };
  }
  return undefined;
}
