import { z } from "zod";
import type { ToolDefinition } from "./types.js";
import { finish } from "./output.js";
import { searchIndex, searchTokens } from "./search-index.js";
import { symbolIndex } from "./symbol-index.js";

/** Default and largest number of files (and of symbols) `search_codebase` ranks. */
export const SEARCH_DEFAULT_RESULTS = 10;
export const SEARCH_MAX_RESULTS = 50;

/** Query words too common to rank by. */
const STOP = new Set(["the", "an", "of", "to", "in", "is", "it", "and", "or", "for", "on", "at", "be", "by", "with", "this", "that", "not", "when", "from", "as", "are", "was", "does", "do", "cannot", "can"]);

const schema = z.object({
  query: z.string().min(1).describe("Identifiers and words, e.g. from an error message: \"TypeError cannot read properties of undefined reading 'user' getUserName\"."),
  max_results: z.number().int().min(1).max(SEARCH_MAX_RESULTS).optional().describe(`How many files and how many symbols to rank. Default ${SEARCH_DEFAULT_RESULTS}.`),
});

/** "word" in path, symbols; "other" in text — from minisearch's match info (term → fields). */
function why(match: Record<string, string[]>, symbolHits: string[]): string {
  const parts = Object.entries(match).map(([term, fields]) => `"${term}" in ${fields.join(", ")}`);
  const extra = symbolHits.length > 0 ? ` (symbols: ${symbolHits.join(", ")})` : "";
  return parts.join("; ") + extra;
}

/**
 * `search_codebase({ query, max_results? })`: files and symbol definitions ranked for a free-text query
 * (BM25 over paths, symbol names and the words of each file; prefix and small fuzzy matches count less), each with
 * the terms and fields it matched.
 */
export const searchCodebase: ToolDefinition<z.infer<typeof schema>> = {
  name: "search_codebase",
  description:
    "Rank files and symbol definitions for a free-text query made of identifiers and words from an error message or issue. " +
    "camelCase and snake_case names are split into words. Each hit says which words matched where (path, symbols, text, name). Use it to find where to look, then read with get_file_contents.",
  schema,
  readsCode: true,
  run(args, ctx) {
    const max = args.max_results ?? SEARCH_DEFAULT_RESULTS;
    const terms = [...new Set(searchTokens(args.query))].filter((t) => !STOP.has(t));
    if (terms.length === 0) {
      return finish(ctx.snapshot, { status: "invalid", text: "INVALID: the query has no searchable words; give identifiers or distinctive words (two letters or more)." });
    }
    const index = searchIndex(ctx.snapshot);
    const results = index.search(terms.join(" "), {
      boost: { name: 3, symbols: 2, path: 2, container: 1, text: 1 },
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
      weights: { fuzzy: 0.3, prefix: 0.5 },
    });
    const files = results.filter((r) => r.type === "file").slice(0, max);
    const symbols = results.filter((r) => r.type === "symbol").slice(0, max);
    if (files.length === 0 && symbols.length === 0) {
      return finish(ctx.snapshot, { status: "ok", text: `No file or symbol matches ${JSON.stringify(args.query)}. Try other words, grep_codebase for an exact string, or describe_repo.` });
    }
    const byPath = symbolIndex(ctx.snapshot).byPath;
    const out: string[] = [`Files (${files.length} of ${results.filter((r) => r.type === "file").length} matching):`];
    files.forEach((r, i) => {
      const matchedTerms = new Set(r.terms);
      const symbolHits = (byPath.get(r.file as string) ?? [])
        .filter((d) => searchTokens(d.name).some((t) => matchedTerms.has(t)))
        .slice(0, 3)
        .map((d) => `${d.name}:${d.line}`);
      out.push(`${i + 1}. ${r.file as string} — ${why(r.match, symbolHits)}`);
    });
    const totalSymbols = results.filter((r) => r.type === "symbol").length;
    if (symbols.length > 0) out.push(`Symbols (${symbols.length} of ${totalSymbols} matching):`);
    symbols.forEach((r, i) => {
      const owner = r.container ? `${r.container as string}.` : "";
      out.push(`${i + 1}. ${r.kind as string} ${owner}${r.name as string} ${r.file as string}:${r.line as number} — ${why(r.match, [])}`);
    });
    return finish(ctx.snapshot, { status: "ok", text: out.join("\n") });
  },
};
