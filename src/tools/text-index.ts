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
  private readonly postings = new Map<string, (Posting | undefined)[]>();

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
    return this.postings.has(term);
  }

  /** Add a document: `tokens[f]` are the terms of field `fields[f]`, repeated as often as they occur. */
  add(id: string, tokens: readonly (readonly string[])[]): void {
    const doc = this.ids.length;
    this.ids.push(id);
    const counts = new Map<string, number>();
    this.fields.forEach((_, f) => {
      counts.clear();
      for (const t of tokens[f] ?? []) counts.set(t, (counts.get(t) ?? 0) + 1);
      (this.lengths[f] as number[]).push(counts.size);
      this.totals[f] = (this.totals[f] as number) + counts.size;
      for (const [term, freq] of counts) {
        let perField = this.postings.get(term);
        if (perField === undefined) this.postings.set(term, (perField = []));
        let posting = perField[f];
        if (posting === undefined) perField[f] = posting = { docs: [], freqs: [] };
        posting.docs.push(doc);
        posting.freqs.push(freq);
      }
    });
  }

  /** Documents matching any of `terms` (lower-case index terms), best first. */
  search(terms: readonly string[], options: TextSearchOptions): TextHit[] {
    const combined = new Map<number, { score: number; queryTerms: string[]; match: Record<string, string[]> }>();
    for (const term of terms) {
      const results = new Map<number, { score: number; queryTerms: string[]; match: Record<string, string[]> }>();
      this.score(term, term, 1, options, results);
      // Expansions in a stable order (closest first), so the "why" of a hit lists the nearest words first.
      const prefixed: string[] = [];
      const prefixOn = options.prefix(term);
      if (prefixOn) {
        for (const candidate of this.postings.keys()) {
          if (candidate.length > term.length && candidate.startsWith(term)) prefixed.push(candidate);
        }
        prefixed.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
        for (const candidate of prefixed) {
          const extra = candidate.length - term.length;
          this.score(term, candidate, (options.weights.prefix * candidate.length) / (candidate.length + 0.3 * extra), options, results);
        }
      }
      const fuzzy = options.fuzzy(term);
      const maxDistance = fuzzy === false ? 0 : Math.min(MAX_FUZZY, Math.round(term.length * fuzzy));
      if (maxDistance > 0) {
        const near: { term: string; d: number }[] = [];
        for (const candidate of this.postings.keys()) {
          if (Math.abs(candidate.length - term.length) > maxDistance || (prefixOn && candidate.startsWith(term))) continue;
          const d = boundedEditDistance(candidate, term, maxDistance);
          if (d > 0 && d <= maxDistance) near.push({ term: candidate, d });
        }
        near.sort((a, b) => a.d - b.d || a.term.length - b.term.length || (a.term < b.term ? -1 : 1));
        for (const { term: candidate, d } of near) {
          this.score(term, candidate, (options.weights.fuzzy * candidate.length) / (candidate.length + d), options, results);
        }
      }
      for (const [doc, r] of results) {
        const existing = combined.get(doc);
        if (existing === undefined) combined.set(doc, r);
        else {
          existing.score += r.score;
          Object.assign(existing.match, r.match);
          for (const q of r.queryTerms) if (!existing.queryTerms.includes(q)) existing.queryTerms.push(q);
        }
      }
    }
    const hits: TextHit[] = [];
    for (const [doc, r] of combined) {
      hits.push({ id: this.ids[doc] as string, score: r.score * (r.queryTerms.length || 1), terms: Object.keys(r.match), match: r.match });
    }
    return hits.sort((a, b) => b.score - a.score);
  }

  /** Add the BM25+ contributions of index term `derived` (from query term `source`) to `results`. */
  private score(
    source: string,
    derived: string,
    weight: number,
    options: TextSearchOptions,
    results: Map<number, { score: number; queryTerms: string[]; match: Record<string, string[]> }>,
  ): void {
    const perField = this.postings.get(derived);
    if (perField === undefined) return;
    const n = this.ids.length;
    this.fields.forEach((field, f) => {
      const posting = perField[f];
      if (posting === undefined) return;
      const boost = options.boost[field] ?? 1;
      const matching = posting.docs.length;
      const idf = Math.log(1 + (n - matching + 0.5) / (matching + 0.5));
      const avg = (this.totals[f] as number) / n;
      const lengths = this.lengths[f] as number[];
      for (let i = 0; i < matching; i++) {
        const doc = posting.docs[i] as number;
        const tf = posting.freqs[i] as number;
        const len = lengths[doc] as number;
        const s = weight * boost * idf * (DELTA + (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / avg)));
        const r = results.get(doc);
        if (r === undefined) {
          // Null-prototype match objects: "__proto__" is a word that code contains.
          const match = Object.create(null) as Record<string, string[]>;
          match[derived] = [field];
          results.set(doc, { score: s, queryTerms: [source], match });
        } else {
          r.score += s;
          if (!r.queryTerms.includes(source)) r.queryTerms.push(source);
          const m = r.match[derived];
          if (m !== undefined) m.push(field);
          else r.match[derived] = [field];
        }
      }
    });
  }
}
