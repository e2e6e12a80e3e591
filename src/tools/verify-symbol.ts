import { z } from "zod";
import { redact } from "../grounding/secrets.js";
import type { ToolDefinition } from "./types.js";
import { boundedEditDistance } from "./nearest.js";
import { buildNameTable, editCandidates, similarityTable, topK, type NameTable } from "./name-table.js";
import { capList, finish, shortSha } from "./output.js";
import { isUnder, normalizeRepoPath } from "./paths.js";
import { pieces, scanWords } from "./search-index.js";
import {
  definitionsOf,
  fileSymbols,
  formatSymbol,
  identifierWords,
  withinBudget,
  type SymbolSite,
} from "./symbol-index.js";
import type { Snapshot } from "../types.js";

const schema = z.object({
  name: z
    .string()
    .min(1)
    .max(300)
    .describe('Symbol name to check, e.g. "parseConfig", or with its class "Cart.total".'),
  path: z.string().min(1).max(4096).optional().describe("Only look for definitions in this file or folder."),
});

/** Most definition sites and similar names shown. */
const MAX_SITES = 20;
const MAX_SIMILAR = 8;
/** How many files the similar-name lookup extracts symbols from (those sharing the most, and rarest, pieces). */
const SIMILAR_FILES = 200;

/** The largest edit distance of a similar name: max(1, ⌊len/4⌋), at most 3. */
function similarityLimit(name: string): number {
  return Math.min(3, Math.max(1, Math.floor(name.length / 4)));
}

/**
 * Names of `table` similar to `name`: same name ignoring case, edit distance ≤ max(1, ⌊len/4⌋) (at most 3), or
 * sharing identifier words (camelCase/snake_case parts). Best first (same name ignoring case, then by distance, then
 * by most shared words; shorter names first on ties); at most `max`. Candidates come from the bigram and word lists
 * of `table`, so a call looks at a few names, not all.
 */
export function similarNames(name: string, table: NameTable, max = MAX_SIMILAR): string[] {
  const lower = name.toLowerCase();
  const words = new Set(identifierWords(name));
  const limit = similarityLimit(name);
  const best = topK<{ name: string; score: number }>(
    max,
    (a, b) => a.score - b.score || a.name.length - b.name.length || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const seen = new Set<number>();
  for (const id of editCandidates(table, lower, limit)) {
    const n = table.names[id] as string;
    if (n === name) continue;
    const nl = table.lower[id] as string;
    const d = nl === lower ? 0 : boundedEditDistance(nl, lower, limit);
    if (d > limit) continue;
    seen.add(id);
    best.offer({ name: n, score: d });
  }
  // Shared identifier words, counted per id in the table's scratch counters (reset before returning).
  const sim = similarityTable(table);
  const counts = sim.scratch;
  const touched: number[] = [];
  for (const w of words) {
    const list = sim.byWord.get(w);
    if (list === undefined) continue;
    for (const id of list) {
      const c = counts[id] ?? 0;
      if (c === 0) touched.push(id);
      if (c < 65535) counts[id] = c + 1;
    }
  }
  for (const id of touched) {
    const count = counts[id] ?? 0;
    counts[id] = 0;
    const n = table.names[id] as string;
    if (n === name || seen.has(id)) continue;
    best.offer({ name: n, score: 10 - Math.min(5, count) + Math.abs(n.length - name.length) / 100 });
  }
  return best.result().map((s) => s.name);
}

/** Split "Cart.total", "Cart#total", "Cart::total" into container and name. */
function splitQualified(raw: string): { name: string; container?: string } {
  const parts = raw
    .trim()
    .replace(/\(\)$/, "")
    .split(/\.|#|::/)
    .filter((p) => p !== "");
  const name = parts[parts.length - 1] ?? raw.trim();
  return parts.length > 1 ? { name, container: parts[parts.length - 2] } : { name };
}

/**
 * What the similar-name lookup looks at, from one {@link scanWords} pass for the pieces of `name` — the name
 * itself ignoring case, its identifier words of 3+ letters, and the pigeonhole pieces of 3+ letters of its
 * lower-cased form for the edit distance: the definitions of the {@link SIMILAR_FILES} files (within the extraction
 * budget) with the highest sum of log(1 + files / files holding the piece) over the pieces they hold, and the files
 * holding each word exactly (a name defined in a file is a word of it).
 */
function neighbourhood(
  snapshot: Snapshot,
  name: string,
  limit: number,
): { sites: Map<string, SymbolSite[]>; filesOf(word: string): string[] } {
  const lower = name.toLowerCase();
  const needles = [...new Set([lower, ...identifierWords(name), ...pieces(lower, limit)])].filter(
    (p) => p.length >= 3 || p === lower,
  );
  const wordFiles = new Map<string, number[]>();
  scanWords(snapshot, needles, (file, word) => {
    const list = wordFiles.get(word);
    if (list === undefined) wordFiles.set(word, [file]);
    else list.push(file);
  });
  const holding = needles.map(() => new Set<number>());
  for (const [word, files] of wordFiles) {
    const w = word.toLowerCase();
    needles.forEach((needle, i) => {
      if (w.includes(needle)) for (const f of files) (holding[i] as Set<number>).add(f);
    });
  }
  const score = new Map<number, number>();
  const total = snapshot.paths.length;
  for (const files of holding) {
    const weight = Math.log(1 + total / Math.max(1, files.size));
    for (const f of files) score.set(f, (score.get(f) ?? 0) + weight);
  }
  const ranked = [...score.keys()].sort((a, b) => (score.get(b) as number) - (score.get(a) as number) || a - b);
  const best = withinBudget(
    snapshot,
    ranked.map((f) => snapshot.paths[f] as string),
    SIMILAR_FILES,
  );
  const sites = new Map<string, SymbolSite[]>();
  for (const path of best) {
    for (const s of fileSymbols(snapshot, path)) {
      const list = sites.get(s.name);
      if (list === undefined) sites.set(s.name, [s]);
      else list.push(s);
    }
  }
  return { sites, filesOf: (word) => (wordFiles.get(word) ?? []).map((f) => snapshot.paths[f] as string) };
}

/** The definitions named `name` in the files holding the word (from {@link neighbourhood}). */
function sitesIn(snapshot: Snapshot, files: readonly string[], name: string): SymbolSite[] {
  return files.flatMap((path) => fileSymbols(snapshot, path).filter((s) => s.name === name));
}

/**
 * `verify_symbol_in_repo({ name, path? })`: FOUND with definition sites `path:line kind`, or NOT_FOUND with similar
 * names.
 */
export const verifySymbolInRepo: ToolDefinition<z.infer<typeof schema>> = {
  name: "verify_symbol_in_repo",
  description:
    "Check that a function, method, class, type or constant is " +
    "really defined in the repository before you rely on it. " +
    'Answers FOUND with each definition site "path:line kind", or NOT_FOUND with ' +
    'similar defined names; give "Class.method" to check a method of a class. ' +
    "Use it for the affected_function of your answer and for any function your " +
    "edit calls. It does not list the places that use a symbol; grep_codebase does.",
  schema,
  readsCode: true,
  run(args, ctx) {
    const { name, container } = splitQualified(args.name);
    let folder = "";
    if (args.path !== undefined) {
      const norm = normalizeRepoPath(args.path);
      if (!norm.ok) return finish(ctx.snapshot, { status: "not_found", text: `NOT_FOUND: ${norm.message}` });
      folder = norm.path;
    }
    const snapshot = ctx.snapshot;
    const inScope = (s: SymbolSite) => isUnder(s.path, folder);
    const all = definitionsOf(snapshot, name).filter(inScope);
    const exact = container === undefined ? all : all.filter((s) => s.container === container);
    const scope = folder === "" ? "" : ` under ${folder}`;
    if (exact.length > 0) {
      const sites = exact.map(
        (s) =>
          `${s.path}:${s.line}${s.endLine !== undefined && s.endLine !== s.line ? `-${s.endLine}` : ""} ` +
          `${formatSymbol(s)}`,
      );
      const data = {
        tool: "verify_symbol_in_repo" as const,
        found: true,
        sites: exact.map((s) => ({ path: s.path, line: s.line, endLine: s.endLine ?? null, kind: s.kind })),
      };
      return finish(ctx.snapshot, {
        status: "ok",
        text: [`FOUND: ${args.name} is defined ${exact.length} time(s)${scope}:`, ...capList(sites, MAX_SITES)].join(
          "\n",
        ),
        data,
      });
    }
    const lines: string[] = [`NOT_FOUND: no definition of ${args.name}${scope} at ${shortSha(ctx.snapshot.sha)}.`];
    if (container !== undefined && all.length > 0) {
      lines.push(
        `${name} is defined, but not in ${container}: ${all
          .slice(0, 5)
          .map((s) => `${s.path}:${s.line} ${formatSymbol(s)}`)
          .join("; ")}`,
      );
    }
    const near = neighbourhood(snapshot, name, similarityLimit(name));
    const similar = similarNames(name, buildNameTable(near.sites.keys()))
      .map((n) => sitesIn(snapshot, near.filesOf(n), n).filter(inScope))
      .filter((sites) => sites.length > 0)
      .map((sites) => {
        const s = sites[0] as SymbolSite;
        return `${formatSymbol(s)} (${s.path}:${s.line}${sites.length > 1 ? `, +${sites.length - 1} more` : ""})`;
      });
    lines.push(similar.length > 0 ? `Similar defined names: ${similar.join("; ")}` : "No similar names are defined.");
    // Where the word is used is not said for a name shaped like a secret (it would confirm the secret is there).
    const used = redact(name) !== name ? [] : near.filesOf(name).filter((p) => isUnder(p, folder));
    if (used.length > 0) {
      lines.push(
        `The word ${name} appears in ${used.length} file(s) (e.g. ${used.slice(0, 3).join(", ")}) ` +
          `without a definition the index recognises: it may come from a dependency, or ` +
          `be defined in a way the patterns miss; read those files to check.`,
      );
    }
    return finish(ctx.snapshot, {
      status: "not_found",
      text: lines.join("\n"),
      data: { tool: "verify_symbol_in_repo", found: false, sites: [] },
    });
  },
};
