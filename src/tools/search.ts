import { z } from "zod";
import type { ToolDefinition } from "./types.js";
import { finish } from "./output.js";
import { nameTokens, rankFiles, searchTokens, type SearchHit } from "./search-index.js";
import { servedWords } from "./serve.js";
import { withoutErrorTemplates } from "./error-templates.js";
import { buildNameTable, tokenIds, topK, type NameTable } from "./name-table.js";
import {
  EXTRACT_BUDGET_CHARS,
  fileSymbols,
  formatSymbol,
  withinBudget,
  type ExtractBudget,
  type SymbolSite,
} from "./symbol-index.js";

/** Default and largest number of files (and of symbols) `search_codebase` ranks. */
export const SEARCH_DEFAULT_RESULTS = 10;
export const SEARCH_MAX_RESULTS = 50;
/** Most words of a query that are searched (long error messages are cut). */
const MAX_QUERY_TERMS = 16;
/** How many of the best-ranked files the symbol ranking takes its names from (within the extraction budget). */
const SYMBOL_FILES = 200;

/** Query words too common to rank by. */
const STOP = new Set([
  "the",
  "an",
  "of",
  "to",
  "in",
  "is",
  "it",
  "and",
  "or",
  "for",
  "on",
  "at",
  "be",
  "by",
  "with",
  "this",
  "that",
  "not",
  "when",
  "from",
  "as",
  "are",
  "was",
  "does",
  "do",
  "cannot",
  "can",
]);

const schema = z.object({
  query: z
    .string()
    .min(1)
    .max(2000)
    .describe(
      'Identifiers and words, e.g. from an error message: "TypeError ' +
        "cannot read properties of undefined reading 'user' getUserName\".",
    ),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_MAX_RESULTS)
    .optional()
    .describe(`How many files and how many symbols to rank. Default ${SEARCH_DEFAULT_RESULTS}.`),
});

/**
 * `"word" in path, symbols; "other" in text` — from the match info of a hit (index term → fields). Shorter terms
 * first: a query word found as such, then its closest prefix or fuzzy expansions ("pars" → parse, parser, parseall).
 */
function why(match: Record<string, string[]>, symbolHits: string[]): string {
  const entries = Object.entries(match).sort(([a], [b]) => a.length - b.length);
  const parts = entries.slice(0, 5).map(([term, fields]) => `"${term}" in ${fields.join(", ")}`);
  if (entries.length > 5) parts.push(`${entries.length - 5} more words`);
  const extra = symbolHits.length > 0 ? ` (symbols: ${symbolHits.join(", ")})` : "";
  return parts.join("; ") + extra;
}

/**
 * Symbol names ranked for query terms: a name scores 3 when it equals a term (its whole lower-cased identifier),
 * plus 1 per term among its words, plus ½ per term that starts one of its words (terms of 4+ letters). Best first,
 * shorter names first on ties. Only the names of `table` holding a term or a word starting with one are looked at.
 * @returns at most `max` names, each with the terms that matched it.
 */
export function rankSymbolNames(
  table: NameTable,
  terms: readonly string[],
  max: number,
): { name: string; matched: string[] }[] {
  // Scores are summed term by term from the token postings; `exact`/`near` hold one bit per term (≤ 32 terms).
  const list = terms.slice(0, 32);
  const n = table.names.length;
  const score = new Float64Array(n);
  const exact = new Int32Array(n);
  const near = new Int32Array(n);
  const touched: number[] = [];
  list.forEach((term, t) => {
    const bit = 1 << t;
    tokenIds(table, term, (id) => {
      if (exact[id] === 0 && near[id] === 0) touched.push(id);
      exact[id] = (exact[id] as number) | bit;
      score[id] = (score[id] as number) + ((table.tokens[id] as readonly string[])[0] === term ? 4 : 1);
    });
    if (term.length < 4) return;
    for (const token of table.byPrefix4.get(term.slice(0, 4)) ?? []) {
      if (token === term || !token.startsWith(term)) continue;
      tokenIds(table, token, (id) => {
        if (((exact[id] as number) & bit) !== 0 || ((near[id] as number) & bit) !== 0) return;
        if (exact[id] === 0 && near[id] === 0) touched.push(id);
        near[id] = (near[id] as number) | bit;
        score[id] = (score[id] as number) + 0.5;
      });
    }
  });
  const best = topK<{ id: number; score: number }>(max, (a, b) => {
    const x = table.names[a.id] as string;
    const y = table.names[b.id] as string;
    return b.score - a.score || x.length - y.length || (x < y ? -1 : x > y ? 1 : 0);
  });
  for (const id of touched) best.offer({ id, score: score[id] as number });
  return best.result().map(({ id }) => {
    const matched = (exact[id] as number) | (near[id] as number);
    return { name: table.names[id] as string, matched: list.filter((_, t) => (matched & (1 << t)) !== 0) };
  });
}

/**
 * `search_codebase({ query, max_results? })`: files ranked for a free-text query (BM25+ over paths,
 * symbol names and the distinct words of each file; prefix and small fuzzy matches only for words the repository
 * does not contain as such), and symbol definitions ranked by the words of their names. Each hit says why.
 */
export const searchCodebase: ToolDefinition<z.infer<typeof schema>> = {
  name: "search_codebase",
  description:
    "Rank files and symbol definitions for a free-text query made of identifiers and words " +
    "from an error message or issue; camelCase and snake_case names are split into words. " +
    "Each hit says which words matched where (path, symbols, text, name). " +
    "Use it when you do not know the exact name or string to grep " +
    "for. It shows no code: read the top hits with get_file_contents.",
  schema,
  readsCode: true,
  run(args, ctx) {
    const max = args.max_results ?? SEARCH_DEFAULT_RESULTS;
    const termsOf = (text: string) => [...new Set(searchTokens(text))].filter((t) => !STOP.has(t));
    // An error message's fixed words ("Cannot read properties of undefined") are in most files: only its names rank.
    const { query, removed } = withoutErrorTemplates(args.query, (text) => termsOf(text).length > 0);
    const terms = termsOf(query).slice(0, MAX_QUERY_TERMS);
    if (terms.length === 0) {
      return finish(ctx.snapshot, {
        status: "invalid",
        text:
          "INVALID: the query has no searchable words; give " +
          "identifiers or distinctive words (two letters or more).",
      });
    }
    // Prefix and fuzzy expansion only for words the repository does not contain as such: expanding a common
    // prefix ("handler" → handler1, handler2, …) costs time in large repositories and adds little.
    const snapshot = ctx.snapshot;
    const symbolNames = (path: string) => fileSymbols(snapshot, path).map((d) => d.name);
    // One extraction budget for the call: the symbols field and the symbol list below share it.
    const budget: ExtractBudget = { chars: EXTRACT_BUDGET_CHARS };
    const ranking = rankFiles(snapshot, terms, {
      boost: { symbols: 3, path: 2, text: 1 },
      prefixWeight: 0.5,
      fuzzyWeight: 0.3,
      fuzzy: 0.15,
      symbolsOf: symbolNames,
      budget,
    });
    const total = ranking.paths.length;
    // A file is shown for the words its served text (secrets redacted) or path holds: a word found only inside a
    // secret is neither shown (expansions are words of the repository) nor a reason to list the file.
    const hits: SearchHit[] = [];
    for (let k = 0; k < total && hits.length < max; k++) {
      const r = ranking.hit(k);
      const path = r.id.toLowerCase();
      const inText = servedWords(
        snapshot,
        r.id,
        Object.keys(r.match).filter((term) => !path.includes(term)),
      );
      const kept = Object.entries(r.match).filter(([term]) => path.includes(term) || inText.has(term));
      if (kept.length > 0) hits.push({ ...r, match: Object.fromEntries(kept) });
    }
    // Symbols: the definitions of the best-ranked files (a file defining a name holds its words, so it ranks), then
    // of files holding longer words the terms start (names matched by prefix). Only a name holding a term, ignoring
    // case, can rank (its tokens are pieces of it, lower-cased, and one equals or starts with a term): the others of
    // the thousands these files define are not gathered.
    const holdsTerm = new RegExp(terms.map((t) => t.replace(/\$/g, "\\$")).join("|"), "i");
    const tokensOf = nameTokens(snapshot);
    const sitesByName = new Map<string, SymbolSite[]>();
    for (const path of withinBudget(snapshot, [...ranking.paths, ...ranking.prefixFiles], SYMBOL_FILES, budget)) {
      for (const site of fileSymbols(snapshot, path)) {
        if (!holdsTerm.test(site.name)) continue;
        const list = sitesByName.get(site.name);
        if (list === undefined) sitesByName.set(site.name, [site]);
        else list.push(site);
      }
    }
    const ranked = rankSymbolNames(buildNameTable(sitesByName.keys(), tokensOf), terms, max);
    // In path order (`snapshot.paths` is sorted by code unit order), then line order.
    for (const r of ranked) {
      sitesByName.get(r.name)?.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    }
    // No file whose served text shows a matched word and no symbol: the answer says no match, also when files hold
    // a query word only inside a secret (a count of such files would confirm a guessed prefix of the secret).
    if (hits.length === 0 && ranked.length === 0) {
      return finish(ctx.snapshot, {
        status: "ok",
        text:
          `No file or symbol matches ${JSON.stringify(args.query)}. Try ` +
          `other words, grep_codebase for an exact string, or describe_repo.`,
        data: { tool: "search_codebase", files: [] },
      });
    }
    const out: string[] = [`Files (${hits.length} of ${total} matching):`];
    if (removed.length > 0) {
      out.unshift(
        "Ranked by the names in the error message, not by its fixed words " +
          `(${removed.map((r) => JSON.stringify(r)).join(", ")}).`,
      );
    }
    hits.forEach((r, i) => {
      const path = r.id;
      const matchedTerms = new Set(r.terms);
      const symbolHits: string[] = [];
      for (const d of fileSymbols(snapshot, path)) {
        if (symbolHits.length === 3) break;
        if (holdsTerm.test(d.name) && tokensOf(d.name).some((t) => matchedTerms.has(t))) {
          symbolHits.push(`${d.name}:${d.line}`);
        }
      }
      out.push(`${i + 1}. ${path} — ${why(r.match, symbolHits)}`);
    });
    if (ranked.length > 0) out.push(`Symbols (best ${ranked.length}):`);
    ranked.forEach((r, i) => {
      const sites = sitesByName.get(r.name) ?? [];
      const s = sites[0] as SymbolSite;
      const more = sites.length > 1 ? ` (+${sites.length - 1} more definitions in the files ranked)` : "";
      out.push(`${i + 1}. ${formatSymbol(s)} ${s.path}:${s.line}${more} — name words: ${r.matched.join(", ")}`);
    });
    return finish(ctx.snapshot, {
      status: "ok",
      text: out.join("\n"),
      data: { tool: "search_codebase", files: hits.map((r) => String(r.id)) },
    });
  },
};
