/**
 * Locating the code a problem is about, for the heuristic model (steps 1 and 2 of `plan.ts`):
 *
 * 1. discover — `describe_repo` once (the repository's own package names); `list_files` for each stack-frame file
 *    name, for an installed copy's mapped path and its source candidates (`own.ts`), and for compiled output's
 *    source; `verify_symbol_in_repo` for each frame's function; `grep_codebase` for the declaration of each quoted
 *    identifier.
 * 2. locate — candidates in order of evidence: the innermost frame of the repository's own code (installed copies
 *    mapped back, checkout paths by path suffix, compiled output through its source), the alert location, the files
 *    that declare the quoted identifiers, a path named in the text; when none of them can be read, the file that
 *    writes the error message, then `search_codebase` on the problem's words. The first readable candidate wins.
 *
 * Everything here is recomputed from the conversation (the tool answers so far); the text of the problem is
 * untrusted data, only read.
 */
import {
  baseName,
  commonSuffixSegments,
  compiledSource,
  isCompiledOutputPath,
  pathSegments,
  sharedTailLength,
  type StackFrame,
} from "./frames.js";
import { codeOfLine, isCommentLine, languageOfPath } from "../../../lang/comments.js";
import { callKey, dataOf, resultOf, type Step } from "./history.js";
import { definitionOn, enclosingDefinition, languageOf } from "./code.js";
import { headlineOf, oneLine, type ProblemFacts } from "./problem.js";
import { definitionSites, grepHits, knownLines, listedPaths, searchFiles, type FileWindow } from "./results.js";
import { goPackageFile, mapInstalledFrame, ownByLabel, sourceCandidates, type OwnMapping } from "./own.js";
import { crashOf } from "./proportion.js";
import { linkOf } from "./symlink.js";
import { escapeRe, NO_TRACE, sourceNoun, wholeWord } from "./wording.js";
import type { OwnPackage } from "../../../tools/manifests.js";
import type { DefinitionSite } from "../../../tools/results.js";

/** One call the heuristic wants to make. */
export interface PlannedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The heuristic's next turn: a line of prose and its tool calls. */
export interface Plan {
  text: string;
  calls: PlannedCall[];
}

/**
 * How a candidate file was found, strongest first: a stack frame of the report, an alert's location, an identifier the
 * report names, a path the report names, a search fallback.
 */
export type Evidence = "frame" | "alert" | "identifier" | "path" | "search";

/** A place the heuristic may read: a repository `path`, a 1-based `line` (null: no line known), and its evidence. */
export interface Candidate {
  path: string;
  line: number | null;
  evidence: Evidence;
  frame?: StackFrame;
  identifier?: string;
  /** The frame's file name matched several repository files equally well. */
  tied?: boolean;
  /**
   * A compiled-output frame mapped to its source: the function's definition lines there (frame line numbers do not
   * apply).
   */
  compiled?: { start: number; end: number | null };
  /** A package's entry file, chosen because the title names that workspace package (`@scope/name`). */
  pkg?: string;
  /** The file exists but is over the snapshot's per-file cap: it could not be read (the frame still counts). */
  tooLarge?: boolean;
  /**
   * The inner frame this caller was chosen over: it only relayed a value that arrived missing or wrong. `via`: when
   * other own callers between them only passed the value on (their own parameter, unchanged), the one this caller
   * calls, and the name of that parameter — the call a guard in this caller is about.
   */
  relayedFrom?: {
    frame: StackFrame;
    path: string;
    why: RelayReason;
    via?: { frame: StackFrame; path: string; param: string };
  };
}

/** Why an inner frame is looked past (see {@link relayReason}). */
export type RelayReason = "parameter" | "destructured" | "validator" | "passes";

/** Test files, specs, mocks and fixtures: they never win a tie and are left out of fallbacks. */
export const TEST_PATH = new RegExp(
  String.raw`(?:^|\/)(?:test|tests|spec|specs|__tests__|__mocks__|fixtures?)\/|` +
    String.raw`[._-](?:test|spec)\.[a-z]+$|(?:^|\/)test_[^/]+\.py$|_test\.go$`,
);

/**
 * Files that are not where a maintainer fixes a bug: generated or minified bundles, vendored third-party folders,
 * docs and examples, dev scripts and tool configuration (`jest.config.js`, `.eslintrc.js`). They rank last among
 * fallbacks and never stand for an installed copy's source.
 */
export const LAST_RESORT = new RegExp(
  [
    String.raw`(?:^|\/)(?:vendor|vendored|third_party|third-party|bower_components|docs?|examples?|scripts)\/`,
    String.raw`(?:^|\/)(?:benchmarks?|dist|build|out)\/`,
    String.raw`\.min\.[a-z]+$|[.-]bundle\.[a-z]+$|\.(?:md|markdown|rst|txt|html?)$`,
    String.raw`(?:^|\/)[\w.-]+\.config\.[cm]?[jt]s$|(?:^|\/)\.[\w-]+rc\.[cm]?js$`,
  ].join("|"),
);

/** A fallback file that ranks last: a test, a fixture, or a {@link LAST_RESORT} file. */
export const isWeak = (path: string): boolean => TEST_PATH.test(path) || LAST_RESORT.test(path);

/**
 * The one workspace package the title names, or null (none, or several): an npm package of the repository (not the
 * root one) written as `@scope/name` or `scope/name`, or an unscoped name holding a `-` or `.` (`config-x`). A single
 * word is the product or its command (`commitlint --extends …`), not a package; the root package is the whole
 * repository and narrows nothing.
 */
export function namedPackage(problem: ProblemFacts, own: readonly OwnPackage[]): OwnPackage | null {
  const hits = own.filter((p) => {
    if (p.kind !== "npm" || p.root === "") return false;
    const forms = p.name.startsWith("@") ? [p.name, p.name.slice(1)] : /[-.]/.test(p.name) ? [p.name] : [];
    return forms.some((f) => new RegExp(`(?:^|[^\\w@/.-])${escapeRe(f)}(?![\\w/-])`).test(problem.title));
  });
  const names = new Set(hits.map((p) => p.name));
  return names.size === 1 ? (hits[0] ?? null) : null;
}

/** The source candidates of a package's entry file (see `sourceCandidates` in own.ts), repository paths. */
function entryPaths(pkg: OwnPackage): string[] {
  const entry = `${pkg.root === "" ? "" : `${pkg.root}/`}${pkg.entry ?? "index.js"}`;
  return sourceCandidates(entry, pkg.root);
}

/** `list_files` globs that show which of a package's entry candidates exist. */
function entryGlobs(pkg: OwnPackage): string[] {
  return exactGlobs(entryPaths(pkg));
}

/** The candidate for a named package's entry: the first of its source candidates that is a file, else null. */
function packageEntry(steps: readonly Step[], pkg: OwnPackage): Candidate | null {
  const answers = entryGlobs(pkg).map((glob) => listedPaths(steps, { glob }));
  if (!answers.length || answers.some((a) => a === null)) return null;
  const listed = answers.flatMap((a) => a ?? []);
  const path = entryPaths(pkg).find((p) => listed.includes(p));
  return path ? { path, line: null, evidence: "path", pkg: pkg.name } : null;
}

/** Words search never runs on alone: runtime message templates and reporting words. */
const GENERIC = new Set(
  [
    "read reads reading write writes run runs running ran call calls called calling invoke invoked invalid memory",
    "address pointer dereference runtime panic panics panicked segmentation violation signal sigsegv iterable",
    "subscriptable attribute attributes instance argument arguments expected received returned returns thrown throws",
    "raised stack trace traceback version command module package working works happens still does doesn isn",
    "when how why",
  ]
    .join(" ")
    .split(" "),
);

/**
 * The problem's search words without the ones that say nothing about this repository: generic words
 * ({@link GENERIC}, exception class names), the repository's own package names (and their parts), the command words
 * the user typed (words of shell lines: `$ x`, `npx x`, `yarn x …`, and `--flags`), and the member a crash on a
 * missing value reads (a name of the missing value's type, read everywhere).
 */
export function specificWords(problem: ProblemFacts, own: readonly OwnPackage[]): string[] {
  const ownParts = new Set(
    own.flatMap((p) =>
      p.name
        .toLowerCase()
        .split(/[@/.\-_]+/)
        .concat(p.name.toLowerCase()),
    ),
  );
  const commands = commandWords(problem.body);
  const member = crashOf(problem.errorMessages[0] ?? problem.title)?.name ?? null;
  return problem.searchWords.filter(
    (w) =>
      !GENERIC.has(w.toLowerCase()) &&
      !/^[A-Z]\w*(?:Error|Exception|Warning)$/.test(w) &&
      !ownParts.has(w.toLowerCase()) &&
      !commands.has(w) &&
      w !== member,
  );
}

/**
 * Words of the command lines a report shows — the user's input, not names of this repository's code: lines after a
 * shell prompt (`$ `, `PS C:\\> `, `➜ `), lines and backtick spans that start with a package runner or interpreter
 * (`npx x`, `yarn x`, `go run …`), lines of a shell code block that pass flags, and every `--flag`.
 */
export function commandWords(body: string): Set<string> {
  const out = new Set<string>();
  const runners =
    "npx yarn npm pnpm bun bunx node deno go python python3 pip pip3 pipx uv ruby bundle gem rake java mvn";
  const runner = new RegExp(`^(?:${`${runners} gradle dotnet cargo`.split(" ").join("|")})\\s+\\S`);
  const prompt = /^\s*(?:\$|PS [^>]*>|➜|%)\s+/;
  let shell = false;
  for (const raw of body.split("\n")) {
    const fence = /^\s*(?:```|~~~)\s*(\w*)/.exec(raw);
    if (fence) {
      shell = !shell && /^(?:sh|bash|shell|console|zsh|powershell|ps1?|cmd|terminal)$/i.test(fence[1] ?? "");
      continue;
    }
    const line = raw.replace(prompt, "").trim();
    const spans = [...raw.matchAll(/\x60([^\x60\n]+)\x60/g)].map((m) => (m[1] ?? "").trim());
    const typed = [
      ...(prompt.test(raw) || runner.test(line) || (shell && /(?:^|\s)--?[A-Za-z]/.test(line)) ? [line] : []),
      ...spans.filter((t) => runner.test(t)),
    ];
    for (const l of typed) for (const w of l.split(/[^\w$-]+/)) if (w) out.add(w.replace(/^-+/, ""));
    for (const m of raw.matchAll(/(?:^|\s)--([A-Za-z][\w-]*)/g)) if (m[1]) out.add(m[1]);
  }
  return out;
}

/** A planned tool call: the tool's `name` and its JSON `arguments`. */
export const call = (name: string, args: Record<string, unknown>): PlannedCall => ({ name, arguments: args });

/** Words a Java/Kotlin/C# method declaration starts with (a modifier, or `void`). */
const MODIFIERS = "public|private|protected|internal|static|final|override|abstract|synchronized|void";

/**
 * RE2 pattern for a declaration of `id` (its last dotted segment): `id:` (object key, field), `id =`, `def id`,
 * `function id`, `func id`, `fun id`, a Go method `func (r *T) id`, a Go struct field `id Type`, a Java/Kotlin/C#
 * method after a modifier or type (`public Token id(`). Its hits are filtered by {@link countsAsDeclaration}.
 */
export function declarationPattern(id: string): string {
  const name = escapeRe(id.split(".").pop() ?? id);
  return (
    `(^|[^\\w$.]|\\bself\\.|\\bthis\\.|@)${name}\\s*(:[^:]|=[^=>]|:$|=$)` +
    `|\\b(def|function|func|fun|fn|class|type)\\s+${name}\\b` +
    `|\\bfunc\\s*\\([^)]*\\)\\s*${name}\\s*[(\\[]|^\\s+${name}\\s+[*\\[\\]]*[A-Za-z_]` +
    `|\\b(${MODIFIERS})\\b[^=;(]*[\\s.]${name}\\s*\\(`
  );
}

/** Lines where a match cannot be a declaration (besides comment lines): a `case`/`default:` label. */
const LABEL_LINE = /^\s*(?:case\b[^:]*:|default\s*:)/;

/**
 * Whether a declaration-pattern hit (`text`, the whole line, in `path`) declares `id`: not inside a comment, a string
 * or a URL, not a `case`/`default:` label. In Go a method (`func (r *T) id(`), a struct field (`id Type`) or an
 * assignment counts, and a composite-literal key (`Name: value,`) is a use; a field shape counts only in Go.
 */
export function countsAsDeclaration(path: string, text: string, id: string): boolean {
  const name = escapeRe(id.split(".").pop() ?? id);
  const language = languageOfPath(path);
  // comments by the one rule of src/lang/comments.ts (`#` only where it starts one: not a private name, a directive)
  if (LABEL_LINE.test(text) || isCommentLine(text, language)) return false;
  const at = new RegExp(`(?:^|[^\\w$])${name}(?![\\w$])`).exec(text);
  if (!at) return false;
  const before = text.slice(0, at.index + 1);
  // an odd number of quotes before the name: it is inside a string literal; after the code: in a comment; a URL
  const open = (q: string) => (before.split(q).length - 1) % 2 === 1;
  if (open('"') || open("'") || open("\x60")) return false;
  if (at.index >= codeOfLine(text, language).length || /\/\*|:\/\//.test(before)) return false;
  const go = path.endsWith(".go");
  if (new RegExp(`\\b(?:def|function|func|fun|fn|class|type)\\s+${name}\\b`).test(text)) return true;
  if (go) {
    if (new RegExp(`\\bfunc\\s*\\([^)]*\\)\\s*${name}\\s*[(\\[]`).test(text)) return true;
    // a struct field (`Name Type`, `Name *pkg.T`, `Name []T`, `Name map[K]V`, `Name func(…)`), with a tag or comment
    const type = String.raw`[*\[\]]*(?:func\s*\(.*|map\[.*|chan\s.*|[A-Za-z_][\w.]*(?:\[[\w., *]*\])?)`;
    if (new RegExp(`^\\s+${name}\\s+${type}(?:\\s+\x60.*)?\\s*(?://.*)?$`).test(text)) return true;
    // `name :=` and `name =` assign; `Name: value,` is a composite-literal key, a use
    return new RegExp(`(?:^|[^\\w$.])${name}\\s*(?::=|=[^=])`).test(text);
  }
  if (new RegExp(`\\b(?:${MODIFIERS})\\b[^=;(]*[\\s.]${name}\\s*\\(`).test(text)) return true;
  return new RegExp(`(?:^|[^\\w$.]|\\bself\\.|\\bthis\\.|@)${name}\\s*(?::[^:]|=[^=>]|:$|=$)`).test(text);
}

/**
 * The literal part of an error message to look for in the code: its text after the exception name, up to the first
 * quote, interpolated-looking value or sentence end, when that leaves at least 4 words (20+ characters); else null.
 */
export function messagePhrase(message: string | null): string | null {
  if (!message) return null;
  const text = message.replace(/^(?:[\w.]*(?:Error|Exception|Warning)|panic|Error|Warning)\s*:\s*/, "");
  const head = text.split(/["'`‘“(]|\d|[.!?](?:\s|$)/)[0]?.trim() ?? "";
  return head.length >= 20 && head.split(/\s+/).length >= 4 ? head : null;
}

/**
 * Window arguments for reading a candidate: the whole file when the line is near the top, else around the line —
 * from the start of the frame's function when the discovery found it holding the line less than 350 lines above
 * (the addition needs the signature: its parameters, its return type, its own early returns).
 */
export function readArgs(c: Candidate, steps: readonly Step[]): Record<string, unknown> {
  if (c.line === null || c.line <= 350) return { path: c.path };
  const line = c.line;
  const site = sitesIn(steps, c.frame?.fn ?? null, c.path).find(
    (s) => s.line <= line && (s.endLine ?? line) >= line && line - s.line < 350,
  );
  return { path: c.path, start_line: Math.max(1, Math.min(site?.line ?? line, line - 150)), end_line: line + 50 };
}

/** The repository's own package names, from the `describe_repo` answer ([] before it came). */
function ownOf(steps: readonly Step[]): OwnPackage[] {
  return dataOf(steps, "describe_repo", {}, "describe_repo")?.ownPackages ?? [];
}

/** A frame the heuristic looks at: in the repository's own code, with its installed-copy mapping when it has one. */
interface FrameRef {
  frame: StackFrame;
  /** The frame is under an installed copy of an own package (or a Go package of an own module): its repository path. */
  mapped: OwnMapping | null;
}

/**
 * The frames of the repository's own code, innermost first (at most 6): frames under an installed copy of an own
 * package (mapped to the repository path), and checkout frames that are not in a dependency, the runtime, or
 * (by their printed label) another package.
 */
function ownFrames(problem: ProblemFacts, own: readonly OwnPackage[]): FrameRef[] {
  const out: FrameRef[] = [];
  for (const f of problem.frames) {
    if (out.some((r) => r.frame.rawPath === f.rawPath && r.frame.line === f.line)) continue;
    const mapped = mapInstalledFrame(f, own) ?? goPackageFile(f, own);
    if (mapped) out.push({ frame: f, mapped });
    else if (!f.library && ownByLabel(f, own) !== false) out.push({ frame: f, mapped: null });
  }
  return out.slice(0, 6);
}

/** The longest glob one `list_files` call takes is 1000 characters; brace lists are cut below that. */
const MAX_GLOB = 900;

/**
 * `list_files` globs matching exactly `paths` (brace lists of at most {@link MAX_GLOB} characters each, in order);
 * paths holding glob characters are left out.
 */
function exactGlobs(paths: readonly string[]): string[] {
  const safe = paths.filter((p) => !/[{}[\](),*?!]/.test(p) && p.length < MAX_GLOB);
  const groups: string[][] = [];
  for (const p of safe) {
    const last = groups[groups.length - 1];
    if (last && last.join(",").length + p.length + 3 <= MAX_GLOB) last.push(p);
    else groups.push([p]);
  }
  return groups.map((g) => (g.length === 1 ? (g[0] as string) : `{${g.join(",")}}`));
}

/** The `list_files` calls that show which of a mapped frame's candidate paths exist ([] for other frames). */
function mappedListArgs(ref: FrameRef): Record<string, unknown>[] {
  if (!ref.mapped) return [];
  return exactGlobs(sourceCandidates(ref.mapped.path, ref.mapped.pkg.root)).map((glob) => ({ glob }));
}

/** Definition sites of the frame's function in `path` (from the discovery `verify_symbol_in_repo`), [] when unknown. */
export function sitesIn(steps: readonly Step[], fn: string | null, path: string): DefinitionSite[] {
  if (!fn) return [];
  return (definitionSites(steps, { name: fn }) ?? []).filter((s) => s.path === path);
}

/**
 * The candidate for a frame under an installed copy of an own package: the first of its source candidates that is a
 * file (the mapped path itself first). A file other than the mapped path is the source of build output: the frame's
 * line number belongs to the compiled file, so the line is searched inside the frame's function there. Build output
 * is often one bundle made from several sources (`dist/index.cjs` from `src/index.ts` and `src/utils.ts`): when the
 * frame names a function that the same-named source does not define, or no source of that name exists, the
 * package's source file that defines the function is the frame's file ({@link definingSource}). Null when nothing
 * fits (yet).
 */
function resolveMapped(steps: readonly Step[], ref: FrameRef): Candidate | null {
  const answers = mappedListArgs(ref).map((args) => listedPaths(steps, args));
  if (!ref.mapped || !answers.length || answers.some((a) => a === null)) return null;
  const listed = answers.flatMap((a) => a ?? []);
  const path = sourceCandidates(ref.mapped.path, ref.mapped.pkg.root).find((p) => listed.includes(p));
  if (path === ref.mapped.path) return { path, line: ref.frame.line, evidence: "frame", frame: ref.frame };
  const site = path ? sitesIn(steps, ref.frame.fn, path)[0] : undefined;
  const elsewhere = site ? null : definingSource(steps, ref.frame.fn, ref.mapped.pkg.root);
  const at = site ? { path: path as string, site } : elsewhere;
  if (!at) return path ? { path, line: null, evidence: "frame", frame: ref.frame } : null;
  return {
    path: at.path,
    line: at.site.line,
    evidence: "frame",
    frame: ref.frame,
    compiled: { start: at.site.line, end: at.site.endLine },
  };
}

/**
 * The one source file under the package folder `root` that defines `fn` (from the discovery `verify_symbol_in_repo`
 * answer), with its definition site: tests, build output, vendored code and docs are left out; null when no file or
 * more than one defines it.
 */
function definingSource(
  steps: readonly Step[],
  fn: string | null,
  root: string,
): { path: string; site: DefinitionSite } | null {
  if (!fn) return null;
  const sites = (definitionSites(steps, { name: fn }) ?? []).filter(
    (s) =>
      (root === "" || s.path.startsWith(`${root}/`)) &&
      !TEST_PATH.test(s.path) &&
      !isCompiledOutputPath(s.path.slice(root === "" ? 0 : root.length + 1)) &&
      !LAST_RESORT.test(s.path),
  );
  const files = [...new Set(sites.map((s) => s.path))];
  return files.length === 1 && sites[0] ? { path: files[0] as string, site: sites[0] } : null;
}

/**
 * The repository path a checkout frame points at, from the `list_files` answer for its file name: the path the frame
 * names after its deployment prefix exactly, else the file sharing the longest path suffix with it — at least the
 * file and its folder (a file name alone never maps: a user's `app.py` is not the library's). Test files lose ties.
 */
function resolveFrame(steps: readonly Step[], frame: StackFrame): { path: string; tied: boolean } | null {
  const name = baseName(frame.path);
  const listed = listedPaths(steps, { glob: name });
  if (!listed) return null;
  const scored = listed
    .filter((p) => baseName(p) === name)
    .map((p) => ({ p, n: p === frame.path ? 1000 : commonSuffixSegments(frame.rawPath, p), test: TEST_PATH.test(p) }))
    .filter((x) => x.n >= 2)
    .sort((a, b) => b.n - a.n || Number(a.test) - Number(b.test) || a.p.length - b.p.length || (a.p < b.p ? -1 : 1));
  const best = scored[0];
  if (!best) return null;
  const second = scored[1];
  return { path: best.p, tied: second !== undefined && second.n === best.n && second.test === best.test };
}

/**
 * The source file of a frame in compiled output (`dist/services/user.js` → `src/services/user.ts`), from the
 * `list_files` answer for its stem and, when the frame names its function, the `verify_symbol_in_repo` answer for
 * that name: a file that does not define the function is not the source (a decoy loses). Ranked by the shared path
 * after the compiled folder, then the shortest path. Null when the frame is not compiled output or nothing fits.
 */
function resolveCompiled(steps: readonly Step[], frame: StackFrame): Candidate | null {
  const src = compiledSource(frame.rawPath);
  if (!src) return null;
  // The frame's own file exists outside dist/build/out (`lib/schema.js` of a plain JS project): it is the source.
  const literal = listedPaths(steps, { glob: baseName(frame.path) }) ?? [];
  if (
    literal.some(
      (p) =>
        baseName(p) === baseName(frame.path) && commonSuffixSegments(frame.rawPath, p) >= 2 && !isCompiledOutputPath(p),
    )
  )
    return null;
  const listed = (listedPaths(steps, { glob: src.glob }) ?? []).filter(
    (p) => baseName(p).replace(/\.[^.]+$/, "") === src.stem && !isCompiledOutputPath(p),
  );
  const sites = frame.fn ? definitionSites(steps, { name: frame.fn }) : null;
  const rel = pathSegments(src.rel);
  const shared = (p: string) => sharedTailLength(rel, pathSegments(p.replace(/\.[^./]+$/, "")));
  const scored = listed
    .map((p) => ({ p, site: sites?.find((s) => s.path === p) ?? null, n: shared(p) }))
    .filter((x) => sites === null || x.site !== null)
    .sort((a, b) => b.n - a.n || a.p.length - b.p.length || (a.p < b.p ? -1 : 1));
  const best = scored[0];
  if (!best) return null;
  const tied = scored.length > 1 && scored[1]?.n === best.n;
  return {
    path: best.p,
    line: best.site?.line ?? null,
    evidence: "frame",
    frame,
    tied,
    ...(best.site ? { compiled: { start: best.site.line, end: best.site.endLine } } : {}),
  };
}

/**
 * The quoted identifiers whose declarations are looked for (the first three): not the member a crash on a missing
 * value reads (`reading 'target'`, `Cannot destructure property 'x'`, `undefined method 'split' for nil`) — the value
 * that was missing is the problem, and a key or field of that name elsewhere is no declaration of it. (A missing
 * dictionary key is still looked for: it may be declared.)
 */
export function declaredIds(problem: ProblemFacts): string[] {
  const missing = missingMember(problem.errorMessages[0] ?? problem.title);
  const member =
    missing && (missing.destructured || crashOf(problem.errorMessages[0] ?? problem.title)?.access === "member")
      ? missing.name
      : null;
  const nil = missingInProse(problem);
  return problem.identifiers.filter((id) => id !== member && !nil.has(id)).slice(0, 3);
}

/**
 * Identifiers the text says are missing: "`ctx.flagSet` is nil", "'user' was undefined", Java's `because "token" is
 * null`. Like the member a crash reads, the missing value is the problem: its declaration is not where the cause is
 * (what left it unset is), so it is not looked for as one.
 */
export function missingInProse(problem: ProblemFacts): Set<string> {
  const out = new Set<string>();
  const text = `${problem.title}\n${problem.body}`;
  for (const m of text.matchAll(
    new RegExp(
      String.raw`[\x60'"‘“]([A-Za-z_$][\w$.]*)(?:\(\))?[\x60'"’”]\s+` +
        String.raw`(?:is|was|are|were|becomes|became|is still|remains)\s+(?:a\s+)?` +
        String.raw`(?:nil|null|undefined|None|NULL|unset)\b`,
      "g",
    ),
  ))
    if (m[1]) out.add(m[1]);
  return out;
}

/**
 * The type a dotted identifier names its member on (`cli.Command.BashComplete` → `Command`, `Parser.parse` →
 * `Parser`): the segment before the last when it is capitalised; null for `ctx.flagSet` (a variable) or a plain name.
 */
export function ownerType(id: string): string | null {
  const parts = id.split(".");
  const owner = parts.length >= 2 ? parts[parts.length - 2] : undefined;
  return owner && /^[A-Z][A-Za-z0-9_]*$/.test(owner) && owner.length >= 2 ? owner : null;
}

/** `grep_codebase` arguments for the declaration of type `name` (`type Name`, `class Name`, `struct Name`, …). */
function typeArgs(name: string): Record<string, unknown> {
  return {
    pattern: `\\b(type|class|struct|interface|record|enum|object|trait|module)\\s+${escapeRe(name)}\\b`,
    regex: true,
    max_results: 50,
  };
}

/** Declaration hits of the quoted identifiers (from the discovery greps): path → identifier, line, and hit text. */
export function declarationHits(
  steps: readonly Step[],
  problem: ProblemFacts,
): { id: string; rank: number; path: string; line: number; text: string }[] {
  const out: { id: string; rank: number; path: string; line: number; text: string }[] = [];
  declaredIds(problem).forEach((id, rank) => {
    const res = grepHits(steps, { pattern: declarationPattern(id), regex: true, max_results: 50 });
    const owner = ownerType(id);
    const typeFiles = owner
      ? new Set(
          (grepHits(steps, typeArgs(owner))?.hits ?? [])
            .filter((h) => countsAsDeclaration(h.path, h.text, owner))
            .map((h) => h.path),
        )
      : null;
    for (const hit of res?.hits ?? [])
      if (
        languageOf(hit.path) !== null &&
        countsAsDeclaration(hit.path, hit.text, id) &&
        // `Command.BashComplete`: the member of that type, declared where the type is (when some file declares it)
        (!typeFiles?.size || typeFiles.has(hit.path))
      )
        out.push({ id, rank, ...hit });
  });
  return out;
}

/** Files that declare the quoted identifiers, best first: weighted by identifier order, tests and docs last. */
function identifierCandidates(
  steps: readonly Step[],
  problem: ProblemFacts,
  framePaths: ReadonlySet<string>,
): Candidate[] {
  const ids = declaredIds(problem);
  const files = new Map<string, { score: number; line: number; identifier: string }>();
  const counted = new Set<string>();
  for (const hit of declarationHits(steps, problem)) {
    const entry = files.get(hit.path) ?? { score: 0, line: hit.line, identifier: hit.id };
    if (!counted.has(`${hit.id} ${hit.path}`)) {
      counted.add(`${hit.id} ${hit.path}`);
      entry.score += 2 * (ids.length - hit.rank);
    }
    // A field declared with a type or a nested spec (`errors: { type: Array }`, `errors = Column(`) beats a use
    // (`errors: list.map(...)`).
    if (/[:=]\s*(?:\{|\[|[A-Z]\w*\b)/.test(hit.text) && !counted.has(`typed ${hit.path}`)) {
      counted.add(`typed ${hit.path}`);
      entry.score += 1;
    }
    files.set(hit.path, entry);
  }
  return [...files.entries()]
    .map(([path, e]) => ({ path, e, s: e.score + (framePaths.has(path) ? 5 : 0) - (TEST_PATH.test(path) ? 10 : 0) }))
    .sort((a, b) => b.s - a.s || (a.path < b.path ? -1 : 1))
    .map(({ path, e }) => ({ path, line: e.line, evidence: "identifier" as const, identifier: e.identifier }));
}

/** The `get_file_contents` answer for a file over the snapshot's per-file cap (src/tools/serve.ts). */
const TOO_LARGE = /^NOT_FOUND: \S.* is too large to serve\b/;

/**
 * The turn for a frame whose file is over the snapshot's per-file cap ({@link Candidate.tooLarge}): the file cannot
 * be read, so nothing of it is quoted, claimed or edited, and no other file is blamed in its place. The answer names
 * the file, the frame line and function, and says why it is not cited as verified. Before it, one `grep_codebase`
 * for the frame's function (or the file name) — a search of the rest of the code, which the answer gate needs.
 */
export function tooLargeTurn(problem: ProblemFacts, c: Candidate, steps: readonly Step[]): Plan {
  const grep = { pattern: c.frame?.fn ?? baseName(c.path), max_results: 20 };
  if (resultOf(steps, "grep_codebase", grep) === undefined)
    return {
      text: `${c.path} is over the per-file cap; looking for the code that names ${grep.pattern}.`,
      calls: [call("grep_codebase", grep)],
    };
  const src = sourceNoun(problem.source);
  const message = problem.errorMessages[0];
  const at = `${c.path}${c.line !== null ? `:${c.line}` : ""}${c.frame?.fn ? ` in \`${c.frame.fn}\`` : ""}`;
  const summary = oneLine(
    [
      message
        ? `The ${src} reports "${headlineOf(message, 120)}".`
        : `The ${src} is titled "${headlineOf(problem.title, 120)}".`,
      `The stack trace enters the repository at ${at}.`,
      `${c.path} is over the snapshot's per-file cap, so it could not be read whole: ` +
        "no line of it is quoted or edited, and it is not cited as verified.",
      `No other file is blamed for this frame; read ${c.path}${c.line !== null ? ` around line ${c.line}` : ""} ` +
        "to confirm.",
    ].join(" "),
    900,
  );
  return {
    text: `Submitting the frame's file ${c.path} as unread (over the per-file cap).`,
    calls: [
      call("submit_answer", {
        summary,
        affected_file: null,
        affected_function: null,
        root_cause_snippet: null,
        confidence: 0.3,
      }),
    ],
  };
}

/**
 * Where locating ended: the chosen candidate (null: nothing readable), what was tried, and the identifiers' best file.
 */
export interface Located {
  chosen: Candidate | null;
  /** Sentences for the answer about what was tried and not found. */
  tried: string[];
  /** The file that best declares the quoted identifiers, when one does (agreement raises the confidence). */
  identifierFile: string | null;
}

/**
 * Steps 1 and 2 (see the module comment): the next discovery or read to make, as a {@link Plan}, or where locating
 * ended. `has` says whether a tool is offered; `canAsk` whether another turn may still be spent on a call.
 */
export function locate(
  problem: ProblemFacts,
  steps: readonly Step[],
  canAsk: boolean,
  has: (tool: string) => boolean,
): Plan | Located {
  const pending = (calls: PlannedCall[]) => calls.filter((c) => resultOf(steps, c.name, c.arguments) === undefined);
  // 1. discover
  const own = ownOf(steps);
  const refs = ownFrames(problem, own);
  const inRepoFrames = refs.map((r) => r.frame);
  const names = [...new Set(refs.filter((r) => !r.mapped).map((r) => baseName(r.frame.path)))];
  const mentioned = refs.length ? [] : problem.paths.filter((p) => languageOf(p) !== null).slice(0, 3);
  for (const p of mentioned) if (!names.includes(baseName(p))) names.push(baseName(p));
  const scope = namedPackage(problem, own);
  const discovery: PlannedCall[] = [];
  if (has("describe_repo")) discovery.push(call("describe_repo", {}));
  // A title that names a workspace package, and no frame of the trace is own code: which of its entry's sources exist.
  if (scope && !refs.length && has("list_files"))
    for (const glob of entryGlobs(scope)) discovery.push(call("list_files", { glob }));
  if (has("list_files")) for (const n of names) discovery.push(call("list_files", { glob: n }));
  for (const r of refs) {
    // An installed copy of an own package: which of the mapped path and its source candidates exist.
    if (has("list_files")) for (const args of mappedListArgs(r)) discovery.push(call("list_files", args));
    // Compiled output in a checkout (dist/, build/, lib/, out/): look for the source by stem.
    const src = r.mapped ? null : compiledSource(r.frame.rawPath);
    if (src && has("list_files")) discovery.push(call("list_files", { glob: src.glob }));
    // The frame's function: where it is defined (the frame line is checked against it, and compiled lines replaced).
    if (r.frame.fn && has("verify_symbol_in_repo")) discovery.push(call("verify_symbol_in_repo", { name: r.frame.fn }));
  }
  if (has("grep_codebase"))
    for (const id of declaredIds(problem)) {
      discovery.push(call("grep_codebase", { pattern: declarationPattern(id), regex: true, max_results: 50 }));
      const owner = ownerType(id);
      if (owner) discovery.push(call("grep_codebase", typeArgs(owner)));
    }
  const firstCalls = pending(
    discovery.filter(
      (c, i) => discovery.findIndex((d) => callKey(d.name, d.arguments) === callKey(c.name, c.arguments)) === i,
    ),
  );
  if (firstCalls.length && canAsk) {
    const what = [
      refs.length ? `${refs.length} stack frame(s) of this repository's code` : "",
      problem.identifiers.length
        ? `quoted identifier(s) ${problem.identifiers
            .slice(0, 3)
            .map((i) => `\`${i}\``)
            .join(", ")}`
        : "",
      problem.alert ? `alert location ${problem.alert.path}:${problem.alert.line}` : "",
    ].filter(Boolean);
    return {
      text: `Orienting in the repository and locating ${what.length ? what.join(", ") : "the problem"}.`,
      calls: firstCalls,
    };
  }

  // 2. locate
  const tried: string[] = [];
  const cands: Candidate[] = [];
  const framePaths = new Set<string>();
  // A frame whose file declares an identifier quoted in the error message, near the frame line, is where the problem
  // lives even when inner frames are in the repository too (e.g. an in-repo library that emits the warning).
  // Not for a crash on a missing value: the member it names is read at the crash frame, and a key of the same name
  // elsewhere (`{ price: 1 }` in a caller) is no declaration of it.
  const inMessage = (id: string) => problem.errorMessages.some((m) => m.includes(id));
  const decls = crashOf(problem.errorMessages[0] ?? null)
    ? []
    : declarationHits(steps, problem).filter((h) => inMessage(h.id));
  const frameCands: Candidate[] = [];
  for (const r of refs) {
    const found = r.mapped ? resolveMapped(steps, r) : resolveCompiled(steps, r.frame);
    if (found) {
      frameCands.push(found);
      framePaths.add(found.path);
      continue;
    }
    const hit = r.mapped ? null : resolveFrame(steps, r.frame);
    if (hit) {
      frameCands.push({ path: hit.path, line: r.frame.line, evidence: "frame", frame: r.frame, tied: hit.tied });
      framePaths.add(hit.path);
    }
  }
  const relayed = relayOutward(steps, frameCands, problem, canAsk && has("get_file_contents"));
  if (relayed && "calls" in relayed) return relayed;
  if (relayed) frameCands.splice(0, frameCands.length, ...relayed);
  const declaresNear = (c: Candidate) =>
    decls.some((h) => h.path === c.path && c.line !== null && h.line >= c.line - 5 && h.line <= c.line + 40);
  cands.push(...frameCands.filter(declaresNear), ...frameCands.filter((c) => !declaresNear(c)));
  if (inRepoFrames.length && !framePaths.size) {
    // Say "does not exist" only for names list_files answered without any file of that name.
    const absent = names.filter((n) => {
      const listed = listedPaths(steps, { glob: n });
      return listed !== null && !listed.some((p) => baseName(p) === n);
    });
    if (absent.length)
      tried.push(`No file named ${absent.slice(0, 3).join(", ")} (from the stack trace) exists in the repository.`);
    const unmatched = names.filter((n) => !absent.includes(n));
    if (unmatched.length)
      tried.push(
        `The stack frame file(s) ${unmatched.slice(0, 3).join(", ")} could not be tied to one repository file.`,
      );
  }
  if (problem.alert) cands.push({ path: problem.alert.path, line: problem.alert.line, evidence: "alert" });
  const idCands = identifierCandidates(steps, problem, framePaths);
  if (declaredIds(problem).length && !idCands.length)
    tried.push(
      `No declaration of ${declaredIds(problem)
        .slice(0, 3)
        .map((i) => `\`${i}\``)
        .join(", ")} was found.`,
    );
  cands.push(...idCands);
  for (const p of mentioned) {
    const best = (listedPaths(steps, { glob: baseName(p) }) ?? [])
      .filter((q) => baseName(q) === baseName(p))
      .sort(
        (a, b) =>
          Number(isWeak(a)) - Number(isWeak(b)) ||
          commonSuffixSegments(p, b) - commonSuffixSegments(p, a) ||
          (a < b ? -1 : 1),
      )[0];
    if (best) cands.push({ path: best, line: null, evidence: "path" });
  }
  // Rule: fallbacks in tests, fixtures, docs, bundles, vendored folders and dev configuration rank last — after the
  // message's writer and the search; a title that names one workspace package puts that package's files first,
  // then its entry file.
  const strong = cands.filter((c) => c.evidence === "frame" || c.evidence === "alert");
  const fallbacks = cands.filter((c) => !strong.includes(c));
  const inScope = (path: string) => scope !== null && (scope.root === "" || path.startsWith(`${scope.root}/`));
  const entry = scope && !refs.length ? packageEntry(steps, scope) : null;
  const ordered = [
    ...strong,
    ...fallbacks.filter((c) => !isWeak(c.path) && inScope(c.path)),
    ...(entry ? [entry] : []),
    ...fallbacks.filter((c) => !isWeak(c.path) && !inScope(c.path)),
  ];
  const last = fallbacks.filter((c) => isWeak(c.path));
  const seen = new Set<string>();
  /** Read candidates in order; the first readable one wins. A plan when a read is still to be made. */
  const pick = (list: readonly Candidate[]): Candidate | Plan | null => {
    for (const c of list) {
      const key = `${c.path}:${c.line}`;
      if (seen.has(key) || !has("get_file_contents")) continue;
      seen.add(key);
      const args = readArgs(c, steps);
      const res = resultOf(steps, "get_file_contents", args);
      if (res === undefined && canAsk) {
        return {
          text:
            `Reading ${c.path}${c.line ? ` around line ${c.line}` : ""} ` +
            `(${c.evidence === "frame" ? "innermost stack frame in the repository" : c.evidence}).`,
          calls: [call("get_file_contents", args)],
        };
      }
      if (!res || !dataOf(steps, "get_file_contents", args, "get_file_contents")) {
        // A frame's file over the per-file cap still holds the frame: it is the place, unread; no other file is blamed.
        if (c.evidence === "frame" && res && TOO_LARGE.test(res)) return { ...c, tooLarge: true };
        // A link to a text file of the repository is read there; one out of it is not followed, and the answer says so.
        const link = res ? linkOf(c.path, res) : null;
        const followed = link?.follow ? pick([{ ...c, path: link.follow }]) : null;
        if (followed) return followed;
        tried.push(link?.why ?? `${c.path} could not be read.`);
        continue;
      }
      return c;
    }
    return null;
  };
  let picked = pick(ordered);
  if (picked && "calls" in picked) return picked;
  // Nothing pointed at a readable file: the error message's own text first (where it is raised), then the words.
  const phrase = messagePhrase(problem.errorMessages[0] ?? null);
  if (!picked && phrase && has("grep_codebase")) {
    const args = { pattern: phrase, max_results: 20 };
    if (resultOf(steps, "grep_codebase", args) === undefined && canAsk) {
      return {
        text:
          (problem.frames.length === 0 ? NO_TRACE : "No frame of the trace is this repository's code") +
          "; looking for where the error message is written.",
        calls: [call("grep_codebase", args)],
      };
    }
    const hits = (grepHits(steps, args)?.hits ?? [])
      .filter((h) => languageOf(h.path) !== null && !TEST_PATH.test(h.path) && !isCompiledOutputPath(h.path))
      .sort((a, b) => Number(isWeak(a.path)) - Number(isWeak(b.path)));
    picked = pick(hits.slice(0, 2).map((h) => ({ path: h.path, line: h.line, evidence: "search" as const })));
    if (picked && "calls" in picked) return picked;
  }
  // Then search the problem's words (a successful search also counts as reading code) — never generic words alone.
  const words = specificWords(problem, own);
  if (!picked && has("search_codebase") && !words.length)
    tried.push(
      "The problem names no word specific enough to search for " +
        "(only generic words, command words or the package's own name).",
    );
  if (!picked && has("search_codebase") && words.length) {
    const query = words.join(" ");
    const res = resultOf(steps, "search_codebase", { query });
    if (res === undefined && canAsk)
      return {
        text: "Nothing in the problem points at a readable file; searching the codebase for its words.",
        calls: [call("search_codebase", { query })],
      };
    const hits = (searchFiles(steps, { query }) ?? []).filter((p) => languageOf(p) !== null && !TEST_PATH.test(p));
    if (!hits.length) tried.push(`search_codebase found no code file for "${query}".`);
    const ranked = [...hits.filter((p) => !isWeak(p)), ...hits.filter((p) => isWeak(p))];
    picked = pick(ranked.slice(0, 2).map((p) => ({ path: p, line: null, evidence: "search" as const })));
    if (picked && "calls" in picked) return picked;
  }
  if (!picked) {
    picked = pick(last);
    if (picked && "calls" in picked) return picked;
  }
  return { chosen: picked, tried, identifierFile: idCands[0]?.path ?? null };
}

const VALIDATOR = /^(?:assert|validate|check|ensure|require|verify|expect|invariant|must)(?:[A-Z_]|$)/;

/** The member a crash on a missing value names, and whether it was destructured (`Cannot destructure property 'x'`). */
function missingMember(message: string | null): { name: string | null; destructured: boolean } | null {
  const d = message ? /Cannot destructure property ['"]([\w$]+)['"] of ['"]?(?:undefined|null)/.exec(message) : null;
  if (d?.[1]) return { name: d[1], destructured: true };
  const crash = crashOf(message);
  return crash ? { name: crash.name, destructured: false } : null;
}

/** The text of a signature from its definition line to the line that opens the body (at most 15 lines). */
function signatureText(lines: ReadonlyMap<number, string>, start: number): string {
  const out: string[] = [];
  for (let n = start; n < start + 15 && lines.has(n); n++) {
    const t = lines.get(n) ?? "";
    out.push(t);
    if (/(?:\)|=>)\s*(?::[^{]*)?\{\s*$|\)\s*:\s*$|\)\s*$/.test(t) && n > start) break;
    if (n === start && /\{\s*$|:\s*$/.test(t) && !/\(\s*\{?\s*$/.test(t)) break;
  }
  return out.join("\n");
}

/**
 * Why the frame of candidate `c` only relays the value that went wrong, so that its caller is where the value came
 * from, or null when it does not: `destructured` — the crash destructures a parameter (`function f({ x })` called
 * with undefined); `parameter` — the crash reads a member of a parameter the function never assigned before the
 * line; `validator` — an assert/validate/check helper that throws about its argument; `passes` — a dependency
 * crashed (the frames inside the trace are third-party) on a parameter this frame passed on unchanged.
 *
 * @param frames all frames of the trace, innermost first (to see whether third-party frames come before this one).
 */
export function relayReason(
  w: FileWindow,
  c: Candidate,
  problem: ProblemFacts,
  frames: readonly StackFrame[],
): RelayReason | null {
  const lang = languageOf(c.path);
  const frame = c.frame;
  if (!lang || !frame) return null;
  const missing = missingMember(problem.errorMessages[0] ?? null);
  const start = c.compiled?.start ?? null;
  let line = c.compiled ? null : c.line;
  if (line === null && start !== null && missing?.name) {
    const reads = new RegExp(`(?:\\.|\\?\\.)${escapeRe(missing.name)}(?![\\w$])`);
    for (let n = start + 1; n <= (c.compiled?.end ?? start + 40) && line === null; n++)
      if (reads.test(w.lines.get(n) ?? "")) line = n;
  }
  const at = line ?? (start !== null ? start + 1 : -1);
  const own = definitionOn(w.lines.get(at) ?? "", lang); // the frame line is the definition line itself
  const enc =
    own?.kind === "function"
      ? { name: own.name, kind: own.kind, line: at, params: own.params, instance: own.method }
      : enclosingDefinition(w.lines, at, lang);
  if (!enc || enc.kind !== "function") return null;
  if (missing?.destructured && missing.name) {
    const sig = signatureText(w.lines, enc.line);
    if (new RegExp(`[({,]\\s*\\{[^}]*\\b${escapeRe(missing.name)}\\b`).test(sig)) return "destructured";
  }
  if (line === null) return null;
  const text = w.lines.get(line) ?? "";
  const assignedBefore = (name: string) => {
    const re = new RegExp(`(?:^|[^\\w$.])${escapeRe(name)}\\s*(?:[-+*/|&?]{0,2}=(?!=)|:=)`);
    for (let n = enc.line + 1; n < line; n++) if (re.test(w.lines.get(n) ?? "")) return true;
    return false;
  };
  const param = (name: string | null | undefined) =>
    name !== null && name !== undefined && enc.params.includes(name) && !assignedBefore(name);
  if (missing) {
    const receiver =
      crashOf(problem.errorMessages[0] ?? null)?.receiver ??
      (missing.name
        ? new RegExp(`([A-Za-z_$][\\w$]*)\\s*(?:\\?\\.|\\.|\\[['"])${escapeRe(missing.name)}(?![\\w$])`).exec(text)?.[1]
        : null);
    if (param(receiver)) return "parameter";
  }
  const thrown = /^\s*(?:throw\b|raise\b|panic\(|fail\b)|\b(?:throw|raise)\s/.test(text);
  if (frame.fn && VALIDATOR.test(frame.fn) && thrown && enc.params.some((p) => wholeWord(p).test(text)))
    return "validator";
  const index = frames.indexOf(frame);
  // the frames inside this one are third-party, or the trace starts in the runtime (`at f (node:internal/…)`, which
  // is no file frame)
  const runtimeFirst = /^\s*at\s+(?:\S+\s+\()?(?:node:|internal\/)/.test(
    problem.body.split("\n").find((l) => /^\s*at\s/.test(l)) ?? "",
  );
  const dependencyCrashed =
    (index > 0 && frames.slice(0, index).every((f) => f.library)) || (index === 0 && runtimeFirst);
  if (dependencyCrashed && enc.params.some((p) => new RegExp(`[(,]\\s*${escapeRe(p)}\\s*[,)]`).test(text) && param(p)))
    return "passes";
  return null;
}

/**
 * The parameter of its function that the frame line of candidate `c` passes on unchanged, as an argument of the call
 * it makes (`cart` in `total = compute_total(cart)` in `def checkout(cart)`): the frame did not produce the value
 * either. The first such parameter, or null: for compiled-output candidates (no frame line), when the line is not in
 * a function, and when the parameter is assigned before the line.
 */
function passedParameter(w: FileWindow, c: Candidate): string | null {
  const lang = languageOf(c.path);
  const line = c.compiled ? null : c.line;
  if (!lang || line === null) return null;
  const text = w.lines.get(line) ?? "";
  const enc = enclosingDefinition(w.lines, line, lang);
  if (!enc || enc.kind !== "function") return null;
  const passed = enc.params.find((p) => {
    if (!new RegExp(`[(,]\\s*${escapeRe(p)}\\s*[,)]`).test(text)) return false;
    const assigned = new RegExp(`(?:^|[^\\w$.])${escapeRe(p)}\\s*(?:[-+*/|&?]{0,2}=(?!=)|:=)`);
    for (let n = enc.line + 1; n < line; n++) if (assigned.test(w.lines.get(n) ?? "")) return false;
    return true;
  });
  return passed ?? null;
}

/**
 * Rule: look past relaying frames. When the innermost own frame only relays a value that was already missing or wrong
 * (see {@link relayReason}), the cause is where the value was produced: the nearest caller outward — each the direct
 * caller of the one before (the next frame of the trace), own code, in another function — that does not itself pass
 * its own parameter on ({@link passedParameter}). That caller becomes the first candidate (marked `relayedFrom`).
 * When every own caller only passes the value on (it came from outside the repository), the innermost frame stays:
 * that is where it can be checked. Returns a read to make first, the reordered candidates, or null (no change).
 */
function relayOutward(
  steps: readonly Step[],
  cands: readonly Candidate[],
  problem: ProblemFacts,
  canRead: boolean,
): Plan | Candidate[] | null {
  const read = (c: Candidate): Plan | null => {
    const args = readArgs(c, steps);
    if (resultOf(steps, "get_file_contents", args) !== undefined || !canRead) return null;
    return {
      text: `Reading ${c.path} to see whether the frame only passes on a value it was given.`,
      calls: [call("get_file_contents", args)],
    };
  };
  let relayedFrom: Candidate["relayedFrom"] | undefined;
  for (let k = 0; k < 3; k++) {
    const inner = cands[k];
    const outer = cands[k + 1];
    if (!inner?.frame || !outer?.frame) return null;
    const i = problem.frames.indexOf(inner.frame);
    if (problem.frames[i + 1] !== outer.frame) return null; // not its direct caller: a third-party frame lies between
    if (k === 0) {
      const pending = read(inner);
      if (pending) return pending;
      if (resultOf(steps, "get_file_contents", readArgs(inner, steps)) === undefined) return null;
      const why = relayReason(knownLines(steps, inner.path), inner, problem, problem.frames);
      if (!why) return null;
      relayedFrom = { frame: inner.frame, path: inner.path, why };
    }
    const site = inner.frame.fn ? sitesIn(steps, inner.frame.fn, inner.path)[0] : undefined;
    const sameFunction =
      outer.path === inner.path &&
      (outer.frame.fn === inner.frame.fn ||
        (site !== undefined &&
          outer.line !== null &&
          outer.line >= site.line &&
          outer.line <= (site.endLine ?? site.line)));
    if (sameFunction) return null;
    const pending = read(outer);
    if (pending) return pending;
    const passed = passedParameter(knownLines(steps, outer.path), outer);
    if (passed !== null && outer.frame) {
      // The caller relays it too: the next caller's call of this one is what a guard there is about.
      if (relayedFrom) relayedFrom = { ...relayedFrom, via: { frame: outer.frame, path: outer.path, param: passed } };
      continue;
    }
    if (!relayedFrom) return null;
    return [{ ...outer, relayedFrom }, ...cands.slice(0, k + 1), ...cands.slice(k + 2)];
  }
  return null;
}
