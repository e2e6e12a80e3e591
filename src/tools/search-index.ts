import { isSecretPath, scanSecrets, secretFreeRange } from "../grounding/secrets.js";
import { rawIsLatin1, rawIsText, rawText } from "../snapshot/builder.js";
import type { Snapshot } from "../types.js";
import { boundedEditDistance } from "./nearest.js";
import { scanWorkerSettings, startShare, warmScanWorker } from "./scan-worker.js";
import { anyWordMayTouchSecret, blankSecrets, secretSpans, walkSpent } from "./secret-words.js";
import {
  escapeRegExp,
  identifierWords,
  isWordCode as isWordChar,
  searchTokenCount,
  withinBudget,
  type ExtractBudget,
} from "./symbol-index.js";
import {
  fileWords,
  keyTextWatch,
  IntList,
  MAX_WORDS_PER_FILE,
  latin1Bytes,
  reserveLatin1,
  scanPattern,
  scannedBytes,
  type ScanPattern,
  WordTable,
} from "./word-scan.js";

export { MAX_WORDS_PER_FILE };

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
 * What one scan for `alternatives` found, kept for later calls: per distinct word of each file that holds one of
 * them, an entry of four integers in `entries` (file index, word id, the offset just past the word's first
 * occurrence in the file, and the bits of `alternatives` the word holds, bit i for `alternatives[i]`), by file and
 * then offset. `capped`: the files where the scan stopped at {@link MAX_WORDS_PER_FILE} distinct words (their
 * entries are the first ones only).
 */
interface ScanRecord {
  alternatives: readonly string[];
  entries: Int32Array;
  capped: ReadonlySet<number>;
}

/** Per snapshot, the word table and the records of its scans (newest last) with their total number of entries. */
interface ScanCache {
  table: WordTable;
  records: ScanRecord[];
  size: number;
  /** Text files that are not secret files: what a scan reads (-1 until the first scan). */
  textFiles: number;
}

/** Entries the records of one snapshot keep at most (16 bytes each); the oldest records go first. */
const MAX_CACHED_ENTRIES = 1 << 19;
/** Words the table of one snapshot keeps at most; past it the table and the records start again. */
const MAX_TABLE_WORDS = 1 << 20;

const scanCaches = new WeakMap<Snapshot, ScanCache>();

/** The {@link ScanCache} of `snapshot`, made (or made again, past {@link MAX_TABLE_WORDS}) when needed. */
function scanCache(snapshot: Snapshot): ScanCache {
  let cache = scanCaches.get(snapshot);
  if (cache === undefined || cache.table.words.length > MAX_TABLE_WORDS) {
    cache = { table: new WordTable(), records: [], size: 0, textFiles: -1 };
    scanCaches.set(snapshot, cache);
  }
  return cache;
}

/**
 * What {@link visibleWords} knows of the secrets of a snapshot's files, kept per snapshot: `clear[i]` is 1 for a file
 * scanned for secrets and found to hold none (every word shown, no test again); `held` the spans of those that hold
 * some (offsets of the raw text; their words are taken with them blanked); any other file is tested word by word.
 * `keyText[i]`: whether the raw text holds "PRIVATE KEY" (every key block's BEGIN line does), 0 not known yet, 1 no,
 * 2 yes, worked out once: by the needle scan of the file's first pass, which notes whether it met " KE"
 * (`keyTextWatch`, word-scan.ts), else by one native search (~37 ms for the bench's 108 MB when all were searched;
 * the per-word key-block test it spares cost ~39 ms a pass).
 */
interface SecretMemo {
  clear: Uint8Array;
  held: Map<number, readonly { start: number; end: number }[]>;
  keyText: Uint8Array;
}

const secretMemos = new WeakMap<Snapshot, SecretMemo>();

/** The {@link SecretMemo} of `snapshot`, made (nothing known) when needed. */
function secretMemo(snapshot: Snapshot): SecretMemo {
  let memo = secretMemos.get(snapshot);
  if (memo === undefined) {
    const n = snapshot.paths.length;
    memo = { clear: new Uint8Array(n), held: new Map(), keyText: new Uint8Array(n) };
    secretMemos.set(snapshot, memo);
  }
  return memo;
}

/** Whether `content`, the raw text of `file`, holds "PRIVATE KEY" (see {@link SecretMemo}). */
function holdsKeyText(memo: SecretMemo, file: number, content: string): boolean {
  if (memo.keyText[file] === 0) memo.keyText[file] = content.includes("PRIVATE KEY") ? 2 : 1;
  return memo.keyText[file] === 2;
}

/** `fileWords` on `content` with every span of `spans` blanked (same offsets): the words its served text shows. */
function blankedWords(
  content: string,
  spans: readonly { start: number; end: number }[],
  narrow: boolean,
  file: number,
  pattern: ScanPattern,
  table: WordTable,
  out: IntList,
): number {
  return fileWords(blankSecrets(content, spans, isWordChar), narrow, file, pattern, table, out);
}

/**
 * `fileWords` (word-scan.ts) for `file`, whose raw text is `content`, keeping only the words its served text shows:
 * when one of the words taken may touch a secret (`anyWordMayTouchSecret`, secret-words.ts), the file's secrets are
 * found exactly, once per snapshot, and if it has any its words are taken again from its raw text with every secret
 * blanked (same offsets), as every later pass then does for that file at once. A file found to have none is not
 * tested again. The entries go to `out` as `fileWords` puts them.
 * @returns the number of the file's words taken, as `fileWords` does
 */
function visibleWords(
  snapshot: Snapshot,
  file: number,
  content: string,
  narrow: boolean,
  pattern: ScanPattern,
  table: WordTable,
  out: IntList,
): number {
  const memo = secretMemo(snapshot);
  const spans = memo.held.get(file);
  if (spans !== undefined) return blankedWords(content, spans, narrow, file, pattern, table, out);
  const from = out.length;
  // The scan tells, as it goes, whether the text may hold "PRIVATE KEY" (see SecretMemo), when that is not known.
  keyTextWatch.watch = memo.keyText[file] === 0;
  const taken = fileWords(content, narrow, file, pattern, table, out);
  keyTextWatch.watch = false;
  if (keyTextWatch.seen === 1) memo.keyText[file] = 1;
  if (memo.clear[file] === 1 || out.length === from) return taken;
  // The bytes fileWords just scanned are `content`'s.
  return keepShown(snapshot, file, content, scannedBytes(), narrow, pattern, table, out, from, taken);
}

/** Lines around a word {@link clearInRanges} scans for secrets at most (characters); past it, the file's whole. */
const MAX_RANGE = 1 << 16;
/**
 * What one range of {@link clearInRanges} counts for besides its characters: a file with a line of a credential's
 * name and a short value per word (each word "maybe") cost ~18 µs a word in every pass, ~20 ms for a 100 KB file of
 * 1,111 such words, its state never known; scanned whole once (then known clear or held) it costs a few ms.
 */
const RANGE_COST = 256;

/**
 * Whether no word of `out[from..]` (as for `anyWordMayTouchSecret`, secret-words.ts) overlaps or touches a secret of
 * `content`, an ASCII text without a private key block, found without scanning it whole: each word the byte test
 * does not clear is looked up in the secrets of the lines around it (`secretFreeRange`, the ranges `scanSecrets`
 * can scan alone, each scanned once). False (scan the whole file) at the first word a secret touches, or whose
 * range is long (over {@link MAX_RANGE} characters: minified code), or once the ranges scanned add up to a quarter of
 * the file (see {@link RANGE_COST}).
 */
function clearInRanges(
  content: string,
  bytes: Uint8Array,
  out: IntList,
  from: number,
  lengthOf: (id: number) => number,
): boolean {
  const ranges: { from: number; to: number; spans: readonly { start: number; end: number }[] }[] = [];
  // Characters scanned so far, each range counted with RANGE_COST more (a scanSecrets call costs its patterns' runs
  // even on a short line): past a quarter of the file the whole file is scanned, once, as its state is then known.
  let scanned = 0;
  for (let k = from; k < out.length; k += 4) {
    if (!anyWordMayTouchSecret(content, bytes, out.data, k, k + 4, lengthOf, false)) continue;
    const end = out.data[k + 2] as number;
    const start = end - lengthOf(out.data[k + 1] as number);
    let range = ranges.find((r) => r.from <= start && start < r.to);
    if (range === undefined) {
      const r = secretFreeRange(content, start, end);
      scanned += r.to - r.from + RANGE_COST;
      if (r.to - r.from > MAX_RANGE || scanned * 4 > content.length) return false;
      const spans = scanSecrets(content.slice(r.from, r.to)).map((s) => ({
        start: s.start + r.from,
        end: s.end + r.from,
      }));
      ranges.push((range = { ...r, spans }));
    }
    if (range.spans.some((s) => s.start <= end && s.end >= start)) return false;
  }
  return true;
}

/**
 * The second half of {@link visibleWords}, for a file of unknown secrets ({@link SecretMemo}) whose words `out[from..]`
 * were taken from its raw text `content` (`bytes` its Latin-1), `taken` of them in all: those words stay when none
 * may touch a secret, or when the file has none; otherwise they are taken again with its secrets blanked.
 * @returns the number of the file's words taken
 */
function keepShown(
  snapshot: Snapshot,
  file: number,
  content: string,
  bytes: Uint8Array,
  narrow: boolean,
  pattern: ScanPattern,
  table: WordTable,
  out: IntList,
  from: number,
  taken: number,
): number {
  const lengthOf = (id: number) => table.lengths[id] as number;
  const memo = secretMemo(snapshot);
  const keyText = holdsKeyText(memo, file, content);
  if (!anyWordMayTouchSecret(content, bytes, out.data, from, out.length, lengthOf, keyText)) return taken;
  const path = snapshot.paths[file] as string;
  const ascii = rawIsText(snapshot, path);
  if (ascii && !keyText && !walkSpent() && clearInRanges(content, bytes, out, from, lengthOf)) return taken;
  const spans = secretSpans(content, ascii ? undefined : snapshot.read(path));
  if (spans.length === 0) {
    memo.clear[file] = 1;
    return taken;
  }
  memo.held.set(file, spans);
  for (let k = from; k < out.length; k += 4) table.seen[out.data[k + 1] as number] = -1;
  out.length = from;
  return blankedWords(content, spans, narrow, file, pattern, table, out);
}

/**
 * One pass over the text files of a snapshot (secret files skipped) for the words that contain any of `needles`
 * (strings of word characters; a needle holding any other character finds nothing), ignoring case: one regular
 * expression with the needles as alternatives (V8 scans for them together), each match widened to the whole word
 * around it. `onWord(file, word, id)` is called
 * once per distinct word (2 to 80 characters) per file, files in `snapshot.paths` order and a file's words in the
 * order of their first occurrence, `file` being the index in `snapshot.paths` and `id` a number from 0 that is the
 * same for the same word throughout the call (first reported first); at most {@link MAX_WORDS_PER_FILE} distinct
 * words are taken per file. Repeated words cost no allocation: they are found again in a table of the snapshot's
 * words (see {@link WordTable}), and `word` is the same string each time.
 *
 * What a pass finds is kept per snapshot ({@link ScanRecord}s, up to {@link MAX_CACHED_ENTRIES} entries): a later
 * call scans only for the needles no earlier pass looked for and merges, by file and offset, what the earlier
 * passes found for the others, so it reports exactly what one pass for all of them would (a file an earlier pass
 * stopped at the cap is scanned again).
 *
 * Not re-entrant per snapshot: the ids are per call, kept in the snapshot's one word table, so calling it again on
 * the same snapshot from inside `onWord` throws {@link ScanReentryError} (collect the words, then scan again after
 * the call returns). Another snapshot may be scanned from inside a callback.
 * @returns the number of text files scanned.
 * @throws ScanReentryError, or what `onWord` throws
 */
export function scanWords(
  snapshot: Snapshot,
  needles: readonly string[],
  onWord: (file: number, word: string, id: number) => void,
): number {
  if (scanning.has(snapshot)) throw new ScanReentryError();
  scanning.add(snapshot);
  try {
    return scanWordsOnce(snapshot, needles, onWord);
  } finally {
    scanning.delete(snapshot);
  }
}

/**
 * Thrown by {@link scanWords} called on a snapshot from inside a `scanWords` callback on that same snapshot: the
 * inner call would reset the outer call's word ids (a bug in the caller, never the user's input).
 */
export class ScanReentryError extends Error {
  constructor() {
    super("scanWords called from inside a scanWords callback on the same snapshot (word ids would be corrupted)");
    this.name = "ScanReentryError";
  }
}

/** The snapshots a {@link scanWords} call is running on. */
const scanning = new WeakSet<Snapshot>();

/** {@link scanWords}' pass, once the call is known not to be nested in another on the same snapshot. */
function scanWordsOnce(
  snapshot: Snapshot,
  needles: readonly string[],
  onWord: (file: number, word: string, id: number) => void,
): number {
  // A word holding a needle that holds another needle also holds the shorter one: scanning for it finds the word.
  // Lower-cased: the pass ignores case, and a record is found again by its needles' text. A needle holding any other
  // character than `[A-Za-z0-9_$]` is in no word, so it finds nothing and is dropped (it would not compile as is).
  const distinct = [...new Set(needles.map((n) => n.toLowerCase()))].filter((n) => /^[\w$]+$/.test(n));
  const alternatives = distinct.filter((n) => !distinct.some((m) => m !== n && n.includes(m)));
  if (alternatives.length === 0) return 0;
  const cache = scanCache(snapshot);
  const { table } = cache;
  table.begin();
  // The newest record that looked for each alternative, with the bits wanted of it; the others are scanned for.
  const wanted = new Map<ScanRecord, number>();
  const fresh: string[] = [];
  for (const a of alternatives) {
    const record = cache.records.findLast((r) => r.alternatives.includes(a));
    if (record === undefined) fresh.push(a);
    else wanted.set(record, (wanted.get(record) ?? 0) | (1 << record.alternatives.indexOf(a)));
  }
  // The bits of `fresh` a word holds: kept with the pass, so that a later call can take one needle's words.
  const keep = fresh.length <= 31;
  const entries = new IntList();
  const capped = new Set<number>();
  if (fresh.length > 0) {
    const pattern = scanPattern(fresh);
    // With nothing to merge, words are reported as they are found.
    const direct = wanted.size === 0;
    const { paths } = snapshot;
    const narrow = rawIsLatin1(snapshot);
    const readable = scannable(snapshot);
    reserveLatin1(longestText(snapshot));
    // The entries from `from` on, of files met in order: their bits, and their words reported when direct.
    const settle = (from: number) => {
      for (let k = from; k < entries.length; k += 4) {
        const id = entries.data[k + 1] as number;
        if (keep) entries.data[k + 3] = table.bitsOf(id, fresh);
        if (direct) onWord(entries.data[k] as number, table.words[id] as string, table.localId(id));
      }
    };
    // A large snapshot's files from `split` on go to the scan worker; it answers what this thread would find there.
    const plan = sharePlan(snapshot);
    const share =
      plan === undefined
        ? undefined
        : startShare(
            snapshot,
            fresh,
            plan.files,
            plan.lengths,
            (i) => rawText(snapshot, paths[plan.files[i] as number] as string) as string,
            narrow,
          );
    const scan = (first: number, end: number) => {
      for (let file = first; file < end; file++) {
        if (readable[file] === 0) continue;
        // The raw text: the words are ASCII, so they are the same as in the decoded text, without decoding anything.
        const content = rawText(snapshot, paths[file] as string) as string;
        const from = entries.length;
        if (visibleWords(snapshot, file, content, narrow, pattern, table, entries) >= MAX_WORDS_PER_FILE)
          capped.add(file);
        settle(from);
        share?.pump();
      }
    };
    try {
      scan(0, share === undefined || plan === undefined ? paths.length : plan.split);
    } catch (error) {
      share?.cancel();
      throw error;
    }
    if (share !== undefined && plan !== undefined) {
      const theirs = share.result();
      if (theirs === undefined) scan(plan.split, paths.length);
      else {
        // Their words join the table in the order met, so they get the ids this thread would have given them.
        const from = entries.length;
        const ids = new Int32Array(theirs.words.length).fill(-1);
        const e = theirs.entries;
        const memo = secretMemo(snapshot);
        const theirCapped = new Set(theirs.capped);
        for (let k = 0; k < e.length;) {
          // One file's entries, then only the words its served text shows, as visibleWords keeps them.
          const file = e[k] as number;
          const fileFrom = entries.length;
          for (; k < e.length && e[k] === file; k += 4) {
            const local = e[k + 1] as number;
            let id = ids[local] as number;
            if (id === -1) ids[local] = id = table.intern(theirs.words[local] as string);
            entries.push4(file, id, e[k + 2] as number, 0);
          }
          let taken = theirCapped.has(file) ? MAX_WORDS_PER_FILE : (entries.length - fileFrom) / 4;
          const content = rawText(snapshot, paths[file] as string) as string;
          const spans = memo.held.get(file);
          // A file known to hold secrets is taken again with them blanked (the worker read its raw text).
          if (spans !== undefined) {
            entries.length = fileFrom;
            taken = blankedWords(content, spans, narrow, file, pattern, table, entries);
          } else if (memo.clear[file] !== 1) {
            const bytes = latin1Bytes(content, narrow);
            taken = keepShown(snapshot, file, content, bytes, narrow, pattern, table, entries, fileFrom, taken);
          }
          if (taken >= MAX_WORDS_PER_FILE) capped.add(file);
        }
        settle(from);
      }
    }
    table.seen.fill(-1);
    cache.textFiles = textFileCount(snapshot);
  }
  if (wanted.size > 0) merge(snapshot, cache, alternatives, entries, wanted, onWord);
  if (fresh.length > 0 && keep) {
    remember(cache, { alternatives: fresh, entries: entries.data.slice(0, entries.length), capped });
  }
  return cache.textFiles;
}

/**
 * Report, file by file and in order of first occurrence, the words of this call's pass (`entries`, all of them)
 * and those of earlier records that hold the `wanted` bits, each word once per file and at most
 * {@link MAX_WORDS_PER_FILE} per file; a file some record stopped at that cap is scanned again for all
 * `alternatives`. The sources are merged on (file, offset): a word's offset is where its first occurrence in the
 * file ends, the same in every record, and no two words share one.
 */
function merge(
  snapshot: Snapshot,
  cache: ScanCache,
  alternatives: readonly string[],
  entries: IntList,
  wanted: ReadonlyMap<ScanRecord, number>,
  onWord: (file: number, word: string, id: number) => void,
): void {
  const { table } = cache;
  interface Source {
    data: Int32Array;
    end: number;
    bits: number;
    at: number;
  }
  const sources: Source[] = [{ data: entries.data, end: entries.length, bits: -1, at: 0 }];
  const rescan = new Set<number>();
  for (const [record, bits] of wanted) {
    sources.push({ data: record.entries, end: record.entries.length, bits, at: 0 });
    for (const file of record.capped) rescan.add(file);
  }
  // Past the entries a source does not want (the words of another needle of an earlier pass).
  const skip = (s: Source) => {
    // This call's own words are all wanted (their bits are not worked out past 31 needles).
    if (s.bits === -1) return;
    while (s.at < s.end && ((s.data[s.at + 3] as number) & s.bits) === 0) s.at += 4;
  };
  sources.forEach(skip);
  const again = [...rescan].sort((a, b) => a - b);
  let next = 0; // the next file of `again`
  let pattern: ScanPattern | undefined;
  const found = new IntList();
  const narrow = rawIsLatin1(snapshot);
  reserveLatin1(longestText(snapshot));
  for (;;) {
    let file = next < again.length ? (again[next] as number) : -1;
    for (const s of sources) {
      const f = s.at < s.end ? (s.data[s.at] as number) : -1;
      if (f !== -1 && (file === -1 || f < file)) file = f;
    }
    if (file === -1) break;
    if (file === again[next]) {
      next++;
      for (const s of sources) {
        while (s.at < s.end && s.data[s.at] === file) s.at += 4;
        skip(s);
      }
      const content = rawText(snapshot, snapshot.paths[file] as string) as string;
      found.length = 0;
      visibleWords(snapshot, file, content, narrow, (pattern ??= scanPattern(alternatives)), table, found);
      for (let k = 0; k < found.length; k += 4) {
        const id = found.data[k + 1] as number;
        onWord(file, table.words[id] as string, table.localId(id));
      }
      continue;
    }
    let taken = 0;
    let last = -1;
    for (;;) {
      let best: Source | undefined;
      for (const s of sources) {
        if (s.at >= s.end || s.data[s.at] !== file) continue;
        if (best === undefined || (s.data[s.at + 2] as number) < (best.data[best.at + 2] as number)) best = s;
      }
      if (best === undefined) break;
      const end = best.data[best.at + 2] as number;
      if (end !== last && taken < MAX_WORDS_PER_FILE) {
        const id = best.data[best.at + 1] as number;
        onWord(file, table.words[id] as string, table.localId(id));
        taken++;
      }
      last = end;
      best.at += 4;
      skip(best);
    }
  }
  if (again.length > 0) table.seen.fill(-1);
}

/** Keep `record` for later calls, dropping the oldest records past {@link MAX_CACHED_ENTRIES} entries. */
function remember(cache: ScanCache, record: ScanRecord): void {
  const size = record.entries.length / 4;
  if (size > MAX_CACHED_ENTRIES) return;
  cache.records.push(record);
  cache.size += size;
  while (cache.size > MAX_CACHED_ENTRIES) {
    const old = cache.records.shift() as ScanRecord;
    cache.size -= old.entries.length / 4;
  }
}

/** Most strings whose {@link searchTokens} {@link nameTokens} keeps per snapshot; past it, it starts again. */
const MAX_NAME_TOKENS = 1 << 17;

const nameTokenMemos = new WeakMap<Snapshot, Map<string, readonly string[]>>();

/**
 * {@link searchTokens} of names and words of `snapshot`, kept per snapshot (up to {@link MAX_NAME_TOKENS} strings):
 * the same symbol names and words come back across the files and calls of one snapshot. Do not change the arrays.
 */
export function nameTokens(snapshot: Snapshot): (name: string) => readonly string[] {
  let memo = nameTokenMemos.get(snapshot);
  if (memo === undefined) nameTokenMemos.set(snapshot, (memo = new Map()));
  const kept = memo;
  return (name) => {
    let tokens = kept.get(name);
    if (tokens === undefined) {
      if (kept.size >= MAX_NAME_TOKENS) kept.clear();
      kept.set(name, (tokens = searchTokens(name)));
    }
    return tokens;
  };
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
  /** What the symbols field may extract (default `EXTRACT_BUDGET_CHARS`, symbol-index.ts); it is debited. */
  budget?: ExtractBudget;
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

/** The files holding a path token: `files` ascending (each once) and `tf[i]` the token's occurrences in `files[i]`. */
interface PathPostings {
  files: Int32Array;
  tf: Int32Array;
}

/** Path tokens whose postings a {@link DocTable} keeps at most (tokens of queries, most of them in no path). */
const MAX_PATH_POSTINGS = 4096;

const readables = new WeakMap<Snapshot, Uint8Array>();

/**
 * Per path index of `snapshot`, 1 for the files a scan reads (text files that are not secret files), else 0;
 * worked out once per snapshot (when they are large enough to share a scan, the scan worker is started then).
 */
function scannable(snapshot: Snapshot): Uint8Array {
  let out = readables.get(snapshot);
  if (out === undefined) {
    const { paths } = snapshot;
    out = new Uint8Array(paths.length);
    let chars = 0;
    for (let i = 0; i < paths.length; i++) {
      const path = paths[i] as string;
      const text = rawText(snapshot, path);
      out[i] = text !== undefined && !isSecretPath(path) ? 1 : 0;
      if (out[i] === 1) chars += (text as string).length;
    }
    readables.set(snapshot, out);
    // A scan will share this snapshot with the worker: it starts now, while the caller does other work first.
    if (chars >= scanWorkerSettings.minChars) warmScanWorker();
  }
  return out;
}

/** Per snapshot: its scannable files, their raw text in characters, and the share of them the scan worker takes. */
interface ScanShares {
  textFiles: number;
  chars: number;
  /** The first file of the worker's share (all files from it on), its scannable files (ascending) and their lengths. */
  split: number;
  files: Int32Array;
  lengths: Int32Array;
}

const shares = new WeakMap<Snapshot, ScanShares>();

/**
 * The part of the raw text (in characters) of a large snapshot's scannable files that the scan worker
 * (scan-worker.ts) scans: its last files. More than half: this thread also copies the worker's texts to it and
 * reports every word of the pass (the worker makes strings of its texts, which costs it less).
 */
const WORKER_SHARE = 0.58;

/** {@link ScanShares} of `snapshot`, worked out once. */
function scanShares(snapshot: Snapshot): ScanShares {
  let out = shares.get(snapshot);
  if (out === undefined) {
    const readable = scannable(snapshot);
    const lengths = new Float64Array(readable.length);
    let chars = 0;
    let textFiles = 0;
    for (let i = 0; i < readable.length; i++) {
      if (readable[i] === 0) continue;
      textFiles++;
      chars += lengths[i] = (rawText(snapshot, snapshot.paths[i] as string) as string).length;
    }
    let split = readable.length;
    let theirs = 0;
    while (split > 0 && theirs + (lengths[split - 1] as number) <= chars * WORKER_SHARE)
      theirs += lengths[--split] as number;
    const files: number[] = [];
    for (let i = split; i < readable.length; i++) if (readable[i] === 1) files.push(i);
    out = {
      textFiles,
      chars,
      split,
      files: Int32Array.from(files),
      lengths: Int32Array.from(files, (i) => lengths[i] as number),
    };
    shares.set(snapshot, out);
  }
  return out;
}

/** The number of files a scan of `snapshot` reads (see {@link scannable}). */
function textFileCount(snapshot: Snapshot): number {
  return scanShares(snapshot).textFiles;
}

/**
 * The worker's share of a scan of `snapshot` when its scannable raw text is at least `scanWorkerSettings.minChars`
 * characters and the share holds a file; otherwise undefined (one thread scans).
 */
function sharePlan(snapshot: Snapshot): ScanShares | undefined {
  const plan = scanShares(snapshot);
  return plan.chars >= scanWorkerSettings.minChars && plan.files.length > 0 ? plan : undefined;
}

const longests = new WeakMap<Snapshot, number>();

/** The length of the longest raw text a scan of `snapshot` reads (see {@link scannable}); worked out once. */
function longestText(snapshot: Snapshot): number {
  let longest = longests.get(snapshot);
  if (longest === undefined) {
    const readable = scannable(snapshot);
    longest = 0;
    for (let i = 0; i < readable.length; i++) {
      if (readable[i] === 1)
        longest = Math.max(longest, (rawText(snapshot, snapshot.paths[i] as string) as string).length);
    }
    longests.set(snapshot, longest);
  }
  return longest;
}

/** What is kept per snapshot: path tokens and field lengths (a few values per path, no postings of the text). */
interface DocTable {
  pathLength: Float64Array;
  avgPathLength: number;
  textLength: Float64Array;
  avgTextLength: number;
  /** Path token → the files whose path holds it; worked out on first use of each token (one pass over folders). */
  pathPostings(token: string): PathPostings;
  /** Every distinct path token, in the order first met (paths in order), for expansions on the path field. */
  pathVocabulary(): readonly string[];
}

const tables = new WeakMap<Snapshot, DocTable>();

/**
 * The per-snapshot table: the number of tokens of each path, and the length of each text file's text field. The text
 * field's length is estimated as √(characters) — the number of distinct words of a text grows about as the square root
 * of its length (Heaps' law; Heaps, "Information Retrieval: Computational and Theoretical Aspects", 1978) — so no pass
 * over the words of every file is needed. Shapes: `pathLength[i]`/`textLength[i]` for `snapshot.paths[i]` (tokens;
 * √characters, 0 for non-text and secret files). A path's tokens are its folder's then its name's, and a folder's are
 * its parent's then its last segment's: each distinct segment is counted once (`searchTokenCount`, nothing built), and
 * split into tokens only when a token asked for is in it (a token is a lower-cased piece of its segment) or when the
 * whole vocabulary is asked for.
 */
function docTable(snapshot: Snapshot): DocTable {
  const hit = tables.get(snapshot);
  if (hit !== undefined) return hit;
  const { paths } = snapshot;
  const n = paths.length;
  const pathLength = new Float64Array(n);
  const textLength = new Float64Array(n);
  const readable = scannable(snapshot);
  // "/" is no word character, so a path's tokens are its segments' tokens in order. Distinct segments by number.
  const segmentIds = new Map<string, number>();
  const segments: string[] = [];
  const segmentCounts: number[] = [];
  const segmentOf = (name: string): number => {
    let id = segmentIds.get(name);
    if (id === undefined) {
      id = segments.length;
      segmentIds.set(name, id);
      segments.push(name);
      segmentCounts.push(searchTokenCount(name));
    }
    return id;
  };
  // Folder f: its parent folder, its last segment and its number of tokens (folder 0 is the root: none).
  const folders = new Map<string, number>([["", 0]]);
  const folderParent: number[] = [-1];
  const folderSegment: number[] = [-1];
  const folderCount: number[] = [0];
  const folder = (dir: string): number => {
    let f = folders.get(dir);
    if (f === undefined) {
      const slash = dir.lastIndexOf("/");
      const parent = folder(slash === -1 ? "" : dir.slice(0, slash));
      const segment = segmentOf(dir.slice(slash + 1));
      f = folderParent.length;
      folderParent.push(parent);
      folderSegment.push(segment);
      folderCount.push((folderCount[parent] as number) + (segmentCounts[segment] as number));
      folders.set(dir, f);
    }
    return f;
  };
  // A path without a folder is its own name (folder 0 holds no tokens; "" as a first segment holds none either).
  const folderOf = new Int32Array(n);
  const nameOf = new Int32Array(n);
  let pathSum = 0;
  let textSum = 0;
  for (let i = 0; i < n; i++) {
    const path = paths[i] as string;
    const slash = path.lastIndexOf("/");
    const f = slash === -1 ? 0 : folder(path.slice(0, slash));
    const name = segmentOf(path.slice(slash + 1));
    folderOf[i] = f;
    nameOf[i] = name;
    const count = (folderCount[f] as number) + (segmentCounts[name] as number);
    pathLength[i] = count;
    pathSum += count;
    const length = readable[i] === 1 ? Math.sqrt((rawText(snapshot, path) as string).length) : 0;
    textLength[i] = length;
    textSum += length;
  }
  const segmentTokens: (readonly string[] | undefined)[] = [];
  const tokensOfSegment = (id: number): readonly string[] =>
    (segmentTokens[id] ??= searchTokens(segments[id] as string));
  let lowerSegments: string[] | undefined;
  const postings = new Map<string, PathPostings>();
  let vocabulary: string[] | undefined;
  const table: DocTable = {
    pathLength,
    avgPathLength: pathSum / (n || 1),
    textLength,
    avgTextLength: textSum / (n || 1),
    pathPostings(token) {
      let p = postings.get(token);
      if (p !== undefined) return p;
      lowerSegments ??= segments.map((name) => name.toLowerCase());
      // Occurrences of the token among each segment's tokens: 0 for a segment that does not hold it at all.
      const inSegment = new Int32Array(segments.length);
      for (let id = 0; id < segments.length; id++) {
        if (!(lowerSegments[id] as string).includes(token)) continue;
        let c = 0;
        for (const t of tokensOfSegment(id)) if (t === token) c++;
        inSegment[id] = c;
      }
      // Folders are numbered after their parents, so a parent's count is known before its children's.
      const inFolder = new Int32Array(folderParent.length);
      for (let f = 1; f < folderParent.length; f++)
        inFolder[f] =
          (inFolder[folderParent[f] as number] as number) + (inSegment[folderSegment[f] as number] as number);
      const files: number[] = [];
      const tf: number[] = [];
      for (let i = 0; i < n; i++) {
        const c = (inFolder[folderOf[i] as number] as number) + (inSegment[nameOf[i] as number] as number);
        if (c === 0) continue;
        files.push(i);
        tf.push(c);
      }
      if (postings.size >= MAX_PATH_POSTINGS) postings.clear();
      postings.set(token, (p = { files: Int32Array.from(files), tf: Int32Array.from(tf) }));
      return p;
    },
    pathVocabulary() {
      if (vocabulary === undefined) {
        // In the order first met: paths in order, each folder's segments from the root, then the name.
        const seen = new Set<string>();
        const chain: number[] = [];
        for (let i = 0; i < n; i++) {
          chain.length = 0;
          for (let f = folderOf[i] as number; f > 0; f = folderParent[f] as number)
            chain.push(folderSegment[f] as number);
          for (let k = chain.length - 1; k >= 0; k--) for (const t of tokensOfSegment(chain[k] as number)) seen.add(t);
          for (const t of tokensOfSegment(nameOf[i] as number)) seen.add(t);
        }
        vocabulary = [...seen];
      }
      return vocabulary;
    },
  };
  tables.set(snapshot, table);
  return table;
}

/**
 * One way a query term matched: the term itself or an expansion of it, with its weight and its text-field postings:
 * `files` the files whose text holds the token (ascending, each once) and `tf[i]` its frequency in `files[i]` (the
 * number of distinct words of the file holding the token). Filled by one ascending scan, so a count for a file is
 * always for the last file listed.
 */
interface Derived {
  token: string;
  source: number;
  weight: number;
  files: number[];
  tf: number[];
}

/** Add one occurrence of `d`'s token in `file`, `file` being the last file counted for it or a later one. */
function count(d: Derived, file: number): void {
  const last = d.files.length - 1;
  if (last >= 0 && d.files[last] === file) d.tf[last] = (d.tf[last] as number) + 1;
  else {
    d.files.push(file);
    d.tf.push(1);
  }
}

/** Whether ascending `list` holds `value` (binary search). */
function holds(list: ArrayLike<number>, value: number): boolean {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const v = list[mid] as number;
    if (v === value) return true;
    if (v < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** The number of bits set in a 32-bit integer. */
function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The files {@link rankFiles} found, best first, with the detail of each computed only when asked. */
export interface Ranking {
  /** Every matching file's path, best first (ties in path order). */
  paths: string[];
  /** The score, matched terms and fields of `paths[k]` (`k` from 0). */
  hit(k: number): SearchHit;
  /**
   * The other files holding a token that a term of 4+ letters starts (also when the term itself is present), most
   * such tokens first — where a caller looks for names by prefix.
   */
  prefixFiles: string[];
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
 * Files of a snapshot ranked for query `terms` (at most 31 distinct lower-case tokens, see {@link searchTokens})
 * with BM25+ over three fields — the path's tokens, the symbols defined in the file (names split by
 * {@link searchTokens}), and the tokens of the distinct words of a text file — summed over the terms and multiplied
 * by the number of terms matched. Nothing is indexed ahead: the text field is one {@link scanWords} pass for the
 * query's terms, with term frequencies and document frequencies for those terms only; the symbols field is scored
 * for the best {@link SYMBOL_CANDIDATES} files by path and text that fit the extraction budget (its document
 * frequency taken from the text field, which holds every defined name). A term no path or text holds as such is
 * expanded: to the longer tokens it starts (4+ letters, from the same pass) and to tokens within an edit distance of
 * `fuzzy × length` (6+ letters, one more pass for pieces of the term), each weighted down with its distance.
 * Per file only a score (`Float64Array`) and a bit set of the terms matched (`Int32Array`) are kept; which token
 * matched in which field is worked out for the hits a caller asks for.
 * @throws RangeError for more than 31 terms.
 */
export function rankFiles(snapshot: Snapshot, terms: readonly string[], options: RankOptions): Ranking {
  if (terms.length > 31) throw new RangeError(`rankFiles takes at most 31 terms, not ${terms.length}`);
  const table = docTable(snapshot);
  const tokensOf = nameTokens(snapshot);
  const n = snapshot.paths.length;
  // Insertion order is the order tokens are scored in and listed in a hit's fields.
  const derived = new Map<string, Derived>();
  const exactTerm = new Map(terms.map((t, i) => [t, i]));
  const derive = (token: string, source: number, weight: number): Derived => {
    let d = derived.get(token);
    if (d === undefined) {
      d = { token, source, weight, files: [], tf: [] };
      derived.set(token, d);
    }
    return d;
  };
  // Prefix tokens → the files holding them, once per distinct word (ascending): a plain array per token, as most of
  // them are dropped (terms the repository holds are not expanded).
  const prefixHits = new Map<string, number[]>();
  const prefixOf = new Map<string, number>();
  // Per word id of the pass: where each of its tokens is counted — a term's postings, or a prefix token's files
  // (a token twice in a word counts twice). Each distinct word is split once per query.
  const NONE = { exact: [] as Derived[], prefix: [] as number[][] };
  const targets: (typeof NONE)[] = [];
  const targetsOf = (word: string) => {
    let exact: Derived[] | undefined;
    let prefix: number[][] | undefined;
    for (const token of tokensOf(word)) {
      const source = exactTerm.get(token);
      if (source !== undefined) (exact ??= []).push(derive(token, source, 1));
      else
        for (let i = 0; i < terms.length; i++) {
          const t = terms[i] as string;
          if (t.length >= 4 && token.startsWith(t)) {
            let files = prefixHits.get(token);
            if (files === undefined) {
              prefixHits.set(token, (files = []));
              prefixOf.set(token, i);
            }
            (prefix ??= []).push(files);
            break;
          }
        }
    }
    return exact === undefined && prefix === undefined ? NONE : { exact: exact ?? [], prefix: prefix ?? [] };
  };
  scanWords(snapshot, terms, (file, word, id) => {
    let t = targets[id];
    if (t === undefined) targets[id] = t = targetsOf(word);
    for (const d of t.exact) count(d, file);
    for (const files of t.prefix) files.push(file);
  });
  // A term that only paths hold (no text word does) is scored on the path field too (`search_codebase "parsers"`
  // finds src/parsers/…): an entry with no text postings, after the terms the text holds.
  terms.forEach((t, i) => {
    if (!derived.has(t) && table.pathPostings(t).files.length > 0) derive(t, i, 1);
  });
  const present = (t: string) => (derived.get(t)?.files.length ?? 0) > 0 || table.pathPostings(t).files.length > 0;
  const absent = terms.map((t) => !present(t));
  // Prefix expansions of absent terms, from the text pass and from the path vocabulary.
  const prefixWeight = (token: string, term: string) =>
    (options.prefixWeight * token.length) / (token.length + 0.3 * (token.length - term.length));
  for (const [token, files] of prefixHits) {
    const source = prefixOf.get(token) as number;
    if (!absent[source]) continue;
    const d = derive(token, source, prefixWeight(token, terms[source] as string));
    for (const file of files) count(d, file);
  }
  terms.forEach((t, source) => {
    if (!absent[source] || t.length < 4) return;
    for (const token of table.pathVocabulary())
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
    const weightOf = (token: string, distance: number) =>
      (options.fuzzyWeight * token.length) / (token.length + distance);
    const fuzzyTargets: Derived[][] = [];
    scanWords(
      snapshot,
      fuzzyTerms.flatMap((f) => pieces(f.t, f.k)),
      (file, word, id) => {
        let list = fuzzyTargets[id];
        if (list === undefined) {
          list = [];
          for (const token of tokensOf(word)) {
            const f = fuzzyOf(token);
            if (f !== undefined) list.push(derive(token, f.source, weightOf(token, f.distance)));
          }
          fuzzyTargets[id] = list;
        }
        for (const d of list) count(d, file);
      },
    );
    for (const token of table.pathVocabulary()) {
      const f = fuzzyOf(token);
      if (f !== undefined) derive(token, f.source, weightOf(token, f.distance));
    }
  }
  // Path and text fields. `scored` are the tokens that count (a term, or an expansion of an absent one).
  const score = new Float64Array(n);
  const matched = new Int32Array(n);
  const scored = [...derived.values()].filter((d) => d.source === exactTerm.get(d.token) || absent[d.source]);
  for (const d of scored) {
    const bit = 1 << d.source;
    const inPath = table.pathPostings(d.token);
    for (let i = 0; i < inPath.files.length; i++) {
      const file = inPath.files[i] as number;
      const pathTf = inPath.tf[i] as number;
      const pathDf = inPath.files.length;
      score[file] =
        (score[file] as number) +
        d.weight * options.boost.path * bm25(pathTf, pathDf, n, table.pathLength[file] as number, table.avgPathLength);
      matched[file] = (matched[file] as number) | bit;
    }
    const { files, tf } = d;
    for (let i = 0; i < files.length; i++) {
      const file = files[i] as number;
      score[file] =
        (score[file] as number) +
        d.weight *
          options.boost.text *
          bm25(tf[i] as number, files.length, n, table.textLength[file] as number, table.avgTextLength);
      matched[file] = (matched[file] as number) | bit;
    }
  }
  // Symbols field, for the best candidates so far. Files are ordered by score × terms matched, best first (the
  // comparison answers small integers: a difference of doubles would be a heap number per comparison).
  const key = new Float64Array(n);
  const byKey = (a: number, b: number) => {
    const x = key[a] as number;
    const y = key[b] as number;
    return x < y ? 1 : x > y ? -1 : a - b;
  };
  // An Int32Array: its sort with the same comparison is several times faster than an Array's (~0.3 ms against ~1.5
  // ms for 6,000 files; the order is the same, the comparison being a total order).
  const matching = (): number[] => {
    let count = 0;
    for (let file = 0; file < n; file++) if (matched[file] !== 0) count++;
    const out = new Int32Array(count);
    for (let file = 0, k = 0; file < n; file++) {
      if (matched[file] === 0) continue;
      key[file] = (score[file] as number) * popcount(matched[file] as number);
      out[k++] = file;
    }
    return Array.from(out.sort(byKey));
  };
  const best = matching();
  const affordable = new Set(
    withinBudget(
      snapshot,
      best.map((file) => snapshot.paths[file] as string),
      SYMBOL_CANDIDATES,
      options.budget,
    ),
  );
  const candidates = best.filter((file) => affordable.has(snapshot.paths[file] as string));
  // Per candidate, the number of tokens of its symbols field (the tokens of its distinct names) and the derived
  // tokens among them with their frequencies, in the order first met. A name's tokens are pieces of it, and a derived
  // token holds a term (itself or a prefix expansion) or a piece of a fuzzy term unchanged (see `pieces`): a name
  // holding none of them, ignoring case, holds no derived token, and only the number of its tokens is needed.
  const needles = [...terms, ...fuzzyTerms.flatMap((f) => pieces(f.t, f.k))];
  const mayHold = new RegExp(needles.map(escapeRegExp).join("|"), "i");
  const symbolFields = candidates.map((file) => {
    let length = 0;
    const counts = new Map<Derived, number>();
    for (const name of new Set(options.symbolsOf(snapshot.paths[file] as string))) {
      if (!mayHold.test(name)) {
        length += searchTokenCount(name);
        continue;
      }
      const tokens = tokensOf(name);
      length += tokens.length;
      for (const token of tokens) {
        const d = derived.get(token);
        if (d !== undefined) counts.set(d, (counts.get(d) ?? 0) + 1);
      }
    }
    return { length, counts };
  });
  const avgSymbols = symbolFields.reduce((s, f) => s + f.length, 0) / (symbolFields.length || 1);
  /** File → the derived tokens its symbols matched, in the order first met. */
  const inSymbols = new Map<number, Derived[]>();
  candidates.forEach((file, c) => {
    const { length, counts } = symbolFields[c] as (typeof symbolFields)[number];
    if (counts.size === 0) return;
    const list: Derived[] = [];
    for (const [d, tf] of counts) {
      const df = Math.max(1, d.files.length);
      score[file] = (score[file] as number) + d.weight * options.boost.symbols * bm25(tf, df, n, length, avgSymbols);
      matched[file] = (matched[file] as number) | (1 << d.source);
      list.push(d);
    }
    inSymbols.set(file, list);
  });
  const ranked = matching();
  const prefixCount = new Map<number, number>();
  for (const files of prefixHits.values()) {
    files.forEach((file, i) => {
      if (files[i - 1] !== file && matched[file] === 0) prefixCount.set(file, (prefixCount.get(file) ?? 0) + 1);
    });
  }
  const prefixFiles = [...prefixCount.keys()].sort(
    (a, b) => (prefixCount.get(b) as number) - (prefixCount.get(a) as number) || a - b,
  );
  const hit = (k: number): SearchHit => {
    const file = ranked[k];
    if (file === undefined) throw new RangeError(`no hit ${k} of ${ranked.length}`);
    // Fields per token in the order they were scored: path and text token by token, then the symbols field.
    const fields = new Map<string, Set<SearchField>>();
    for (const d of scored) {
      const inPath = holds(table.pathPostings(d.token).files, file);
      const inText = holds(d.files, file);
      if (!inPath && !inText) continue;
      const set = new Set<SearchField>();
      if (inPath) set.add("path");
      if (inText) set.add("text");
      fields.set(d.token, set);
    }
    for (const d of inSymbols.get(file) ?? []) {
      const set = fields.get(d.token);
      if (set === undefined) fields.set(d.token, new Set(["symbols"]));
      else set.add("symbols");
    }
    const match: Record<string, SearchField[]> = {};
    for (const [token, set] of fields) match[token] = SEARCH_FIELDS.filter((f) => set.has(f));
    const bits = matched[file] as number;
    return {
      id: snapshot.paths[file] as string,
      score: (score[file] as number) * popcount(bits),
      terms: terms.filter((_, i) => (bits & (1 << i)) !== 0),
      match,
    };
  };
  return {
    paths: ranked.map((file) => snapshot.paths[file] as string),
    hit,
    prefixFiles: prefixFiles.map((file) => snapshot.paths[file] as string),
  };
}
