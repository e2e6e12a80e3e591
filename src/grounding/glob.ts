import { RE2JS } from "re2js";

/** Longest glob accepted, in characters; a longer one is refused with a {@link GlobError}. */
export const MAX_GLOB_LENGTH = 1000;
/** Deepest nesting of `{…}` and extglob groups accepted. */
const MAX_GROUP_DEPTH = 10;

/** A glob that cannot be compiled; `message` says why, in one sentence for a model or a config author. */
export class GlobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GlobError";
  }
}

/** How {@link compileGlob} matches. */
export interface GlobOptions {
  /** Match letters regardless of case (`.GitHub/Workflows/x.yml` matches `.github/**`). Default false. */
  nocase?: boolean;
  /** A glob without `/` matches the last path segment at any depth (`*.py` matches `a/b/c.py`). Default false. */
  basename?: boolean;
}

const REGEX_SPECIAL = /[\\^$.*+?()[\]{}|]/g;

/**
 * Compile a glob (picomatch syntax with `dot: true`) to a predicate over repository paths that runs in time linear in
 * the path: the glob becomes an RE2 regular expression (re2js: automata, no backtracking), so a hostile glob such as
 * `**\/*?*?*?*?*?*?*?*?*?*?*.zz` cannot stall the process.
 *
 * Syntax: `*` any characters but `/`; `?` one character but `/`; `**` as a whole segment any number of segments,
 * none included (`a/**` matches `a` and all below it, `**\/x` matches `x` at any depth); `[abc]`, `[a-z]`, `[!a]` /
 * `[^a]` (never `/`); `{a,b}` alternatives (nested); extglobs `@(a|b)`, `?(a)`, `*(a)`, `+(a)`; `\` escapes; a
 * leading `!` negates; a trailing `/` means everything below that folder. Dot files match like any other.
 *
 * @throws GlobError for a glob longer than {@link MAX_GLOB_LENGTH}, nested deeper than 10 groups, with an unclosed
 *   `[`, `{` or `(`, or using `!(…)` (not expressible without backtracking).
 */
export function compileGlob(glob: string, options: GlobOptions = {}): (path: string) => boolean {
  if (glob.length > MAX_GLOB_LENGTH)
    throw new GlobError(`the glob is ${glob.length} characters long; at most ${MAX_GLOB_LENGTH} are accepted`);
  let negate = false;
  let body = glob;
  while (body.startsWith("!") && !body.startsWith("!(")) {
    negate = !negate;
    body = body.slice(1);
  }
  if (body.endsWith("/")) body += "**";
  const source = translate(body, 0, body.length, 0);
  const prefix = options.basename === true && !body.includes("/") ? "(?:.*/)?" : "";
  const re = RE2JS.compile(`^${prefix}(?:${source})$`, options.nocase === true ? RE2JS.CASE_INSENSITIVE : 0);
  return negate ? (path) => !re.test(path) : (path) => re.test(path);
}

/** Index of the bracket closing the group opened at `open` (`{` or `(`), skipping escapes and classes; -1 if none. */
function closing(glob: string, open: number, end: number): number {
  const pair = glob[open] === "{" ? "{}" : "()";
  let depth = 0;
  for (let i = open; i < end; i++) {
    const c = glob[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(glob, i, end) ?? i;
    else if (c === pair[0]) depth++;
    else if (c === pair[1] && --depth === 0) return i;
  }
  return -1;
}

/** Index of the `]` closing the class opened at `open`, or null when it is not closed (then `[` is literal). */
function classEnd(glob: string, open: number, end: number): number | null {
  let i = open + 1;
  if (glob[i] === "!" || glob[i] === "^") i++;
  if (glob[i] === "]") i++;
  for (; i < end; i++) {
    if (glob[i] === "\\") i++;
    else if (glob[i] === "[" && glob[i + 1] === ":") {
      const close = glob.indexOf(":]", i + 2);
      if (close !== -1 && close < end) i = close + 1;
    } else if (glob[i] === "]") return i;
  }
  return null;
}

/** Split `glob[start, end)` at the top-level occurrences of `sep` (outside groups, classes and escapes). */
function splitTop(glob: string, start: number, end: number, sep: string): [number, number][] {
  const parts: [number, number][] = [];
  let from = start;
  for (let i = start; i < end; i++) {
    const c = glob[i];
    if (c === "\\") i++;
    else if (c === "[") i = classEnd(glob, i, end) ?? i;
    else if (c === "{" || c === "(") i = Math.max(i, closing(glob, i, end));
    else if (c === sep) {
      parts.push([from, i]);
      from = i + 1;
    }
  }
  parts.push([from, end]);
  return parts;
}

/** The RE2 source for `glob[start, end)`. */
function translate(glob: string, start: number, end: number, depth: number): string {
  if (depth > MAX_GROUP_DEPTH) throw new GlobError(`the glob nests groups more than ${MAX_GROUP_DEPTH} deep`);
  let out = "";
  for (let i = start; i < end; i++) {
    const c = glob[i]!;
    const segmentStart = i === start ? start === 0 || glob[i - 1] === "/" : glob[i - 1] === "/";
    if (c === "*" && glob[i + 1] === "*" && segmentStart && (i + 2 === end || glob[i + 2] === "/")) {
      // `**` as a whole segment: any number of whole segments (none included).
      if (i + 2 === end) {
        if (out.endsWith("/")) out = `${out.slice(0, -1)}(?:/.*)?`;
        else out += ".*";
        i += 1;
      } else {
        out += "(?:[^/]+/)*";
        i += 2;
      }
      continue;
    }
    const ext = "@?*+!".includes(c) && glob[i + 1] === "(";
    if (ext) {
      const close = closing(glob, i + 1, end);
      if (close === -1) throw new GlobError(`the group opened by '${c}(' at character ${i + 1} is never closed`);
      if (c === "!")
        throw new GlobError("negated extglobs '!(…)' are not supported; use a positive glob or a leading '!'");
      const alts = splitTop(glob, i + 2, close, "|").map(([a, b]) => translate(glob, a, b, depth + 1));
      out += `(?:${alts.join("|")})${c === "@" ? "" : c}`;
      i = close;
      continue;
    }
    if (c === "*") {
      while (glob[i + 1] === "*") i++;
      out += "[^/]*";
    } else if (c === "?") out += "[^/]";
    else if (c === "\\") {
      const next = glob[i + 1];
      if (next !== undefined && i + 1 < end) {
        out += escape(next);
        i++;
      } else out += "\\\\";
    } else if (c === "[") {
      const close = classEnd(glob, i, end);
      if (close === null) {
        out += "\\[";
        continue;
      }
      let inner = glob.slice(i + 1, close);
      let negated = false;
      if (inner.startsWith("!") || inner.startsWith("^")) {
        negated = true;
        inner = inner.slice(1);
      }
      const body = inner
        .replace(/\\(.)/g, "\\$1")
        .replace(/^\]/, "\\]")
        .replace(/\[(?!:)/g, "\\[");
      out += negated ? `[^/${body}]` : `(?:[${body}])`;
      i = close;
    } else if (c === "{") {
      const close = closing(glob, i, end);
      const alts = close === -1 ? [] : splitTop(glob, i + 1, close, ",");
      if (close === -1 || alts.length < 2) {
        out += "\\{";
        continue;
      }
      out += `(?:${alts.map(([a, b]) => translate(glob, a, b, depth + 1)).join("|")})`;
      i = close;
    } else out += escape(c);
  }
  return out;
}

function escape(c: string): string {
  return c.replace(REGEX_SPECIAL, "\\$&");
}
