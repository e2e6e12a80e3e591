/**
 * The guard at the caller of a relaying frame (JavaScript, TypeScript, Python, Ruby). When the innermost own frame
 * only received the value that was missing (it destructured or read a member of its parameter, or passed it on to a
 * dependency that crashed; see `relayReason` in `locate.ts`), the caller is where the value came from, and the place
 * to check it is the argument the caller passes: `resolve(operation.returns, file)` → a guard on `operation.returns`
 * before that statement, with an error that names the argument, the function it is passed to and the member that
 * function reads.
 */
import type { CodeLanguage } from "./code.js";
import { liveCode } from "./live-code.js";
import { escapeRe } from "./wording.js";

/** What the caller passes where the callee's parameter arrived missing. */
export interface RelayedArgument {
  /** The argument expression, re-readable without side effects (`operation.returns`, `byName.get(release.name)`). */
  expr: string;
  /** The function it is passed to, as called (`resolve`, `shouldSkipPackage`). */
  callee: string;
  /** For a lookup (`m.get(k)`): the key expression `k`, else null. */
  key: string | null;
  /** The guard's condition: true when the argument is missing. */
  condition: string;
}

const NAME = String.raw`[A-Za-z_$][\w$]*`;
const CHAIN = String.raw`(?:this\.|self\.|@)?${NAME}(?:\.${NAME})*`;

/** The function name a frame prints, as the caller's code calls it: `Object.f` → `f`, `C.m [as x]` → `m`, `#m` kept. */
export function calleeName(fn: string): string | null {
  const head = fn
    .replace(/\s*\[as [^\]]*\]\s*$/, "")
    .replace(/^(?:async|new)\s+/, "")
    .trim();
  const last = head.split(".").pop() ?? "";
  return /^#?[A-Za-z_$][\w$]*[?!]?$/.test(last) && last !== "<anonymous>" ? last : null;
}

/** `text` with the contents of its string literals blanked (lengths kept), so brackets inside strings do not count. */
function blankStrings(text: string): string {
  return text.replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`(?:[^`\\]|\\.)*`/g, (s) =>
    s.length <= 2 ? s : `${s[0]}${" ".repeat(s.length - 2)}${s[s.length - 1]}`,
  );
}

/**
 * The top-level arguments of the call whose `(` is at `open` in `code` (strings blanked; `original` is the same text
 * unblanked), or null when it does not close — unless `partial`: then the complete arguments before the end.
 */
function callArguments(code: string, original: string, open: number, partial = false): string[] | null {
  let depth = 0;
  let from = open + 1;
  const out: string[] = [];
  for (let i = open; i < code.length; i++) {
    const c = code[i] ?? "";
    if ("([{".includes(c)) depth++;
    else if (")]}".includes(c)) {
      depth--;
      if (depth === 0) {
        const last = original.slice(from, i).trim();
        if (last !== "" || out.length) out.push(last);
        return out;
      }
    } else if (c === "," && depth === 1) {
      out.push(original.slice(from, i).trim());
      from = i + 1;
    }
  }
  return partial ? out : null;
}

/**
 * The position of the parameter that arrived missing in the callee's signature `signature` (its definition line or
 * lines): the destructuring pattern holding `member` (`function f({ packageJson }, …)`), else the parameter named
 * `param`. Null when neither is found.
 */
export function missingParameterIndex(signature: string, member: string | null, param: string | null): number | null {
  const code = blankStrings(signature);
  const open = /(?:^|[^\w$])(?:def\s+\w+|function\s*\*?\s*[\w$]*|#?[\w$]+)\s*\(/.exec(code);
  if (!open) return null;
  const params = callArguments(code, signature, open.index + open[0].length - 1, true);
  if (!params) return null;
  const list = params.filter((p) => !/^(?:self|cls|this(?:\s*:.*)?)$/.test(p));
  if (member) {
    const i = list.findIndex((p) => /^\{/.test(p) && new RegExp(`[{,\\s]${escapeRe(member)}\\b`).test(p));
    if (i >= 0) return i;
  }
  if (param) {
    const i = list.findIndex((p) => new RegExp(`^(?:\\.\\.\\.)?${escapeRe(param)}\\s*(?:[?:=,]|$)`).test(p));
    if (i >= 0) return i;
  }
  return null;
}

/**
 * True when the call at `at` in `code` (strings blanked) may not run whenever the statement runs, or runs where its
 * argument's names are not yet bound, so a guard placed before the statement would throw on a path that works or read
 * a name that does not exist: a conditional before it (`?` of a ternary or of optional chaining, `&&`, `||`, `??`,
 * Python/Ruby `and`/`or`/`not`), a function or block it sits in (`=>`, `function`, `lambda`, Ruby `do`/`{ |x|`), or,
 * in Python and Ruby, a trailing condition or comprehension anywhere in the statement (`f(x) if ok`, `[f(x) for x in
 * xs]`, `f(x) unless done`).
 */
function mayNotRun(code: string, at: number, lang: CodeLanguage): boolean {
  const before = code.slice(0, at);
  if (/\?|&&|\|\||=>|\bfunction\b/.test(before)) return true;
  if (lang === "python" || lang === "ruby") {
    if (/\b(?:and|or|not|lambda|do)\b|\|/.test(before)) return true;
    if (/\b(?:if|unless|for|while|until|else)\b/.test(code)) return true;
  }
  return false;
}

/**
 * The argument the caller's `statement` passes to `callee` at position `index` (or the only argument when `index` is
 * null), when it can be checked without side effects: a chain of names (`operation.returns`, `self.config`) or a
 * lookup `m.get(k)` of a name chain `k` (JS/TS Map, Python dict); a TypeScript non-null assertion `!` is dropped. Null
 * when the call is not in the statement's code (a call inside an interpolation counts, one in string text or a comment
 * does not: {@link liveCode}), the argument is anything else (a call, a literal, a spread), or its root is
 * `this`/`self` alone. `readBefore`: the function's code above the statement (a prefix dereferenced there is not
 * checked again).
 */
export function relayedArgument(
  statement: string,
  callee: string,
  index: number | null,
  lang: CodeLanguage,
  readBefore = "",
): RelayedArgument | null {
  if (lang !== "javascript" && lang !== "typescript" && lang !== "python" && lang !== "ruby") return null;
  // a call inside an interpolation (`${resolve(x)}`, f"{resolve(x)}") is a call; one in string text is not
  const code = liveCode(statement, lang);
  const call = new RegExp(`(?<![\\w$])${escapeRe(callee)}\\s*\\(`).exec(code);
  if (!call) return null;
  if (mayNotRun(code, call.index, lang)) return null;
  const args = callArguments(code, statement, call.index + call[0].length - 1);
  if (!args?.length) return null;
  const at = index ?? (args.length === 1 ? 0 : null);
  if (at === null) return null;
  let expr = (args[at] ?? "").trim();
  if (lang === "typescript") expr = expr.replace(/!$/, "");
  if (/^(?:this|self|@)$/.test(expr) || /^(?:true|false|null|undefined|None|nil)$/.test(expr)) return null;
  const js = lang === "javascript" || lang === "typescript";
  const lookup = lang !== "ruby" ? new RegExp(`^(${CHAIN})\\.get\\(\\s*(${CHAIN})\\s*\\)$`).exec(expr) : null;
  if (lookup) {
    const none = js ? `${expr} == null` : `${expr} is None`;
    return { expr, callee, key: lookup[2] ?? null, condition: none };
  }
  if (!new RegExp(`^${CHAIN}$`).test(expr)) return null;
  const parts = expr.split(".");
  const head = /^(?:this|self)$/.test(parts[0] ?? "") ? `${parts.shift()}.${parts.shift()}` : (parts.shift() ?? "");
  // A prefix the function already dereferenced above (`operation.params` before passing `operation.returns`) is
  // there: only the rest of the chain is checked.
  const derefed = (x: string) => new RegExp(`(^|[^\\w$.])${escapeRe(x)}\\s*\\.[A-Za-z_$]`).test(readBefore);
  const prefixes = parts.reduce((acc, p) => [...acc, `${acc[acc.length - 1]}.${p}`], [head]);
  let chain = head;
  for (const [i, p] of parts.entries()) chain += `${derefed(prefixes[i] ?? "") ? "." : js ? "?." : "&."}${p}`;
  const condition = js
    ? `${chain} == null`
    : lang === "python"
      ? prefixes
          .filter((x, i) => i === prefixes.length - 1 || !derefed(x))
          .map((x) => `${x} is None`)
          .join(" or ")
      : `${chain}.nil?`;
  return { expr, callee, key: null, condition };
}
