/**
 * Go specifics of the heuristic's guard on a nil value (line-based, like `code.ts`; no type checker):
 *
 * - function literals (`Run: func(cmd *cobra.Command, args []string) {`, `handler := func(w http.ResponseWriter, …)
 *   {`) are functions: a guard inside one returns from the literal, with the literal's own results;
 * - `x == nil` compiles only when `x` is a pointer, interface, map, slice, channel or function. A guard is written
 *   only when the code shows that: a pointer parameter, a local declared as a pointer (`var x *T`, `x := &T{…}`,
 *   `x := new(T)`, `x, ok := v.(*T)`, `x := F(…)` of a function of the file whose one result is a pointer), or a
 *   field chain `a.b` read at the frame line whose prefix `a` the function
 *   already dereferenced above (so `a` is not the nil value: `a.b` is, and a value that was nil is comparable with
 *   nil) while the frame line dereferences nothing else;
 * - a predicate (a function whose only result is `bool`) answers `false` for a missing value instead of panicking.
 *
 * Source for the comparison rule: the Go specification, "Comparison operators" (a pointer, channel, func, interface,
 * slice or map value can be compared to the predeclared identifier nil).
 */

import { splitParams } from "./code.js";
import { liveCode } from "./live-code.js";

const esc = (s: string) => s.replace(/[.$]/g, (c) => `\\${c}`);

/** Start of a Go function literal on a line, after an optional key, assignment, `return`, `go` or `defer`. */
const LITERAL = /^\s*(?:(\w+)\s*:\s*|(\w+)\s*:?=\s*|(?:return|go|defer)\s+)?func\s*\(/;

/**
 * The Go function literal that opens on `line` and whose body starts there (`… func(a int) error {`), or null.
 * `name` is the key or variable it is bound to (`Run`, `handler`), else null.
 *
 * @returns `{ name, list }` where `list` is the text of the literal's parameter list
 */
export function goLiteralOn(line: string): { name: string | null; list: string } | null {
  const code = line.replace(/\/\/.*$/, "").trimEnd();
  const m = LITERAL.exec(code);
  // at column 0, `func (r *T) name(` and `func name(` are declarations: a literal is always inside something
  if (!m || !/\{$/.test(code) || /^func\b/.test(code)) return null;
  const list = groupAt(code, m[0].length - 1);
  return list === null ? null : { name: m[1] ?? m[2] ?? null, list };
}

/**
 * The text of a Go signature from `func` on (`func(a int) (int, error) {` of `Run: func(a int) (int, error) {`), so
 * a literal's results read as a named function's do; the line itself when it holds no literal.
 */
export function goSignatureText(line: string): string {
  if (/^func\s/.test(line.trim()) || !goLiteralOn(line)) return line;
  return line.slice(line.search(/\bfunc\s*\(/));
}

/** True when the function's own lines (`earlier`, signature included) declare `name` as a pointer. */
function declaredPointer(name: string, earlier: string): boolean {
  const n = esc(name);
  return new RegExp(
    [
      // a parameter or a grouped parameter list: `(a *T`, `, a *T`, `(a, b *T`
      String.raw`[(,]\s*${n}\s*(?:,\s*\w+\s*)*\*[\w.\[]`,
      String.raw`\bvar\s+${n}\s+\*`,
      // `var x = &T{…}`, `var x I = &T{…}` (a pointer held by an interface is nil-comparable too)
      String.raw`\bvar\s+${n}(?:\s+[\w.]+)?\s*=\s*(?:&|new\()`,
      String.raw`(?:^|[^\w.])${n}\s*:=\s*(?:&|new\()`,
      String.raw`(?:^|[^\w.])${n}\s*,\s*\w+\s*:=\s*[\w.]+\.\(\*`,
    ].join("|"),
    "m",
  ).test(earlier)
    ? true
    : pointerResultOf(name, earlier);
}

/**
 * True when `name` is assigned the result of an unqualified call (`x := Find(id)`, `var x = Find(id)`) of a function
 * whose one result is a pointer, by a {@link goPointerFunctions} line in `earlier` (`func Find() *User`). A qualified
 * call (`store.Find(id)`, another package's or a method) is not read: its declaration is not the file's.
 */
function pointerResultOf(name: string, earlier: string): boolean {
  const assigned = new RegExp(String.raw`(?:^|[^\w.])(?:var\s+)?${esc(name)}\s*:?=\s*([A-Za-z_]\w*)\s*\(`, "gm");
  for (const m of earlier.matchAll(assigned)) {
    if (new RegExp(String.raw`^func ${esc(m[1] ?? "")}\(\) \*`, "m").test(earlier)) return true;
  }
  return false;
}

/**
 * The file's top-level functions (not methods) whose one result is a pointer (`func Find(id int) *User {` on one
 * line), each as `func Find() *User`: the parameters dropped, so the line says what a call returns and declares no
 * name the caller's code could be mistaken for. Read by {@link goNilComparable} through its `earlier` lines.
 *
 * Only code counts, and only a name every unqualified call reaches:
 * - the lines are read as code ({@link liveCode}): a signature in a `//` or `/* *\/` comment or a raw string is
 *   text; a `*\/` left in the code closes a comment opened above the lines read, so the lines before it are dropped;
 * - a function whose name the read code also declares otherwise is left out: a local (`Find := func(…) User {…}`,
 *   a method value `Find := s.Find`, `var Find = …`, `for _, Find := range …`), a parameter or named result
 *   (`func Label(Find func(int) User)`), or another top-level `func Find` (a build-tagged twin): the call may reach
 *   that one, whose result the line does not show. Any scope of the file counts (a shadow in another function too):
 *   a guard left out is a summary's "no guard: …", a `u == nil` on a struct does not compile.
 *
 * @param lines the lines read of the file, by 1-based number (in any order; gaps are joined as if adjacent)
 */
export function goPointerFunctions(lines: ReadonlyMap<number, string>): string[] {
  const ordered = [...lines].sort((a, b) => a[0] - b[0]).map(([, t]) => t);
  let code = liveCode(ordered.join("\n"), "go").split("\n");
  const stray = code.findLastIndex((l) => l.includes("*/"));
  if (stray !== -1) code = code.slice(stray + 1);
  const text = code.join("\n");
  const out: string[] = [];
  for (const line of code) {
    const m = /^func\s+([A-Za-z_]\w*)\s*(?:\[[^\]]*\]\s*)?\([^()]*\)\s*(\*[\w.]+(?:\[[\w.,\s*]*\])?)\s*\{/.exec(line);
    if (m?.[1] && !declaredBesides(m[1], text)) out.push(`func ${m[1]}() ${m[2]}`);
  }
  return out;
}

/**
 * True when Go code `text` declares `name` other than by one top-level `func name(`: a local, a `var`/`const`, a
 * parameter or named result, an assignment (a `var (…)` block's entry), or a second top-level `func name`.
 */
function declaredBesides(name: string, text: string): boolean {
  const n = esc(name);
  const id = String.raw`[A-Za-z_]\w*`;
  if ((text.match(new RegExp(String.raw`^func\s+${n}\s*[[(]`, "gm")) ?? []).length > 1) return true;
  return new RegExp(
    [
      // `Find := …`, `a, Find := …`, `for _, Find := range …`, `Find = …` (a `var (…)` entry; a func is no operand)
      String.raw`(?:^|[^\w.])(?:${id}\s*,\s*)*${n}\s*(?:,\s*${id}\s*)*:?=(?!=)`,
      // `var Find = …`, `var a, Find func() User`, `const Find = …`
      String.raw`\b(?:var|const)\s+(?:${id}\s*,\s*)*${n}\b`,
      // a parameter or named result: `(Find func(int) User`, `, Find Finder`, `(a, Find *T`, `\tFind func(…),`
      String.raw`(?:^|[(,])\s*(?:${id}\s*,\s*)*${n}\s+(?:\.\.\.)?[A-Za-z_*[]`,
    ].join("|"),
    "m",
  ).test(text);
}

/** The dereference chains of a line's code (`f.Body.Pos()` → `f.Body.Pos`), package qualifiers left out. */
function chains(code: string, imports: readonly string[]): string[] {
  const out: string[] = [];
  for (const m of code.matchAll(/(?<![\w$.)\]])([A-Za-z_]\w*)((?:\.[A-Za-z_]\w*)+)/g)) {
    const root = m[1] ?? "";
    if (/^[A-Z]/.test(root) || imports.includes(root) || root === "fmt" || root === "os") continue;
    out.push(`${root}${m[2] ?? ""}`);
  }
  return out;
}

/**
 * True when `receiver` (`x` or a chain `a.b`) can be compared with nil at the frame line, by the rules above.
 *
 * @param code the frame line with string literals blanked and its comment dropped
 * @param earlier the function's lines above the statement (its signature included), strings blanked
 * @param imports the package names the file imports
 */
export function goNilComparable(receiver: string, code: string, earlier: string, imports: readonly string[]): boolean {
  const parts = receiver.split(".");
  if (parts.length === 1) return declaredPointer(receiver, earlier);
  // every strict prefix was dereferenced above, so it is not the nil value
  for (let k = 1; k < parts.length; k++) {
    const prefix = parts.slice(0, k).join(".");
    if (!new RegExp(`(?:^|[^\\w.])${esc(prefix)}\\.[A-Za-z_]`).test(earlier)) return false;
  }
  // and the frame line dereferences nothing but this chain
  const others = chains(code, imports).filter((c) => c !== receiver && !c.startsWith(`${receiver}.`));
  return others.length === 0;
}

/**
 * Why a Go frame line's crash gets no nil guard, as a clause for the summary, or null when the line dereferences no
 * local: the first local it dereferences (`u` of `u.Name`), whose type the code read does not show (a pointer, an
 * interface, a map, a slice, a channel or a function: only those compare with nil, so `u == nil` might not compile).
 *
 * @param code the frame line with string text blanked
 * @param imports the package names the file imports
 */
export function goUnguardedWhy(code: string, imports: readonly string[]): string | null {
  const root = chains(code, imports)[0]?.split(".")[0];
  if (!root) return null;
  return (
    `no guard: the code read does not show that \`${root}\` can be nil, and Go compares only a pointer, ` +
    "interface, map, slice, channel or function with nil"
  );
}

/**
 * How a Go guard leaves when the function is a predicate (its only result is `bool`): `return false`. Null otherwise
 * (the caller returns the zero values and an error, or panics).
 */
export function goPredicateExit(results: readonly string[] | null): { kind: "return"; value: string } | null {
  return results && results.length === 1 && results[0] === "bool" ? { kind: "return", value: "false" } : null;
}

/**
 * The value a Go report names as nil when it prints no runtime message of its own ("Set HelpFlag=nil causes panic",
 * "`opts.Logger` is nil"): the identifier (a dotted chain at most) before `= nil` or `is nil`, when the text also says
 * it panics. Null otherwise. The name is only a hint: the guard is written only when the frame line reads it and the
 * code shows it can be nil ({@link goNilComparable}), so text cannot steer the guard to anything else.
 */
export function goNamedNil(title: string, body: string): string | null {
  if (!/\bpanic/i.test(`${title}\n${body}`)) return null;
  for (const text of [title, body]) {
    const m =
      /(?<![\w.])[`'"]?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)[`'"]?\s*=\s*nil\b/.exec(text) ??
      /(?<![\w.])[`'"]?([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?)[`'"]?\s+is\s+nil\b/.exec(text);
    if (m?.[1]) return m[1];
  }
  return null;
}

/**
 * The package-level `var` declarations that a grep of the repository found in the Go files of `path`'s directory
 * (one package), as lines: what a function of `path` can see besides its own lines.
 */
export function goPackageDeclarations(hits: readonly { path: string; text: string }[], path: string): string[] {
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
  return hits
    .filter((h) => h.path.endsWith(".go") && h.path.startsWith(dir) && !h.path.slice(dir.length).includes("/"))
    .map((h) => h.text)
    .filter((t) => /^var\s+[A-Za-z_]\w*\b/.test(t));
}

/** Parameters of a Go signature with their types (`a, b int, s string` → a:int, b:int, s:string). */
function goParams(signature: string): { name: string; type: string }[] {
  const code = goSignatureText(signature).trim();
  const head = /^func\s*(?:\([^)]*\)\s*)?\w+\s*(?:\[[^\]]*\])?(?=\()/.exec(code) ?? /^func\s*(?=\()/.exec(code);
  const list = head ? groupAt(code, head[0].length) : null;
  if (list === null) return [];
  const out: { name: string; type: string }[] = [];
  let pending: string[] = [];
  for (const p of splitParams(list)) {
    const m = /^([A-Za-z_]\w*)\s+(.+)$/.exec(p);
    if (!m) {
      if (/^[A-Za-z_]\w*$/.test(p)) pending.push(p);
      continue;
    }
    for (const name of [...pending, m[1] ?? ""]) out.push({ name, type: (m[2] ?? "").trim() });
    pending = [];
  }
  return out;
}

/** The text inside the parentheses that open at `code[at]`, or null when they do not close on the line. */
function groupAt(code: string, at: number): string | null {
  let depth = 0;
  for (let i = at; i < code.length; i++) {
    if (code[i] === "(") depth++;
    else if (code[i] === ")" && --depth === 0) return code.slice(at + 1, i);
  }
  return null;
}

/**
 * Cheap context for a Go guard's error, from the parameters' declared types (a type name is static in Go, so `%T`
 * says nothing): ids by value (`cheap(name)` gives a value that is not a type: see `cheapContext`), numbers and
 * booleans by value, slices and maps by length; at most 3. `exclude`d names and the names `cheap` refuses (request,
 * context, callback and secret-like names) are left out, and so are other strings (user data, never logged).
 */
export function goContextValues(
  signature: string,
  exclude: readonly string[],
  cheap: (name: string) => { type?: boolean } | null,
): { label: string; expr: string }[] {
  const out: { label: string; expr: string }[] = [];
  for (const { name, type } of goParams(signature)) {
    const c = name === "_" || exclude.includes(name) ? null : cheap(name);
    if (!c) continue;
    const scalar = /^(?:bool|u?int(?:8|16|32|64)?|float(?:32|64))$/.test(type) || (type === "string" && !c.type);
    if (scalar) out.push({ label: name, expr: name });
    else if (/^(?:\[\]|map\[)/.test(type)) out.push({ label: `len(${name})`, expr: `len(${name})` });
  }
  return out.slice(0, 3);
}

/**
 * The `grep_codebase` arguments that find the package-level declaration of `name` in the Go files of `path`'s
 * directory (`^var\s+name\b`, RE2), or null when `name` is not a plain identifier.
 */
export function goVarQuery(name: string, path: string): Record<string, unknown> | null {
  if (!/^[A-Za-z_]\w*$/.test(name)) return null;
  const dir = path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "";
  return { pattern: `^var\\s+${name}\\b`, regex: true, path_glob: `${dir}*.go`, case_sensitive: true, max_results: 5 };
}

/** A Go statement that panics: `panic(…)`, or a logger's `Panic`/`Panicf`/`Panicln` (`log.Panicf(…)`). */
export const GO_PANICS = /^\s*(?:panic|[A-Za-z_]\w*\.Panic(?:f|ln)?)\(/;

/**
 * True when the lines read of a Go file hold a guard that panics: an `if … {` line whose next code line (comments
 * and blank lines skipped) panics ({@link GO_PANICS}), like `if cmds[i] == c {` / `panic("Command can't be a child of
 * itself")`. Panics inside strings or comments, and a panic that is not the first statement of an `if`, do not count.
 *
 * @param lines the lines read of the file (1-based)
 */
export function goGuardsPanic(lines: ReadonlyMap<number, string>): boolean {
  const code = (n: number) => {
    const t = lines.get(n);
    return t === undefined || /^\s*(?:\/\/.*)?$/.test(t) ? null : t;
  };
  for (const [n, t] of lines) {
    if (!GO_PANICS.test(t)) continue;
    let p = n - 1;
    while (lines.has(p) && code(p) === null) p--;
    if (/^\s*(?:\}\s*else\s+)?if\s.*\{\s*(?:\/\/.*)?$/.test(code(p) ?? "")) return true;
  }
  return false;
}

/**
 * The receiver's name of a Go method declaration (`c` of `func (c *Command) execute(a []string) error {`), or null
 * for a function, a function literal or an unnamed receiver. A receiver is the method's first parameter: a nil one
 * was passed by the caller (`var s *Store; s.Get(k)`).
 */
export function goReceiverName(signature: string): string | null {
  const m = /^func\s*\(\s*([A-Za-z_]\w*)\s+\*?[\w.]+(?:\[[^\]]*\])?\s*\)\s*[A-Za-z_]\w*/.exec(signature.trim());
  return m?.[1] && m[1] !== "_" ? m[1] : null;
}
