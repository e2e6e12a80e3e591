/**
 * Light, line-based reading of source code for the heuristic model: the language of a path, the enclosing function
 * of a line, its parameters, and a place where one statement can be inserted without breaking the syntax.
 * Heuristics over well-formatted code (indentation and line endings), not a parser; see the limits in heuristic.ts.
 */

import { codeOfLine, isCommentLine as isComment } from "../../../lang/comments.js";
import { languageOfExtension } from "../../../lang/languages.js";
import { goLiteralOn, goSignatureText } from "./guard-go.js";
import { csharpPropertyOn } from "./guard-jvm.js";

/** Languages the heuristic writes additions for. */
export type CodeLanguage = "javascript" | "typescript" | "python" | "go" | "java" | "kotlin" | "ruby" | "csharp";

/** The language of a repository path from its extension, or null when the heuristic does not write it. */
export function languageOf(path: string): CodeLanguage | null {
  const ext = /\.([A-Za-z]+)$/.exec(path)?.[1]?.toLowerCase() ?? "";
  if (ext === "pyi" || ext === "kts") return null; // type stubs and Gradle scripts: no code the heuristic adds to
  return CODE_LANGUAGES.get(languageOfExtension(ext) ?? "") ?? null;
}

/** The languages of src/lang/languages.ts the heuristic writes, by its names for them. */
const CODE_LANGUAGES = new Map<string, CodeLanguage>([
  ["JavaScript", "javascript"],
  ["TypeScript", "typescript"],
  ["Python", "python"],
  ["Go", "go"],
  ["Java", "java"],
  ["Kotlin", "kotlin"],
  ["Ruby", "ruby"],
  ["C#", "csharp"],
]);

/** Leading whitespace of a line. */
export function indentOf(line: string): string {
  return /^[ \t]*/.exec(line)?.[0] ?? "";
}

/** Width of an indentation, a tab counting 4. */
function width(indent: string): number {
  let n = 0;
  for (const c of indent) n += c === "\t" ? 4 : 1;
  return n;
}

/** Text of a line without a comment after its code, trailing blanks cut; "" for a comment line (the one rule). */
function codePart(line: string, lang: CodeLanguage): string {
  if (isCommentLine(line, lang)) return "";
  return codeOfLine(line, LANGUAGE_NAME.get(lang)).trimEnd();
}

/** The name of src/lang/languages.ts of each {@link CodeLanguage}. */
const LANGUAGE_NAME = new Map([...CODE_LANGUAGES].map(([name, lang]) => [lang, name]));

/**
 * True when the whole line is a comment in `lang` (the one rule: `isCommentLine` of src/lang/comments.ts; null reads
 * as a file of no known language there: `#`, `//`, `;` and `/* … *\/` comments).
 */
function isCommentLine(line: string, lang: CodeLanguage | null): boolean {
  return isComment(line, lang === null ? undefined : LANGUAGE_NAME.get(lang));
}

const CONTROL = new Set([
  "if",
  "for",
  "while",
  "switch",
  "catch",
  "function",
  "return",
  "with",
  "elif",
  "else",
  "until",
  "unless",
  "foreach",
  "using",
  "lock",
  "fixed",
  "new",
  "sizeof",
  "typeof",
  "await",
  "yield",
  "throw",
  "case",
  "when",
]);

/** A function or class that encloses a line. */
export interface Enclosing {
  name: string;
  kind: "function" | "class";
  line: number;
  /** Simple parameter names from the signature line (no `self`/`this`), at most 6. */
  params: string[];
  /** JS `this.`/Python `self.`/Ruby `@` receivers are usable here (an instance method). */
  instance: boolean;
}

/** Split a parameter list at top-level commas (ignoring commas inside (), [], {}, <>). */
export function splitParams(list: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let cur = "";
  for (const c of list) {
    if ("([{<".includes(c)) depth++;
    else if (")]}>".includes(c)) depth = Math.max(0, depth - 1);
    if (c === "," && depth === 0) {
      parts.push(cur);
      cur = "";
    } else cur += c;
  }
  if (cur.trim() !== "") parts.push(cur);
  return parts.map((p) => p.trim()).filter((p) => p !== "");
}

/** The text between the first `(` after `from` and its matching `)` on one line, or null when it does not close. */
function parenGroup(line: string, from: number): string | null {
  const open = line.indexOf("(", from);
  if (open < 0) return null;
  let depth = 0;
  for (let i = open; i < line.length; i++) {
    const c = line[i];
    if (c === "(") depth++;
    else if (c === ")") {
      depth--;
      if (depth === 0) return line.slice(open + 1, i);
    }
  }
  return null;
}

const SIMPLE = /^[A-Za-z_$][\w$]*$/;

/** Parameter names of a signature's parameter list, per language. */
export function parameterNames(list: string, lang: CodeLanguage): string[] {
  const names: string[] = [];
  for (const part of splitParams(list)) {
    let p = part.replace(/^@\w+(?:\([^)]*\))?\s+/g, "").replace(/\s*=.*$/s, "");
    let name: string | undefined;
    if (lang === "python")
      name = p
        .replace(/^\*{1,2}/, "")
        .split(":")[0]
        ?.trim();
    else if (lang === "ruby")
      name = p
        .replace(/^[*&]{1,2}/, "")
        .replace(/:.*$/, "")
        .trim();
    else if (lang === "go") name = p.split(/\s+/)[0];
    else if (lang === "java" || lang === "csharp") {
      p = p.replace(/\b(?:final|ref|out|in|params|this)\s+/g, "");
      name = p.split(/\s+/).pop();
    } else if (lang === "kotlin")
      name = p
        .replace(/^(?:val|var|vararg)\s+/, "")
        .split(":")[0]
        ?.trim();
    else
      name = p
        .replace(/^\.\.\./, "")
        .replace(/\?$/, "")
        .split(/[?:]/)[0]
        ?.trim();
    if (name && SIMPLE.test(name) && !["self", "cls", "this", "_"].includes(name) && !names.includes(name))
      names.push(name);
  }
  return names.slice(0, 6);
}

/**
 * The parameter names of a function bound on `line`: of the arrow's parameter text `arrow` (`(a, b)` or `a`) when
 * there is one, else of the `function (…)` list.
 */
function boundParams(line: string, arrow: string | undefined, lang: CodeLanguage): string[] {
  const list = arrow
    ? arrow.startsWith("(")
      ? arrow.slice(1, -1)
      : arrow
    : (parenGroup(line, line.indexOf("function")) ?? "");
  return parameterNames(list, lang);
}

/** `a.b.name = function …(` / `= (…) =>` / `= x =>`: group 1 the member, group 2 an arrow's parameters. */
const JS_MEMBER_FUNCTION_DEF = new RegExp(
  String.raw`^\s*(?:[A-Za-z_$][\w$]*\.)+([A-Za-z_$][\w$]*)\s*=\s*` +
    String.raw`(?:async\s+)?(?:function\b[^(]*\(|(\([^)]*\)|[A-Za-z_$][\w$]*)\s*=>)`,
);

/** If `line` defines a function or class in `lang`, its name, kind and parameter list; else null. */
export function definitionOn(
  line: string,
  lang: CodeLanguage,
): { name: string; kind: "function" | "class"; params: string[]; method: boolean } | null {
  const params = (from: number) => parameterNames(parenGroup(line, from) ?? "", lang);
  let m: RegExpExecArray | null;
  switch (lang) {
    case "python":
      if ((m = /^\s*(?:async\s+)?def\s+(\w+)\s*\(/.exec(line))) {
        const raw = parenGroup(line, m.index) ?? "";
        return { name: m[1] ?? "", kind: "function", params: params(m.index), method: /^\s*(?:self|cls)\b/.test(raw) };
      }
      if ((m = /^\s*class\s+(\w+)/.exec(line))) return { name: m[1] ?? "", kind: "class", params: [], method: false };
      return null;
    case "ruby":
      if ((m = /^\s*def\s+(self\.)?([\w]+[?!=]?)/.exec(line)))
        return { name: m[2] ?? "", kind: "function", params: params(m.index), method: !m[1] };
      if ((m = /^\s*(?:class|module)\s+([\w:]+)/.exec(line)))
        return { name: (m[1] ?? "").split("::").pop() ?? "", kind: "class", params: [], method: false };
      return null;
    case "go":
      if ((m = /^func\s+(\([^)]*\)\s*)?(\w+)\s*(?:\[[^\]]*\])?\(/.exec(line))) {
        const at = line.indexOf("(", m[1] ? line.indexOf(m[2] ?? "") : 0);
        return { name: m[2] ?? "", kind: "function", params: params(at), method: !!m[1] };
      }
      if ((m = /^type\s+(\w+)\s+struct\b/.exec(line)))
        return { name: m[1] ?? "", kind: "class", params: [], method: false };
      return null;
    case "java":
    case "csharp":
    case "kotlin":
      if (
        (m = new RegExp(
          String.raw`^\s*(?:(?:public|private|protected|internal|static|final|abstract|sealed|` +
            String.raw`open|data|partial)\s+)*(?:class|interface|enum|record|object|struct)\s+(\w+)`,
        ).exec(line))
      ) {
        return { name: m[1] ?? "", kind: "class", params: [], method: false };
      }
      if (
        lang === "kotlin" &&
        (m = new RegExp(
          String.raw`^\s*(?:(?:public|private|protected|internal|override|open|` +
            String.raw`suspend|inline)\s+)*fun\s+(?:<[^>]*>\s*)?(?:[\w.]+\.)?(\w+)\s*\(`,
        ).exec(line))
      ) {
        return { name: m[1] ?? "", kind: "function", params: params(m.index), method: true };
      }
      if (
        (m = new RegExp(
          String.raw`^\s*(?:(?:public|private|protected|internal|static|final|abstract|` +
            String.raw`synchronized|async|override|virtual|sealed|native|default|extern|` +
            String.raw`unsafe|new)\s+)*(?:<[^>]*>\s*)?[\w<>\[\],.?]+(?:\s*<[^>]*>)?\s+(\w+)\s*\(`,
        ).exec(line))
      ) {
        const name = m[1] ?? "";
        if (CONTROL.has(name) || /^\s*(?:return|new|throw|else)\b/.test(line) || /[;=]\s*$/.test(codePart(line, lang)))
          return null;
        return { name, kind: "function", params: params(m.index + m[0].length - 1), method: !/\bstatic\b/.test(line) };
      }
      const property = lang === "csharp" ? csharpPropertyOn(line) : null;
      if (property) return { name: property, kind: "function", params: [], method: !/\bstatic\b/.test(line) };
      return null;
    case "javascript":
    case "typescript":
      if ((m = /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+(\w+)/.exec(line)))
        return { name: m[1] ?? "", kind: "class", params: [], method: false };
      if ((m = /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*(\w+)\s*(?:<[^>]*>)?\s*\(/.exec(line))) {
        return { name: m[1] ?? "", kind: "function", params: params(m.index + m[0].length - 1), method: false };
      }
      if (
        (m = new RegExp(
          String.raw`^\s*(?:export\s+)?(?:const|let|var)\s+(\w+)\s*(?::[^=]+)?=\s*` +
            String.raw`(?:async\s+)?(?:function\b[^(]*\(|(\([^)]*\)|\w+)\s*(?::[^=]+)?=>)`,
        ).exec(line))
      ) {
        return { name: m[1] ?? "", kind: "function", params: boundParams(line, m[2], lang), method: false };
      }
      // A function assigned to a member (`res.status = function status(code) {`, `exports.run = async (a) => {`):
      // named by the member; `this` is the object it was assigned to, except on `exports`.
      if ((m = JS_MEMBER_FUNCTION_DEF.exec(line))) {
        const method = !/^\s*(?:module\.)?exports\./.test(line);
        return { name: m[1] ?? "", kind: "function", params: boundParams(line, m[2], lang), method };
      }
      if ((m = /^\s*(\w+)\s*:\s*(?:async\s+)?function\b/.exec(line)))
        return { name: m[1] ?? "", kind: "function", params: params(m.index + m[0].length), method: true };
      if (
        (m = new RegExp(
          String.raw`^\s*(?:(?:public|private|protected|static|async|override|readonly|get|` +
            String.raw`set)\s+)*\*?\s*(#?\w+)\s*(?:<[^>]*>)?\s*\([^;]*\)\s*(?::\s*[^{;=]+)?\{\s*$`,
        ).exec(codePart(line, lang)))
      ) {
        const name = m[1] ?? "";
        if (CONTROL.has(name)) return null;
        return {
          name,
          kind: "function",
          params: params(line.indexOf(name) + name.length),
          method: !/\bstatic\b/.test(line),
        };
      }
      return null;
  }
}

/**
 * The innermost named function (or, failing that, class) that encloses `target`, by scanning upward for a definition
 * line indented less than every line between. Lambdas and anonymous callbacks are looked through. Null at module level.
 */
export function enclosingDefinition(
  lines: ReadonlyMap<number, string>,
  target: number,
  lang: CodeLanguage,
): Enclosing | null {
  const start = lines.get(target);
  if (start === undefined) return null;
  let limit = width(indentOf(start)) + (definitionOn(start, lang) ? 0 : 1);
  let cls: Enclosing | null = null;
  let fn: Enclosing | null = null;
  let literal: Enclosing | null = null; // Go: the innermost function literal around the line
  for (let n = target; n >= 1 && lines.has(n); n--) {
    const line = lines.get(n) ?? "";
    if (line.trim() === "") continue;
    const w = width(indentOf(line));
    if (w >= limit) continue;
    // the end of a multi-line signature (`) -> None:`, `) {`) is not a scope: its definition line is further up
    if (/^[)\]]/.test(line.trim())) continue;
    limit = w;
    const lit: ReturnType<typeof goLiteralOn> = lang === "go" && !fn && !literal ? goLiteralOn(line) : null;
    if (lit)
      literal = {
        name: lit.name ?? "",
        kind: "function",
        line: n,
        params: parameterNames(lit.list, lang),
        instance: false,
      };
    let def = definitionOn(line, lang);
    if (!def && line.trim() === "{") {
      // Allman style: the header is the line above the brace, at the same indentation.
      let p = n - 1;
      while (p >= 1 && (lines.get(p) ?? "x").trim() === "") p--;
      const header = lines.get(p);
      if (header !== undefined && width(indentOf(header)) === w) {
        def = definitionOn(header, lang);
        n = p;
      }
    }
    if (def?.kind === "function" && !fn) {
      // a signature over several lines (`def total(` / `    cart=None,` / `):`): its parameters from those lines
      const header = lines.get(n) ?? "";
      const open = header.lastIndexOf("(");
      let params = def.params;
      if (params.length === 0 && open >= 0 && parenGroup(header, open) === null) {
        const parts: string[] = [];
        for (let k = n; k < n + 20 && lines.has(k); k++) parts.push(lines.get(k) ?? "");
        const joined = parts.join(" ");
        params = parameterNames(parenGroup(joined, open) ?? "", lang);
      }
      fn = { name: def.name, kind: "function", line: n, params, instance: def.method };
    }
    if (def?.kind === "class") {
      cls = { name: def.name, kind: "class", line: n, params: [], instance: false };
      break;
    }
    if (w === 0) break;
  }
  // A guard in a Go function literal returns from the literal: its line and parameters, the named function's name.
  if (literal && (fn || literal.name)) return { ...literal, name: fn?.name ?? literal.name };
  if (fn) return { ...fn, instance: fn.instance && cls !== null };
  return cls;
}

/** True when a line, read as code, leaves its statement unfinished (the next line continues it). */
function continues(line: string, lang: CodeLanguage): boolean {
  const code = codePart(line, lang);
  if (code === "") return false;
  if (lang === "ruby" && /(?:\bdo|\{)\s*(?:\|[^|]*\|)?$/.test(code))
    return /\{\s*$/.test(code) && !/\|\s*$/.test(code) && /[=(,]\s*\{$/.test(code);
  if (/[,(\[+\-*/%&|^=<>?\\.]$/.test(code) && !/(?:\+\+|--)$/.test(code) && !/=>$/.test(code)) return true;
  if (/=>$/.test(code)) return true;
  if (/\{$/.test(code)) return !opensBlock(code, lang);
  if (lang === "ruby" && /\b(?:and|or|not)$/.test(code)) return true;
  if (lang === "python" && /\b(?:and|or|not|in|is)$/.test(code)) return true;
  return false;
}

/** True when a line ending in `{` opens a block of statements (function, control flow), not a literal. */
function opensBlock(code: string, lang: CodeLanguage): boolean {
  if (/^\s*\{$/.test(code)) return true; // Allman style: the brace of the line above's declaration or statement
  if (/\)\s*(?:(?::|->)\s*[^{=]+)?\{$/.test(code) && !/\(\{$/.test(code)) return true;
  if (/=>\s*\{$/.test(code)) return true;
  if (/^\s*(?:\}\s*)?(?:else|try|finally|do|default)\b.*\{$/.test(code)) return true;
  if (
    new RegExp(
      String.raw`^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?(?:class|` +
        String.raw`interface|enum|struct|namespace|module|object|record)\b`,
    ).test(code)
  )
    return true;
  if (/^\s*(?:func|if|for|switch|select|while|else|catch|go func|defer func)\b/.test(code)) return true;
  if (lang === "go" && /^\s*(?:case|default)\b/.test(code)) return true;
  if (
    (lang === "java" || lang === "csharp" || lang === "kotlin") &&
    /^\s*(?:(?:public|private|protected|internal|static)\s+)*(?:get|set|init)?\s*\{$/.test(code)
  )
    return true;
  return false;
}

/** True when a line opens a class-like body, where statements are not allowed (JS/TS/Java/C#/Go/Kotlin). */
function opensDeclarationBody(code: string, lang: CodeLanguage): boolean {
  if (lang === "python" || lang === "ruby") return false;
  return (
    new RegExp(
      String.raw`^\s*(?:export\s+)?(?:default\s+)?(?:(?:public|private|protected|internal|static|final|` +
        String.raw`abstract|sealed|partial|data|open)\s+)*(?:class|interface|enum|struct|record|` +
        String.raw`object)\b[^(]*\{$`,
    ).test(code) || /^\s*type\s+\w+\s+(?:struct|interface)\s*\{$/.test(code)
  );
}

/**
 * Python: the line of the outermost bracket (`(`, `[`, `{`) still open at the start of `target`, found by scanning
 * up to 30 lines above it right to left (string literals and comments blanked), or null when `target` is in no
 * bracket. Inside a call's argument list (`body=request._enc_data,` in `return HTTPMessage(`) that is the line the
 * statement starts on; no statement can go between the arguments.
 */
function bracketStart(lines: ReadonlyMap<number, string>, target: number): number | null {
  let need = 0;
  let start: number | null = null;
  for (let p = target - 1; p >= Math.max(1, target - 30); p--) {
    const t = lines.get(p);
    if (t === undefined) break;
    const code = codePart(t.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""'), "python");
    for (let i = code.length - 1; i >= 0; i--) {
      const c = code[i] ?? "";
      if (")]}".includes(c)) need++;
      else if ("([{".includes(c)) {
        if (need > 0) need--;
        else start = p;
      }
    }
  }
  return start;
}

/**
 * A place to insert statements: before line `line`, with indentation `indent`. `statement` is the first line of the
 * statement that runs next (after any comment lines directly above it, which stay attached to it).
 */
export interface InsertionPoint {
  line: number;
  statement: number;
  indent: string;
}

/**
 * Where a statement can go so that it runs just before `target` executes: the first line of the statement that
 * contains `target` (walking up through lines that continue onto the next, and through literal `{`/`(`/`[` openers),
 * with that line's indentation. Returns null when that line cannot take a statement before it: it continues a
 * control chain (`else`, `elif`, `except`, `catch`, `}` …), lies in a class/interface/struct body of a language
 * that forbids statements there, or the lines needed were not read.
 */
export function insertionBefore(
  lines: ReadonlyMap<number, string>,
  target: number,
  lang: CodeLanguage,
): InsertionPoint | null {
  let n = target;
  if (lines.get(n) === undefined) return null;
  if (lang === "python") n = bracketStart(lines, target) ?? n;
  while (n > 1) {
    let p = n - 1;
    while (p >= 1 && (lines.get(p) ?? "x").trim() === "") p--;
    const prev = lines.get(p);
    if (prev === undefined || p < 1) break;
    const cur = (lines.get(n) ?? "").trim();
    const startsAsContinuation =
      /^(?:[.)\]}?:]|&&|\|\||\+(?!\+)|-(?!-)|\*|\/(?![/*])|%|=>)/.test(cur) &&
      !/^}\s*(?:else|catch|finally)?\s*$/.test(cur) &&
      !/^}\s*;?$/.test(cur);
    if (continues(prev, lang) || (startsAsContinuation && lang !== "python")) {
      n = p;
      if (target - n > 30) return null;
      continue;
    }
    break;
  }
  const line = lines.get(n);
  if (line === undefined) return null;
  const code = line.trim();
  if (/^(?:[}\])]|else\b|elif\b|except\b|catch\b|finally\b|rescue\b|ensure\b|end\b|when\b|default\b)/.test(code))
    return null;
  if (lang !== "ruby" && /^(?:case\b|@)/.test(code)) return null;
  if (lang === "python" && /^(?:else|elif|except|finally)\b/.test(code)) return null;
  // The block this line sits in: the nearest line above with less indentation.
  const own = width(indentOf(line));
  // declarations only at top level
  if (own === 0 && (lang === "go" || lang === "java" || lang === "kotlin" || lang === "csharp")) return null;
  for (let p = n - 1; p >= 1; p--) {
    const above = lines.get(p);
    if (above === undefined) {
      if (own !== 0) return null;
      break;
    }
    if (above.trim() === "" || width(indentOf(above)) >= own) continue;
    const aboveCode = codePart(above, lang);
    if (opensDeclarationBody(aboveCode, lang)) return null;
    if (lang === "python" && !/:$/.test(aboveCode)) return null; // a continuation line we could not place
    if (lang !== "python" && lang !== "ruby" && /\{$/.test(aboveCode) && !opensBlock(aboveCode, lang)) return null;
    break;
  }
  let at = n;
  while (
    at > 1 &&
    lines.get(at - 1) !== undefined &&
    isCommentLine(lines.get(at - 1) ?? "", lang) &&
    indentOf(lines.get(at - 1) ?? "") === indentOf(line)
  )
    at--;
  return { line: at, statement: n, indent: indentOf(line) };
}

/**
 * The indentation one block level adds in this file (Go: a tab): a tab when most indented lines read start with one,
 * else the most frequent increase of leading spaces from a code line to the next (the smaller on a tie). Comment
 * lines are left out: a block comment's ` * ` continuation is one space deeper than its `/**`, not a block level.
 */
export function indentUnit(lines: ReadonlyMap<number, string>, lang: CodeLanguage | null, indent = ""): string {
  if (lang === "go" || indent.startsWith("\t")) return "\t";
  const code = [...lines.entries()]
    .sort((x, y) => x[0] - y[0])
    .map(([, t]) => t)
    .filter((t) => t.trim() !== "" && !isCommentLine(t, lang));
  const indented = code.filter((t) => /^[ \t]/.test(t));
  if (indented.length && indented.filter((t) => t.startsWith("\t")).length * 2 > indented.length) return "\t";
  const counts = new Map<number, number>();
  let prev: number | null = null;
  for (const t of code) {
    const w = /^ */.exec(t)?.[0].length ?? 0;
    if (prev !== null && w > prev) counts.set(w - prev, (counts.get(w - prev) ?? 0) + 1);
    prev = w;
  }
  const best = [...counts.entries()].sort((x, y) => y[1] - x[1] || x[0] - y[0])[0]?.[0] ?? 0;
  return " ".repeat(best || (lang === "javascript" || lang === "typescript" || lang === "ruby" ? 2 : 4));
}

/**
 * The result types of a Go function from its definition line (`func (c *T) run(a int) (n int, err error) {` →
 * `["int", "error"]`; `… error {` → `["error"]`; no results → `[]`; a function literal's line `Run: func(a int) error
 * {` → `["error"]`), or null when the line is not a one-line Go signature. Grouped named results (`(a, b int)`) give
 * each name the type that follows it.
 */
export function goResults(signature: string): string[] | null {
  const code = codeOfLine(goSignatureText(signature), "Go").trim();
  const m = /^func\s+(?:\([^)]*\)\s*)?\w+\s*(?:\[[^\]]*\])?/.exec(code) ?? /^func\s*(?=\()/.exec(code);
  if (!m) return null;
  let i = m[0].length;
  if (code[i] !== "(") return null;
  let depth = 0;
  for (; i < code.length; i++) {
    if (code[i] === "(") depth++;
    else if (code[i] === ")" && --depth === 0) break;
  }
  if (i >= code.length) return null;
  const rest = code
    .slice(i + 1)
    .replace(/\{\s*$/, "")
    .trim();
  if (rest === "") return [];
  if (!rest.startsWith("(")) return [rest];
  const parts = splitParams(rest.slice(1, rest.lastIndexOf(")")));
  const types: (string | null)[] = parts.map((p) => {
    const named = /^[A-Za-z_]\w*\s+(.+)$/.exec(p);
    if (named && !/^(?:chan|func|map|interface|struct)\b/.test(p)) return named[1]!.trim();
    return /^[A-Za-z_]\w*$/.test(p) && parts.some((q) => /\s/.test(q)) ? null : p; // a name grouped with the next type
  });
  for (let k = types.length - 2; k >= 0; k--) if (types[k] === null) types[k] = types[k + 1] ?? null;
  return types.every((t): t is string => t !== null) ? types : null;
}

/**
 * The zero value of a Go type as an expression (`nil`, `""`, `false`, `0`), or null for a struct or an unknown named
 * type.
 */
export function goZero(type: string): string | null {
  const t = type.trim();
  if (/^(?:\*|\[|map\[|chan\b|<-chan\b|func\b|interface\s*\{|any$|error$)/.test(t)) return "nil";
  if (t === "string") return '""';
  if (t === "bool") return "false";
  if (/^(?:u?int(?:8|16|32|64)?|uintptr|byte|rune|float(?:32|64)|complex(?:64|128))$/.test(t)) return "0";
  return null;
}

/**
 * The values a Go function returns before its error (`return <these>, err`) when its last result is `error` and
 * every other result has a known zero value; null otherwise (no error result, or a struct result).
 */
export function goErrorReturn(signature: string): string[] | null {
  const results = goResults(signature);
  if (!results || results[results.length - 1] !== "error") return null;
  const zeros = results.slice(0, -1).map(goZero);
  return zeros.every((z): z is string => z !== null) ? zeros : null;
}
