import { boundedEditDistance } from "./nearest.js";
import { lowerBound } from "./sorted.js";

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

interface Posting {
  docs: number[];
  freqs: number[];
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
  /** Term → term id; postings and terms by term id. */
  private readonly termIds = new Map<string, number>();
  private readonly byId: (Posting | undefined)[][] = [];
  /** Per-term-id counters used while adding one document; all zero between calls. */
  private counts = new Int32Array(1024);

  constructor(readonly fields: readonly string[]) {
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
      id = this.byId.length;
      this.termIds.set(term, id);
      this.byId.push([]);
      if (id >= this.counts.length) {
        const grown = new Int32Array(this.counts.length * 2);
        grown.set(this.counts);
        this.counts = grown;
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
    for (let f = 0; f < this.fields.length; f++) {
      const list = termIds[f] ?? [];
      const distinct: number[] = [];
      for (let i = 0; i < list.length; i++) {
        const t = list[i] as number;
        if (counts[t] === 0) distinct.push(t);
        counts[t] = (counts[t] as number) + 1;
      }
      (this.lengths[f] as number[]).push(distinct.length);
      this.totals[f] = (this.totals[f] as number) + distinct.length;
      for (const t of distinct) {
        const perField = this.byId[t] as (Posting | undefined)[];
        let posting = perField[f];
        if (posting === undefined) perField[f] = posting = { docs: [], freqs: [] };
        posting.docs.push(doc);
        posting.freqs.push(counts[t] as number);
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
    const perField = this.byId[t] as (Posting | undefined)[];
    const n = this.ids.length;
    for (let f = 0; f < this.fields.length; f++) {
      const posting = perField[f];
      if (posting === undefined) continue;
      const boost = options.boost[this.fields[f] as string] ?? 1;
      const matching = posting.docs.length;
      const idf = Math.log(1 + (n - matching + 0.5) / (matching + 0.5));
      const avg = (this.totals[f] as number) / n;
      const lengths = this.lengths[f] as number[];
      const { docs, freqs } = posting;
      for (let i = 0; i < matching; i++) {
        const doc = docs[i] as number;
        const tf = freqs[i] as number;
        const len = lengths[doc] as number;
        if (queryBits[doc] === 0) touched.push(doc);
        queryBits[doc] = (queryBits[doc] as number) | bit;
        score[doc] = (score[doc] as number) + weight * boost * idf * (DELTA + (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg)));
      }
    }
  }

  /** Names of the fields in which document `doc` holds `term` (postings are in document order: binary search). */
  private fieldsHolding(term: string, doc: number): string[] {
    const t = this.termIds.get(term);
    const out: string[] = [];
    if (t === undefined) return out;
    const perField = this.byId[t] as (Posting | undefined)[];
    this.fields.forEach((field, f) => {
      const docs = perField[f]?.docs;
      if (docs !== undefined && docs[lowerBound(docs, doc)] === doc) out.push(field);
    });
    return out;
  }
}

/** Number of set bits of a 32-bit integer. */
function bitCount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}
