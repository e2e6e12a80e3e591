/**
 * When a guard inside a loop over items skips the item instead of leaving the function (line-based, like `code.ts`):
 * the forward declaration `func lol()` has no body, and a maintainer skips that declaration (`continue`) rather than
 * failing the whole file. A guard skips (`continue`; Ruby `next`) only when all of these hold:
 *
 * - the innermost loop around the guard is a loop over items in the guard's own function: Go `for … range`, JS/TS
 *   `for (… of|in …)`, Python `for … in …:`, Java `for (T x : xs)`, Kotlin `for (x in xs)`, C# `foreach`, Ruby
 *   `for x in` or `xs.each do |x|` (never `while` or a C-style `for`, where a `continue` may skip the step that ends
 *   the loop, and never a loop outside a function literal the guard is in);
 * - the missing value belongs to the item: its root is the loop's variable, or a name assigned inside the loop, above
 *   the guard, by a line that reads the loop's variable (`if f, ok := d.(*ast.FuncDecl); ok {`). A value from outside
 *   the loop (`projectData` read for every key) is not skipped: that would silently drop every item;
 * - the loop already skips items: a `continue` (Ruby `next`) of this loop, not of a nested one, or a body that is one
 *   `if` around everything (`if f, ok := d.(*ast.FuncDecl); ok { … }`: the items it does not take are skipped).
 */

import type { CodeLanguage } from "./code.js";

const indent = (t: string) => /^\s*/.exec(t)?.[0].length ?? 0;
const blank = (t: string) => t.trim() === "" || /^\s*(?:\/\/|#)/.test(t);
const wordRe = (w: string) => new RegExp(`(?<![\\w$])${w.replace(/[$]/g, "\\$")}(?![\\w$])`);

/** The variables a loop over items binds on `line`, or null when the line opens no such loop in `lang`. */
export function loopVariables(line: string, lang: CodeLanguage): string[] | null {
  const code = line.replace(/\s*(?:\/\/|#).*$/, "");
  let m: RegExpExecArray | null;
  let vars: string | undefined;
  switch (lang) {
    case "go":
      if (!(m = /^\s*for\s+(?:([\w\s,]+?)\s*:?=\s*)?range\b.*\{$/.exec(code))) return null;
      vars = m[1] ?? "";
      break;
    case "javascript":
    case "typescript":
      if (!(m = /^\s*for\s*(?:await\s*)?\(\s*(?:const|let|var)?\s*(.+?)\s+(?:of|in)\s+.+\)\s*\{?$/.exec(code)))
        return null;
      vars = m[1];
      break;
    case "python":
      if (!(m = /^\s*(?:async\s+)?for\s+(.+?)\s+in\s+.+:$/.exec(code))) return null;
      vars = m[1];
      break;
    case "java":
      if (!(m = /^\s*for\s*\(\s*(?:final\s+)?[\w.<>[\], ?]+\s+(\w+)\s*:\s*.+\)\s*\{?$/.exec(code))) return null;
      vars = m[1];
      break;
    case "kotlin":
      if (!(m = /^\s*for\s*\(\s*(.+?)\s+in\s+.+\)\s*\{?$/.exec(code))) return null;
      vars = m[1];
      break;
    case "csharp":
      if (!(m = /^\s*(?:await\s+)?foreach\s*\(\s*(?:var|[\w.<>[\],?]+)\s+(.+?)\s+in\s+.+\)\s*\{?$/.exec(code)))
        return null;
      vars = m[1];
      break;
    case "ruby":
      m =
        /^\s*for\s+(.+?)\s+in\s+\S/.exec(code) ??
        /\.each(?:_with_index|_pair|_key|_value)?\s+do\s*\|([^|]*)\|$/.exec(code);
      if (!m) return null;
      vars = m[1];
      break;
  }
  return [...(vars ?? "").matchAll(/[A-Za-z_$][\w$]*/g)]
    .map((v) => v[0])
    .filter((v) => v !== "_" && !/^(?:const|let|var|val|ref|in)$/.test(v));
}

/** A line that opens any loop (also `while`, C-style `for`, `do`, `loop`): the owner of a `continue` below it. */
const ANY_LOOP = /^\s*(?:for\b|foreach\b|while\b|do\b|loop\b|until\b)|\.each\w*\s+do\b|\b(?:loop|until|while)\s+do\b/;

/** A line that opens a function (a callback, lambda or block): a `continue` in it could not reach a loop outside it. */
const FUNCTION_OPEN = new RegExp(
  [
    String.raw`[=-]>\s*\{?\s*$`, // JS/C# arrows, Java/Kotlin lambdas
    String.raw`\bfunction\b|\bfunc\s*\(|^\s*(?:async\s+)?def\s|\bdelegate\b`,
    String.raw`\bdo\s*(?:\|[^|]*\|)?\s*$|\{\s*\|[^|]*\|\s*$`, // Ruby blocks
  ].join("|"),
);
/** Kotlin: a trailing lambda (`items.forEach {`), a word before the brace that is no keyword. */
const KOTLIN_LAMBDA =
  /(?<![\w$])(?!(?:if|else|try|finally|when|do|for|while|object|class|interface|init)\b)[A-Za-z_]\w*\s*\{\s*$/;

/** A statement that skips to the next item: `continue` (Ruby `next`), also as the body of a one-line `if`. */
function skips(line: string, lang: CodeLanguage): boolean {
  const code = line.replace(/\s*(?:\/\/|#).*$/, "");
  if (lang === "ruby") return /(?:^|[\s;])next(?:\s+(?:if|unless)\b.*|\s*)$/.test(code);
  return /(?:^|[\s:{)])continue\s*;?\s*\}?\s*$/.test(code);
}

/** The header line of the innermost block with an indentation below `width` that holds line `n` (none: null). */
function headerAbove(lines: ReadonlyMap<number, string>, n: number, width: number, stop: number): number | null {
  for (let k = n - 1; k > stop; k--) {
    const t = lines.get(k);
    if (t === undefined) return null;
    if (blank(t) || indent(t) >= width) continue;
    // Allman style (`foreach (…)` / `{`): the brace line belongs to the header above it
    if (/^\s*\{\s*$/.test(t)) {
      const above = lines.get(k - 1);
      return above !== undefined && indent(above) === indent(t) ? k - 1 : k;
    }
    return k;
  }
  return null;
}

/** The body lines of the block that `header` opens (up to the line back at the header's indentation). */
function bodyOf(lines: ReadonlyMap<number, string>, header: number): number[] {
  const width = indent(lines.get(header) ?? "");
  const out: number[] = [];
  for (let k = header + 1; lines.has(k); k++) {
    const t = lines.get(k) ?? "";
    if (blank(t)) continue;
    if (indent(t) <= width) {
      if (/^\s*\{\s*$/.test(t) && out.length === 0) continue; // Allman opening brace
      return out;
    }
    out.push(k);
  }
  return []; // the loop's end was not read: nothing is known about its body
}

/**
 * True when a guard before line `at` (indented `width` characters) inside the function starting at `fnLine` should
 * skip the item, by the rules above; `root` is the first name of the missing value (`f` of `f.Body`).
 *
 * @param lines the lines read of the file (1-based)
 */
export function skipsItem(
  lines: ReadonlyMap<number, string>,
  at: number,
  width: number,
  fnLine: number,
  root: string,
  lang: CodeLanguage,
): boolean {
  if (!/^[A-Za-z_$][\w$]*$/.test(root)) return false;
  // the innermost loop around the guard: headers of enclosing blocks, inward to outward, until the function's line
  let header = headerAbove(lines, at, width, fnLine);
  let vars: string[] | null = null;
  while (header !== null) {
    const text = lines.get(header) ?? "";
    vars = loopVariables(text, lang);
    if (vars || ANY_LOOP.test(text)) break;
    const code = text.replace(/\s*(?:\/\/|#).*$/, "");
    if (FUNCTION_OPEN.test(code) || (lang === "kotlin" && KOTLIN_LAMBDA.test(code))) return false;
    header = headerAbove(lines, header, indent(text), fnLine);
  }
  if (header === null || !vars || vars.length === 0) return false;
  // the value belongs to the item
  const reads = (n: number) => vars!.some((v) => wordRe(v).test(lines.get(n) ?? ""));
  const assigns = new RegExp(`(?:^|[^\\w.$])${root.replace(/[$]/g, "\\$")}\\s*(?:,\\s*[\\w$]+\\s*)*(?::=|=(?![=~]))`);
  let own = vars.includes(root);
  for (let k = header + 1; k < at && !own; k++) own = assigns.test(lines.get(k) ?? "") && reads(k);
  if (!own) return false;
  // the loop already skips items
  const body = bodyOf(lines, header);
  if (body.length === 0) return false;
  const isLoop = (h: number) => loopVariables(lines.get(h) ?? "", lang) !== null || ANY_LOOP.test(lines.get(h) ?? "");
  const width0 = (k: number) => indent(lines.get(k) ?? "");
  // the innermost loop around line k (at or below the guard's loop), or null
  const ownerLoop = (k: number) => {
    let h = headerAbove(lines, k, width0(k), header - 1);
    while (h !== null && h !== header && !isLoop(h)) h = headerAbove(lines, h, width0(h), header - 1);
    return h;
  };
  if (body.some((k) => skips(lines.get(k) ?? "", lang) && ownerLoop(k) === header)) return true;
  // a body that is one `if` around everything, without `else`
  const [first, ...more] = body;
  const firstText = lines.get(first ?? 0) ?? "";
  const ifWidth = indent(firstText);
  if (!/^\s*if\b/.test(firstText) || ifWidth <= indent(lines.get(header) ?? "")) return false;
  const rest =
    /^\s*\{\s*$/.test(lines.get(more[0] ?? 0) ?? "") && width0(more[0] ?? 0) === ifWidth ? more.slice(1) : more;
  const last = rest[rest.length - 1];
  if (last === undefined) return false;
  const level = rest.filter((k) => width0(k) <= ifWidth);
  if (lang === "python") return level.length === 0;
  const end = lang === "ruby" ? /^\s*end\s*$/ : /^\s*\}\s*$/;
  return level.length === 1 && level[0] === last && end.test(lines.get(last) ?? "");
}
