import { extractSymbols, type SymbolDef } from "../grounding/symbols.js";
import { isSecretPath } from "../grounding/secrets.js";
import type { Snapshot } from "../types.js";

/** A definition with the file it is in. */
export interface SymbolSite extends SymbolDef {
  path: string;
}

/** Every definition of a snapshot, by exact name; built once per snapshot (WeakMap) from `extractSymbols`. */
export interface SymbolIndex {
  byName: Map<string, SymbolSite[]>;
  /** The definitions of each file, in line order (the same objects as in `byName`, so they also carry `path`). */
  byPath: Map<string, SymbolDef[]>;
}

const cache = new WeakMap<Snapshot, SymbolIndex>();

/** The symbol index of `snapshot` (text files only; secret files are skipped). Cached per snapshot object. */
export function symbolIndex(snapshot: Snapshot): SymbolIndex {
  const hit = cache.get(snapshot);
  if (hit !== undefined) return hit;
  const byName = new Map<string, SymbolSite[]>();
  const byPath = new Map<string, SymbolDef[]>();
  for (const path of snapshot.paths) {
    if (isSecretPath(path)) continue;
    const content = snapshot.read(path);
    if (content === undefined) continue;
    const defs = extractSymbols(path, content);
    if (defs.length === 0) continue;
    byPath.set(path, defs);
    for (const d of defs) {
      // The definition object itself becomes the site (no copy per definition): byPath and byName share it.
      const site = d as SymbolSite;
      site.path = path;
      const list = byName.get(d.name);
      if (list === undefined) byName.set(d.name, [site]);
      else list.push(site);
    }
  }
  const index = { byName, byPath };
  cache.set(snapshot, index);
  return index;
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
    } else if (
      (cur === Ch.Upper && (prev === Ch.Lower || prev === Ch.Digit)) ||
      (cur === Ch.Upper && prev === Ch.Upper && i + 1 < n && charClass(text.charCodeAt(i + 1)) === Ch.Lower) ||
      (cur === Ch.Digit && (prev === Ch.Lower || prev === Ch.Upper))
    ) {
      out.push(text.slice(start, i).toLowerCase());
      start = i;
    }
    prev = cur;
  }
  if (start !== -1) out.push(text.slice(start).toLowerCase());
  return out;
}

/** `kind name (container.)` as shown to a model: `method Cart.total`, `function parse`. */
export function formatSymbol(def: SymbolDef): string {
  return `${def.kind} ${def.container !== undefined ? `${def.container}.` : ""}${def.name}`;
}
