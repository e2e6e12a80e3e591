import { languageOfBasename, languageOfExtension } from "../lang/languages.js";
import { isSpace } from "./lines.js";

/**
 * Symbol definitions of one source file, found with a per-language set of line patterns.
 *
 * Why patterns and not web-tree-sitter: tree-sitter needs a compiled grammar (.wasm) per language, and none can be
 * downloaded at run time here; patterns are deterministic, fast (one pass over the lines, each pattern anchored and
 * free of nested quantifiers) and good enough to answer "is this name defined, and where". They miss definitions a
 * parser would find (e.g. object-literal methods, multi-line signatures whose name is not on the first line), and
 * they do not see through strings that look like code.
 *
 * Languages: JavaScript/TypeScript (.js .jsx .mjs .cjs .ts .tsx .mts .cts), Python (.py .pyi), Go (.go),
 * Java (.java), C# (.cs), Ruby (.rb .rake, Rakefile, Gemfile). Other files have no symbols.
 */

/** One definition. `line`/`endLine` are 1-based inclusive; `container` is the enclosing class/module/type name. */
export interface SymbolDef {
  name: string;
  kind: "function" | "method" | "class" | "interface" | "type" | "variable" | "module";
  line: number;
  endLine?: number;
  container?: string;
}

/**
 * A {@link SymbolDef} with every property present (`endLine`/`container` `undefined` until known), always in the
 * same order: the line loops and every caller that reads definitions (search, verify, the review) then meet one
 * object shape. With the two optional properties added as found, a file held four shapes, and a shape first met
 * after V8 had optimized `braceSymbols` made it drop that code and compile it again (`node --trace-deopt`: "wrong
 * map" at `holder.def.name`).
 */
function symbolDef(
  name: string,
  kind: SymbolDef["kind"],
  line: number,
  endLine: number | undefined = undefined,
  container: string | undefined = undefined,
): SymbolDef {
  return { name, kind, line, endLine, container };
}

type Lang = "js" | "python" | "go" | "java" | "csharp" | "ruby";

/** The languages of src/lang/languages.ts that have symbol patterns here (TypeScript shares JavaScript's). */
const SYMBOL_LANGUAGES = new Map<string, Lang>([
  ["JavaScript", "js"],
  ["TypeScript", "js"],
  ["Python", "python"],
  ["Go", "go"],
  ["Java", "java"],
  ["C#", "csharp"],
  ["Ruby", "ruby"],
]);

/** Lines longer than this (minified code, data) are not scanned. */
const MAX_SCAN_LINE = 1000;

/** The language whose patterns apply to `path`, or `null`. */
export function symbolLanguage(path: string): Lang | null {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const ext = base.includes(".") ? base.slice(base.lastIndexOf(".") + 1) : "";
  return SYMBOL_LANGUAGES.get(languageOfBasename(base) ?? languageOfExtension(ext) ?? "") ?? null;
}

/**
 * The definitions in `content` (the text of the file at `path`), in line order. Pure; never throws.
 * Kinds: functions (JS `function f`, `const f = () =>`, `exports.f = function`; Python top-level `def`; Go `func f`;
 * Ruby top-level `def`), methods (inside a class body, Python `def` under a `class`, Go funcs with a receiver, whose
 * receiver type is the container), classes (also Go structs, Java/C# enums and records), interfaces, types (TS
 * `type`/`enum`, other Go `type`s), variables (top-level constants), modules (TS namespaces, Ruby modules, C#
 * namespaces). `endLine` is set where the block's end is found (closing brace, dedent, or Ruby `end`).
 */
export function extractSymbols(path: string, content: string): SymbolDef[] {
  const lang = symbolLanguage(path);
  if (lang === null || content === "") return [];
  if (lang === "python") return pythonSymbols(content);
  if (lang === "ruby") return rubySymbols(content);
  if (lang === "js" && !jsPrimed) {
    jsPrimed = true;
    for (let i = 0; i < 2; i++) braceSymbols(JS_SAMPLE, "js");
  }
  return braceSymbols(content, lang);
}

/**
 * JavaScript/TypeScript lines that take each branch of the line scan (`braceSymbols`, `jsPatterns`, `jsLine`,
 * `CodeLines`): every declaration pattern, class members, comments, strings, a line too long to scan, CRLF and
 * lines starting with other white space. The scan runs over it twice before the first JS/TS file of a process, for
 * speed only (its definitions are dropped): V8 optimizes the scan once a large file makes it hot, and a branch the
 * scan had never taken by then (first met further down that file, or in the next file) throws the optimized code
 * away and has it compiled again — several times per process, each time running the scan unoptimized meanwhile. With
 * every branch taken once beforehand the first optimized code stays.
 */
const JS_SAMPLE = [
  "// line comment",
  "/* a block",
  "   comment */ import { a } from './a.js';",
  "export default class Alpha extends Base {",
  "  static async *gen<T>(x: T): AsyncGenerator<T> { yield x; }",
  "  #secret = 1;",
  "  #hidden() { return this.#secret; }",
  "  private readonly map = new Map<string, number>();",
  "  get size(): number { return this.map.size; }",
  "  handler = async (e) => { e.x = 'a\\'b'; };",
  "  named = x => x * 2 / 3;",
  "  abstract run(): void;",
  "  constructor(o: { a?: string }, ...rest) {",
  "    super(`t${o.a}`); // trailing",
  "  }",
  "}",
  "export abstract class Beta {}",
  "declare class Gamma {}",
  "export interface Delta<T> extends Base { x: T; m(): void; }",
  "export const enum Zeta { A, B }",
  'enum Eta { C = "c" }',
  "export type Theta<T> = T | null;",
  "export namespace Kappa { export function inner() {} }",
  "declare module Lambda { }",
  "export function nu(a, b) { return a + b; }",
  "export default function xi() {}",
  "async function omicron() {}",
  "function* pi() {}",
  "export declare function rho(): void;",
  "export const sigma = function () {};",
  "const tau = async () => {};",
  "let upsilon: (x: number) => number = (x) => x;",
  "var phi = y => y;",
  'const chi = 5, psi = "s";',
  "exports.one = function one() {};",
  "module.exports.two = (a) => a;",
  "Alpha.prototype.four = function () {};",
  "app.use.five = (fn) => fn;",
  "const table = {",
  "  seven: function () {},",
  '  "eight:x": () => 1,',
  "  'nine': async function () {},",
  "  ten() {},",
  "};",
  "functionName(1, 2);",
  "if (a) { b(); } else { c(); }",
  "\t x = 1;",
  "  y = `multi",
  "line ${z}`;",
  "\u00a0let re = /ab+c/g, d = 1 / 2;",
  `const long = "${"x".repeat(MAX_SCAN_LINE)}";`,
  "export function crlf() {}\r",
  "\u2028const u = 1;",
  "\u00e9t\u00e9 = 2;",
].join("\n");
let jsPrimed = false;

// ───────────── brace languages: JS/TS, Go, Java, C# ─────────────

interface Found {
  name: string;
  kind: SymbolDef["kind"];
  /** Opens a container whose body holds methods (class, interface, struct, namespace). */
  opens: boolean;
  /** A Java enum: its constants may have bodies that hold methods. */
  enumType: boolean;
  container: string | undefined;
}

/**
 * A {@link Found}, always with the same properties in the same order: the line loop reads every declaration through
 * one object shape (a new shape met late makes V8 drop the loop's optimized code and compile it again).
 */
function foundDef(
  name: string,
  kind: SymbolDef["kind"],
  opens = false,
  container: string | undefined = undefined,
  enumType = false,
): Found {
  return { name, kind, opens, enumType, container };
}

interface Open {
  def: SymbolDef;
  depthBefore: number;
  /** Parenthesis depth where the declaration starts: a `{` inside its parameter list (`f(o: { a?: string }) {`, a
   * destructured parameter) is a type or pattern, not the body. */
  parensBefore: number;
  opened: boolean;
  linesWaited: number;
  isContainer: boolean;
  isEnum: boolean;
}

const JS_MODIFIERS =
  /^(?:export|default|declare|public|private|protected|static|async|readonly|override|abstract|get|set|accessor)\s+/;
const JAVA_MODIFIERS = new RegExp(
  String.raw`^(?:public|private|protected|static|final|abstract|synchronized|` +
    String.raw`native|default|transient|volatile|strictfp|internal|sealed|virtual|` +
    String.raw`override|async|extern|unsafe|partial|readonly|new|const)\s+`,
);
const NOT_METHOD = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "return",
  "function",
  "new",
  "throw",
  "else",
  "do",
  "try",
  "with",
  "typeof",
  "await",
  "yield",
  "delete",
  "void",
  "super",
  "this",
  "using",
  "lock",
  "foreach",
  "sizeof",
  "nameof",
  "base",
]);

function stripPrefixes(text: string, modifiers: RegExp): string {
  let rest = text;
  for (let m = modifiers.exec(rest); m !== null; m = modifiers.exec(rest)) rest = rest.slice(m[0].length);
  return rest;
}

/**
 * Character kinds for the line scan of the brace languages (ASCII only; every other character is plain code):
 * 1 a quote or slash (a string, comment or division starts there), 2 `(`, 3 `)`, 4 `{`, 5 `}`.
 */
const CHAR_KIND = new Uint8Array(128);
for (const [ch, kind] of [
  ['"', 1],
  ["'", 1],
  ["`", 1],
  ["/", 1],
  ["(", 2],
  [")", 3],
  ["{", 4],
  ["}", 5],
] as const)
  CHAR_KIND[ch.charCodeAt(0)] = kind;

/**
 * The code of one line of a brace language at a time, outside string literals and comments (approximately: a string
 * ends at its closing quote or the end of the line, a block comment at the next `*\/`, `//` ends the line). Reads the
 * file in place: no line or code string is built. After `line(start, end)`, `brackets[0..count)` holds the line's
 * parentheses and braces in order (kinds 2-5 of `CHAR_KIND`), `last` the last code character that is not white space
 * (0 for none; a string literal counts as its quote), `opensBrace` whether a `{` is among them and `first` where
 * the line's text starts after its indentation.
 */
class CodeLines {
  /** Inside a block comment at the end of the last line scanned. */
  inBlock = false;
  readonly brackets = new Uint8Array(MAX_SCAN_LINE);
  count = 0;
  last = 0;
  opensBrace = false;
  /** The line's first character that is neither a space nor a tab (its end if none). */
  first = 0;
  /** The first `*\/` at or after `closeFrom` (-1: none), so that a long comment is searched once, not once a line. */
  private close = -2;
  private closeFrom = 0;

  constructor(private readonly text: string) {}

  /** The first `*\/` at or after `from`, or -1. */
  private closeAt(from: number): number {
    if (this.close < from && !(this.close === -1 && this.closeFrom <= from)) {
      this.close = this.text.indexOf("*/", from);
      this.closeFrom = from;
    }
    return this.close;
  }

  /** Nothing of the line is code (a line too long to scan): the comment state carries over unchanged. */
  skip(): void {
    this.count = 0;
    this.last = 0;
    this.opensBrace = false;
  }

  /** Scan the line `text[start, end)`. */
  line(start: number, end: number): void {
    const text = this.text;
    const brackets = this.brackets;
    let count = 0;
    let last = 0;
    let opensBrace = false;
    let i = afterBlanks(text, start, end);
    this.first = i;
    while (i < end) {
      if (this.inBlock) {
        const close = this.closeAt(i);
        if (close === -1 || close > end - 2) break;
        this.inBlock = false;
        i = close + 2;
        continue;
      }
      // a run of plain code: its last character that is not white space is the line's last so far
      const run = i;
      let code = 0;
      let kind = 0;
      for (; i < end; i++) {
        code = text.charCodeAt(i);
        if (code < 128 && (kind = CHAR_KIND[code] as number) !== 0) break;
      }
      for (let k = i - 1; k >= run; k--) {
        const c = text.charCodeAt(k);
        if (!isSpace(c)) {
          last = c;
          break;
        }
      }
      if (i === end) break;
      if (kind > 1) {
        brackets[count++] = kind;
        if (kind === 4) opensBrace = true;
        last = code;
        i++;
      } else if (code === 47) {
        const next = i + 1 < end ? text.charCodeAt(i + 1) : 0;
        if (next === 47) break;
        if (next === 42) {
          this.inBlock = true;
          i += 2;
        } else {
          last = code;
          i++;
        }
      } else {
        // a string literal: up to the same quote, over backslash escapes
        let j = i + 1;
        while (j < end) {
          const c = text.charCodeAt(j);
          if (c === code) break;
          j += c === 92 ? 2 : 1;
        }
        last = code;
        i = j + 1;
      }
    }
    this.count = count;
    this.last = last;
    this.opensBrace = opensBrace;
  }
}

/** `const name = function …` / `= (…) =>` / `= async x =>`: a function bound to a variable (group 1: the name). */
const JS_BOUND_FUNCTION = new RegExp(
  String.raw`^(?:export\s+)?(?:declare\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)` +
    String.raw`\s*(?::[^=]*)?=\s*(async\b\s*)?(function\b|\(|[A-Za-z_$][\w$]*\s*=>)`,
);
/** `a.b.name = function …` / `= (…) =>`: a function assigned to a member (group 1: the object, group 2: the member). */
const JS_MEMBER_FUNCTION = new RegExp(
  String.raw`^([A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)*\.([A-Za-z_$]` +
    String.raw`[\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)`,
);
/**
 * Lines outside a class body that can start a JS/TS definition (a cheap test before the specific patterns), besides
 * lines holding `.prototype.` (which the caller finds with one search of the file).
 */
const JS_CANDIDATE = new RegExp(
  String.raw`^\s*(?:(?:export|default|declare|abstract|async|class|interface|enum|type|namespace|` +
    String.raw`module|function|const|let|var|exports)\b|[A-Za-z_$][\w$]*(?:\.` +
    String.raw`[A-Za-z_$][\w$]*)+\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)|` +
    String.raw`(?:[A-Za-z_$][\w$]*|"[^"]+"|'[^']+')\s*:\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>))`,
);
// The patterns of `jsLine`, as bits of the set `jsPatterns` picks for a line.
const P_CLASS = 1;
const P_INTERFACE = 2;
const P_ENUM = 4;
const P_TYPE = 8;
const P_NAMESPACE = 16;
const P_FUNCTION = 32;
const P_BOUND = 64;
const P_EXPORTS = 128;
const P_PROTOTYPE = 256;
const P_MEMBER = 512;
const P_PROPERTY = 1024;
const P_VARIABLE = 2048;
const P_METHOD = 4096;
/** Not a pattern: the line must pass `JS_CANDIDATE` before any pattern is tried. */
const P_GATE = 8192;
const P_ALL = 16383;

/**
 * The patterns of `jsLine` that a line starting with each word (its run of `\w`) can match: every keyword pattern
 * starts with optional modifiers, then its keyword, then white space. These are the words `JS_CANDIDATE` starts with.
 */
const JS_WORD_PATTERNS = new Map<string, number>([
  ["export", P_CLASS | P_INTERFACE | P_ENUM | P_TYPE | P_NAMESPACE | P_FUNCTION | P_BOUND | P_VARIABLE],
  ["default", P_CLASS | P_FUNCTION],
  ["declare", P_CLASS | P_INTERFACE | P_ENUM | P_TYPE | P_NAMESPACE | P_FUNCTION | P_BOUND],
  ["abstract", P_CLASS],
  ["async", P_FUNCTION],
  ["class", P_CLASS],
  ["interface", P_INTERFACE],
  ["enum", P_ENUM],
  ["type", P_TYPE],
  ["namespace", P_NAMESPACE],
  ["module", P_NAMESPACE | P_EXPORTS],
  ["function", P_FUNCTION],
  ["const", P_ENUM | P_BOUND | P_VARIABLE],
  ["let", P_BOUND | P_VARIABLE],
  ["var", P_BOUND | P_VARIABLE],
  ["exports", P_EXPORTS],
]);
/** The words a Java or C# type or namespace declaration can start with: `JAVA_MODIFIERS` and the declaring keywords. */
const JAVA_START_WORDS = new Map(
  (
    "public private protected static final abstract synchronized native default transient volatile strictfp " +
    "internal sealed virtual override async extern unsafe partial readonly new const " +
    "class interface enum record struct namespace"
  )
    .split(" ")
    .map((w) => [w, 1]),
);

/** A table of words by their first character's code, to look a word up in place (without cutting it out). */
type WordTable = (readonly [string, number][] | undefined)[];

function byInitial(words: Map<string, number>): WordTable {
  const table: [string, number][][] = [];
  for (const entry of words) (table[entry[0].charCodeAt(0)] ??= []).push(entry);
  return table;
}

const JS_WORDS = byInitial(JS_WORD_PATTERNS);
const JAVA_WORDS = byInitial(JAVA_START_WORDS);

/** The value of the word `text[from, to)` in `table`, 0 if it has none. */
function wordValue(table: WordTable, text: string, from: number, to: number): number {
  const entries = table[text.charCodeAt(from)];
  if (entries === undefined) return 0;
  for (let k = 0; k < entries.length; k++) {
    const [word, value] = entries[k]!;
    if (word.length === to - from && text.startsWith(word, from)) return value;
  }
  return 0;
}

/** `[A-Za-z_$]`. */
function isIdentStart(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95 || code === 36;
}

/** `\w`: `[A-Za-z0-9_]`. */
function isWordChar(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57) || code === 95;
}

/** The end of the run of `\w` characters of `text` from `from` (before `end`). */
function wordEnd(text: string, from: number, end: number): number {
  let i = from;
  while (i < end && isWordChar(text.charCodeAt(i))) i++;
  return i;
}

/** Whether the line's first character after spaces and tabs is one the patterns cannot tell without `\s` (other
 * white space, or anything outside ASCII): such rare lines go to the patterns unfiltered. */
function unusualStart(code: number): boolean {
  return code >= 128 || (code >= 10 && code <= 13);
}

/** The end of the run of `[\w$]` characters of `text` from `from` (before `end`). */
function identEnd(text: string, from: number, end: number): number {
  let i = from;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (!isWordChar(c) && c !== 36) break;
    i++;
  }
  return i;
}

/** Whether `text` at `at` (before `end`) holds `word`, or a character that needs `\s` to be told (`unusualStart`). */
function unusualOrWord(text: string, at: number, end: number, word: string): boolean {
  return at < end && (unusualStart(text.charCodeAt(at)) || (at + word.length <= end && text.startsWith(word, at)));
}

/** Whether `\s*:` and a function (`functionAt`) follow `from`, as a property holding a function has them. */
function propertyFunctionAt(text: string, from: number, end: number): boolean {
  const at = afterBlanks(text, from, end);
  if (at >= end) return false;
  if (unusualStart(text.charCodeAt(at))) return true;
  return text.charCodeAt(at) === 58 && functionAt(text, at + 1, end, false);
}

/**
 * Whether a function can start after `from` (past an `=` or `:`): spaces and tabs, then `function`, `async` or `(`,
 * or when `named`, a name and `=>`; or a character that needs `\s` to be told (`unusualStart`).
 */
function functionAt(text: string, from: number, end: number, named: boolean): boolean {
  const at = afterBlanks(text, from, end);
  if (at >= end) return false;
  const c = text.charCodeAt(at);
  if (unusualStart(c) || c === 40 || text.startsWith("function", at) || text.startsWith("async", at)) return true;
  return named && isIdentStart(c) && unusualOrWord(text, afterBlanks(text, identEnd(text, at, end), end), end, "=>");
}

/**
 * For `const|let|var` ending at `word`: whether `JS_BOUND_FUNCTION` can match the rest, that is white space, a name,
 * `\s*(?::[^=]*)?=` and a function (`functionAt`).
 */
function boundFunctionAfter(text: string, word: number, end: number): boolean {
  const at = afterBlanks(text, word, end);
  if (at >= end) return false;
  const c = text.charCodeAt(at);
  if (unusualStart(c)) return true;
  if (at === word || !isIdentStart(c)) return false;
  let after = afterBlanks(text, identEnd(text, at, end), end);
  if (after >= end) return false;
  const d = text.charCodeAt(after);
  if (unusualStart(d)) return true;
  // a type annotation runs to the first `=`
  if (d === 58) after = text.indexOf("=", after);
  else if (d !== 61) return false;
  return after !== -1 && after < end && functionAt(text, after + 1, end, true);
}

/**
 * The patterns of `jsLine` that can match the line `text[start, end)` whose first character after spaces and tabs is
 * at `first` (0: none can). Each pattern needs its own start: a keyword (`JS_WORD_PATTERNS`; `const|let|var` bound
 * to a function also needs `=` and a function after the name, `const enum` its `enum`), a dotted name followed by `=`
 * and a function, a property key followed by `:` and a function, `.prototype.` on the line, and in a class body a
 * member name (also `*` or `#`). Outside a class body `JS_CANDIDATE` holds for every such line but one starting with
 * a word like `functionName` (then `P_GATE`). Where white space other than spaces and tabs stands, the patterns
 * decide.
 */
function jsPatterns(
  text: string,
  start: number,
  first: number,
  end: number,
  inClass: boolean,
  prototypes: NextOf,
): number {
  if (first === end) return 0;
  const c = text.charCodeAt(first);
  // the gate: JS_CANDIDATE, or `.prototype.` on the line
  if (unusualStart(c)) return inClass || prototypes.within(start, end) ? P_ALL & ~P_GATE : P_ALL;
  if (c === 34 || c === 39) {
    // a string key: `"[^"]+"`, then `:`
    const close = text.indexOf(c === 34 ? '"' : "'", first + 1);
    return close > first + 1 && close < end && propertyFunctionAt(text, close + 1, end) ? P_PROPERTY : 0;
  }
  if (!isIdentStart(c)) return inClass && (c === 42 || c === 35) ? P_METHOD : 0;
  const word = wordEnd(text, first, end);
  let patterns = wordValue(JS_WORDS, text, first, word);
  // `function\s*\*?\s*name` also matches `functionName`, which `JS_CANDIDATE` does not accept
  if (patterns === 0 && c === 102 && text.startsWith("function", first))
    patterns = P_FUNCTION | (inClass || prototypes.within(start, end) ? 0 : P_GATE);
  // `const enum`; `const|let|var name = function|(…)|x =>`
  if ((patterns & P_ENUM) !== 0 && c === 99 && !unusualOrWord(text, afterBlanks(text, word, end), end, "enum"))
    patterns &= ~P_ENUM;
  if ((patterns & P_BOUND) !== 0 && (c === 99 || c === 108 || c === 118) && !boundFunctionAfter(text, word, end))
    patterns &= ~P_BOUND;
  const name = identEnd(text, word, end);
  // a member function: a dotted name, then `=`
  if (name < end && text.charCodeAt(name) === 46) {
    let dotted = name;
    while (dotted + 1 < end && text.charCodeAt(dotted) === 46 && isIdentStart(text.charCodeAt(dotted + 1)))
      dotted = identEnd(text, dotted + 2, end);
    const after = afterBlanks(text, dotted, end);
    const next = after < end ? text.charCodeAt(after) : 0;
    if (dotted > name && (unusualStart(next) || (next === 61 && functionAt(text, after + 1, end, false))))
      patterns |= P_MEMBER;
    // `name.prototype.member =`
    if (prototypes.within(start, end)) patterns |= P_PROTOTYPE;
  } else if (propertyFunctionAt(text, name, end)) patterns |= P_PROPERTY;
  if (inClass) patterns |= P_METHOD;
  // a top-level variable is declared at the start of the line
  else if (first !== start) patterns &= ~P_VARIABLE;
  return patterns;
}

/**
 * False when `javaLine` surely finds nothing on a line outside a type body (`inClass` undefined): a type or namespace
 * declaration starts with a modifier or its keyword.
 */
function javaMayDeclare(text: string, first: number, end: number): boolean {
  if (first === end) return false;
  const c = text.charCodeAt(first);
  if (unusualStart(c)) return true;
  return wordValue(JAVA_WORDS, text, first, wordEnd(text, first, end)) !== 0;
}

/**
 * The JS/TS declaration on one line, if any. `t`: the line without its leading white space; `indented`: whether it
 * had any; `inClass`: the class (or interface, namespace) whose body the line is directly in; `patterns`: the
 * patterns to try (`jsPatterns`: the others cannot match the line).
 */
function jsLine(t: string, indented: boolean, inClass: string | undefined, patterns: number): Found | null {
  // JS_CANDIDATE starts with `^\s*`: the same on the line and on `t`
  if (inClass === undefined && (patterns & P_GATE) !== 0 && !JS_CANDIDATE.test(t)) return null;
  let m: RegExpExecArray | null;
  if (patterns & P_CLASS) {
    m = /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/.exec(t);
    if (m?.[1]) return foundDef(m[1], "class", true);
  }
  if (patterns & P_INTERFACE) {
    m = /^(?:export\s+)?(?:declare\s+)?interface\s+([A-Za-z_$][\w$]*)/.exec(t);
    if (m?.[1]) return foundDef(m[1], "interface", true);
  }
  if (patterns & P_ENUM) {
    m = /^(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)/.exec(t);
    if (m?.[1]) return foundDef(m[1], "type");
  }
  if (patterns & P_TYPE) {
    m = /^(?:export\s+)?(?:declare\s+)?type\s+([A-Za-z_$][\w$]*)\s*[=<]/.exec(t);
    if (m?.[1]) return foundDef(m[1], "type");
  }
  if (patterns & P_NAMESPACE) {
    m = /^(?:export\s+)?(?:declare\s+)?(?:namespace|module)\s+([A-Za-z_$][\w$.]*)\s*\{/.exec(t);
    if (m?.[1]) return foundDef(m[1], "module", true);
  }
  if (patterns & P_FUNCTION) {
    m = /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/.exec(t);
    if (m?.[1]) return foundDef(m[1], "function");
  }
  if (patterns & P_BOUND) {
    m = JS_BOUND_FUNCTION.exec(t);
    if (m?.[1]) return foundDef(m[1], "function");
  }
  if (patterns & P_EXPORTS) {
    m = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)/.exec(t);
    if (m?.[1]) return foundDef(m[1], "function");
  }
  if (patterns & P_PROTOTYPE) {
    m = /^([A-Za-z_$][\w$]*)\.prototype\.([A-Za-z_$][\w$]*)\s*=/.exec(t);
    if (m?.[1] && m[2]) return foundDef(m[2], "method", false, m[1]);
  }
  // A function assigned to a member (`res.sendFile = function sendFile(…)`, `app.use = (fn) => …`): named by the
  // member.
  if (patterns & P_MEMBER) {
    m = JS_MEMBER_FUNCTION.exec(t);
    if (m?.[1] && m[2] && m[1] !== "exports" && m[1] !== "module") return foundDef(m[2], "method", false, m[1]);
  }
  // A function as an object property, also string-keyed (`"Program:exit": function (…)`, `save: async () => …`).
  if (patterns & P_PROPERTY) {
    m = /^(?:([A-Za-z_$][\w$]*)|"([^"]+)"|'([^']+)')\s*:\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)/.exec(t);
    if (m && (m[1] ?? m[2] ?? m[3])) return foundDef((m[1] ?? m[2] ?? m[3]) as string, "method");
  }
  if (inClass !== undefined) {
    if ((patterns & P_METHOD) === 0) return null;
    const rest = stripPrefixes(t, JS_MODIFIERS);
    m = /^\*?\s*(#?[A-Za-z_$][\w$]*)\s*[?!]?\s*(?:<[^>]*>)?\s*\(/.exec(rest);
    if (m?.[1] && !NOT_METHOD.has(m[1])) return foundDef(m[1], "method");
    m = /^(#?[A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:async\b\s*)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)/.exec(rest);
    if (m?.[1]) return foundDef(m[1], "method");
    return null;
  }
  if (!indented && (patterns & P_VARIABLE) !== 0) {
    m = /^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)/.exec(t);
    if (m?.[1]) return foundDef(m[1], "variable");
  }
  return null;
}

function goLine(text: string, goBlock: string | null): Found | null {
  let m = /^func\s*\(\s*(?:\w+\s+)?\*?\s*(\w+)[^)]*\)\s*(\w+)/.exec(text);
  if (m?.[1] && m[2]) return foundDef(m[2], "method", false, m[1]);
  m = /^func\s+(\w+)/.exec(text);
  if (m?.[1]) return foundDef(m[1], "function");
  const typeLine =
    goBlock === "type"
      ? /^\s+(\w+)\s+(?:\[[^\]]*\]\s*)?(\w+)?/.exec(text)
      : /^type\s+(\w+)\s+(?:\[[^\]]*\]\s*)?(\w+)?/.exec(text);
  if (typeLine?.[1]) {
    const kind = typeLine[2] === "struct" ? "class" : typeLine[2] === "interface" ? "interface" : "type";
    return foundDef(typeLine[1], kind, kind !== "type");
  }
  if (goBlock === "var" || goBlock === "const") {
    m = /^\s+(\w+)\b/.exec(text);
    if (m?.[1]) return foundDef(m[1], "variable");
  }
  m = /^(?:var|const)\s+(\w+)\b/.exec(text);
  if (m?.[1] && m[1] !== "(") return foundDef(m[1], "variable");
  return null;
}

/**
 * A Java or C# declaration on one line. `inClass`: the type whose body the line is directly in; `inEnum`: the same
 * when it is a Java enum, whose constants may have a body of their own (`InBody {`, `PLUS("+") {`): a container
 * named by the constant, whose methods are found like a class's. C# properties are methods: `int Count` alone on its
 * line (the accessors follow), `int Count { get … }` and the expression-bodied `int Count => …;`; so are indexers
 * (`this[int i]`, named `this`).
 */
function javaLine(text: string, inClass: string | undefined, lang: Lang, inEnum = false): Found | null {
  const t = text.trimStart();
  if (t.startsWith("@") || t.startsWith("[")) return null;
  const rest = stripPrefixes(t, JAVA_MODIFIERS);
  let m = /^(class|interface|enum|record|struct|@interface)\s+(\w+)/.exec(rest);
  if (m?.[1] && m[2])
    return foundDef(
      m[2],
      m[1] === "interface" || m[1] === "@interface" ? "interface" : "class",
      true,
      undefined,
      lang === "java" && m[1] === "enum",
    );
  // a constant with a body; not the enum's constructor, nor a `static {` initializer
  m = inEnum ? /^([A-Za-z_$][\w$]*)\s*(?:\([^;{}]*\))?\s*\{/.exec(t) : null;
  if (m?.[1] && m[1] !== inClass && !/^(?:static|synchronized|default)$/.test(m[1]))
    return foundDef(m[1], "class", true);
  if (lang === "csharp") {
    m = /^namespace\s+([\w.]+)/.exec(rest);
    if (m?.[1]) return foundDef(m[1], "module", true);
  }
  if (inClass === undefined) return null;
  const plain = rest
    .replace(/<[^<>]*>/g, "")
    .replace(/<[^<>]*>/g, "")
    .trimStart();
  m = /^(\w+)\s*\(/.exec(plain);
  if (m?.[1] && m[1] === inClass) return foundDef(m[1], "method");
  m = /^([\w.[\]?,]+)\s+(\w+)\s*\(/.exec(plain);
  // The return type may be `void` (a keyword JS's list holds as an operator; Java and C# have no such operator).
  if (m?.[1] && m[2] && (m[1] === "void" || !NOT_METHOD.has(m[1])) && !NOT_METHOD.has(m[2]))
    return foundDef(m[2], "method");
  if (lang === "csharp") {
    // a property or indexer: the type, the name (`Explicit.Interface.Name`, `this[…]`), then `{`, `=>` or nothing
    m = /^([\w.[\]?,]+)\s+(?:[\w.]+\.)?(\w+|this\s*\[[^\]]*\])\s*(?:\{|=>|$)/.exec(plain);
    const name = m?.[2]?.startsWith("this") ? "this" : m?.[2];
    if (m?.[1] && name && !NOT_METHOD.has(m[1]) && !/^(?:event|operator|delegate|const|using)$/.test(m[1]))
      return foundDef(name, "method");
  }
  return null;
}

/**
 * The next occurrence of each of a few strings in a text at or after a position that only moves forward, each
 * searched with `indexOf` once per occurrence (not once per line).
 */
class NextOf {
  private readonly at: number[];

  constructor(
    private readonly text: string,
    private readonly needles: readonly string[],
  ) {
    this.at = needles.map(() => -2);
  }

  /** Whether one of the strings starts in `text[from, end)` (`from` never less than in an earlier call). */
  within(from: number, end: number): boolean {
    for (let k = 0; k < this.needles.length; k++) {
      let at = this.at[k]!;
      if (at !== -1 && at < from) this.at[k] = at = this.text.indexOf(this.needles[k]!, from);
      if (at !== -1 && at < end) return true;
    }
    return false;
  }
}

/** The first index in `text[from, end)` that is neither a space nor a tab (`end` if none). */
function afterBlanks(text: string, from: number, end: number): number {
  let i = from;
  while (i < end) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) break;
    i++;
  }
  return i;
}

/** The lines of a brace language: declarations found per line, bodies tracked by brace depth. */
function braceSymbols(content: string, lang: Lang): SymbolDef[] {
  const out: SymbolDef[] = [];
  const code = new CodeLines(content);
  const open: Open[] = [];
  /** How many of `open` wait for their `{`. */
  let waiting = 0;
  /** The innermost open container whose body has begun; recomputed when a container opens or closes. */
  let holder: Open | undefined;
  let holderStale = false;
  let depth = 0;
  let parens = 0;
  let goBlock: string | null = null;
  const prototypes = new NextOf(content, [".prototype."]);
  const length = content.length;
  for (let start = 0, lineNo = 1; start <= length; lineNo++) {
    let newline = content.indexOf("\n", start);
    if (newline === -1) newline = length;
    // a CRLF line ends before its "\r"
    const end = newline > start && content.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
    const scanned = end - start <= MAX_SCAN_LINE;
    const startedInComment = code.inBlock;
    if (scanned) code.line(start, end);
    else code.skip();
    if (holderStale) {
      holder = undefined;
      for (let k = open.length - 1; k >= 0 && holder === undefined; k--)
        if (open[k]!.isContainer && open[k]!.opened) holder = open[k];
      holderStale = false;
    }
    // The innermost open container whose body is at this depth holds methods declared on this line.
    const inClass = holder !== undefined && depth === holder.depthBefore + 1 ? holder.def.name : undefined;
    const inEnum = inClass !== undefined && holder?.isEnum === true;
    let found: Found | null = null;
    if (!startedInComment && scanned) {
      const first = code.first;
      if (lang === "js") {
        const patterns = jsPatterns(content, start, first, end, inClass !== undefined, prototypes);
        if (patterns !== 0) {
          // the line without its indentation (spaces and tabs, or any white space when other kinds start it)
          const t = unusualStart(content.charCodeAt(first))
            ? content.slice(start, end).trimStart()
            : content.slice(first, end);
          found = jsLine(t, t.length < end - start, inClass, patterns);
        }
      } else if (lang === "go") {
        const c = start < end ? content.charCodeAt(start) : 0;
        // at the top level, only `func`, `type`, `var` and `const` lines declare anything
        if (goBlock !== null || (depth === 0 && (c === 102 || c === 116 || c === 118 || c === 99))) {
          const raw = content.slice(start, end);
          if (depth === 0 && /^(type|var|const)\s*\(/.test(raw)) goBlock = /^(\w+)/.exec(raw)?.[1] ?? null;
          else if (goBlock !== null && /^\)/.test(raw)) goBlock = null;
          else if (depth === 0 || (goBlock !== null && depth <= 1)) found = goLine(raw, goBlock);
        }
      } else if (inClass !== undefined || javaMayDeclare(content, first, end))
        found = javaLine(content.slice(start, end), inClass, lang, inEnum);
    }
    if (found !== null) {
      const def = symbolDef(found.name, found.kind, lineNo);
      const container =
        found.container ??
        (found.kind === "method" ? inClass : undefined) ??
        (inClass !== undefined && found.opens ? inClass : undefined);
      if (container !== undefined) def.container = container;
      out.push(def);
      // A new declaration at the same or an outer depth ends any earlier one still waiting for its "{".
      for (let k = open.length - 1; k >= 0 && waiting > 0; k--)
        if (!open[k]!.opened && open[k]!.depthBefore >= depth) {
          open.splice(k, 1);
          waiting--;
        }
      if (lang === "go" && !code.opensBrace) def.endLine = lineNo;
      else {
        open.push({
          def,
          depthBefore: depth,
          parensBefore: parens,
          opened: false,
          linesWaited: 0,
          isContainer: found.opens === true,
          isEnum: found.enumType === true,
        });
        waiting++;
      }
    }
    const brackets = code.brackets;
    for (let b = 0; b < code.count; b++) {
      const kind = brackets[b];
      if (kind === 2) parens++;
      else if (kind === 3) parens = Math.max(0, parens - 1);
      else if (kind === 4) {
        depth++;
        if (waiting > 0)
          for (const o of open)
            if (!o.opened && depth === o.depthBefore + 1 && parens === o.parensBefore) {
              o.opened = true;
              waiting--;
              if (o.isContainer) holderStale = true;
            }
      } else {
        depth = Math.max(0, depth - 1);
        for (let k = open.length - 1; k >= 0; k--) {
          const o = open[k]!;
          if (o.opened && depth <= o.depthBefore) {
            o.def.endLine = lineNo;
            open.splice(k, 1);
            if (o.isContainer) holderStale = true;
          }
        }
      }
    }
    if (waiting > 0) {
      // the code ends with ";" (and white space)
      const ended = code.last === 59;
      for (let k = open.length - 1; k >= 0; k--) {
        const o = open[k]!;
        if (o.opened) continue;
        o.linesWaited++;
        if ((ended && depth === o.depthBefore) || o.linesWaited > 5) {
          if (ended && depth === o.depthBefore) o.def.endLine = lineNo;
          open.splice(k, 1);
          waiting--;
        }
      }
    }
    start = newline + 1;
  }
  return out;
}

// ───────────── Python: indentation ─────────────

function pythonLine(text: string): { indent: number; name: string; kind: "function" | "class" | "variable" } | null {
  let m = /^(\s*)(?:async\s+)?def\s+(\w+)/.exec(text);
  if (m?.[2] !== undefined) return { indent: m[1]?.length ?? 0, name: m[2], kind: "function" };
  m = /^(\s*)class\s+(\w+)/.exec(text);
  if (m?.[2] !== undefined) return { indent: m[1]?.length ?? 0, name: m[2], kind: "class" };
  m = /^([A-Za-z_]\w*)\s*(?::[^=]*)?=(?!=)/.exec(text);
  if (m?.[1] !== undefined) return { indent: 0, name: m[1], kind: "variable" };
  return null;
}

/** "\n", "\r", U+2028, U+2029: the characters `.` in a regular expression does not match. */
function isLineTerminator(code: number): boolean {
  return code === 10 || code === 13 || code === 0x2028 || code === 0x2029;
}

/**
 * Opening minus closing brackets of the line `text[start, end)`, outside simple string literals (a quote to the same
 * quote on the line, over backslash escapes; an unclosed quote is an ordinary character) and the first `#` comment
 * outside them (to the end of the line).
 */
function bracketBalance(text: string, start: number, end: number): number {
  let n = 0;
  let comment = false;
  let commented = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 39 || c === 34) {
      let j = i + 1;
      for (; j < end; j++) {
        const d = text.charCodeAt(j);
        if (d === c) break;
        if (d === 92) {
          if (j + 1 >= end || isLineTerminator(text.charCodeAt(j + 1))) j = end;
          else j++;
        }
      }
      if (j < end) {
        i = j;
        continue;
      }
    }
    if (comment) comment = !isLineTerminator(c);
    else if (c === 35 && !commented) comment = commented = true;
    else if (c === 40 || c === 91 || c === 123) n++;
    else if (c === 41 || c === 93 || c === 125) n--;
  }
  return n;
}

/** The lines of a Python file: blocks by indentation, a statement continued inside open brackets. */
function pythonSymbols(content: string): SymbolDef[] {
  const out: SymbolDef[] = [];
  const stack: { indent: number; def: SymbolDef }[] = [];
  const brackets = new NextOf(content, ["(", ")", "[", "]", "{", "}"]);
  const defOrClass = new NextOf(content, ["def", "class"]);
  /** The last line that counts (not blank, not a comment): where a block still open ends so far. */
  let lastLine = 0;
  const close = (indent: number) => {
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop()!.def.endLine = lastLine;
  };
  // Open brackets carried over from earlier lines: a line inside them (a multi-line signature or call) continues a
  // statement, and its indentation closes no block.
  let depth = 0;
  forEachLine(content, (start, end, lineNo) => {
    if (end - start > MAX_SCAN_LINE) return;
    const first = afterBlanks(content, start, end);
    if (first === end) return;
    const c = content.charCodeAt(first);
    let indent = first - start;
    if (unusualStart(c)) {
      const raw = content.slice(start, end);
      const trimmed = raw.trimStart();
      if (trimmed === "" || trimmed.startsWith("#")) return;
      indent = raw.length - trimmed.length;
    } else if (c === 35) return;
    const continued = depth > 0;
    if (brackets.within(start, end)) depth = Math.max(0, depth + bracketBalance(content, start, end));
    if (continued) {
      lastLine = lineNo;
      return;
    }
    close(indent);
    lastLine = lineNo;
    // Indented lines define something only with `def` or `class` (variables count at the top level only).
    if (indent > 0 ? !defOrClass.within(start, end) : !isIdentStart(c) && !unusualStart(c)) return;
    const found = pythonLine(content.slice(start, end));
    if (found === null) return;
    const parent = stack[stack.length - 1]?.def;
    const def = symbolDef(found.name, found.kind, lineNo, lineNo);
    if (found.kind === "function" && parent?.kind === "class") def.kind = "method";
    if (found.kind === "variable" && parent !== undefined) return;
    if (parent !== undefined) def.container = parent.name;
    out.push(def);
    if (found.kind !== "variable") stack.push({ indent, def });
  });
  close(0);
  return out;
}

/**
 * Calls `fn(start, end, lineNo)` for each line of `content` (as `split("\n")` gives them: "a\n" has two lines, the
 * last empty), `end` before a CRLF line's "\r"; `lineNo` is 1-based.
 */
function forEachLine(content: string, fn: (start: number, end: number, lineNo: number) => void): void {
  const length = content.length;
  for (let start = 0, lineNo = 1; start <= length; lineNo++) {
    let newline = content.indexOf("\n", start);
    if (newline === -1) newline = length;
    fn(start, newline > start && content.charCodeAt(newline - 1) === 13 ? newline - 1 : newline, lineNo);
    start = newline + 1;
  }
}

// ───────────── Ruby: def/class/module … end ─────────────

function rubySymbols(content: string): SymbolDef[] {
  const out: SymbolDef[] = [];
  // Each open block with the class or module its definitions belong to (`scope`: the nearest class or module at or
  // below it in the stack), so the parent of a line is the top's scope: no walk down the stack, which a file of many
  // `def` lines without `end` made quadratic.
  const stack: { indent: number; def: SymbolDef; scope: SymbolDef | undefined }[] = [];
  forEachLine(content, (start, end, lineNo) => {
    if (end - start > MAX_SCAN_LINE) return;
    const first = afterBlanks(content, start, end);
    if (first === end) return;
    const c = content.charCodeAt(first);
    // only `end`, `class`, `module`, `def` and (at the top level) constants matter
    const unusual = unusualStart(c);
    if (!unusual && c !== 101 && c !== 99 && c !== 109 && c !== 100 && !(first === start && c >= 65 && c <= 90)) return;
    const raw = content.slice(start, end);
    const indent = unusual ? raw.length - raw.trimStart().length : first - start;
    if (/^\s*end\b/.test(raw)) {
      while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) {
        const top = stack.pop()!;
        if (top.indent === indent) {
          top.def.endLine = lineNo;
          break;
        }
      }
      return;
    }
    const block = /^\s*(class|module)\s+([A-Z][\w:]*)/.exec(raw);
    const method = /^\s*def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?|\[\]=?|[<=>+\-*/%]+)/.exec(raw);
    const constant = indent === 0 ? /^([A-Z][A-Z0-9_]*)\s*=(?!=)/.exec(raw) : null;
    const parent = stack.length > 0 ? stack[stack.length - 1]!.scope : undefined;
    let def: SymbolDef | null = null;
    if (block?.[1] && block[2]) def = symbolDef(block[2], block[1] === "class" ? "class" : "module", lineNo);
    else if (method?.[1]) def = symbolDef(method[1], parent ? "method" : "function", lineNo);
    else if (constant?.[1]) def = symbolDef(constant[1], "variable", lineNo, lineNo);
    if (def === null) return;
    if (parent !== undefined) def.container = parent.name;
    out.push(def);
    const oneLiner = /\bend\s*$/.test(raw) || (method !== null && /\)\s*=\s*\S/.test(raw));
    if (oneLiner) def.endLine = lineNo;
    else if (def.kind !== "variable")
      stack.push({ indent, def, scope: def.kind === "class" || def.kind === "module" ? def : parent });
  });
  return out;
}
