import MiniSearch from "minisearch";
import { isSecretPath } from "../grounding/secrets.js";
import type { Snapshot } from "../types.js";
import { identifierWords, symbolIndex } from "./symbol-index.js";

/** One indexed document: a file with its path, symbol names and distinct words. */
export interface SearchDoc {
  id: string;
  path: string;
  /** Distinct symbol names of the file. */
  symbols: string;
  /** Distinct identifiers and words of its text (first {@link MAX_WORDS_PER_FILE}); "" for secret files. */
  text: string;
}

/** Distinct words of one file that are indexed; the rest of a huge file is not. */
export const MAX_WORDS_PER_FILE = 5000;

/**
 * Tokens of a text for the index and for queries: each identifier lower-cased whole, plus its camelCase/snake_case
 * parts when it has more than one ("parseConfig" → parseconfig, parse, config). Words of one letter are dropped.
 */
export function searchTokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/[^A-Za-z0-9_$]+/)) {
    if (raw.length < 2) continue;
    out.push(raw.toLowerCase());
    const parts = identifierWords(raw);
    if (parts.length > 1) for (const p of parts) if (p.length > 1) out.push(p);
  }
  return out;
}

function distinctWords(content: string): string {
  const seen = new Set<string>();
  for (const raw of content.split(/[^A-Za-z0-9_$]+/)) {
    if (raw.length < 2 || raw.length > 80) continue;
    seen.add(raw);
    if (seen.size >= MAX_WORDS_PER_FILE) break;
  }
  return [...seen].join(" ");
}

/** A snapshot's file search index and its vocabulary (every indexed term), so queries expand only unknown terms. */
export interface SearchIndex {
  index: MiniSearch<SearchDoc>;
  vocabulary: Set<string>;
}

const cache = new WeakMap<Snapshot, SearchIndex>();

/**
 * The search index of a snapshot (minisearch, BM25+), built once per snapshot object and cached in a WeakMap.
 * One document per path: `path` (every path, text or not), `symbols` and `text` (text files; secret files get their
 * path only). Symbols are ranked apart, from the symbol index (see search.ts).
 */
export function searchIndex(snapshot: Snapshot): SearchIndex {
  const hit = cache.get(snapshot);
  if (hit !== undefined) return hit;
  const vocabulary = new Set<string>();
  const index = new MiniSearch<SearchDoc>({
    fields: ["path", "symbols", "text"],
    storeFields: ["path"],
    tokenize: (text) => {
      const tokens = searchTokens(text);
      for (const t of tokens) vocabulary.add(t);
      return tokens;
    },
    processTerm: (term) => term.toLowerCase(),
  });
  const symbols = symbolIndex(snapshot);
  const docs: SearchDoc[] = [];
  for (const path of snapshot.paths) {
    const content = isSecretPath(path) ? undefined : snapshot.read(path);
    const names = [...new Set((symbols.byPath.get(path) ?? []).map((d) => d.name))].join(" ");
    docs.push({ id: path, path, symbols: names, text: content === undefined ? "" : distinctWords(content) });
  }
  index.addAll(docs);
  const built = { index, vocabulary };
  cache.set(snapshot, built);
  return built;
}
