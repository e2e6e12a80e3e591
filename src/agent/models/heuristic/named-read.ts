/**
 * The line of a crash an issue describes without a stack trace, read off the function the issue names: "TypeError:
 * Cannot read properties of undefined (reading 'name') in getUserName" names the member (`name`) and the function
 * (`getUserName`); when the chosen file defines that function once and exactly one line of its body reads the
 * member, that line is where the crash happens, as a frame line would say.
 */
import { extractSymbols } from "../../../grounding/symbols.js";
import { inertLines } from "../../../lang/comments.js";
import { languageOf, type CodeLanguage } from "./code.js";
import { liveCode } from "./live-code.js";
import { crashOf } from "./proportion.js";
import type { FileWindow } from "./results.js";
import { escapeRe } from "./wording.js";

/**
 * A test of whether a line reads `name` the way a crash says it was read: as a member (`.name`, `?.name`,
 * `['name']`, not `.nameX`) or, for a missing key (`KeyError: 'name'`), only as a key (`['name']`, `[ "name" ]`).
 */
export function memberRead(name: string, access: "member" | "key"): RegExp {
  return access === "key"
    ? new RegExp(`\\[\\s*['"]${escapeRe(name)}['"]\\s*\\]`)
    : new RegExp(`(?:\\.|\\?\\.|\\[['"])${escapeRe(name)}(?![\\w$])`);
}

/**
 * True when `line` of `lang` reads `name` as {@link memberRead} says, in its code: a read inside an interpolation
 * counts (`f"{user.email}"`, `` `${user.email}` ``), one in string text or a comment does not (`"user.email"`,
 * `'#{user.email}'` in Ruby), as {@link liveCode} reads the line. `lang` null: the line as it is.
 */
export function readsMember(line: string, name: string, access: "member" | "key", lang: CodeLanguage | null): boolean {
  const re = new RegExp(memberRead(name, access).source, "g");
  const code = lang ? liveCode(line, lang) : line;
  for (const m of line.matchAll(re)) if (code[m.index] === line[m.index]) return true;
  return false;
}

/** The function the issue names and the one line of its body that reads the member the crash names. */
export interface NamedRead {
  /** The function's name as the issue writes it (its last dotted part). */
  fn: string;
  /** The member or key the crash names (`name` of `(reading 'name')`). */
  member: string;
  /** How the crash reads it: as a member (`.name`) or as a key (`['name']`). */
  access: "member" | "key";
  /** 1-based line of the file. */
  line: number;
}

/**
 * The {@link NamedRead} of `path` for an issue whose first error message is `message` and whose quoted identifiers
 * are `identifiers`, or null: when the message names no missing member or key ({@link crashOf}), when no identifier
 * names a function or method the window defines exactly once with its whole body read, or when that body reads the
 * member on no line or on more than one (then the words do not say which read crashed). A read is `.m`,
 * `?.m` or `['m']` (a key only as `['m']`) in the line's code ({@link readsMember}: inside an interpolation, not in
 * string text); lines that do nothing at run time (comments, docstrings: `inertLines`
 * of src/lang/comments.ts) do not count. Identifiers are tried in the order; the first that names such a
 * function decides.
 */
export function namedRead(
  path: string,
  window: FileWindow,
  message: string | null,
  identifiers: readonly string[],
): NamedRead | null {
  const crash = crashOf(message);
  const member = crash?.name ?? null;
  if (!crash || !member || (crash.access !== "member" && crash.access !== "key")) return null;
  const access = crash.access;
  const lang = languageOf(path);
  const last = Math.max(0, ...window.lines.keys());
  const text = Array.from({ length: last }, (_, i) => window.lines.get(i + 1) ?? "");
  const complete = (from: number, to: number) => {
    for (let n = from; n <= to; n++) if (!window.lines.has(n) || window.clipped.has(n)) return false;
    return true;
  };
  const defs = extractSymbols(path, text.join("\n")).filter((s) => s.kind === "function" || s.kind === "method");
  for (const id of identifiers) {
    const fn = id.split(".").pop() ?? id;
    const named = defs.filter((d) => d.name === fn);
    if (named.length === 0) continue;
    const def = named[0];
    if (named.length > 1 || def === undefined || def.endLine === undefined || !complete(def.line, def.endLine))
      return null;
    const body = text.slice(def.line, def.endLine);
    const inert = inertLines(path, body);
    const hits: number[] = [];
    body.forEach((t, i) => {
      if (!inert[i] && readsMember(t, member, access, lang)) hits.push(def.line + 1 + i);
    });
    return hits.length === 1 ? { fn, member, access, line: hits[0] as number } : null;
  }
  return null;
}
