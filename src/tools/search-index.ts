import { isSecretPath } from "../grounding/secrets.js";
import { rawText } from "../snapshot/builder.js";
import type { Snapshot } from "../types.js";
import { boundedEditDistance } from "./nearest.js";
import { identifierWords, isWordCode as isWordChar, withinBudget } from "./symbol-index.js";

/** Distinct words of one file that are ranked; the rest of a huge file is not. */
export const MAX_WORDS_PER_FILE = 5000;
/** Words longer than this (hashes, minified runs, data) are not ranked. */
const MAX_WORD = 80;

/**
 * Tokens of a text for ranking and for queries: each identifier lower-cased whole, plus its camelCase/snake_case
 * parts when it has more than one ("parseConfig" → parseconfig, parse, config). Words of one letter are dropped.
 */
export function searchTokens(text: string): string[] {
  const out: string[] = [];
  forEachWord(text, (start, end) => {
    if (end - start < 2) return true;
    const raw = start === 0 && end === text.length ? text : text.slice(start, end);
    out.push(raw.toLowerCase());
    const parts = identifierWords(raw);
    if (parts.length > 1) for (const p of parts) if (p.length > 1) out.push(p);
    return true;
  });
  return out;
}

/**
 * Call `fn(start, end)` for each run of word characters of `text` (found by hand, no regex); stop when `fn` returns
 * false.
 */
function forEachWord(text: string, fn: (start: number, end: number) => boolean): void {
  const n = text.length;
  let start = -1;
  for (let i = 0; i <= n; i++) {
    if (i < n && isWordChar(text.charCodeAt(i))) {
      if (start === -1) start = i;
    } else if (start !== -1) {
      if (!fn(start, i)) return;
      start = -1;
    }
  }
}

/**
 * One pass over the text files of a snapshot (secret files skipped) for the words that contain any of `needles`
 * (lower-case strings of word characters), ignoring case: one regular expression with the needles as alternatives
 * (V8 scans for them together), each match widened to the whole word around it. `onWord(file, word)` is called once
 * per distinct word (2 to 80 characters) per file, `file` being the index in `snapshot.paths`; at most
 * {@link MAX_WORDS_PER_FILE} distinct words are taken per file.
 * @returns the number of text files scanned.
 */
export function scanWords(
  snapshot: Snapshot,
  needles: readonly string[],
  onWord: (file: number, word: string) => void,
): number {
  // A word holding a needle that holds another needle also holds the shorter one: scanning for it finds the word.
  const distinct = [...new Set(needles)].filter((n) => n !== "");
  const alternatives = distinct.filter((n) => !distinct.some((m) => m !== n && n.includes(m)));
  if (alternatives.length === 0) return 0;
  // The rest of the word is matched by the expression itself (`[\w$]` is `isWordChar`): a hit ends at its word's end.
  const re = new RegExp(`(?:${alternatives.map((n) => n.replace(/\$/g, "\\$")).join("|")})[\\w$]*`, "gi");
  const seen = new Set<string>();
  let scanned = 0;
  const { paths } = snapshot;
  for (let file = 0; file < paths.length; file++) {
    const path = paths[file] as string;
    // The raw text: the words are ASCII, so they are the same as in the decoded text, without decoding anything.
    const content = rawText(snapshot, path);
    if (content === undefined || isSecretPath(path)) continue;
    scanned++;
    seen.clear();
    re.lastIndex = 0;
    // `test` rather than `exec`: no match array per hit (a search makes hundreds of thousands); the hit is a run of
    // word characters ending at lastIndex, the end of its word, so the word is that run widened to the left.
    while (re.test(content)) {
      const e = re.lastIndex;
      let s = e - 1;
      while (s > 0 && isWordChar(content.charCodeAt(s - 1))) s--;
      if (e - s < 2 || e - s > MAX_WORD) continue;
      const word = content.slice(s, e);
      if (seen.has(word)) continue;
      seen.add(word);
      onWord(file, word);
      if (seen.size >= MAX_WORDS_PER_FILE) break;
    }
  }
  return scanned;
}

/** The fields a file is ranked on, in the order `match` lists them. */
export const SEARCH_FIELDS = ["path", "symbols", "text"] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];

/** One ranked file: its path, score, the query terms it matched, and for each matched term the fields it is in. */
export interface SearchHit {
  id: string;
  score: number;
  /** Query terms (as given) this file matched, directly or through an expansion. */
  terms: string[];
  /** Matched term (a query term or its prefix/fuzzy expansion) → fields, in {@link SEARCH_FIELDS} order. */
  match: Record<string, SearchField[]>;
}

/** How {@link rankFiles} weighs fields and expansions. */
export interface RankOptions {
  /** Factor of each field's score. */
  boost: Record<SearchField, number>;
  /** Weight of a prefix expansion at distance 0 (it falls with the extra letters). */
  prefixWeight: number;
  /** Weight of a fuzzy expansion at distance 0 (it falls with the distance). */
  fuzzyWeight: number;
  /** Largest edit distance of a fuzzy expansion, as a fraction of the term's length (rounded; at most 6). */
  fuzzy: number;
  /** Symbol names defined in a file (the symbols field), asked only for the best candidates. */
  symbolsOf(path: string): readonly string[];
}

/** How many of the best files by path and text get their symbols field scored (within the extraction budget). */
const SYMBOL_CANDIDATES = 200;

/** BM25+ parameters (Lv & Zhai, "Lower-bounding term frequency normalization", CIKM 2011): k1, b, δ. */
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

function bm25(tf: number, df: number, n: number, length: number, avgLength: number): number {
  const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  return idf * (DELTA + (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / (avgLength || 1))));
}

/** What is kept per snapshot: path tokens and field lengths (a few values per path, no postings of the text). */
interface DocTable {
  pathLength: Float64Array;
  avgPathLength: number;
  textLength: Float64Array;
  avgTextLength: number;
  /** Path token → the files whose path holds it, once per occurrence, ascending. */
  pathPostings: Map<string, number[]>;
  /** Every distinct path token (for expansions on the path field). */
  pathVocabulary: readonly string[];
}

const tables = new WeakMap<Snapshot, DocTable>();

/**
 * The per-snapshot table: the tokens of each path, and the length of each text file's text field. The text field's
 * length is estimated as √(characters) — the number of distinct words of a text grows about as the square root of
 * its length (Heaps' law; Heaps, "Information Retrieval: Computational and Theoretical Aspects", 1978) — so no pass
 * over the words of every file is needed.
 */
function docTable(snapshot: Snapshot): DocTable {
  const hit = tables.get(snapshot);
  if (hit !== undefined) return hit;
  const n = snapshot.paths.length;
  const pathLength = new Float64Array(n);
  const textLength = new Float64Array(n);
  const postings = new Map<string, number[]>();
  let pathSum = 0;
  let textSum = 0;
  snapshot.paths.forEach((path, i) => {
    const tokens = searchTokens(path);
    pathLength[i] = tokens.length;
    pathSum += tokens.length;
    for (const t of tokens) {
      const list = postings.get(t);
      if (list === undefined) postings.set(t, [i]);
      else list.push(i);
    }
    const content = isSecretPath(path) ? undefined : rawText(snapshot, path);
    const length = content === undefined ? 0 : Math.sqrt(content.length);
    textLength[i] = length;
    textSum += length;
  });
  const table = {
    pathLength,
    avgPathLength: pathSum / (n || 1),
    textLength,
    avgTextLength: textSum / (n || 1),
    pathPostings: postings,
    pathVocabulary: [...postings.keys()],
  };
  tables.set(snapshot, table);
  return table;
}

/** One way a query term matched: the term itself or an expansion of it, with its weight and term frequencies. */
interface Derived {
  source: number;
  weight: number;
  /** File index → frequency in the text field (distinct words holding the token). */
  text: Map<number, number>;
}

/**
 * `term` cut into `k + 1` disjoint pieces (the last takes the rest): a string within `k` edits of `term` holds one of
 * them unchanged (the pigeonhole principle), so scanning for the pieces finds every candidate.
 */
export function pieces(term: string, k: number): string[] {
  const count = k + 1;
  const size = Math.floor(term.length / count);
  const out: string[] = [];
  for (let i = 0; i < count; i++) out.push(term.slice(i * size, i === count - 1 ? term.length : (i + 1) * size));
  return out;
}

/**
 * Files of a snapshot ranked for query `terms` (lower-case tokens, see {@link searchTokens}) with BM25+ over three
 * fields — the path's tokens, the symbols defined in the file (names split by {@link searchTokens}), and the tokens
 * of the distinct words of a text file — summed over the terms and multiplied by the number of terms matched.
 * Nothing is indexed ahead: the text field is one {@link scanWords} pass for the query's terms, with term
 * frequencies and document frequencies for those terms only; the symbols field is scored for the best
 * {@link SYMBOL_CANDIDATES} files by path and text that fit the extraction budget (its document frequency taken from
 * the text field, which holds every defined name). A term no path or text holds as such is expanded: to the longer
 * tokens it starts (4+ letters, from the same pass) and to tokens within an edit distance of `fuzzy × length` (6+
 * letters, one more pass for pieces of the term), each weighted down with its distance.
 * @returns `hits`: every matching file, best first (ties in path order); `prefixFiles`: the other files holding a
 *   token that a term of 4+ letters starts (also when the term itself is present), most such tokens first — where
 *   a caller looks for names by prefix.
 */
export function rankFiles(
  snapshot: Snapshot,
  terms: readonly string[],
  options: RankOptions,
): { hits: SearchHit[]; prefixFiles: string[] } {
  const table = docTable(snapshot);
  const n = snapshot.paths.length;
  const derived = new Map<string, Derived>();
  const exactTerm = new Map(terms.map((t, i) => [t, i]));
  const derive = (token: string, source: number, weight: number): Derived => {
    let d = derived.get(token);
    if (d === undefined) {
      d = { source, weight, text: new Map() };
      derived.set(token, d);
    }
    return d;
  };
  const count = (d: Derived, file: number) => d.text.set(file, (d.text.get(file) ?? 0) + 1);
  // Each distinct word is split once per query; a word's tokens are matched against the terms and their prefixes.
  const memo = new Map<string, string[]>();
  const prefixOf = new Map<string, number>();
  const tokensHolding = (word: string): string[] => {
    let list = memo.get(word);
    if (list !== undefined) return list;
    list = [];
    for (const token of searchTokens(word)) {
      if (exactTerm.has(token)) list.push(token);
      else
        for (let i = 0; i < terms.length; i++) {
          const t = terms[i] as string;
          if (t.length >= 4 && token.startsWith(t)) {
            list.push(token);
            if (!prefixOf.has(token)) prefixOf.set(token, i);
            break;
          }
        }
    }
    memo.set(word, list);
    return list;
  };
  // Prefix tokens → the files holding them, once per distinct word (ascending): a plain array per token, as most of
  // them are dropped (terms the repository holds are not expanded).
  const prefixHits = new Map<string, number[]>();
  scanWords(snapshot, terms, (file, word) => {
    for (const token of tokensHolding(word)) {
      const source = exactTerm.get(token);
      if (source !== undefined) count(derive(token, source, 1), file);
      else {
        const files = prefixHits.get(token);
        if (files === undefined) prefixHits.set(token, [file]);
        else files.push(file);
      }
    }
  });
  const present = (t: string) => (derived.get(t)?.text.size ?? 0) > 0 || table.pathPostings.has(t);
  const absent = terms.map((t) => !present(t));
  // Prefix expansions of absent terms, from the text pass and from the path vocabulary.
  const prefixWeight = (token: string, term: string) =>
    (options.prefixWeight * token.length) / (token.length + 0.3 * (token.length - term.length));
  for (const [token, files] of prefixHits) {
    const source = prefixOf.get(token) as number;
    if (!absent[source]) continue;
    const d = derive(token, source, prefixWeight(token, terms[source] as string));
    for (const file of files) d.text.set(file, (d.text.get(file) ?? 0) + 1);
  }
  terms.forEach((t, source) => {
    if (!absent[source] || t.length < 4) return;
    for (const token of table.pathVocabulary)
      if (token !== t && token.startsWith(t)) derive(token, source, prefixWeight(token, t));
  });
  // Fuzzy expansions of absent terms of 6+ letters (a token that is also a prefix expansion stays a prefix one).
  const fuzzyTerms = terms
    .map((t, i) => ({ t, i, k: Math.min(6, Math.round(t.length * options.fuzzy)) }))
    .filter((f) => absent[f.i] && f.t.length >= 6 && f.k > 0);
  if (fuzzyTerms.length > 0) {
    // Tokens already matched as a term or a prefix expansion are not fuzzy expansions too.
    const taken = new Set([...derived.keys(), ...terms]);
    const fuzzyOf = (token: string): { source: number; distance: number } | undefined => {
      if (taken.has(token)) return undefined;
      for (const f of fuzzyTerms) {
        if (token.startsWith(f.t)) continue;
        const distance = boundedEditDistance(token, f.t, f.k);
        if (distance > 0 && distance <= f.k) return { source: f.i, distance };
      }
      return undefined;
    };
    const fuzzyMemo = new Map<string, readonly string[]>();
    const weightOf = (token: string, distance: number) =>
      (options.fuzzyWeight * token.length) / (token.length + distance);
    scanWords(
      snapshot,
      fuzzyTerms.flatMap((f) => pieces(f.t, f.k)),
      (file, word) => {
        let tokens = fuzzyMemo.get(word);
        if (tokens === undefined) {
          tokens = searchTokens(word).filter((token) => fuzzyOf(token) !== undefined);
          fuzzyMemo.set(word, tokens);
        }
        for (const token of tokens) {
          const f = fuzzyOf(token) as { source: number; distance: number };
          count(derive(token, f.source, weightOf(token, f.distance)), file);
        }
      },
    );
    for (const token of table.pathVocabulary) {
      const f = fuzzyOf(token);
      if (f !== undefined) derive(token, f.source, weightOf(token, f.distance));
    }
  }
  // Path and text fields.
  const score = new Float64Array(n);
  const sources = new Map<number, Set<number>>();
  const fields = new Map<number, Map<string, Set<SearchField>>>();
  const note = (file: number, token: string, d: Derived, field: SearchField) => {
    let s = sources.get(file);
    if (s === undefined) sources.set(file, (s = new Set()));
    s.add(d.source);
    let f = fields.get(file);
    if (f === undefined) fields.set(file, (f = new Map()));
    let set = f.get(token);
    if (set === undefined) f.set(token, (set = new Set()));
    set.add(field);
  };
  for (const [token, d] of derived) {
    if (d.source !== exactTerm.get(token) && !absent[d.source]) continue;
    const inPath = new Map<number, number>();
    for (const file of table.pathPostings.get(token) ?? []) inPath.set(file, (inPath.get(file) ?? 0) + 1);
    for (const [file, tf] of inPath) {
      score[file] =
        (score[file] as number) +
        d.weight * options.boost.path * bm25(tf, inPath.size, n, table.pathLength[file] as number, table.avgPathLength);
      note(file, token, d, "path");
    }
    for (const [file, tf] of d.text) {
      score[file] =
        (score[file] as number) +
        d.weight * options.boost.text * bm25(tf, d.text.size, n, table.textLength[file] as number, table.avgTextLength);
      note(file, token, d, "text");
    }
  }
  // Symbols field, for the best candidates so far.
  const quality = (file: number) => sources.get(file)?.size ?? 0;
  const byScore = (a: number, b: number) =>
    (score[b] as number) * quality(b) - (score[a] as number) * quality(a) || a - b;
  const best = [...sources.keys()].sort(byScore);
  const affordable = new Set(
    withinBudget(
      snapshot,
      best.map((file) => snapshot.paths[file] as string),
      SYMBOL_CANDIDATES,
    ),
  );
  const candidates = best.filter((file) => affordable.has(snapshot.paths[file] as string));
  const symbolTokens = candidates.map((file) =>
    [...new Set(options.symbolsOf(snapshot.paths[file] as string))].flatMap((name) => searchTokens(name)),
  );
  const avgSymbols = symbolTokens.reduce((s, t) => s + t.length, 0) / (symbolTokens.length || 1);
  candidates.forEach((file, c) => {
    const tokens = symbolTokens[c] as string[];
    for (const token of tokens) {
      const d = derived.get(token);
      if (d === undefined) continue;
      if (fields.get(file)?.get(token)?.has("symbols")) continue;
      let tf = 0;
      for (const t of tokens) if (t === token) tf++;
      const df = Math.max(1, d.text.size);
      score[file] =
        (score[file] as number) + d.weight * options.boost.symbols * bm25(tf, df, n, tokens.length, avgSymbols);
      note(file, token, d, "symbols");
    }
  });
  const ranked = [...sources.keys()].sort(byScore);
  const prefixCount = new Map<number, number>();
  for (const files of prefixHits.values()) {
    files.forEach((file, i) => {
      if (files[i - 1] !== file && !sources.has(file)) prefixCount.set(file, (prefixCount.get(file) ?? 0) + 1);
    });
  }
  const prefixFiles = [...prefixCount.keys()].sort(
    (a, b) => (prefixCount.get(b) as number) - (prefixCount.get(a) as number) || a - b,
  );
  const hits = ranked.map((file) => {
    const match: Record<string, SearchField[]> = {};
    for (const [token, set] of fields.get(file) ?? []) match[token] = SEARCH_FIELDS.filter((f) => set.has(f));
    const matched = [...(sources.get(file) ?? [])].sort((a, b) => a - b).map((i) => terms[i] as string);
    return {
      id: snapshot.paths[file] as string,
      score: (score[file] as number) * quality(file),
      terms: matched,
      match,
    };
  });
  return { hits, prefixFiles: prefixFiles.map((file) => snapshot.paths[file] as string) };
}
