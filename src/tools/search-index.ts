import MiniSearch from "minisearch";
import { isSecretPath } from "../grounding/secrets.js";
import type { Snapshot } from "../types.js";
import { identifierWords, symbolIndex } from "./symbol-index.js";

/** One indexed document: a file (path, symbol names, its distinct words) or a symbol (name). */
export interface SearchDoc {
  id: string;
  type: "file" | "symbol";
  path: string;
  /** The file's path again, stored but not indexed (a symbol is not found by its file's path). */
  file: string;
  /** File: distinct symbol names; symbol: "". */
  symbols: string;
  /** File: distinct identifiers and words of its text (first {@link MAX_WORDS_PER_FILE}); symbol: "". */
  text: string;
  /** Symbol: its name; file: "". */
  name: string;
  line: number;
  kind: string;
  container: string;
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

const cache = new WeakMap<Snapshot, MiniSearch<SearchDoc>>();

/**
 * The search index of a snapshot (minisearch, BM25+), built once per snapshot object and cached in a WeakMap.
 * Fields: `path` (every path, text or not), `symbols` and `text` (text files; secret files get their path only),
 * `name` and `container` (one document per symbol definition).
 */
export function searchIndex(snapshot: Snapshot): MiniSearch<SearchDoc> {
  const hit = cache.get(snapshot);
  if (hit !== undefined) return hit;
  const index = new MiniSearch<SearchDoc>({
    fields: ["path", "symbols", "text", "name", "container"],
    // A symbol document is found by its name and container, not by the path of its file.
    extractField: (doc, field) => (doc.type === "symbol" && field === "path" ? "" : String(doc[field as keyof SearchDoc] ?? "")),
    storeFields: ["type", "file", "name", "line", "kind", "container"],
    tokenize: searchTokens,
    processTerm: (term) => term.toLowerCase(),
  });
  const symbols = symbolIndex(snapshot);
  const docs: SearchDoc[] = [];
  for (const path of snapshot.paths) {
    const secret = isSecretPath(path);
    const content = secret ? undefined : snapshot.read(path);
    const defs = symbols.byPath.get(path) ?? [];
    const base = { path, file: path, line: 0, kind: "", container: "", name: "" };
    docs.push({ ...base, id: `f:${path}`, type: "file", symbols: [...new Set(defs.map((d) => d.name))].join(" "), text: content === undefined ? "" : distinctWords(content) });
    defs.forEach((d, i) => {
      docs.push({ id: `s:${path}:${i}`, type: "symbol", path, file: path, symbols: "", text: "", name: d.name, line: d.line, kind: d.kind, container: d.container ?? "" });
    });
  }
  index.addAll(docs);
  cache.set(snapshot, index);
  return index;
}
