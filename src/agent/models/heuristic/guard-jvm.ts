/**
 * Java, Kotlin and C# specifics of the heuristic's addition (line-based, like `code.ts`):
 *
 * - a report that names a member (`Ns.Reader.FieldCount`) without a frame line: the first statement of that method
 *   or property is where the guard goes ({@link namedMemberLine}); the file's fields are in scope there;
 * - Kotlin's `UninitializedPropertyAccessException: lateinit property x has not been initialized` names a property
 *   of the file; the addition goes before the first statement of a function that reads it (`x` bare, not assigned,
 *   not `other.x`), and checks `::x.isInitialized` there: a function returning `Unit` returns early (nothing to
 *   compute yet), any other fails with `IllegalStateException` naming the property (Kotlin's
 *   `Any.isInitialized` on a property reference: kotlinlang.org, "Checking whether a lateinit var is initialized").
 */
import { enclosingDefinition, splitParams } from "./code.js";
import { liveCode } from "./live-code.js";
import { buildAddition, type FittedText } from "./style.js";
import { extractSymbols } from "../../../grounding/symbols.js";

const esc = (s: string) => s.replace(/[.$]/g, (c) => `\\${c}`);

/** The property a Kotlin lateinit error names (`lateinit property rectF has not been initialized` → `rectF`); null. */
export function lateinitProperty(message: string | null): string | null {
  const m = /lateinit property ([A-Za-z_]\w*) has not been initialized/.exec(message ?? "");
  return m?.[1] ?? null;
}

/**
 * The first line (in file order) of a function of the window that reads the lateinit property `name` the window
 * declares (`lateinit var name`): a bare read, not an assignment (`name = …`), not a property reference (`::name`),
 * not a member of another object (`o.name`), outside comments and string text (a string template's `"$name"` or
 * `"${name}"` reads it: {@link liveCode}). Null when the window declares no such
 * property or no function reads it.
 */
export function lateinitRead(lines: ReadonlyMap<number, string>, name: string): number | null {
  const n = esc(name);
  const declares = [...lines.values()].some((t) => new RegExp(`\\blateinit\\s+var\\s+${n}\\b`).test(t));
  if (!declares) return null;
  const read = new RegExp(`(?<![\\w.:$])${n}(?![\\w$])(?!\\s*=[^=])`);
  for (const [line, text] of [...lines.entries()].sort((a, b) => a[0] - b[0])) {
    const code = liveCode(text, "kotlin");
    if (/^\s*(?:\*|\/\*)/.test(text) || /\blateinit\b/.test(code) || !read.test(code)) continue;
    if (enclosingDefinition(lines, line, "kotlin")?.kind === "function") return line;
  }
  return null;
}

/** True when a Kotlin function's definition line declares no result (or `Unit`) and opens a block body. */
export function kotlinReturnsUnit(signature: string): boolean {
  const code = signature.replace(/\/\/.*$/, "").trim();
  if (!/\{$/.test(code) || !/\bfun\b/.test(code)) return false;
  const afterParams = code
    .slice(code.lastIndexOf(")") + 1)
    .replace(/\{$/, "")
    .trim();
  return afterParams === "" || /^:\s*Unit$/.test(afterParams);
}

/** The guard condition that is true when the lateinit property `name` was not set yet (Kotlin). */
export function lateinitCondition(name: string): string {
  return `!::${name}.isInitialized`;
}

/**
 * The lines of the lateinit guard before a read of `name` in a Kotlin function: the `groundfix:` comment `note`,
 * then `if (!::name.isInitialized) {` with `return` (a function returning `Unit`) or `throw IllegalStateException(…)`
 * naming the property, the function (`where`) and what to do. `unit` is the file's indentation step.
 */
export function lateinitGuardLines(
  name: string,
  signature: string,
  indent: string,
  unit: string,
  where: string,
  note: FittedText,
): { lines: string[]; returns: boolean } {
  const returns = kotlinReturnsUnit(signature);
  const lines = buildAddition({
    lang: "kotlin",
    indent,
    style: { receiver: "", method: "", form: "args" },
    note,
    shape: {
      kind: "guard",
      open: [`if (${lateinitCondition(name)}) {`],
      close: ["}"],
      inner: unit,
      exit: returns ? { kind: "return", value: "" } : { kind: "throw", parameter: false },
    },
    message: { head: where, text: `${name} is not initialized yet; set it before this is called`, tail: "" },
    values: [],
  });
  return { lines, returns };
}

/**
 * Java/C#: the member a report names by a qualified identifier (`Ns.Reader.FieldCount`, the runtime's `get_X`
 * already read as `X`) when the lines read define it as a method or property (`grounding/symbols.ts`, over the
 * lines read with the others blank), and the first statement of its body: where to look when no frame gives a line.
 * Null when no identifier names a member read whole, or its body holds no statement.
 */
export function namedMemberLine(
  path: string,
  lines: ReadonlyMap<number, string>,
  identifiers: readonly string[],
): { name: string; line: number } | null {
  const last = Math.max(0, ...lines.keys());
  const text = Array.from({ length: last }, (_, i) => lines.get(i + 1) ?? "");
  const read = (from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => from + i).every((n) => lines.has(n));
  const symbols = extractSymbols(path, text.join("\n")).filter(
    (s) => s.kind === "method" && s.endLine !== undefined && read(s.line, s.endLine),
  );
  for (const id of identifiers) {
    const parts = id.split(".");
    const name = parts[parts.length - 1] ?? "";
    const owner = parts.length > 1 ? parts[parts.length - 2] : undefined;
    const def = symbols.find((s) => s.name === name && (owner === undefined || s.container === owner));
    if (!def) continue;
    for (let n = def.line + 1; n <= (def.endLine ?? def.line); n++) {
      const t = (text[n - 1] ?? "").trim();
      if (t === "" || /^(?:[{}]|get|set|init|\/\/.*|\/\*.*|\*.*|\[.*\])$/.test(t)) continue;
      if (/^(?:get|set)\s*\{?$/.test(t)) continue;
      return { name, line: n };
    }
  }
  return null;
}

/**
 * The field declarations of a Java/C# window (`private readonly CsvReader csv;`, `static int count = 0;`:
 * modifiers, a type, a name, then `;` or `=`) indented no deeper than `memberIndent` (the enclosing method's
 * definition line, so locals of other methods are left out): a method reads them without `this.`, so they are in
 * scope.
 */
export function fieldLines(lines: ReadonlyMap<number, string>, memberIndent: string): string[] {
  const field = new RegExp(
    String.raw`^\s*(?:(?:private|protected|public|internal|readonly|static|final|volatile|transient)\s+)+` +
      String.raw`[\w<>[\],.?]+\s+[A-Za-z_]\w*\s*(?:;|=[^=>])`,
  );
  const depth = (t: string) => (/^[ \t]*/.exec(t)?.[0] ?? "").replace(/\t/g, "    ").length;
  const max = depth(memberIndent);
  return [...lines.values()].filter((t) => field.test(t) && depth(t) <= max);
}

/**
 * A C# property (or indexer) whose accessors follow as a block: `public int FieldCount`, `protected override string
 * Name {`, `public object this[int i]` — at least one modifier, a type, a name, no `;` and no parameter list. Its
 * accessors' statements belong to it, as a method's do. Null for anything else.
 */
export function csharpPropertyOn(line: string): string | null {
  const code = line.replace(/\/\/.*$/, "").trimEnd();
  const m = new RegExp(
    String.raw`^\s*(?:(?:public|private|protected|internal|static|override|virtual|abstract|sealed|new|extern|unsafe)` +
      String.raw`\s+)+` +
      String.raw`[\w<>[\],.?]+\s+(?:[\w.]+\.)?(\w+|this\s*\[[^\]]*\])\s*\{?$`,
  ).exec(code);
  if (!m?.[1] || /^(?:class|struct|interface|enum|record|namespace|event|delegate|operator)$/.test(m[1])) return null;
  return m[1].startsWith("this") ? "this" : m[1];
}

/** A report asking for argument checks (see {@link asksForNullChecks}). */
const NULL_CHECK_REQUEST = new RegExp(
  "\\bnull`?[- ]checks?\\b|\\bcheck(?:s|ing)?\\b[^.\\n]{0,60}\\bfor `?null\\b|" +
    "ArgumentNullException|requireNonNull",
  "i",
);

/**
 * True when a report asks for argument checks: "doesn't perform `null` checks", "check … for null", "an
 * `ArgumentNullException` … should be thrown", `requireNonNull`.
 */
export function asksForNullChecks(text: string): boolean {
  return NULL_CHECK_REQUEST.test(text);
}

/**
 * The constructor of `className` in the lines read (`public CsvParser(TextReader reader, Config configuration)`,
 * the parameter list on one line) and the parameters the report names, by name or by type, that its body does not
 * check yet: the first statement line of the body, and `[type, name]` pairs. Null when there is none.
 */
export function requestedChecks(
  lines: ReadonlyMap<number, string>,
  className: string,
  named: (word: string) => boolean,
): { line: number; params: string[] } | null {
  const sorted = [...lines.entries()].sort((a, b) => a[0] - b[0]);
  const ctor = new RegExp(
    `^\\s*(?:(?:public|internal|protected|private)\\s+)?${esc(className)}\\s*\\(([^()]*)\\)\\s*(?:\\{)?\\s*$`,
  );
  for (const [n, text] of sorted) {
    const m = ctor.exec(text);
    if (!m) continue;
    let body = n + 1;
    while (lines.has(body) && /^\s*(?:\{|\/\/.*)?\s*$/.test(lines.get(body) ?? "")) body++;
    if (!lines.has(body)) return null;
    const bodyText: string[] = [];
    for (let k = body, depth = 1; lines.has(k) && depth > 0 && k < body + 200; k++) {
      const t = lines.get(k) ?? "";
      bodyText.push(t);
      depth += (t.match(/\{/g) ?? []).length - (t.match(/\}/g) ?? []).length;
    }
    const checked = (name: string) =>
      new RegExp(`\\b${name}\\s*(?:==|is|!=)\\s*null\\b|nameof\\(${name}\\)|requireNonNull\\(${name}\\b`).test(
        bodyText.join("\n"),
      );
    const params = splitParams(m[1] ?? "")
      .map((p) => /^(?:final\s+)?([\w.<>[\]?]+)\s+([A-Za-z_]\w*)$/.exec(p.trim()))
      .filter((p): p is RegExpExecArray => p !== null)
      .filter((p) => !/^(?:int|long|short|byte|bool|boolean|char|double|float|decimal)$/.test(p[1] ?? ""))
      .filter((p) => (named(p[1] ?? "") || named(p[2] ?? "")) && !checked(p[2] ?? ""))
      .map((p) => p[2] ?? "");
    return params.length ? { line: body, params } : null;
  }
  return null;
}

/**
 * Lines of a file the heuristic knows: `whole` when every line is there; else at least every line that names the
 * parameters asked about (the window read, plus a complete `grep_codebase` of their names: {@link checksQuery}).
 */
export interface KnownFile {
  lines: ReadonlyMap<number, string>;
  whole: boolean;
}

/**
 * The `grep_codebase` arguments that find every line of `path` naming one of `params` (whole words, case-sensitive,
 * the tool's most hits), for {@link nullAlreadyFails} when the file was not read whole.
 */
export function checksQuery(path: string, params: readonly string[]): Record<string, unknown> {
  return {
    pattern: `\\b(?:${params.join("|")})\\b`,
    regex: true,
    path_glob: path,
    case_sensitive: true,
    max_results: 500,
  };
}

/**
 * True when a null `param` of the constructor whose body starts at line `body` already fails in this file, so a check
 * that throws on null changes only which exception is thrown, and where (what a maintainer merges as it is): the
 * constructor's body dereferences the parameter (`param.Validate()`, `param[0]`), or assigns it to a field
 * (`this.param = param;`, or — the file read whole — `f = param;`) that some line of the file dereferences
 * (`reader.ReadLine()`, `this.reader.Read()`) — read in the code only ({@link liveCode}: a call in a comment or a
 * string is none) — and no line known, comments included, tests the parameter or that field for null (`== null`,
 * `!= null`, `is null`, `is not null`, `?.`, `??`, `?[`, `requireNonNull`, `Objects.isNull`): a value the code
 * handles when null is no crash to make clearer. Disposal is not such a test (`x?.Dispose()`, `if (x != null)
 * x.close();`): cleanup tolerates null whatever the constructor allows, since it also runs after a constructor that
 * threw. False when a line of the constructor's body is not known.
 *
 * Rule: a reported NullReferenceException/NullPointerException with a request for argument checks
 * (test/agent/heuristic/null-checks.test.ts).
 */
export function nullAlreadyFails(file: KnownFile, body: number, param: string, lang: "java" | "csharp"): boolean {
  const max = Math.max(0, ...file.lines.keys());
  const text = Array.from({ length: max }, (_, i) => file.lines.get(i + 1) ?? "");
  const code = liveCode(text.join("\n"), lang).split("\n");
  // The body's lines, 0-based [body - 1, last]: up to the `}` closing the body's block.
  let last = -1;
  for (let k = body - 1, depth = 1; k < code.length && k < body + 200; k++) {
    if (!file.lines.has(k + 1)) return false;
    const t = code[k] ?? "";
    depth += (t.match(/\{/g) ?? []).length - (t.match(/\}/g) ?? []).length;
    if (depth <= 0) {
      last = k;
      break;
    }
  }
  if (last < 0) return false;
  const inBody = (k: number) => k >= body - 1 && k <= last;
  const derefs = (name: string, where: (k: number) => boolean) => {
    const re = new RegExp(`(?<![\\w$.])(?:this\\.)?${esc(name)}\\s*(?:\\.\\s*[A-Za-z_]|\\[)`);
    return code.some((t, k) => where(k) && re.test(t));
  };
  const n = (name: string) => `(?:this\\.)?${esc(name)}`;
  const disposal = (name: string) =>
    new RegExp(
      `${n(name)}\\s*\\?\\.\\s*(?:Dispose|DisposeAsync|Close|close)\\s*\\(|` +
        `${n(name)}\\s*!=\\s*null\\s*\\)\\s*\\{?\\s*${n(name)}\\s*\\.\\s*(?:Dispose|DisposeAsync|Close|close)\\s*\\(`,
      "g",
    );
  const tested = (name: string) =>
    new RegExp(
      `(?<![\\w$.])${n(name)}\\s*(?:[=!]=\\s*null\\b|is\\s+(?:not\\s+)?null\\b|\\?\\.|\\?\\?|\\?\\[)|` +
        `\\bnull\\s*[=!]=\\s*${n(name)}(?![\\w$])|` +
        `\\b(?:requireNonNull\\w*|isNull|nonNull)\\(\\s*${n(name)}(?![\\w$])`,
    ).test(text.join("\n").replace(disposal(name), " "));
  if (tested(param)) return false;
  // Dereferenced in the body (there `param` is the parameter, also when a field has its name).
  if (derefs(param, inBody)) return true;
  // Assigned in the body to a field: `this.x = x` (the field of the parameter's name, read outside the body), or a
  // field of another name (`_reader = reader;`, read anywhere; only in a file read whole: its lines name no `param`).
  const p = esc(param);
  if (code.some((t, k) => inBody(k) && new RegExp(`(?<![\\w$.])this\\.${p}\\s*=\\s*${p}\\s*;`).test(t)))
    return derefs(param, (k) => !inBody(k));
  if (!file.whole) return false;
  const fields = code
    .filter((t, k) => inBody(k))
    .map((t) => new RegExp(`(?<![\\w$.])(?:this\\.)?([A-Za-z_]\\w*)\\s*=\\s*${p}\\s*;`).exec(t)?.[1])
    .filter((f): f is string => f !== undefined && f !== param);
  return fields.some((f) => !tested(f) && derefs(f, () => true));
}

/**
 * The checks at the start of a constructor for `params`, in the file's conventions: C# `if (x is null)` (or
 * `== null` when the file never writes `is null`) with `throw new ArgumentNullException(nameof(x));`, braces on their
 * own lines when the file does so; Java `if (x == null) { throw new IllegalArgumentException("x must not be
 * null"); }`. `indent` is the statement's, `unit` the file's indentation step.
 */
export function nullCheckLines(
  lang: "java" | "csharp",
  params: readonly string[],
  content: string,
  indent: string,
  unit: string,
): string[] {
  const out: string[] = [];
  const allman = lang === "csharp" && /^\s*\{\s*$/m.test(content);
  const isNull = lang === "csharp" && /\bis null\b/.test(content);
  for (const p of params) {
    const cond = isNull ? `${p} is null` : `${p} == null`;
    const raise =
      lang === "csharp"
        ? `throw new ArgumentNullException(nameof(${p}));`
        : `throw new IllegalArgumentException("${p} must not be null");`;
    if (allman) out.push(`${indent}if (${cond})`, `${indent}{`, `${indent}${unit}${raise}`, `${indent}}`);
    else out.push(`${indent}if (${cond}) {`, `${indent}${unit}${raise}`, `${indent}}`);
    out.push("");
  }
  return out;
}
