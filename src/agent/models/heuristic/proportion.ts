/**
 * A clarifying addition in proportion to the problem (what a reader of the pull request sees):
 *
 * - a crash whose message names what was missing (JS `Cannot read properties of undefined (reading 'x')`, Python
 *   `'NoneType' object has no attribute 'x'` / `KeyError: 'x'` / `'NoneType' object is not subscriptable|iterable`,
 *   Java `NullPointerException … because "x" is null`, Go nil pointer dereference, Ruby `undefined method 'x' for
 *   nil`, C# `NullReferenceException`) → a GUARDED log on the receiver expression read off the frame line
 *   (`item.price` → `if (item == null) { … }`), so nothing is logged on the normal path;
 * - a declaration problem (a warning quoting a name the file declares, no crash) → comments only: the finding and
 *   the fix options (rename, or the option the warning itself names), no runtime change;
 * - otherwise → a log line at the problem's severity before the statement.
 *
 * Logged context is cheap only ({@link cheapContext}): ids by value, lengths, type names; never whole objects,
 * never request/response/secret-like names.
 */
import type { CodeLanguage, Enclosing } from "./code.js";
import type { ContextValue } from "./style.js";
import { goNilComparable } from "./guard-go.js";
import { liveCode } from "./live-code.js";

/** What a crash message says was missing. */
export interface Crash {
  /**
   * `member`: a property/attribute/method read on a missing value; `key`: a dict key; `index`/`iterate`: a None value
   * subscripted/iterated; `any`: a null dereference that names nothing.
   */
  access: "member" | "key" | "index" | "iterate" | "any";
  /** The property, attribute, method or key named by the message, or null. */
  name: string | null;
  /** The variable the message names as null (Java's helpful NullPointerException), or null. */
  receiver: string | null;
}

/**
 * The crash a message reports when it names (or implies) a missing value; null for any other message.
 * Sources: V8 TypeError texts, CPython AttributeError/KeyError/TypeError texts, JEP 358 helpful NullPointerException
 * messages (`Cannot invoke "T.m()" because "<local1>" is null`), Go runtime panics, Ruby NoMethodError, .NET NRE, and
 * analyzer findings that name a possibly missing value (`Property access on a possibly undefined value \`item\``).
 */
export function crashOf(message: string | null): Crash | null {
  if (!message) return null;
  let m: RegExpExecArray | null;
  if (
    (m = /Cannot (?:read|set) propert(?:y|ies) of (?:undefined|null) \((?:reading|setting) ['"]([^'"]+)['"]\)/.exec(
      message,
    ))
  )
    return { access: "member", name: m[1] ?? null, receiver: null };
  if ((m = /Cannot (?:read|set) property ['"]([^'"]+)['"] of (?:undefined|null)/.exec(message)))
    return { access: "member", name: m[1] ?? null, receiver: null };
  if ((m = /'NoneType' object has no attribute '(\w+)'/.exec(message)))
    return { access: "member", name: m[1] ?? null, receiver: null };
  if (/'NoneType' object is not subscriptable/.test(message)) return { access: "index", name: null, receiver: null };
  if (/'NoneType' object is not iterable/.test(message)) return { access: "iterate", name: null, receiver: null };
  if ((m = /^(?:\w+\.)*KeyError:\s*['"]([^'"]+)['"]\s*$/.exec(message)))
    return { access: "key", name: m[1] ?? null, receiver: null };
  if (/undefined method [`']\[\]=?' for (?:nil\b|an instance of NilClass)/.test(message))
    return { access: "index", name: null, receiver: null };
  if ((m = /undefined method [`']([\w]+[?!=]?)' for (?:nil\b|an instance of NilClass)/.exec(message)))
    return { access: "member", name: m[1] ?? null, receiver: null };
  if (/NullPointerException/.test(message)) {
    const receiver = /because "([A-Za-z_$][\w$.]*)" is null/.exec(message)?.[1] ?? null;
    const name =
      /Cannot invoke "(?:[\w$.]+\.)?([\w$]+)\(/.exec(message)?.[1] ??
      /Cannot (?:read|assign) field "([\w$]+)"/.exec(message)?.[1] ??
      null;
    return { access: name ? "member" : "any", name, receiver };
  }
  if (/nil pointer dereference/.test(message)) return { access: "any", name: null, receiver: null };
  // An analyzer's finding (code scanning) about a value that may be missing: "access on a possibly undefined value
  // `x`".
  const maybe =
    new RegExp(
      String.raw`\b(?:possibly|potentially|may be|might be|could be)\s+(?:an?\s+)?(?:undefined|null|nil|None)` +
        String.raw`(?:\s+value)?\s+` +
        "[`'\"]([A-Za-z_$][\\w$.]*)[`'\"]",
    ).exec(message) ??
    new RegExp(
      "[`'\"]([A-Za-z_$][\\w$.]*)[`'\"]" +
        String.raw`\s+(?:is|may be|might be|could be)\s+(?:possibly\s+)?(?:undefined|null|nil|None)\b`,
    ).exec(message);
  if (maybe?.[1]) return { access: "any", name: null, receiver: maybe[1] };
  if (/NullReferenceException/.test(message)) return { access: "any", name: null, receiver: null };
  return null;
}

const EXPR = String.raw`(?:this\.|self\.|@)?[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*`;
const esc = (s: string) => s.replace(/[.$?!=]/g, (c) => `\\${c}`);

/** The line's code: string text and comments blanked, interpolated code kept ({@link liveCode}). */
function codeOnly(line: string, lang: CodeLanguage): string {
  return liveCode(line, lang);
}

/** {@link codeOnly} of each line of `text` (a comment on one line hides nothing on the next). */
function codeLines(text: string, lang: CodeLanguage): string {
  return text
    .split("\n")
    .map((l) => codeOnly(l, lang))
    .join("\n");
}

/** True when `root` is bound by the statement itself (loop variable, declaration, lambda or block parameter). */
function boundIn(statement: string, root: string): boolean {
  const r = esc(root);
  return new RegExp(
    [
      // a declaration's names, up to `=` or a loop's `of`/`in` (`for (const x of list)` binds `x`, not `list`)
      String.raw`\b(?:const|let|var|val|auto)\s+(?:(?!\s(?:of|in)\s)[^=;])*\b${r}\b`,
      String.raw`\bfor\s*\(?\s*(?:[\w<>\[\],.?]+\s+)?(?:\w+\s*,\s*)?${r}\b`,
      String.raw`\b${r}\s*(?:,\s*\w+\s*)?:=`,
      String.raw`\(\s*(?:[\w$]+\s*,\s*)*${r}\s*(?:,[^)]*)?\)\s*=>`,
      String.raw`\b${r}\s*=>`,
      String.raw`\|[^|]*\b${r}\b[^|]*\|`,
      String.raw`\blambda\b[^:]*\b${r}\b`,
      String.raw`\bas\s+${r}\b`,
      String.raw`\bfunction\s*\w*\s*\([^)]*\b${r}\b`,
    ].join("|"),
  ).test(statement);
}

/**
 * A guard condition for `receiver` being missing, per language, safe on a dotted chain (`a.b.c`): JS/TS/C#/Kotlin
 * `a?.b?.c == null`, Ruby `a&.b&.c.nil?`, Java `a == null || a.b == null || …`, Python `a is None or a.b is None …`
 * (so the guard itself never dereferences a missing value). `key`: the dict key of a Python KeyError.
 */
function condition(lang: CodeLanguage, receiver: string, key: string | null, readBefore: string): string {
  const parts = receiver.split(".");
  const head =
    /^(?:this|self)$/.test(parts[0] ?? "") && parts.length > 1
      ? `${parts.shift()}.${parts.shift()}`
      : (parts.shift() ?? "");
  const all = parts.reduce((acc, p) => [...acc, `${acc[acc.length - 1]}.${p}`], [head]);
  // A prefix the function already dereferenced above (`startTag.name(…)` before `startTag.attributes.x`) is not
  // missing here: only the rest of the chain is checked.
  const derefed = (x: string) => new RegExp(`(^|[^\\w$.])${esc(x)}\\s*\\.[A-Za-z_$]`).test(readBefore);
  const prefixes = all.filter((x, i) => i === all.length - 1 || !derefed(x));
  switch (lang) {
    case "python":
      return key !== null
        ? `${JSON.stringify(key)} not in ${receiver}`
        : prefixes.map((x) => `${x} is None`).join(" or ");
    case "ruby":
      return `${[head, ...parts].join("&.")}.nil?`;
    case "go":
      return `${receiver} == nil`;
    case "java":
      return prefixes.map((x) => `${x} == null`).join(" || ");
    default:
      return `${[head, ...parts].join("?.")} == null`;
  }
}

/** The words a reader understands for a missing value in `lang`. */
export function nullWord(lang: CodeLanguage): string {
  return lang === "python"
    ? "None"
    : lang === "go" || lang === "ruby"
      ? "nil"
      : lang === "javascript" || lang === "typescript"
        ? "null or undefined"
        : "null";
}

/** A guard on the frame line's receiver: the condition, the receiver, and the log message's text. */
export interface Guard {
  receiver: string;
  condition: string;
  /** e.g. `item is null or undefined before reading 'price'`. */
  message: string;
  /** What the condition tests, for a summary: "`item` is missing", or "`user` has no key `'email'`" (a KeyError). */
  absent: string;
}

/**
 * The guard for a crash, read off the statement lines (`statement` joined, `frameLine` the line that crashed):
 * the receiver expression of the missing member (`order.items.total` → `order.items`), a Python dict before
 * `['key']`, the iterable of a `for … in x`, or the first dereferenced local (Go/C#/Java without a name). Null when
 * no receiver can be read safely: a call result, a name bound by the statement itself, a name never seen earlier in
 * the function, or (Go) a receiver the code does not show can be nil (comparing a non-pointer with nil does not
 * compile; see `goNilComparable`).
 *
 * @param earlier the function's lines above the statement (signature included), to check the receiver is in scope
 * @param signature the enclosing function's definition line, or null at module level
 * @param imports the names the file imports (a package qualifier is no receiver)
 * @param column the 1-based column the frame printed for `frameLine`, when it applies to this line
 */
export function guardFor(
  crash: Crash,
  lang: CodeLanguage,
  frameLine: string,
  statement: string,
  earlier: string,
  enc: Enclosing | null,
  signature: string | null,
  imports: readonly string[],
  column?: number,
): Guard | null {
  const code = codeOnly(frameLine, lang);
  const lead = String.raw`(?<![\w$.)\]])`;
  let receiver: string | null = null;
  let key: string | null = null;
  if (
    crash.receiver &&
    !crash.receiver.startsWith("<") &&
    new RegExp(`(^|[^\\w$.])${esc(crash.receiver)}\\s*\\.`).test(code)
  )
    receiver = crash.receiver;
  else if (crash.access === "member" && crash.name) {
    const n = esc(crash.name);
    // Several reads of the member on one line (`args.length > command.args.length`): the one the frame's column
    // points at (V8 prints the column of the property read), else the first.
    const reads = [...code.matchAll(new RegExp(`${lead}(${EXPR})\\s*(?:&?\\.|\\?\\.)(${n})(?![\\w$])`, "g"))];
    const at = (m: RegExpExecArray) => (m.index ?? 0) + m[0].length - (m[2]?.length ?? 0) + 1;
    const dotted =
      column !== undefined && reads.length > 1
        ? [...reads].sort((x, y) => Math.abs(at(x) - column) - Math.abs(at(y) - column))[0]
        : reads[0];
    receiver = dotted?.[1] ?? new RegExp(`${lead}(${EXPR})\\[['"]${n}['"]\\]`).exec(frameLine)?.[1] ?? null;
  } else if (crash.access === "key" && crash.name) {
    const m = new RegExp(`${lead}(${EXPR})\\[\\s*['"]${esc(crash.name)}['"]\\s*\\]`).exec(frameLine);
    receiver = m?.[1] ?? null;
    key = crash.name;
  } else if (crash.access === "index") {
    receiver = new RegExp(`${lead}(${EXPR})\\s*\\[`).exec(code)?.[1] ?? null;
  } else if (crash.access === "iterate") {
    receiver = new RegExp(`\\bin\\s+(${EXPR})\\s*:?\\s*$`).exec(code.trimEnd())?.[1] ?? null;
  } else if (crash.access === "any" || crash.access === "member") {
    for (const m of code.matchAll(new RegExp(`${lead}(${EXPR})\\.[A-Za-z_]\\w*`, "g"))) {
      const candidate = m[1] ?? "";
      const root = candidate.replace(/^(?:this|self)\./, "").split(".")[0] ?? "";
      if (/^[A-Z]/.test(root) || imports.includes(root) || root === "fmt" || root === "os") continue;
      // the part before the last member: `s.db.Query` → `s.db`
      receiver = candidate;
      break;
    }
  }
  if (!receiver || receiver === "this" || receiver === "self") return null;
  const root = receiver.replace(/^(?:this\.|self\.|@)/, "").split(".")[0] ?? "";
  const instance = /^(?:this\.|self\.|@)/.test(receiver);
  if (!instance && boundIn(codeOnly(statement, lang), root)) return null;
  // In scope: seen earlier in the function (Ruby: a bare name may also be a method, always callable).
  if (!instance && lang !== "ruby" && !new RegExp(`(^|[^\\w$.])${esc(root)}([^\\w$]|$)`).test(codeLines(earlier, lang)))
    return null;
  if (instance && !enc?.instance && lang !== "ruby") return null;
  if (lang === "go" && (!signature || !goNilComparable(receiver, code, codeLines(earlier, lang), imports))) return null;
  const what = crash.access === "key" ? `has no key '${key}'` : `is ${nullWord(lang)}`;
  const use =
    crash.access === "member" && crash.name
      ? ` before ${lang === "java" || lang === "ruby" || lang === "csharp" ? "calling" : "reading"} '${crash.name}'`
      : crash.access === "iterate"
        ? " before the loop"
        : crash.access === "index" && lang === "ruby"
          ? " before calling '[]'"
          : "";
  return {
    receiver,
    condition: condition(lang, receiver, key, codeLines(earlier, lang)),
    message: `${receiver} ${what}${use}`,
    absent: crash.access === "key" ? `\`${receiver}\` has no key \`'${key}'\`` : `\`${receiver}\` is missing`,
  };
}

/** Names whose values are never put in a message: secrets, requests/responses, contexts, callbacks. */
export const SECRET_LIKE = new RegExp(
  String.raw`pass(?:word|wd)?|token|secret|cred|auth|cookie|session|api_?key|private|` +
    String.raw`^req$|^res$|request|response|^ctx$|context|^next$|^cb$|callback|^done$|^w$|^r$`,
  "i",
);
const ID_LIKE = /^(?:id|uuid|[a-z][\w]*(?:Id|ID|_id|Uuid|_uuid))$/;
const PLURAL = /^[a-z][\w]*(?:[^s]s|List|_list|Ids|_ids|Items|items)$/;

/**
 * Cheap context for a parameter `name` in `lang`: an id by value; a plural collection by length (JS `x?.length`,
 * Ruby `x&.size`); anything else by type name (JS `typeof x`, Python `type(x).__name__`, Go `%T`, Ruby `x.class`).
 * Java/Kotlin/C# log ids only (a type name there needs a null check and the type). Null for request/response,
 * context, callback and secret-like names.
 */
export function cheapContext(name: string, lang: CodeLanguage): ContextValue | null {
  if (SECRET_LIKE.test(name)) return null;
  const id = ID_LIKE.test(name);
  switch (lang) {
    case "javascript":
    case "typescript":
      if (id) return { label: name, expr: name };
      return PLURAL.test(name)
        ? { label: `${name}Length`, expr: `${name}?.length` }
        : { label: `${name}Type`, expr: `typeof ${name}` };
    case "python":
      return id ? { label: name, expr: name } : { label: `type(${name})`, expr: `type(${name}).__name__`, type: true };
    case "go":
      return id ? { label: name, expr: name } : { label: `type(${name})`, expr: name, type: true };
    case "ruby":
      if (id) return { label: name, expr: `${name}.inspect` };
      return PLURAL.test(name)
        ? { label: `${name}.size`, expr: `${name}&.size.inspect` }
        : { label: `${name}.class`, expr: `${name}.class` };
    default:
      return id ? { label: name, expr: name } : null;
  }
}

/**
 * Cheap context for the parameters of `enc` (ids first, each group those used on the statement first), `exclude`d names
 * left out, at most 3.
 */
export function contextValues(
  enc: Enclosing | null,
  statement: string,
  lang: CodeLanguage,
  exclude: readonly string[] = [],
): ContextValue[] {
  if (!enc || enc.kind !== "function") return [];
  const params = enc.params.filter((p) => !exclude.includes(p));
  const used = params.filter((p) => new RegExp(`(^|[^\\w$.])${esc(p)}([^\\w$]|$)`).test(statement));
  const rest = params.filter((p) => !used.includes(p));
  // Ids first (where the value came from), used on the statement before the rest.
  const ordered = [
    ...used.filter((p) => ID_LIKE.test(p)),
    ...rest.filter((p) => ID_LIKE.test(p)),
    ...used.filter((p) => !ID_LIKE.test(p)),
    ...rest.filter((p) => !ID_LIKE.test(p)),
  ];
  return ordered
    .map((p) => cheapContext(p, lang))
    .filter((v): v is ContextValue => v !== null)
    .slice(0, 3);
}

/**
 * The fix options of a declaration warning, for a comment: "rename `<id>` (and its uses)" plus the library's own
 * option when the warning names one ("pass `suppressReservedKeysWarning` as a schema option"). Problem text: quoted
 * only, inside a comment.
 */
export function fixOptions(id: string, message: string | null): string {
  const option = message
    ? new RegExp(
        String.raw`\b((?:pass|set|use|enable|add)\s+` +
          "[`'\"][\\w.$-]+[`'\"]" +
          String.raw`(?:\s+(?:as|in|to|on)\s+(?:an?\s+|the\s+)?[\w -]{0,40}?\b` +
          String.raw`(?:option|setting|flag|config(?:uration)?))?)`,
        "i",
      ).exec(message)?.[1]
    : undefined;
  const quoted = option && !option.includes(id) ? option.replace(/\s+/g, " ") : null;
  return quoted
    ? `Fix options: rename \`${id}\` (and its uses), or ${quoted.charAt(0).toLowerCase()}${quoted.slice(1)}`
    : `Fix: rename \`${id}\` here and where it is used`;
}

/**
 * What an error about a value of the wrong kind says (not a missing one): CPython's `'T' object has no attribute
 * 'x'` and `'T' object is not iterable` for a `T` other than NoneType, V8's `a.b is not a function` and V8's/Firefox's
 * `x is not iterable`. Groundfix
 * finds no cause for these; the addition it can ground is a clearer error at the place it is raised.
 */
export interface Mismatch {
  /**
   * `attribute`: `name` is missing on the value; `iterable`: the value cannot be iterated; `function`: `name` is not
   * callable.
   */
  kind: "attribute" | "iterable" | "function";
  /** The attribute or member, or null for `iterable`. */
  name: string | null;
  /** The type the runtime printed (`Request`, `int`), or null. */
  type: string | null;
  /**
   * For `function`: the expression the message printed before `.name` (`this`, `epilog`); for a JS `iterable`: the
   * expression printed (`cart.items`), null when the runtime printed a value (`undefined`, `object null`); else null.
   */
  receiver: string | null;
}

/**
 * V8's and Firefox's `TypeError: X is not iterable`, X the expression iterated (`list`, `cart.items`, `this.rows`) or
 * the value a builtin got (`undefined`, `object null`, `number 5`), with V8's optional parenthesis. A computed or
 * called expression (`o[k]`, `f(...)`) and `f is not a function or its return value is not iterable` do not match.
 */
const JS_NOT_ITERABLE = new RegExp(
  String.raw`TypeError:\s*((?:this|[A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)*|` +
    String.raw`(?:object|number|string|boolean|bigint|symbol|function) [^\s()]+|object)` +
    String.raw` is not iterable(?:\s*(\(cannot read property [^\n]*\)))?\s*$`,
  "m",
);

/** The words `typeof` (and V8's `object null`) gives a value: what a builtin's `… is not iterable` prints. */
const JS_TYPES = /^(?:undefined|null|object|number|string|boolean|bigint|symbol|function)$/;

/** The {@link Mismatch} a message reports, or null (a missing value is {@link crashOf}'s). */
export function mismatchOf(message: string | null): Mismatch | null {
  if (!message) return null;
  let m: RegExpExecArray | null;
  if ((m = /'(\w+)' object has no attribute '(\w+)'/.exec(message)) && m[1] !== "NoneType")
    return { kind: "attribute", name: m[2] ?? null, type: m[1] ?? null, receiver: null };
  if ((m = /'(\w+)' object is not iterable/.exec(message)) && m[1] !== "NoneType")
    return { kind: "iterable", name: null, type: m[1] ?? null, receiver: null };
  if ((m = JS_NOT_ITERABLE.exec(message))) {
    // V8 prints the expression (`cart.items`, `this.rows`) where the syntax iterates it, and the value where a
    // builtin does (`undefined`, `object null`, `number 5` … `(cannot read property Symbol(Symbol.iterator))`).
    const printed = m[1] ?? "";
    const value =
      /^(?:undefined|null)$/.test(printed) || printed.includes(" ") || /Symbol\(Symbol\.iterator\)/.test(m[2] ?? "");
    const type = value ? (/^(?:object )?null\b/.test(printed) ? "null" : (printed.split(" ")[0] ?? null)) : null;
    return { kind: "iterable", name: null, type, receiver: value ? null : printed };
  }
  if (
    (m = /TypeError:\s*((?:this|[A-Za-z_$][\w$]*)(?:\.[A-Za-z_$][\w$]*)*)\.([A-Za-z_$][\w$]*) is not a function/.exec(
      message,
    ))
  )
    return { kind: "function", name: m[2] ?? null, type: null, receiver: m[1] ?? null };
  return null;
}

/**
 * The expressions a JavaScript/TypeScript line of code iterates, where V8 throws `… is not iterable`: `for (… of x)`,
 * an array or argument spread `[...x]` / `f(...x)` (not an object spread `{ ...x }`, which never throws it), an array
 * destructuring `[a, b] = x`, `yield* x`, and the iterable argument of `Array.from`, `new Map`/`Set`/`WeakMap`/
 * `WeakSet`, `Object.fromEntries` and `Promise.all`/`allSettled`/`race`/`any`. In line order; `code` is
 * {@link codeOnly}'s (strings blanked).
 */
function jsIterated(code: string): string[] {
  const end = String.raw`(?![\w$.(\[])`;
  const out: [number, string][] = [];
  const add = (re: RegExp, keep: (m: RegExpExecArray) => boolean = () => true) => {
    for (const m of code.matchAll(re)) if (m[1] && keep(m)) out.push([m.index ?? 0, m[1]]);
  };
  add(new RegExp(String.raw`\bof\s+(${EXPR})\s*\)`, "g"));
  add(new RegExp(String.raw`\byield\s*\*\s*(${EXPR})${end}`, "g"));
  add(
    new RegExp(String.raw`\]\s*=\s*(${EXPR})\s*(?:[;,)]|$)`, "g"),
    (m) => !/[\w$)\]]\[[^\]]*$/.test(code.slice(0, m.index ?? 0)),
  );
  add(
    new RegExp(
      String.raw`(?:\bArray\.from|\bnew\s+(?:Weak)?(?:Map|Set)|\bObject\.fromEntries|` +
        String.raw`\bPromise\.(?:all|allSettled|race|any))\s*\(\s*(${EXPR})\s*[,)]`,
      "g",
    ),
  );
  // A spread inside `[`/`(` iterates; inside `{` it copies properties.
  add(new RegExp(String.raw`\.\.\.\s*(${EXPR})${end}`, "g"), (m) => innermostOpen(code, m.index ?? 0) !== "{");
  return out.sort((a, b) => a[0] - b[0]).map(([, x]) => x);
}

/** The innermost bracket open before `at` in `code` (`(`, `[` or `{`), or null at the top. */
function innermostOpen(code: string, at: number): string | null {
  const stack: string[] = [];
  for (const c of code.slice(0, at)) {
    if (c === "(" || c === "[" || c === "{") stack.push(c);
    else if (c === ")" || c === "]" || c === "}") stack.pop();
  }
  return stack[stack.length - 1] ?? null;
}

/**
 * The clearer-error guard for a {@link Mismatch} on the frame line (Python and JavaScript/TypeScript only):
 * Python `not hasattr(x, "name")` before reading `x.name`, `not hasattr(x, "__iter__")` before iterating `x`
 * (`for … in x`, `list(x)`/`tuple(x)`/`set(x)`/`sorted(x)`, `*x`); JS `typeof x.name !== "function"` before calling
 * it, and `typeof x?.[Symbol.iterator] !== "function"` before iterating the `x` the message names (or, when it names a
 * value, the one value the line iterates; see {@link jsIterated}). The receiver must be in scope as for
 * {@link guardFor} (seen earlier in the function, not bound by the statement). Null when no such receiver is on the
 * line.
 */
export function clearerGuard(
  mismatch: Mismatch,
  lang: CodeLanguage,
  frameLine: string,
  statement: string,
  earlier: string,
  enc: Enclosing | null,
): Guard | null {
  const code = codeOnly(frameLine, lang);
  const lead = String.raw`(?<![\w$.)\]])`;
  const js = lang === "javascript" || lang === "typescript";
  let receiver: string | null = null;
  if (mismatch.kind === "attribute" && lang === "python" && mismatch.name)
    receiver = new RegExp(`${lead}(${EXPR})\\.${esc(mismatch.name)}(?![\\w$])`).exec(code)?.[1] ?? null;
  else if (mismatch.kind === "iterable" && lang === "python")
    receiver =
      new RegExp(`\\bin\\s+(${EXPR})\\s*:?\\s*$`).exec(code.trimEnd())?.[1] ??
      new RegExp(
        `\\b(?:list|tuple|set|sorted|iter|enumerate|zip|izip_longest|zip_longest)\\(\\s*\\*?(${EXPR})\\s*[,)]`,
      ).exec(code)?.[1] ??
      new RegExp(`[(,]\\s*\\*(${EXPR})\\s*[,)]`).exec(code)?.[1] ??
      null;
  else if (mismatch.kind === "iterable" && js && (mismatch.receiver || JS_TYPES.test(mismatch.type ?? ""))) {
    // The one value the message names, where the line iterates it; a builtin's unnamed value: the one value iterated.
    const iterated = [...new Set(jsIterated(code))];
    receiver = mismatch.receiver
      ? (iterated.find((x) => x === mismatch.receiver) ?? null)
      : iterated.length === 1
        ? (iterated[0] ?? null)
        : null;
  } else if (mismatch.kind === "function" && js && mismatch.name && mismatch.receiver) {
    const call = new RegExp(`${lead}(${esc(mismatch.receiver)})\\.${esc(mismatch.name)}\\s*\\(`).exec(code);
    receiver = call?.[1] ?? null;
  }
  if (!receiver) return null;
  const root = receiver.replace(/^(?:this\.|self\.)/, "").split(".")[0] ?? "";
  const instance = /^(?:this|self)(?:\.|$)/.test(receiver);
  if (instance ? !enc?.instance : boundIn(codeOnly(statement, lang), root)) return null;
  if (!instance && !new RegExp(`(^|[^\\w$.])${esc(root)}([^\\w$]|$)`).test(codeLines(earlier, lang))) return null;
  if (mismatch.kind === "function") {
    const member = `${receiver}.${mismatch.name}`;
    return {
      receiver,
      condition:
        `typeof ${receiver === "this" ? "this" : receiver.split(".").join("?.")}` + `?.${mismatch.name} !== "function"`,
      message: `${member} is not a function: ${receiver} is not the object this code expects`,
      absent: `\`${member}\` is not a function`,
    };
  }
  if (mismatch.kind === "attribute")
    return {
      receiver,
      condition: `not hasattr(${receiver}, ${JSON.stringify(mismatch.name)})`,
      message: `${receiver} has no attribute '${mismatch.name}': it is not the object this code expects`,
      absent: `\`${receiver}\` has no attribute \`'${mismatch.name}'\``,
    };
  return {
    receiver,
    condition: js
      ? `typeof ${receiver === "this" ? "this" : receiver.split(".").join("?.")}?.[Symbol.iterator] !== "function"`
      : `not hasattr(${receiver}, "__iter__")`,
    message: `${receiver} must be iterable`,
    absent: `\`${receiver}\` is not iterable`,
  };
}
