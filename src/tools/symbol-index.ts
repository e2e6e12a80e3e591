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
      const list = byName.get(d.name);
      const site = { ...d, path };
      if (list === undefined) byName.set(d.name, [site]);
      else list.push(site);
    }
  }
  const index = { byName, byPath };
  cache.set(snapshot, index);
  return index;
}

/** Split an identifier or phrase into lower-case words at camelCase/PascalCase humps, letter→digit steps, and `_ - .` etc. */
export function identifierWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([A-Za-z])([0-9])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter((w) => w.length > 0)
    .map((w) => w.toLowerCase());
}

/** `kind name (container.)` as shown to a model: `method Cart.total`, `function parse`. */
export function formatSymbol(def: SymbolDef): string {
  return `${def.kind} ${def.container !== undefined ? `${def.container}.` : ""}${def.name}`;
}
