import { extractSymbols, type SymbolDef } from "../grounding/symbols.js";
import { isSecretPath, mayHoldSecret, redact } from "../grounding/secrets.js";
import { rawIsText, rawText } from "../snapshot/builder.js";
import type { Snapshot } from "../types.js";
import { isWordCode } from "./word-scan.js";

/** A definition with the file it is in. */
export interface SymbolSite extends SymbolDef {
  path: string;
}

const perFile = new WeakMap<Snapshot, Map<string, SymbolSite[]>>();
/** Per snapshot, the files a {@link mayDefine} test spared from extraction (see {@link withinBudget}). */
const spared = new WeakMap<Snapshot, Set<string>>();

/**
 * The definitions of the file at `path` (`extractSymbols`, in line order, each with its `path`), extracted on first
 * use and cached per snapshot object; `[]` for paths that are not text files and for secret files. A definition
 * whose name holds a secret (`redact` changes it: a function named like a token) is dropped: every tool that names
 * symbols (FOUND, similar names, search's symbols) would otherwise confirm the secret a character at a time. Nothing
 * extracts the symbols of a whole repository up front: tools ask for the files a scan points them to.
 */
export function fileSymbols(snapshot: Snapshot, path: string): SymbolSite[] {
  let cache = perFile.get(snapshot);
  if (cache === undefined) perFile.set(snapshot, (cache = new Map()));
  const hit = cache.get(path);
  if (hit !== undefined) return hit;
  const content = isSecretPath(path) ? undefined : snapshot.read(path);
  const defs = content === undefined ? [] : extractSymbols(path, content);
  // Only the names the pre-test of one pass over all of them does not clear are redacted to be checked.
  const suspect = new Set(mayHoldSecret(defs.map((d) => d.name)));
  const sites = (
    suspect.size === 0 ? defs : defs.filter((d, i) => !suspect.has(i) || redact(d.name) === d.name)
  ) as SymbolSite[];
  // The definition objects themselves become the sites (no copy per definition).
  for (const s of sites) s.path = path;
  cache.set(path, sites);
  return sites;
}

/**
 * Characters of text a call extracts symbols from at most, besides files already extracted (see {@link withinBudget}).
 * 2 M (4 M until session 11): on the bench's 108 MB repository each `search_codebase` call spent all of 4 M on its
 * ~50 best candidates (mostly bundled `dist/` files and large `.d.ts`), ~60 ms of extraction per call in a cold
 * process. At 2 M the two bench queries keep their first six files (files 7-10 and the
 * last symbols change), the tests' queries and `npm run eval` give the same answers.
 */
export const EXTRACT_BUDGET_CHARS = 2_000_000;

/** Characters of text left to extract symbols from, shared by the {@link withinBudget} calls of one tool call. */
export interface ExtractBudget {
  chars: number;
}

/**
 * The first paths of `paths` (in order, at most `maxFiles`) whose symbols a call can afford: files already extracted
 * are free, and so are files a {@link mayDefine} test spared (a call would have extracted them but for the test:
 * free as if extracted, so that which files fit a budget does not depend on earlier calls having used the test);
 * the others count their length against `budget` characters; a file that would pass the budget is skipped.
 * Given an {@link ExtractBudget}, the characters taken are subtracted from it, so calls sharing it share the budget.
 */
export function withinBudget(
  snapshot: Snapshot,
  paths: Iterable<string>,
  maxFiles: number,
  budget: number | ExtractBudget = EXTRACT_BUDGET_CHARS,
): string[] {
  const cache = perFile.get(snapshot);
  const free = spared.get(snapshot);
  const out: string[] = [];
  let left = typeof budget === "number" ? budget : budget.chars;
  for (const path of paths) {
    if (out.length >= maxFiles) break;
    if (cache?.has(path) !== true && free?.has(path) !== true) {
      const size = rawText(snapshot, path)?.length ?? 0;
      if (size > left) continue;
      left -= size;
    }
    out.push(path);
  }
  if (typeof budget !== "number") budget.chars = left;
  return out;
}

export { isWordCode };

/**
 * The word characters from the most to the least frequent in source code (counted over this repository's files):
 * {@link rareAnchor} starts its search at the word's least frequent character. Only speed depends on the order.
 */
const CODE_FREQUENCY = "etnsoraiclduphmfgbywxkv_0ES1TRjACOPLI2N$BMqFDHG4U356Wz8J97KXVYQZ";

/**
 * Where to anchor an exact search for `word`: the offset of its least frequent character in code (by
 * {@link CODE_FREQUENCY}; any other character counts as rarer than all of them, the first of equals wins).
 * `indexOf` finds a pattern by looking for its first character (memchr) and then comparing: on 113 MB of code,
 * `indexOf("resolveModuleNme")` takes ~70 ms CPU, `indexOf("Nme")` ~14 ms.
 */
function rareAnchor(word: string): number {
  let best = 0;
  let bestRank = -1;
  for (let i = 0; i < word.length; i++) {
    const found = CODE_FREQUENCY.indexOf(word.charAt(i));
    const rank = found === -1 ? CODE_FREQUENCY.length : found;
    if (rank > bestRank) {
      best = i;
      bestRank = rank;
    }
  }
  return best;
}

/**
 * V8's `indexOf` looks for a pattern of fewer characters than this by its first character (memchr, then a
 * comparison): fast when that character is rare. A longer pattern goes through Boyer-Moore-Horspool, which took
 * ~60 ms on 113 MB whatever its characters (`ModuleNme`, `SourceFile`).
 */
const ANCHOR_MAX = 7;

/**
 * An exact search for `word` (non-empty): `find(text, from)` is `text.indexOf(word, from)`, found by looking for the
 * up to {@link ANCHOR_MAX} - 1 characters of `word` from its {@link rareAnchor} on and comparing the whole word there.
 */
export function exactSearch(word: string): (text: string, from: number) => number {
  const anchor = rareAnchor(word);
  if (word.length < ANCHOR_MAX && anchor === 0) return (text, from) => text.indexOf(word, from);
  const part = word.slice(anchor, anchor + ANCHOR_MAX - 1);
  return (text, from) => {
    for (let at = text.indexOf(part, from + anchor); at !== -1; at = text.indexOf(part, at + 1)) {
      if (text.startsWith(word, at - anchor)) return at - anchor;
    }
    return -1;
  };
}

/**
 * The text files (secret files skipped) that hold `word` exactly (same case) as a whole word — not inside a longer
 * run of `[A-Za-z0-9_$]` — in path order. One pass over the snapshot with {@link exactSearch} (over the raw text
 * for an ASCII word, so nothing is decoded).
 */
export function filesWithWord(snapshot: Snapshot, word: string): string[] {
  const out: string[] = [];
  if (word === "") return out;
  const ascii = /^[\x00-\x7f]*$/.test(word);
  const find = exactSearch(word);
  for (const path of snapshot.paths) {
    const content = ascii ? rawText(snapshot, path) : snapshot.read(path);
    if (content === undefined) continue;
    for (let at = find(content, 0); at !== -1; at = find(content, at + 1)) {
      if ((at === 0 || !isWordCode(content.charCodeAt(at - 1))) && !isWordCode(content.charCodeAt(at + word.length))) {
        // Secret files are few: asked only of the files that hold the word.
        if (!isSecretPath(path)) out.push(path);
        break;
      }
    }
  }
  return out;
}

/**
 * Every definition named `name` (exact case) in the snapshot, in path then line order: symbols are extracted only
 * from the files that hold `name` as a word ({@link filesWithWord}), which every file defining it does, and of those
 * only from the ones that hold it on a line short enough to define it ({@link mayDefine}).
 */
export function definitionsOf(snapshot: Snapshot, name: string): SymbolSite[] {
  const may = mayDefine([name]);
  return filesWithWord(snapshot, name)
    .filter((path) => may(snapshot, path))
    .flatMap((path) => fileSymbols(snapshot, path).filter((s) => s.name === name));
}

/**
 * The longest line (in characters, a trailing `\r` not counted) that `extractSymbols` (grounding/symbols.ts, its
 * `MAX_SCAN_LINE`) takes a definition from; test/tools/verify-symbol.test.ts holds the two together.
 */
export const DEFINITION_LINE_MAX = 1000;

/** `text` with every character a regular expression treats specially escaped: the pattern matches `text` itself. */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

/**
 * A test of whether the file at `path` can define a name that holds one of `needles` (as a substring; ignoring
 * ASCII case when `ignoreCase`), to extract symbols only from files that can. `extractSymbols` takes each name from
 * the line it defines, and only from lines of at most {@link DEFINITION_LINE_MAX} characters: a file whose every
 * occurrence of the needles is on a longer line (a minified bundle) defines no such name. The test answers false
 * for paths that are not text files and for secret files (which {@link fileSymbols} gives no definitions), true
 * for files already extracted, for files with bytes past ASCII (whose raw text has longer lines than the decoded
 * text) and for any file when a needle is empty or holds a line break. One {@link exactSearch} (a single needle
 * with case) or one regular expression pass over the file, skipping from a hit on a long line to the next line. A
 * file it answers false for is remembered as spared: {@link withinBudget} counts it as extracted.
 */
export function mayDefine(
  needles: readonly string[],
  ignoreCase = false,
): (snapshot: Snapshot, path: string) => boolean {
  const distinct = [...new Set(needles)];
  const any = distinct.some((n) => n === "" || n.includes("\n"));
  const single = distinct.length === 1 && !ignoreCase ? exactSearch(distinct[0] as string) : undefined;
  const re =
    any || single !== undefined || distinct.length === 0
      ? undefined
      : new RegExp(distinct.map(escapeRegExp).join("|"), ignoreCase ? "gi" : "g");
  /** The index of a character of the first hit at or after `from`, or -1. */
  const find = (content: string, from: number): number => {
    if (single !== undefined) return single(content, from);
    if (re === undefined) return -1;
    re.lastIndex = from;
    return re.test(content) ? re.lastIndex - 1 : -1;
  };
  const can = (snapshot: Snapshot, path: string): boolean => {
    const content = rawText(snapshot, path);
    if (content === undefined || isSecretPath(path)) return false;
    if (any || perFile.get(snapshot)?.has(path) === true || !rawIsText(snapshot, path)) return true;
    for (let at = find(content, 0); at !== -1;) {
      const start = content.lastIndexOf("\n", at) + 1;
      let end = content.indexOf("\n", at);
      if (end === -1) end = content.length;
      const length = end - start - (end > start && content.charCodeAt(end - 1) === 13 ? 1 : 0);
      if (length <= DEFINITION_LINE_MAX) return true;
      if (end >= content.length) return false;
      at = find(content, end + 1);
    }
    return false;
  };
  return (snapshot, path) => {
    if (can(snapshot, path)) return true;
    let set = spared.get(snapshot);
    if (set === undefined) spared.set(snapshot, (set = new Set()));
    set.add(path);
    return false;
  };
}

const enum Ch {
  Other = 0,
  Lower = 1,
  Upper = 2,
  Digit = 3,
}

function charClass(code: number): Ch {
  if (code >= 97 && code <= 122) return Ch.Lower;
  if (code >= 65 && code <= 90) return Ch.Upper;
  if (code >= 48 && code <= 57) return Ch.Digit;
  return Ch.Other;
}

/**
 * Split an identifier or phrase into lower-case words at camelCase/PascalCase humps (`parseHTTPServer` → parse,
 * http, server), letter→digit steps (`handler2` → handler, 2; not digit→letter), and at every character other than
 * ASCII letters and digits (`_ - . $`, spaces, non-ASCII). One pass, no regular expressions: it runs for every word
 * of every indexed file.
 */
export function identifierWords(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  let prev = Ch.Other;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const cur = charClass(text.charCodeAt(i));
    if (cur === Ch.Other) {
      if (start !== -1) out.push(text.slice(start, i).toLowerCase());
      start = -1;
    } else if (start === -1) {
      start = i;
    } else if (splitsAt(text, i, n, prev, cur)) {
      out.push(text.slice(start, i).toLowerCase());
      start = i;
    }
    prev = cur;
  }
  if (start !== -1) out.push(text.slice(start).toLowerCase());
  return out;
}

/**
 * Whether {@link identifierWords} starts a new word at `text[i]` (class `cur`, after a letter or digit of class
 * `prev`, the text ending at `n`): a hump (`aB`, `2B`, the `S` of `HTTPServer`) or a letter→digit step.
 */
function splitsAt(text: string, i: number, n: number, prev: Ch, cur: Ch): boolean {
  return (
    (cur === Ch.Upper && (prev === Ch.Lower || prev === Ch.Digit)) ||
    (cur === Ch.Upper && prev === Ch.Upper && i + 1 < n && charClass(text.charCodeAt(i + 1)) === Ch.Lower) ||
    (cur === Ch.Digit && (prev === Ch.Lower || prev === Ch.Upper))
  );
}

/**
 * The number of tokens `searchTokens` (search-index.ts) gives for `text`, without building them: per run of
 * `[A-Za-z0-9_$]` of 2+ characters, 1 for the run, plus 1 per {@link identifierWords} part of 2+ characters when the
 * run has more than one part. For the many symbol names whose tokens themselves are not needed, only their count.
 */
export function searchTokenCount(text: string): number {
  let count = 0;
  const n = text.length;
  for (let i = 0; i < n;) {
    if (!isWordCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < n && isWordCode(text.charCodeAt(end))) end++;
    if (end - i >= 2) {
      count++;
      // identifierWords of text[i, end): its parts, and those of 2+ characters
      let parts = 0;
      let long = 0;
      let start = -1;
      let prev = Ch.Other;
      for (let k = i; k < end; k++) {
        const cur = charClass(text.charCodeAt(k));
        if (cur === Ch.Other || (start !== -1 && splitsAt(text, k, end, prev, cur))) {
          if (start !== -1) {
            parts++;
            if (k - start >= 2) long++;
          }
          start = cur === Ch.Other ? -1 : k;
        } else if (start === -1) start = k;
        prev = cur;
      }
      if (start !== -1) {
        parts++;
        if (end - start >= 2) long++;
      }
      if (parts > 1) count += long;
    }
    i = end;
  }
  return count;
}

/** `kind name (container.)` as shown to a model: `method Cart.total`, `function parse`. */
export function formatSymbol(def: SymbolDef): string {
  return `${def.kind} ${def.container !== undefined ? `${def.container}.` : ""}${def.name}`;
}
