import { RE2JS } from "re2js";
import { z } from "zod";
import { isSecretPath } from "../grounding/secrets.js";
import type { ToolDefinition } from "./types.js";
import { compileGlob } from "./list-files.js";
import { splitLines } from "../grounding/lines.js";
import { clipLine, finish } from "./output.js";
import { servedLines } from "./serve.js";
import { requiredLiterals } from "./regex-literals.js";
import { rawIsText, rawText } from "../snapshot/builder.js";
import type { Snapshot } from "../types.js";

/** Default and largest number of hits `grep_codebase` shows. */
export const GREP_DEFAULT_RESULTS = 50;
export const GREP_MAX_RESULTS = 500;
/** Longest quoted hit line. */
const HIT_LINE_CHARS = 300;

const schema = z.object({
  pattern: z
    .string()
    .min(1)
    .max(1000)
    .describe("Text to find. Literal by default; set regex: true for an RE2 regular expression."),
  regex: z
    .boolean()
    .optional()
    .describe("Treat pattern as an RE2 regular expression (no backreferences or lookaround). Default false."),
  path_glob: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe('Only search paths matching this glob, e.g. "src/**/*.ts" or "*.py".'),
  case_sensitive: z.boolean().optional().describe("Match case exactly. Default true."),
  max_results: z
    .number()
    .int()
    .min(1)
    .max(GREP_MAX_RESULTS)
    .optional()
    .describe(`Most hits to show. Default ${GREP_DEFAULT_RESULTS}.`),
});

/** One matching line: repository path, 1-based line number, the line (CR dropped). */
export interface GrepHit {
  path: string;
  line: number;
  text: string;
}

/**
 * Search every text file of a snapshot line by line. Literal matching uses `indexOf` (lower-cased on both sides when
 * case-insensitive); regex matching uses re2js, whose run time is linear in the input (RE2 semantics), so patterns
 * from a model or from issue text cannot backtrack catastrophically. Secret files (`isSecretPath`) are skipped, and
 * lines are matched in the served text (`servedLines`: secrets redacted), so a secret is never a hit.
 *
 * @returns up to `maxHits` hits in path order, the total number of matching lines and files, and how many secret
 *   files were skipped. @throws Error with RE2's reason for an invalid regex.
 */
export function grepSnapshot(
  snapshot: Pick<Snapshot, "paths" | "read">,
  query: {
    pattern: string;
    regex?: boolean;
    caseSensitive?: boolean;
    pathFilter?: (path: string) => boolean;
    maxHits: number;
  },
): { hits: GrepHit[]; total: number; files: number; secretFilesSkipped: number } {
  const caseSensitive = query.caseSensitive ?? true;
  let lineTest: (line: string) => boolean;
  let fileTest: (content: string) => boolean;
  // Case-sensitive regexes with literals every match holds: only lines holding one go through RE2.
  let literals: string[] | null = null;
  if (query.regex === true) {
    const flags = caseSensitive ? 0 : RE2JS.CASE_INSENSITIVE;
    const perLine = RE2JS.compile(query.pattern, flags);
    const whole = RE2JS.compile(query.pattern, flags | RE2JS.MULTILINE);
    lineTest = (line) => perLine.test(line);
    // RE2's "$" matches only before "\n": test CRLF files with LF line breaks (line numbers do not change).
    fileTest = (content) => whole.test(content.includes("\r\n") ? content.replace(/\r\n/g, "\n") : content);
    if (caseSensitive) literals = requiredLiterals(query.pattern);
  } else if (caseSensitive) {
    lineTest = (line) => line.includes(query.pattern);
    fileTest = (content) => content.includes(query.pattern);
    literals = [query.pattern];
  } else {
    const needle = query.pattern.toLowerCase();
    lineTest = (line) => line.toLowerCase().includes(needle);
    fileTest = (content) => content.toLowerCase().includes(needle);
  }
  const asciiLiterals = literals !== null && literals.every((l) => /^[\x00-\x7f]*$/.test(l));
  const finder = literals !== null ? literalFinder(literals) : null;
  const hits: GrepHit[] = [];
  let total = 0;
  let files = 0;
  let secretFilesSkipped = 0;
  for (const path of snapshot.paths) {
    if (query.pathFilter !== undefined && !query.pathFilter(path)) continue;
    const raw = asciiLiterals ? rawText(snapshot, path) : snapshot.read(path);
    if (raw === undefined) continue;
    if (isSecretPath(path)) {
      secretFilesSkipped++;
      continue;
    }
    // Literals are looked for in the raw text when ASCII (nothing decoded); only files holding one go further.
    if (finder !== null ? !finder.holds(raw) : !fileTest(raw)) continue;
    // Lines are matched and quoted from the served text (secrets redacted): a pattern that matches only a secret
    // finds nothing, so hit counts cannot spell out a secret. Only the lines matching the text as read are redacted
    // (`servedLines`: each as the whole served text has it), and only in files that have such a line.
    const matching: number[] = [];
    if (finder !== null) {
      // The lines holding a literal, found in `raw`: line breaks are the same bytes in the raw and the decoded text,
      // so a raw line is its decoded line's UTF-8 (decoded alone here; the whole file only when a line matches).
      const decode = asciiLiterals && !rawIsText(snapshot, path);
      forCandidateLines(raw, finder, (line, number) => {
        if (lineTest(decode ? Buffer.from(line, "latin1").toString("utf8") : line)) matching.push(number);
      });
    } else
      splitLines(raw).forEach((line, i) => {
        if (lineTest(line)) matching.push(i + 1);
      });
    if (matching.length === 0) continue;
    const content = asciiLiterals ? snapshot.read(path) : raw;
    const served = servedLines(snapshot, path, matching, content) ?? [];
    let inFile = 0;
    for (let m = 0; m < matching.length; m++) {
      const number = matching[m] as number;
      const line = served[m] ?? "";
      if (!lineTest(line)) continue;
      inFile++;
      if (hits.length < query.maxHits) hits.push({ path, line: number, text: line });
    }
    if (inFile > 0) {
      files++;
      total += inFile;
    }
  }
  return { hits, total, files, secretFilesSkipped };
}

/**
 * Finds any of a few literals in a text: `holds` whether it has one, `next` the offset of the first one at or after
 * `from` (-1 when none).
 */
interface LiteralFinder {
  holds(text: string): boolean;
  next(text: string, from: number): number;
}

/**
 * A {@link LiteralFinder} for `literals` (non-empty): `indexOf` for one; for several, one regular expression of them
 * as alternatives, which scans a text once instead of once per literal (V8 looks for all of them in one pass;
 * measured on 109 MB of JavaScript: two literals 41 ms instead of 72 ms with two `includes`). Only literal
 * characters, so its time is linear in the text.
 */
function literalFinder(literals: readonly string[]): LiteralFinder {
  if (literals.length === 1) {
    const literal = literals[0] as string;
    return { holds: (text) => text.includes(literal), next: (text, from) => text.indexOf(literal, from) };
  }
  const source = literals.map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|");
  const any = new RegExp(source);
  const scan = new RegExp(source, "g");
  return {
    holds: (text) => any.test(text),
    next(text, from) {
      scan.lastIndex = from;
      return scan.exec(text)?.index ?? -1;
    },
  };
}

/**
 * Call `fn(line, number)` for each line of `content` (as `splitLines` cuts it: no line break, a "\r" before "\n"
 * dropped; 1-based numbers) that holds one of the finder's literals, in line order, each line once: the first
 * literal at or after a line's start lies in the first line that holds one (a literal never spans lines).
 */
function forCandidateLines(content: string, finder: LiteralFinder, fn: (line: string, number: number) => void): void {
  let lineStart = 0;
  let lineNumber = 1;
  for (let at = finder.next(content, 0); at !== -1;) {
    // Move to the line holding `at`.
    for (let nl = content.indexOf("\n", lineStart); nl !== -1 && nl < at; nl = content.indexOf("\n", lineStart)) {
      lineStart = nl + 1;
      lineNumber++;
    }
    const nl = content.indexOf("\n", lineStart);
    let end = nl === -1 ? content.length : nl;
    if (end > lineStart && content.charCodeAt(end - 1) === 13) end--;
    fn(content.slice(lineStart, end), lineNumber);
    if (nl === -1) return;
    lineStart = nl + 1;
    lineNumber++;
    at = finder.next(content, lineStart);
  }
}

/**
 * `grep_codebase({ pattern, regex?, path_glob?, case_sensitive?, max_results? })`: `path:line: text` hits, capped, with
 * the total.
 */
export const grepCodebase: ToolDefinition<z.infer<typeof schema>> = {
  name: "grep_codebase",
  description:
    "Find lines containing a literal string (default) or an RE2 regex (regex: true) across the " +
    'repository; answers "path:line: text" per hit, capped at max_results, with the total count. ' +
    'Narrow with path_glob (e.g. "src/**/*.js"); case-sensitive unless ' +
    "case_sensitive: false. Use it for exact names, error strings and log messages. " +
    "Its lines are shown without their indentation and may be cut, so never " +
    "copy code_before from them: read the lines with get_file_contents first.",
  schema,
  readsCode: true,
  run(args, ctx) {
    let pathFilter: ((p: string) => boolean) | undefined;
    if (args.path_glob !== undefined) {
      const compiled = compileGlob(args.path_glob);
      if (typeof compiled === "string") {
        return finish(ctx.snapshot, {
          status: "invalid",
          text:
            `INVALID: cannot use path_glob '${args.path_glob}': ` +
            `${compiled}. Use picomatch syntax like "src/**/*.ts".`,
        });
      }
      pathFilter = compiled;
    }
    const maxHits = args.max_results ?? GREP_DEFAULT_RESULTS;
    let found: ReturnType<typeof grepSnapshot>;
    try {
      found = grepSnapshot(ctx.snapshot, {
        pattern: args.pattern,
        regex: args.regex,
        caseSensitive: args.case_sensitive,
        pathFilter,
        maxHits,
      });
    } catch (err) {
      const reason = (err as Error).message.split("\n")[0] ?? "invalid pattern";
      return finish(ctx.snapshot, {
        status: "invalid",
        text:
          `INVALID: regex '${args.pattern}' does not compile (${reason}). RE2 syntax has no ` +
          `backreferences or lookaround; fix the pattern or call with regex: false for a literal search.`,
      });
    }
    const scope = args.path_glob !== undefined ? ` in paths matching '${args.path_glob}'` : "";
    const skipped = found.secretFilesSkipped > 0 ? ` (${found.secretFilesSkipped} secret file(s) not searched)` : "";
    if (found.total === 0) {
      const tip =
        args.case_sensitive === false ? "" : " Try case_sensitive: false, a shorter pattern, or search_codebase.";
      const none = { tool: "grep_codebase" as const, total: 0, hits: [] };
      return finish(ctx.snapshot, {
        status: "ok",
        text: `0 matches for ${JSON.stringify(args.pattern)}${scope}${skipped}.${tip}`,
        data: none,
      });
    }
    const lines = found.hits.map((h) => `${h.path}:${h.line}: ${clipLine(h.text.trim(), HIT_LINE_CHARS)}`);
    const header =
      `${found.total} matching line(s) in ${found.files} file(s) ` +
      `for ${JSON.stringify(args.pattern)}${scope}${skipped}:`;
    if (found.total > found.hits.length) {
      lines.push(
        `… ${found.total - found.hits.length} more not shown; narrow ` +
          `with path_glob or raise max_results (≤ ${GREP_MAX_RESULTS})`,
      );
    }
    const data = { tool: "grep_codebase" as const, total: found.total, hits: found.hits };
    return finish(ctx.snapshot, { status: "ok", text: [header, ...lines].join("\n"), data });
  },
};
