import { languageOfBasename, languageOfExtension } from "../lang/languages.js";

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
  const split = content.split("\n");
  const lines = content.includes("\r") ? split.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l)) : split;
  switch (lang) {
    case "python":
      return indentSymbols(lines, pythonLine);
    case "ruby":
      return rubySymbols(lines);
    default:
      return braceSymbols(lines, lang);
  }
}

// ───────────── brace languages: JS/TS, Go, Java, C# ─────────────

interface Found {
  name: string;
  kind: SymbolDef["kind"];
  /** Opens a container whose body holds methods (class, interface, struct, namespace). */
  opens?: boolean;
  /** A Java enum: its constants may have bodies that hold methods. */
  enumType?: boolean;
  container?: string;
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

/** Remove string literals and comments from one line (approximately) so braces can be counted. */
function codeOnly(line: string, state: { inBlock: boolean }): string {
  if (!state.inBlock && !QUOTE_OR_SLASH.test(line)) return line;
  // Plain runs are copied as slices (not character by character): this runs for every line of every source file.
  let out = "";
  let i = 0;
  const n = line.length;
  while (i < n) {
    if (state.inBlock) {
      const close = line.indexOf("*/", i);
      if (close === -1) return out;
      state.inBlock = false;
      i = close + 2;
      continue;
    }
    let j = i;
    while (j < n && !isQuoteOrSlash(line.charCodeAt(j))) j++;
    if (j > i) out += line.slice(i, j);
    if (j >= n) break;
    const ch = line[j] as string;
    const next = line[j + 1];
    if (ch === "/" && next === "/") return out;
    if (ch === "/" && next === "*") {
      state.inBlock = true;
      i = j + 2;
      continue;
    }
    if (ch === "/") {
      out += ch;
      i = j + 1;
      continue;
    }
    let k = j + 1;
    while (k < n && line[k] !== ch) k += line[k] === "\\" ? 2 : 1;
    out += ch + ch;
    i = k + 1;
  }
  return out;
}

const QUOTE_OR_SLASH = /["'`/]/;

/** `"`, `'`, `` ` `` or `/`. */
function isQuoteOrSlash(code: number): boolean {
  return code === 34 || code === 39 || code === 96 || code === 47;
}

/** Lines outside a class body that can start a JS/TS definition (a cheap test before the specific patterns). */
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
const JS_CANDIDATE = new RegExp(
  String.raw`^\s*(?:export|default|declare|abstract|async|class|interface|enum|type|namespace|` +
    String.raw`module|function|const|let|var|exports)\b|\.prototype\.|^\s*[A-Za-z_$][\w$]*(?:\.` +
    String.raw`[A-Za-z_$][\w$]*)+\s*=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)|` +
    String.raw`^\s*(?:[A-Za-z_$][\w$]*|"[^"]+"|'[^']+')\s*:\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)`,
);

function jsLine(text: string, inClass: string | undefined): Found | null {
  if (inClass === undefined && !JS_CANDIDATE.test(text)) return null;
  const t = text.trimStart();
  let m = /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/.exec(t);
  if (m?.[1]) return { name: m[1], kind: "class", opens: true };
  m = /^(?:export\s+)?(?:declare\s+)?interface\s+([A-Za-z_$][\w$]*)/.exec(t);
  if (m?.[1]) return { name: m[1], kind: "interface", opens: true };
  m = /^(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)/.exec(t);
  if (m?.[1]) return { name: m[1], kind: "type" };
  m = /^(?:export\s+)?(?:declare\s+)?type\s+([A-Za-z_$][\w$]*)\s*[=<]/.exec(t);
  if (m?.[1]) return { name: m[1], kind: "type" };
  m = /^(?:export\s+)?(?:declare\s+)?(?:namespace|module)\s+([A-Za-z_$][\w$.]*)\s*\{/.exec(t);
  if (m?.[1]) return { name: m[1], kind: "module", opens: true };
  m = /^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/.exec(t);
  if (m?.[1]) return { name: m[1], kind: "function" };
  m = JS_BOUND_FUNCTION.exec(t);
  if (m?.[1]) return { name: m[1], kind: "function" };
  m = /^(?:module\.)?exports\.([A-Za-z_$][\w$]*)\s*=\s*(?:async\s+)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)/.exec(t);
  if (m?.[1]) return { name: m[1], kind: "function" };
  m = /^([A-Za-z_$][\w$]*)\.prototype\.([A-Za-z_$][\w$]*)\s*=/.exec(t);
  if (m?.[1] && m[2]) return { name: m[2], kind: "method", container: m[1] };
  // A function assigned to a member (`res.sendFile = function sendFile(…)`, `app.use = (fn) => …`): named by the
  // member.
  m = JS_MEMBER_FUNCTION.exec(t);
  if (m?.[1] && m[2] && m[1] !== "exports" && m[1] !== "module") return { name: m[2], kind: "method", container: m[1] };
  // A function as an object property, also string-keyed (`"Program:exit": function (…)`, `save: async () => …`).
  m = /^(?:([A-Za-z_$][\w$]*)|"([^"]+)"|'([^']+)')\s*:\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>)/.exec(t);
  if (m && (m[1] ?? m[2] ?? m[3])) return { name: (m[1] ?? m[2] ?? m[3]) as string, kind: "method" };
  if (inClass !== undefined) {
    const rest = stripPrefixes(t, JS_MODIFIERS);
    m = /^\*?\s*(#?[A-Za-z_$][\w$]*)\s*[?!]?\s*(?:<[^>]*>)?\s*\(/.exec(rest);
    if (m?.[1] && !NOT_METHOD.has(m[1])) return { name: m[1], kind: "method" };
    m = /^(#?[A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:async\b\s*)?(?:function\b|\(|[A-Za-z_$][\w$]*\s*=>)/.exec(rest);
    if (m?.[1]) return { name: m[1], kind: "method" };
    return null;
  }
  if (text === t) {
    m = /^(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)/.exec(t);
    if (m?.[1]) return { name: m[1], kind: "variable" };
  }
  return null;
}

function goLine(text: string, goBlock: string | null): Found | null {
  let m = /^func\s*\(\s*(?:\w+\s+)?\*?\s*(\w+)[^)]*\)\s*(\w+)/.exec(text);
  if (m?.[1] && m[2]) return { name: m[2], kind: "method", container: m[1] };
  m = /^func\s+(\w+)/.exec(text);
  if (m?.[1]) return { name: m[1], kind: "function" };
  const typeLine =
    goBlock === "type"
      ? /^\s+(\w+)\s+(?:\[[^\]]*\]\s*)?(\w+)?/.exec(text)
      : /^type\s+(\w+)\s+(?:\[[^\]]*\]\s*)?(\w+)?/.exec(text);
  if (typeLine?.[1]) {
    const kind = typeLine[2] === "struct" ? "class" : typeLine[2] === "interface" ? "interface" : "type";
    return { name: typeLine[1], kind, opens: kind !== "type" };
  }
  if (goBlock === "var" || goBlock === "const") {
    m = /^\s+(\w+)\b/.exec(text);
    if (m?.[1]) return { name: m[1], kind: "variable" };
  }
  m = /^(?:var|const)\s+(\w+)\b/.exec(text);
  if (m?.[1] && m[1] !== "(") return { name: m[1], kind: "variable" };
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
    return {
      name: m[2],
      kind: m[1] === "interface" || m[1] === "@interface" ? "interface" : "class",
      opens: true,
      ...(lang === "java" && m[1] === "enum" ? { enumType: true } : {}),
    };
  // a constant with a body; not the enum's constructor, nor a `static {` initializer
  m = inEnum ? /^([A-Za-z_$][\w$]*)\s*(?:\([^;{}]*\))?\s*\{/.exec(t) : null;
  if (m?.[1] && m[1] !== inClass && !/^(?:static|synchronized|default)$/.test(m[1]))
    return { name: m[1], kind: "class", opens: true };
  if (lang === "csharp") {
    m = /^namespace\s+([\w.]+)/.exec(rest);
    if (m?.[1]) return { name: m[1], kind: "module", opens: true };
  }
  if (inClass === undefined) return null;
  const plain = rest
    .replace(/<[^<>]*>/g, "")
    .replace(/<[^<>]*>/g, "")
    .trimStart();
  m = /^(\w+)\s*\(/.exec(plain);
  if (m?.[1] && m[1] === inClass) return { name: m[1], kind: "method" };
  m = /^([\w.[\]?,]+)\s+(\w+)\s*\(/.exec(plain);
  // The return type may be `void` (a keyword JS's list holds as an operator; Java and C# have no such operator).
  if (m?.[1] && m[2] && (m[1] === "void" || !NOT_METHOD.has(m[1])) && !NOT_METHOD.has(m[2]))
    return { name: m[2], kind: "method" };
  if (lang === "csharp") {
    // a property or indexer: the type, the name (`Explicit.Interface.Name`, `this[…]`), then `{`, `=>` or nothing
    m = /^([\w.[\]?,]+)\s+(?:[\w.]+\.)?(\w+|this\s*\[[^\]]*\])\s*(?:\{|=>|$)/.exec(plain);
    const name = m?.[2]?.startsWith("this") ? "this" : m?.[2];
    if (m?.[1] && name && !NOT_METHOD.has(m[1]) && !/^(?:event|operator|delegate|const|using)$/.test(m[1]))
      return { name, kind: "method" };
  }
  return null;
}

function braceSymbols(lines: string[], lang: Lang): SymbolDef[] {
  const out: SymbolDef[] = [];
  const state = { inBlock: false };
  const open: Open[] = [];
  let depth = 0;
  let parens = 0;
  let goBlock: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? "";
    const lineNo = i + 1;
    const startedInComment = state.inBlock;
    const code = raw.length > MAX_SCAN_LINE ? "" : codeOnly(raw, state);
    // The innermost open container whose body is at this depth holds methods declared on this line.
    let holder: Open | undefined;
    for (let k = open.length - 1; k >= 0 && holder === undefined; k--)
      if (open[k]?.isContainer && open[k]?.opened) holder = open[k];
    const inClass = holder !== undefined && depth === holder.depthBefore + 1 ? holder.def.name : undefined;
    const inEnum = inClass !== undefined && holder?.isEnum === true;
    let found: Found | null = null;
    if (!startedInComment && raw.length <= MAX_SCAN_LINE) {
      if (lang === "js") found = jsLine(raw, inClass);
      else if (lang === "go") {
        if (depth === 0 && /^(type|var|const)\s*\(/.test(raw)) goBlock = /^(\w+)/.exec(raw)?.[1] ?? null;
        else if (goBlock !== null && /^\)/.test(raw)) goBlock = null;
        else if (depth === 0 || (goBlock !== null && depth <= 1)) found = goLine(raw, goBlock);
      } else found = javaLine(raw, inClass, lang, inEnum);
    }
    if (found !== null) {
      const def: SymbolDef = { name: found.name, kind: found.kind, line: lineNo };
      const container =
        found.container ??
        (found.kind === "method" ? inClass : undefined) ??
        (inClass !== undefined && found.opens ? inClass : undefined);
      if (container !== undefined) def.container = container;
      out.push(def);
      // A new declaration at the same or an outer depth ends any earlier one still waiting for its "{".
      for (let k = open.length - 1; k >= 0; k--)
        if (!open[k]?.opened && (open[k]?.depthBefore ?? 0) >= depth) open.splice(k, 1);
      if (lang === "go" && !code.includes("{")) def.endLine = lineNo;
      else
        open.push({
          def,
          depthBefore: depth,
          parensBefore: parens,
          opened: false,
          linesWaited: 0,
          isContainer: found.opens === true,
          isEnum: found.enumType === true,
        });
    }
    // Lines without a brace or parenthesis skip the character loop.
    const scan = code.includes("{") || code.includes("}") || code.includes("(") || code.includes(")");
    for (let c = 0; scan && c < code.length; c++) {
      const ch = code[c];
      if (ch === "(") parens++;
      else if (ch === ")") parens = Math.max(0, parens - 1);
      else if (ch === "{") {
        depth++;
        for (const o of open)
          if (!o.opened && depth === o.depthBefore + 1 && parens === o.parensBefore) o.opened = true;
      } else if (ch === "}") {
        depth = Math.max(0, depth - 1);
        for (let k = open.length - 1; k >= 0; k--) {
          const o = open[k];
          if (o !== undefined && o.opened && depth <= o.depthBefore) {
            o.def.endLine = lineNo;
            open.splice(k, 1);
          }
        }
      }
    }
    for (let k = open.length - 1; k >= 0; k--) {
      const o = open[k];
      if (o === undefined || o.opened) continue;
      o.linesWaited++;
      const ended = /;\s*$/.test(code) && depth === o.depthBefore;
      if (ended || o.linesWaited > 5) {
        if (ended) o.def.endLine = lineNo;
        open.splice(k, 1);
      }
    }
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

/** Opening minus closing brackets of one line, outside simple string literals and `#` comments. */
function bracketBalance(line: string): number {
  const code = line.replace(/'(?:\\.|[^'\\])*'|"(?:\\.|[^"\\])*"/g, "").replace(/#.*/, "");
  let n = 0;
  for (const c of code) {
    if (c === "(" || c === "[" || c === "{") n++;
    else if (c === ")" || c === "]" || c === "}") n--;
  }
  return n;
}

function indentSymbols(lines: string[], match: typeof pythonLine): SymbolDef[] {
  const out: SymbolDef[] = [];
  const stack: { indent: number; def: SymbolDef; lastLine: number }[] = [];
  const close = (indent: number) => {
    while (stack.length > 0 && (stack[stack.length - 1]?.indent ?? -1) >= indent) {
      const top = stack.pop();
      if (top) top.def.endLine = top.lastLine;
    }
  };
  // Open brackets carried over from earlier lines: a line inside them (a multi-line signature or call) continues a
  // statement, and its indentation closes no block.
  let depth = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? "";
    if (raw.trim() === "" || raw.trimStart().startsWith("#") || raw.length > MAX_SCAN_LINE) continue;
    const indent = raw.length - raw.trimStart().length;
    const continued = depth > 0;
    depth = Math.max(0, depth + bracketBalance(raw));
    if (continued) {
      for (const s of stack) s.lastLine = i + 1;
      continue;
    }
    close(indent);
    for (const s of stack) s.lastLine = i + 1;
    // Indented lines define something only with `def` or `class` (variables count at the top level only).
    if (indent > 0 && !raw.includes("def") && !raw.includes("class")) continue;
    const found = match(raw);
    if (found === null) continue;
    const parent = stack[stack.length - 1]?.def;
    const def: SymbolDef = { name: found.name, kind: found.kind, line: i + 1, endLine: i + 1 };
    if (found.kind === "function" && parent?.kind === "class") def.kind = "method";
    if (found.kind === "variable" && parent !== undefined) continue;
    if (parent !== undefined) def.container = parent.name;
    out.push(def);
    if (found.kind !== "variable") stack.push({ indent, def, lastLine: i + 1 });
  }
  close(0);
  return out;
}

// ───────────── Ruby: def/class/module … end ─────────────

function rubySymbols(lines: string[]): SymbolDef[] {
  const out: SymbolDef[] = [];
  const stack: { indent: number; def: SymbolDef }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? "";
    if (raw.length > MAX_SCAN_LINE) continue;
    const indent = raw.length - raw.trimStart().length;
    if (/^\s*end\b/.test(raw)) {
      while (stack.length > 0 && (stack[stack.length - 1]?.indent ?? -1) >= indent) {
        const top = stack.pop();
        if (top && top.indent === indent) {
          top.def.endLine = i + 1;
          break;
        }
      }
      continue;
    }
    const block = /^\s*(class|module)\s+([A-Z][\w:]*)/.exec(raw);
    const method = /^\s*def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?|\[\]=?|[<=>+\-*/%]+)/.exec(raw);
    const constant = indent === 0 ? /^([A-Z][A-Z0-9_]*)\s*=(?!=)/.exec(raw) : null;
    const parent = [...stack].reverse().find((s) => s.def.kind === "class" || s.def.kind === "module")?.def;
    let def: SymbolDef | null = null;
    if (block?.[1] && block[2]) def = { name: block[2], kind: block[1] === "class" ? "class" : "module", line: i + 1 };
    else if (method?.[1]) def = { name: method[1], kind: parent ? "method" : "function", line: i + 1 };
    else if (constant?.[1]) def = { name: constant[1], kind: "variable", line: i + 1, endLine: i + 1 };
    if (def === null) continue;
    if (parent !== undefined) def.container = parent.name;
    out.push(def);
    const oneLiner = /\bend\s*$/.test(raw) || (method !== null && /\)\s*=\s*\S/.test(raw));
    if (oneLiner) def.endLine = i + 1;
    else if (def.kind !== "variable") stack.push({ indent, def });
  }
  return out;
}
