import { applyPatch } from "diff";
import type { FixJson } from "../src/cli/json.js";
import { changedLines, inertLines } from "../src/lang/comments.js";
import { syntaxError, syntaxLanguage } from "../src/review/rules/syntax.js";
import type { EvalCase } from "./cases.js";

/**
 * Whether every edit of a run parses: `ok`, `fail` (with the first error), `n/a` (no checkable edit), `none` (no
 * edit).
 */
export type ParseResult =
  { state: "ok" } | { state: "fail"; path: string; message: string } | { state: "n/a" } | { state: "none" };

/** One scored run: what a maintainer would check first about groundfix's answer to a case. */
export interface CaseScore {
  id: string;
  status: FixJson["status"] | "error";
  /** The path groundfix named first (`affected_file`, else the first citation), or null. */
  firstPath: string | null;
  /** The first named path is one of the source files the fix changed. */
  fileFirst: boolean;
  /** The `affected_function` groundfix named, as it wrote it, or null. */
  affectedFunction: string | null;
  /** `affected_function` is one of the functions the fix changed; null when the fix changed no named function. */
  functionCited: boolean | null;
  /** Some edit is in a source file the fix changed. */
  editInChanged: boolean;
  /** Some edit in a changed file adds a line that is not blank and not a comment. */
  codeEditInChanged: boolean;
  /** The outcome was `pr_ready` and an edit is in a file the fix did not change. */
  prOutside: boolean;
  /** There are edits, and every line they add is blank, a comment or a log/print call (see {@link isLogLine}). */
  noise: boolean;
  parse: ParseResult;
  confidence: number | null;
  /** Wall time of the `groundfix fix` process, milliseconds. */
  ms: number;
}

/**
 * The last segment of a function name as groundfix or a case writes it: `Route.dispatch()` → `dispatch`,
 * `(*Command).execute` → `execute`, `Foo::Bar#baz` → `baz`, `CsvParser..ctor` → `CsvParser`,
 * `CsvDataReader.get_FieldCount()` → `FieldCount`.
 */
export function plainName(name: string): string {
  const noArgs = name.trim().replace(/\([^()]*\)\s*$/, ""); // a trailing call or parameter list
  const parts = noArgs.split(/::|[.#/\\\s()*&]+/).filter((p) => p.length > 0);
  let last = parts.pop() ?? "";
  if (CONSTRUCTORS.has(last) && parts.length > 0) last = parts.pop() ?? last; // `CsvParser..ctor` → `CsvParser`
  return last.replace(/^[gs]et_(?=[A-Z])/, ""); // a C# property accessor in a frame: `get_FieldCount` → `FieldCount`
}

/** How runtimes name a constructor in a frame: C# `.ctor`/`.cctor`, Java `<init>`/`<clinit>`, JavaScript. */
const CONSTRUCTORS = new Set(["ctor", "cctor", "<init>", "<clinit>", "constructor"]);

const LOG_CALL = new RegExp(
  [
    String.raw`^(?:console\.(?:log|error|warn|info|debug|trace)`,
    String.raw`(?:print|println|printf|puts|pp|warn)\b`,
    String.raw`p[ (]`,
    String.raw`fmt\.(?:Print|Fprint|Eprint)\w*`,
    String.raw`(?:this\.|self\.)?(?:log|logger|_log|_logger|LOG|LOGGER)\.(?!Fatal|Panic)\w+`,
    String.raw`logging\.\w+`,
    String.raw`System\.(?:out|err)\.print\w*`,
    String.raw`Console\.(?:Write|WriteLine|Error\.WriteLine)`,
    String.raw`(?:Rails\.)?logger\.\w+`,
    String.raw`debug\()`,
  ].join("|"),
);

/**
 * True when `line` (an added line, trimmed) is only a call that logs or prints: `console.log(…)`, `print(…)`,
 * `puts …`, `fmt.Println(…)`, `log.Printf(…)`, `logger.warn(…)`, `logging.error(…)`, `System.err.println(…)`,
 * `Console.WriteLine(…)` and the like (not Go's `log.Fatal…`/`log.Panic…`, which stop the program). Such a line
 * changes no behaviour a maintainer would keep as a fix.
 */
export function isLogLine(line: string): boolean {
  return LOG_CALL.test(line.trim());
}

/**
 * Apply each edit's diff to the base file, in order per file, and parse the result with the review's syntax rule
 * (src/review/rules/syntax.ts: TypeScript/JavaScript, JSON, YAML, and Python and Go once their tree-sitter grammars
 * are loaded). A file in another language, or whose diff does not apply, is not counted; a review finding of the
 * `syntax` rule at failure level (present when the run committed) also counts as a failure.
 *
 * @param readBase the file's text at the base commit, or undefined when it is not there.
 */
export function parseEdits(json: FixJson, readBase: (path: string) => string | undefined): ParseResult {
  if (json.edits.length === 0) return { state: "none" };
  const reviewFail = json.review?.findings.find((f) => f.rule === "syntax" && f.level === "failure");
  if (reviewFail)
    return {
      state: "fail",
      path: reviewFail.path,
      message: reviewFail.message,
    };
  const texts = new Map<string, string | undefined>();
  let checked = 0;
  for (const edit of json.edits) {
    const before = texts.has(edit.path) ? texts.get(edit.path) : readBase(edit.path);
    const after = before === undefined ? false : applyPatch(before, edit.diff);
    texts.set(edit.path, after === false ? undefined : after);
  }
  for (const [path, text] of texts) {
    const lang = syntaxLanguage(path);
    if (text === undefined || lang === undefined) continue;
    const err = syntaxError(path, text, lang);
    if (err === undefined) continue;
    checked++;
    if (err !== null)
      return {
        state: "fail",
        path,
        message: `line ${err.line}: ${err.message}`,
      };
  }
  return checked > 0 ? { state: "ok" } : { state: "n/a" };
}

/** Score one run's `fix --json` document against its case. Pure apart from `readBase`. */
export function scoreRun(
  c: EvalCase,
  json: FixJson,
  ms: number,
  readBase: (path: string) => string | undefined,
): CaseScore {
  const changed = new Set(c.changed.files);
  const d = json.diagnosis;
  const firstPath = d?.affected_file ?? d?.citations[0]?.path ?? null;
  const wanted = new Set(c.changed.functions.map(plainName));
  const fn = d?.affected_function ? plainName(d.affected_function) : null;
  const inChanged = json.edits.filter((e) => changed.has(e.path));
  return {
    id: c.id,
    status: json.status,
    firstPath,
    fileFirst: firstPath !== null && changed.has(firstPath),
    affectedFunction: d?.affected_function ?? null,
    functionCited: wanted.size === 0 ? null : fn !== null && wanted.has(fn),
    editInChanged: inChanged.length > 0,
    codeEditInChanged: inChanged.some((e) => inertLines(e.path, changedLines(e.diff).added).some((inert) => !inert)),
    prOutside: json.status === "pr_ready" && json.edits.some((e) => !changed.has(e.path)),
    noise:
      json.edits.length > 0 &&
      json.edits.every((e) => {
        const added = changedLines(e.diff).added;
        const inert = inertLines(e.path, added);
        return added.every((l, i) => inert[i] || isLogLine(l));
      }),
    parse: parseEdits(json, readBase),
    confidence: d?.confidence ?? null,
    ms,
  };
}

/** A score for a run that did not produce a JSON document (crash, timeout, bad exit). */
export function errorScore(c: EvalCase, ms: number): CaseScore {
  return {
    id: c.id,
    status: "error",
    firstPath: null,
    fileFirst: false,
    affectedFunction: null,
    functionCited: c.changed.functions.length ? false : null,
    editInChanged: false,
    codeEditInChanged: false,
    prOutside: false,
    noise: false,
    parse: { state: "none" },
    confidence: null,
    ms,
  };
}

/** Totals over scored runs: counts, and the number of cases each ratio is over. */
export interface Totals {
  cases: number;
  fileFirst: number;
  functionCited: number;
  functionCases: number;
  editInChanged: number;
  codeEditInChanged: number;
  prReady: number;
  prOutside: number;
  noise: number;
  prNoise: number;
  parseFail: number;
  parseChecked: number;
  errors: number;
  maxMs: number;
  medianMs: number;
}

/** Sum a list of scores (median of the run times, lower middle for an even count). */
export function totals(scores: readonly CaseScore[]): Totals {
  const ms = scores.map((s) => s.ms).sort((a, b) => a - b);
  const count = (f: (s: CaseScore) => boolean) => scores.filter(f).length;
  return {
    cases: scores.length,
    fileFirst: count((s) => s.fileFirst),
    functionCited: count((s) => s.functionCited === true),
    functionCases: count((s) => s.functionCited !== null),
    editInChanged: count((s) => s.editInChanged),
    codeEditInChanged: count((s) => s.codeEditInChanged),
    prReady: count((s) => s.status === "pr_ready"),
    prOutside: count((s) => s.prOutside),
    noise: count((s) => s.noise),
    prNoise: count((s) => s.noise && s.status === "pr_ready"),
    parseFail: count((s) => s.parse.state === "fail"),
    parseChecked: count((s) => s.parse.state === "ok" || s.parse.state === "fail"),
    errors: count((s) => s.status === "error"),
    maxMs: ms[ms.length - 1] ?? 0,
    medianMs: ms[Math.floor((ms.length - 1) / 2)] ?? 0,
  };
}
