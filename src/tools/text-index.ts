import { boundedEditDistance } from "./nearest.js";

/** One ranked document of {@link TextIndex.search}: which index terms matched in which fields. */
export interface TextHit {
  id: string;
  score: number;
  /** Index terms that matched (exact, prefix or fuzzy expansions of the query terms). */
  terms: string[];
  /** Index term → names of the fields it matched in. */
  match: Record<string, string[]>;
}

/** How {@link TextIndex.search} scores and expands query terms. */
export interface TextSearchOptions {
  /** Field name → score multiplier (default 1). */
  boost: Record<string, number>;
  /** Whether to also match index terms that start with `term`. */
  prefix(term: string): boolean;
  /** Largest edit distance as a fraction of the term length (rounded, at most 6), or `false` for none. */
  fuzzy(term: string): number | false;
  /** Score multipliers of prefix and fuzzy expansions. */
  weights: { prefix: number; fuzzy: number };
}

/** BM25+ parameters (Lv & Zhai, "Lower-bounding term frequency normalization", CIKM 2011), as minisearch uses them. */
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;
const MAX_FUZZY = 6;

/**
 * An in-memory inverted index with BM25+ ranking over a few named fields, built for the one job of ranking the files
 * of a snapshot: documents are added once with their tokens already made (no tokenizer inside), postings are plain
 * arrays per term and field. Scoring follows minisearch 7 (a field's length is its number of distinct terms; a
 * document's score is the sum over query terms and fields of weight × boost × BM25+, times the number of query terms
 * that matched; prefix expansions weigh `prefix × len / (len + 0.3 × extra letters)`, fuzzy ones
 * `fuzzy × len / (len + distance)`), so results rank as they did with minisearch, at a fraction of the build time.
 */
export class TextIndex {
  private readonly ids: string[] = [];
  private readonly lengths: number[][];
  private readonly totals: number[];
  private readonly nFields: number;
  /** Term → term id. */
  private readonly termIds = new Map<string, number>();
  /**
   * Postings as linked lists in flat typed arrays (no object per term): for key `termId * nFields + field`,
   * `head`/`tail` are entry numbers (0 = none) and `df` the number of documents; entry `e` holds `entryDoc[e]`,
   * `entryFreq[e]` and the next entry `entryNext[e]`. Entries of a key are in ascending document order.
   */
  private head = new Int32Array(4096);
  private tail = new Int32Array(4096);
  private df = new Int32Array(4096);
  private entryDoc = new Int32Array(65536);
  private entryFreq = new Int32Array(65536);
  private entryNext = new Int32Array(65536);
  private entries = 0;
  /** Per-term-id counters used while adding one document; all zero between calls. */
  private counts = new Int32Array(1024);

  constructor(readonly fields: readonly string[]) {
    this.nFields = fields.length;
    this.lengths = fields.map(() => []);
    this.totals = fields.map(() => 0);
  }

  /** Number of documents. */
  get size(): number {
    return this.ids.length;
  }

  /** Whether some document holds `term` in some field. */
  has(term: string): boolean {
    return this.termIds.has(term);
  }

  /** The id of `term`, made on first use (callers that add many documents map each distinct word once). */
  termId(term: string): number {
    let id = this.termIds.get(term);
    if (id === undefined) {
      id = this.termIds.size;
      this.termIds.set(term, id);
      if (id >= this.counts.length) this.counts = grow(this.counts, id + 1);
      const keys = (id + 1) * this.nFields;
      if (keys > this.head.length) {
        this.head = grow(this.head, keys);
        this.tail = grow(this.tail, keys);
        this.df = grow(this.df, keys);
      }
    }
    return id;
  }

  /** Add a document: `tokens[f]` are the terms of field `fields[f]`, repeated as often as they occur. */
  add(id: string, tokens: readonly (readonly string[])[]): void {
    this.addIds(id, tokens.map((list) => list.map((t) => this.termId(t))));
  }

  /** Like {@link add}, with terms given by {@link termId}. */
  addIds(id: string, termIds: readonly (readonly number[])[]): void {
    const doc = this.ids.length;
    this.ids.push(id);
    const counts = this.counts;
    for (let f = 0; f < this.nFields; f++) {
      const list = termIds[f] ?? [];
      const distinct: number[] = [];
      for (let i = 0; i < list.length; i++) {
        const t = list[i] as number;
        if (counts[t] === 0) distinct.push(t);
        counts[t] = (counts[t] as number) + 1;
      }
      (this.lengths[f] as number[]).push(distinct.length);
      this.totals[f] = (this.totals[f] as number) + distinct.length;
      if (this.entries + distinct.length + 1 > this.entryDoc.length) {
        const need = this.entries + distinct.length + 1;
        this.entryDoc = grow(this.entryDoc, need);
        this.entryFreq = grow(this.entryFreq, need);
        this.entryNext = grow(this.entryNext, need);
      }
      for (const t of distinct) {
        const key = t * this.nFields + f;
        const e = ++this.entries;
        this.entryDoc[e] = doc;
        this.entryFreq[e] = counts[t] as number;
        if (this.head[key] === 0) this.head[key] = e;
        else this.entryNext[this.tail[key] as number] = e;
        this.tail[key] = e;
        this.df[key] = (this.df[key] as number) + 1;
        counts[t] = 0;
      }
    }
  }

  /**
   * The best `max` documents matching any of `terms` (lower-case index terms, at most 31 are used), best first, with
   * how many documents matched in all. Scores are summed into flat arrays; the match info (which index term in which
   * field) is worked out only for the documents returned. Ties keep the order in which documents were first hit.
   */
  search(terms: readonly string[], options: TextSearchOptions, max: number): { total: number; hits: TextHit[] } {
    const list = terms.slice(0, 31);
    const n = this.ids.length;
    const score = new Float64Array(n);
    const queryBits = new Int32Array(n);
    const touched: number[] = [];
    const derivedByTerm = list.map((term, t) => {
      const derived = this.expand(term, options);
      for (const { term: d, weight } of derived) this.score(d, weight, 1 << t, options, score, queryBits, touched);
      return derived;
    });
    const rank = new Int32Array(n);
    touched.forEach((doc, i) => (rank[doc] = i));
    const final = (doc: number) => (score[doc] as number) * (bitCount(queryBits[doc] as number) || 1);
    const kept: number[] = [];
    for (const doc of touched) {
      // Keep `kept` sorted best first; a document enters only when it beats the last kept one.
      const f = final(doc);
      if (kept.length === max && f <= final(kept[max - 1] as number)) continue;
      let i = kept.length;
      while (i > 0 && f > final(kept[i - 1] as number)) i--;
      kept.splice(i, 0, doc);
      if (kept.length > max) kept.pop();
    }
    const hits = kept.map((doc) => {
      const match = Object.create(null) as Record<string, string[]>;
      for (const derived of derivedByTerm) {
        for (const { term } of derived) {
          const fields = this.fieldsHolding(term, doc);
          if (fields.length > 0) match[term] = fields;
        }
      }
      return { id: this.ids[doc] as string, score: final(doc), terms: Object.keys(match), match };
    });
    return { total: touched.length, hits };
  }

  /**
   * The index terms a query term stands for, with their weights: itself (1) when indexed; when `options.prefix`
   * allows, longer terms starting with it; when `options.fuzzy` allows, terms within the edit distance that are not
   * prefix matches. Expansions are in a stable order, closest first.
   */
  private expand(term: string, options: TextSearchOptions): { term: string; weight: number }[] {
    const out: { term: string; weight: number }[] = [];
    if (this.termIds.has(term)) out.push({ term, weight: 1 });
    const prefixOn = options.prefix(term);
    if (prefixOn) {
      const prefixed: string[] = [];
      for (const candidate of this.termIds.keys()) {
        if (candidate.length > term.length && candidate.startsWith(term)) prefixed.push(candidate);
      }
      prefixed.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
      for (const c of prefixed) out.push({ term: c, weight: (options.weights.prefix * c.length) / (c.length + 0.3 * (c.length - term.length)) });
    }
    const fuzzy = options.fuzzy(term);
    const maxDistance = fuzzy === false ? 0 : Math.min(MAX_FUZZY, Math.round(term.length * fuzzy));
    if (maxDistance > 0) {
      const near: { term: string; d: number }[] = [];
      for (const candidate of this.termIds.keys()) {
        if (Math.abs(candidate.length - term.length) > maxDistance || (prefixOn && candidate.startsWith(term))) continue;
        const d = boundedEditDistance(candidate, term, maxDistance);
        if (d > 0 && d <= maxDistance) near.push({ term: candidate, d });
      }
      near.sort((a, b) => a.d - b.d || a.term.length - b.term.length || (a.term < b.term ? -1 : 1));
      for (const { term: c, d } of near) out.push({ term: c, weight: (options.weights.fuzzy * c.length) / (c.length + d) });
    }
    return out;
  }

  /** Add the weighted BM25+ contributions of index term `term` to `score`, marking `bit` in `queryBits`. */
  private score(term: string, weight: number, bit: number, options: TextSearchOptions, score: Float64Array, queryBits: Int32Array, touched: number[]): void {
    const t = this.termIds.get(term);
    if (t === undefined) return;
    const n = this.ids.length;
    for (let f = 0; f < this.nFields; f++) {
      const key = t * this.nFields + f;
      const matching = this.df[key] as number;
      if (matching === 0) continue;
      const boost = options.boost[this.fields[f] as string] ?? 1;
      const idf = Math.log(1 + (n - matching + 0.5) / (matching + 0.5));
      const avg = (this.totals[f] as number) / n;
      const lengths = this.lengths[f] as number[];
      for (let e = this.head[key] as number; e !== 0; e = this.entryNext[e] as number) {
        const doc = this.entryDoc[e] as number;
        const tf = this.entryFreq[e] as number;
        const len = lengths[doc] as number;
        if (queryBits[doc] === 0) touched.push(doc);
        queryBits[doc] = (queryBits[doc] as number) | bit;
        score[doc] = (score[doc] as number) + weight * boost * idf * (DELTA + (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg)));
      }
    }
  }

  /** Names of the fields in which document `doc` holds `term` (entries are in document order). */
  private fieldsHolding(term: string, doc: number): string[] {
    const t = this.termIds.get(term);
    const out: string[] = [];
    if (t === undefined) return out;
    for (let f = 0; f < this.nFields; f++) {
      for (let e = this.head[t * this.nFields + f] as number; e !== 0; e = this.entryNext[e] as number) {
        const d = this.entryDoc[e] as number;
        if (d < doc) continue;
        if (d === doc) out.push(this.fields[f] as string);
        break;
      }
    }
    return out;
  }
}

/** A copy of `array` with room for at least `need` elements (doubling), zero-filled beyond the old length. */
function grow(array: Int32Array<ArrayBuffer>, need: number): Int32Array<ArrayBuffer> {
  let size = array.length;
  while (size < need) size *= 2;
  const out = new Int32Array(size);
  out.set(array);
  return out;
}
/** Number of set bits of a 32-bit integer. */
function bitCount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
