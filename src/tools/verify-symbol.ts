import { z } from "zod";
import { redact } from "../grounding/secrets.js";
import type { ToolDefinition } from "./types.js";
import { boundedEditDistance } from "./nearest.js";
import { topK } from "./name-table.js";
import { capList, finish, shortSha } from "./output.js";
import { isUnder, normalizeRepoPath } from "./paths.js";
import { pieces, scanWords } from "./search-index.js";
import { servedLines } from "./serve.js";
import {
  definitionsOf,
  escapeRegExp,
  fileSymbols,
  formatSymbol,
  identifierWords,
  isWordCode,
  mayDefine,
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
 * Names of `names` (distinct) similar to `name`: same name ignoring case, edit distance ≤ max(1, ⌊len/4⌋) (at most
 * 3), or sharing identifier words (camelCase/snake_case parts). Best first (same name ignoring case, then by
 * distance, then by most shared words; shorter names first on ties); at most `max`. One pass over the names: the
 * distance only for names of a length within the limit (a banded distance, {@link boundedEditDistance}), the words
 * only of names holding one of the name's words.
 */
export function similarNames(name: string, names: Iterable<string>, max = MAX_SIMILAR): string[] {
  const lower = name.toLowerCase();
  const words = [...new Set(identifierWords(name))];
  const limit = similarityLimit(name);
  const best = topK<{ name: string; score: number }>(
    max,
    (a, b) => a.score - b.score || a.name.length - b.name.length || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const holds = prefilter(lower, words, limit);
  for (const n of names) {
    if (n === name || !holds.test(n)) continue;
    const nl = n.toLowerCase();
    if (Math.abs(nl.length - lower.length) <= limit) {
      const d = nl === lower ? 0 : boundedEditDistance(nl, lower, limit);
      if (d <= limit) {
        best.offer({ name: n, score: d });
        continue;
      }
    }
    // Words shared, counted once per occurrence in `n`; a name holding none of the words as text shares none.
    if (!words.some((w) => nl.includes(w))) continue;
    let count = 0;
    for (const w of identifierWords(n)) if (words.includes(w)) count++;
    if (count > 0) best.offer({ name: n, score: 10 - Math.min(5, count) + Math.abs(n.length - name.length) / 100 });
  }
  return best.result().map((s) => s.name);
}

/**
 * A test that every name {@link similarNames} can offer for `lower` (a name, lower-cased; `words` its identifier
 * words; `limit` its edit distance) passes, so that the others are passed over without lower-casing them: such a
 * name holds one of `words` (ignoring case), or is within `limit` edits and so holds one of the `limit` + 1 pieces
 * of `lower` ({@link pieces}: an edit changes at most one of them). The test ignores ASCII case only, so it passes
 * every name holding a character past ASCII (whose lower case `toLowerCase` may give differently), and every name
 * for a `lower` holding one.
 */
function prefilter(lower: string, words: readonly string[], limit: number): RegExp {
  if (/[^\x00-\x7f]/.test(lower)) return /(?:)/;
  const parts = [...new Set([...pieces(lower, limit), ...words])].map(escapeRegExp);
  return new RegExp(`${parts.join("|")}|[^\\x00-\\x7f]`, "i");
}

/**
 * Split "Cart.total", "Cart#total", "Cart::total" into container and name. A `#` separates (Ruby's `Cart#total`)
 * only after a name character: a leading one is part of the name, as in JavaScript's private `#total` (ECMAScript
 * 2022 private methods and fields), so "#total" and "Cart.#total" name the private member, not a public `total`.
 */
function splitQualified(raw: string): { name: string; container?: string } {
  const parts = raw
    .trim()
    .replace(/\(\)$/, "")
    .split(/\.|::|(?<=[\w$])#/)
    .filter((p) => p !== "");
  const name = parts[parts.length - 1] ?? raw.trim();
  return parts.length > 1 ? { name, container: parts[parts.length - 2] } : { name };
}

/**
 * What the similar-name lookup looks at, from one {@link scanWords} pass for the pieces of `name` — the name
 * itself ignoring case, its identifier words of 3+ letters, and the pigeonhole pieces of 3+ letters of its
 * lower-cased form for the edit distance (scanWords drops those holding a non-word character): the names defined in
 * the {@link SIMILAR_FILES} files (within the extraction budget) with the highest sum of log(1 + files / files
 * holding the piece) over the pieces they hold, and the files holding each word exactly (a name defined in a file
 * is a word of it). Of those files, only the ones that can define a similar name are extracted ({@link mayDefine}):
 * a name within the edit distance holds one of the k + 1 pieces unchanged (pigeonhole), a name sharing an identifier
 * word holds that word; the others could add only names {@link similarNames} passes over.
 */
function neighbourhood(
  snapshot: Snapshot,
  name: string,
  limit: number,
): { names: Set<string>; filesOf(word: string): string[] } {
  const lower = name.toLowerCase();
  const words = identifierWords(name);
  const split = pieces(lower, limit);
  const needles = [...new Set([lower, ...words, ...split])].filter((p) => p.length >= 3 || p === lower);
  // Per word of the pass (by its id): the files holding it, and the needles it holds; per needle, the files holding
  // it (each once: the pass reports a file's words together, files in order; sorted and deduplicated otherwise).
  const filesById: number[][] = [];
  const heldById: number[][] = [];
  const idOf = new Map<string, number>();
  const holding: number[][] = needles.map(() => []);
  const lastFile = new Int32Array(needles.length).fill(-1);
  let ordered = true;
  scanWords(snapshot, needles, (file, word, id) => {
    let held = heldById[id];
    if (held === undefined) {
      const w = word.toLowerCase();
      held = [];
      for (let i = 0; i < needles.length; i++) if (w.includes(needles[i] as string)) held.push(i);
      heldById[id] = held;
      filesById[id] = [file];
      idOf.set(word, id);
    } else (filesById[id] as number[]).push(file);
    for (const i of held) {
      const last = lastFile[i] as number;
      if (last === file) continue;
      if (file < last) ordered = false;
      lastFile[i] = file;
      (holding[i] as number[]).push(file);
    }
  });
  if (!ordered) for (let i = 0; i < holding.length; i++) holding[i] = [...new Set(holding[i])].sort((a, b) => a - b);
  // Scores summed in needle order, as floating point sums are not associative (the ranking must not depend on it).
  const total = snapshot.paths.length;
  const score = new Float64Array(total);
  const ranked: number[] = [];
  for (const files of holding) {
    const weight = Math.log(1 + total / Math.max(1, files.length));
    for (const f of files) {
      if (score[f] === 0) ranked.push(f);
      score[f] = (score[f] as number) + weight;
    }
  }
  ranked.sort((a, b) => (score[b] as number) - (score[a] as number) || a - b);
  const best = withinBudget(
    snapshot,
    ranked.map((f) => snapshot.paths[f] as string),
    SIMILAR_FILES,
  );
  const may = mayDefine([...split, ...words], true);
  const names = new Set<string>();
  for (const path of best) if (may(snapshot, path)) for (const s of fileSymbols(snapshot, path)) names.add(s.name);
  const filesOf = (word: string): string[] => {
    const id = idOf.get(word);
    return id === undefined ? [] : (filesById[id] as number[]).map((f) => snapshot.paths[f] as string);
  };
  return { names, filesOf };
}

/**
 * The offset of the first whole-word occurrence (not inside a longer run of `[A-Za-z0-9_$]`) of `word` in `text`
 * at or after `from`, or -1.
 */
function wordAt(text: string, word: string, from: number): number {
  for (let at = text.indexOf(word, from); at !== -1; at = text.indexOf(word, at + 1)) {
    if ((at === 0 || !isWordCode(text.charCodeAt(at - 1))) && !isWordCode(text.charCodeAt(at + word.length))) return at;
  }
  return -1;
}

/**
 * Whether the served text of `path` (secrets redacted, `servedLines`) holds `word` as a whole word, exactly: the lines
 * of its occurrences in the file are redacted one at a time until one still holds it. A word found only inside a
 * secret (a password's value, a `.env` line's) is not held, so naming the files that use a word never confirms one.
 */
function servedHasWord(snapshot: Snapshot, path: string, word: string): boolean {
  const content = snapshot.read(path);
  if (content === undefined || word === "") return false;
  let line = 1;
  let counted = 0; // line breaks are counted up to here
  for (let at = wordAt(content, word, 0); at !== -1;) {
    for (let nl = content.indexOf("\n", counted); nl !== -1 && nl < at; nl = content.indexOf("\n", nl + 1)) {
      line++;
      counted = nl + 1;
    }
    const served = servedLines(snapshot, path, [line], content)?.[0] ?? "";
    if (wordAt(served, word, 0) !== -1) return true;
    const next = content.indexOf("\n", at);
    if (next === -1) return false;
    at = wordAt(content, word, next + 1);
  }
  return false;
}

/** The definitions named `name` in the files holding the word (from {@link neighbourhood}). */
function sitesIn(snapshot: Snapshot, files: readonly string[], name: string): SymbolSite[] {
  const may = mayDefine([name]);
  return files.flatMap((path) =>
    may(snapshot, path) ? fileSymbols(snapshot, path).filter((s) => s.name === name) : [],
  );
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
    const similar = similarNames(name, near.names)
      .map((n) => sitesIn(snapshot, near.filesOf(n), n).filter(inScope))
      .filter((sites) => sites.length > 0)
      .map((sites) => {
        const s = sites[0] as SymbolSite;
        return `${formatSymbol(s)} (${s.path}:${s.line}${sites.length > 1 ? `, +${sites.length - 1} more` : ""})`;
      });
    lines.push(similar.length > 0 ? `Similar defined names: ${similar.join("; ")}` : "No similar names are defined.");
    // Where the word is used is not said for a name shaped like a secret (it would confirm the secret is there).
    // Nor a word that a file holds only inside a secret (a password's value): only files whose served text shows it.
    const used =
      redact(name) !== name
        ? []
        : near.filesOf(name).filter((p) => isUnder(p, folder) && servedHasWord(snapshot, p, name));
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
