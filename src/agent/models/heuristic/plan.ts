/**
 * The heuristic model's decisions, recomputed from the conversation at every turn (no hidden state):
 *
 * 1. discover and 2. locate — see `locate.ts`: the repository's own names, the frames' files, the declarations of
 *    quoted identifiers; the first readable candidate in order of evidence is the file to look at.
 * 3. check — `verify_symbol_in_repo` for the enclosing function; `grep_codebase` for the anchor line when the file was
 *    not read whole (is it unique?).
 * 4. edit — `suggest_addition`: a comment and a log line before the statement of the frame line, anchored on verbatim
 *    lines; a rejection is answered by re-reading or widening the anchor, at most 3 attempts.
 * 5. answer — `submit_answer` with confidence from the evidence; the snippet is the declaring line of a quoted
 *    identifier when the file has one (else the frame's statement); a rejected claim is dropped (null) and the
 *    confidence lowered.
 */
import { baseName } from "./frames.js";
import {
  GO_PANICS,
  goContextValues,
  goGuardsPanic,
  goNamedNil,
  goReceiverName,
  goPackageDeclarations,
  goPointerFunctions,
  goUnguardedWhy,
  goPredicateExit,
  goVarQuery,
} from "./guard-go.js";
import {
  asksForNullChecks,
  checksQuery,
  fieldLines,
  lateinitGuardLines,
  lateinitProperty,
  lateinitRead,
  namedMemberLine,
  nullAlreadyFails,
  nullCheckLines,
  requestedChecks,
  type KnownFile,
} from "./guard-jvm.js";
import { callKey, readHistory, resultOf, type Step } from "./history.js";
import {
  definitionOn,
  enclosingDefinition,
  goErrorReturn,
  goResults,
  indentOf,
  indentUnit,
  insertionBefore,
  languageOf,
  type CodeLanguage,
  type Enclosing,
  type InsertionPoint,
} from "./code.js";
import { codeShapedWords, headlineOf, oneLine, parseProblem, type ProblemFacts } from "./problem.js";
import {
  classifyEditRejection,
  coversWholeFile,
  definitionSites,
  grepHits,
  isApplied,
  isRejected,
  knownLines,
  wholeFileText,
  type FileWindow,
} from "./results.js";
import type { DefinitionSite } from "../../../tools/results.js";
import {
  buildAddition,
  detectLogStyle,
  type AdditionShape,
  type ContextValue,
  type FittedText,
  type GuardExit,
} from "./style.js";
import {
  cheapContext,
  clearerGuard,
  contextValues,
  crashOf,
  fixOptions,
  guardFor,
  mismatchOf,
  nullWord,
  SECRET_LIKE,
  type Mismatch,
} from "./proportion.js";
import {
  additionWording,
  diagnosisSentences,
  escapeRe,
  NO_TRACE,
  wholeWord,
  type DeclaredName,
  type WordingInput,
} from "./wording.js";
import { calleeName, missingParameterIndex, relayedArgument } from "./relay-guard.js";
import { skipsItem } from "./loop-skip.js";
import { liveCode } from "./live-code.js";
import { namedRead, readsMember, type NamedRead } from "./named-read.js";
import { reactRenderPath, type RenderPath } from "./render-path.js";
import type { Message } from "../types.js";
import { locateVerbatim, type VerbatimMatch } from "../../../grounding/verbatim.js";
import { trimBlankLines } from "../../../grounding/snippet.js";
import { extractSymbols, type SymbolDef } from "../../../grounding/symbols.js";

import {
  call,
  declarationHits,
  locate,
  sitesIn,
  type Candidate,
  type Evidence,
  type Plan,
  type PlannedCall,
  tooLargeTurn,
} from "./locate.js";

export type { Plan, PlannedCall } from "./locate.js";

const MAX_TURNS = 24;
const MAX_EDIT_ATTEMPTS = 3;
/** Highest confidence of an answer whose addition is only a comment: below the pull-request threshold (0.7). */
const COMMENT_ONLY_CAP = 0.6;
/** Highest confidence of a clearer error for a value of the wrong kind: no cause was found, so no pull request. */
const CLEARER_CAP = 0.65;
/**
 * Highest confidence of a guard a maintainer would not merge as it is (see `guardProposal`): a Go `panic` where the
 * file's guards do not panic, or an error raised on a parameter that arrived missing (the caller passed it).
 */
const GUARD_PROPOSAL_CAP = 0.65;
/** How a proposal placed by the issue's words (see `named-read.ts`) starts when the trace's line is not in the file. */
const STALE_LINE = "The trace's line does not fit the file";

/** The first line (in the window) containing one of `words` as a whole word, or null. */
function lineWith(lines: ReadonlyMap<number, string>, words: readonly string[]): number | null {
  for (const w of words) {
    const re = wholeWord(w);
    for (const [n, t] of [...lines.entries()].sort((a, b) => a[0] - b[0])) if (re.test(t)) return n;
  }
  return null;
}

/** Number of (overlapping) occurrences of `needle` in `hay`. */
function occurrences(hay: string, needle: string): number {
  let n = 0;
  for (let at = hay.indexOf(needle); at !== -1; at = hay.indexOf(needle, at + 1)) n++;
  return n;
}

/**
 * A contiguous anchor [from, to] starting at line `at` and covering through `through` when those lines are usable
 * (default: `at` alone), grown until unique in `content` when it is known, then widened by `extra`.
 */
function chooseAnchor(
  w: FileWindow,
  at: number,
  content: string | null,
  extra: number,
  through = at,
): { from: number; to: number } | null {
  const usable = (n: number) => w.lines.has(n) && !w.clipped.has(n);
  if (!usable(at)) return null;
  let from = at;
  let to = at;
  while (to < through && usable(to + 1)) to++;
  const text = () => Array.from({ length: to - from + 1 }, (_, i) => w.lines.get(from + i) ?? "").join("\n");
  const grow = (): boolean => {
    const below = usable(to + 1);
    const above = usable(from - 1);
    const size = to - from;
    if (below && (size % 2 === 0 || !above)) to++;
    else if (above) from--;
    else return false;
    return true;
  };
  if (content !== null) {
    while (occurrences(content, text()) !== 1) if (to - from >= 6 || !grow()) return null;
  }
  for (let i = 0; i < extra; i++) if (!grow()) break;
  return { from, to };
}

/** Everything the heuristic concluded about the chosen file. */
interface Analysis {
  cand: Candidate;
  lang: CodeLanguage | null;
  window: FileWindow;
  targetLine: number | null;
  lineInFile: boolean;
  ins: InsertionPoint | null;
  enc: Enclosing | null;
  fnName: string | null;
  editBlocked: string | null;
  /** The line(s) of the file that declare an identifier the problem quotes, when they are the root cause. */
  decl: Declaration | null;
  /** The frame's line was replaced by a line of the frame's function (the reporter's version differs). */
  reanchor: Reanchor | null;
  /** Java/C#: no frame line; `targetLine` is the first statement of this member, which the report names. */
  member: string | null;
  /** No frame line; `targetLine` is the one line of the function the issue names that reads the crash's member. */
  read: NamedRead | null;
  /** Java/C#: the constructor parameters a report asks to check for null; `targetLine` is the body's first line. */
  checks: string[] | null;
  /** The candidate was chosen over the frame of the function it calls, which only received the missing value. */
  relay: Relay | null;
}

/** A call to a relaying function: its name as called, the member it reads, the parameter that arrived missing. */
interface Relay {
  callee: string;
  member: string | null;
  /** The 0-based position of the parameter in the callee's signature, or null when it was not read. */
  index: number | null;
  /** The function that reads `member`, when the callee only passes the value on to it (a relay through callers). */
  reader?: string;
}

/**
 * A frame line that does not fit the code at the pinned commit: `outside` the function the frame names, or in it but
 * not reading the `member` the crash names while another line of the function does. `line` is used instead of `from`.
 */
interface Reanchor {
  line: number;
  from: number;
  why: "outside" | "member";
}

/** A declaration of a quoted identifier in the chosen file: its line and the verbatim lines [from, to] to quote. */
interface Declaration {
  id: string;
  line: number;
  from: number;
  to: number;
  /** The error message that quotes the identifier, when one does. */
  message: string | null;
}

/** True when `line` names `id` (its last dotted part) as a whole word. */
function mentions(line: string, id: string): boolean {
  return wholeWord(id.split(".").pop() ?? id).test(line);
}

/**
 * The declaration of a quoted identifier in the candidate's file that best explains the problem, or null.
 * Identifiers quoted in an error message come first, then the problem's order; for a stack frame or an alert, the
 * declaration must be near the frame line (5 before to 40 after) unless an error message quotes it, and the frame
 * line itself must not name the identifier (then the frame line is the root cause). The declaring line is quoted
 * verbatim, grown (at most 6 lines) until unique when the whole file was read.
 */
function findDeclaration(
  steps: readonly Step[],
  cand: Candidate,
  window: FileWindow,
  target: number | null,
  problem: ProblemFacts,
): Declaration | null {
  const usable = (n: number) =>
    window.lines.has(n) && !window.clipped.has(n) && (window.lines.get(n) ?? "").trim() !== "";
  const messageOf = (id: string) => problem.errorMessages.find((m) => mentions(m, id)) ?? null;
  const hits = declarationHits(steps, problem).filter((h) => h.path === cand.path && usable(h.line));
  if (!hits.length) return null;
  const located = cand.evidence === "frame" || cand.evidence === "alert";
  const targetText = target !== null ? (window.lines.get(target) ?? "") : "";
  const onTarget = (id: string) => target !== null && mentions(targetText, id) && !hits.some((h) => h.line === target);
  const near = (line: number) => target === null || (line >= target - 5 && line <= target + 40);
  const fit = hits.filter(
    (h) => !(located && onTarget(h.id)) && (!located || near(h.line) || messageOf(h.id) !== null),
  );
  const distance = (line: number) => (target === null ? 0 : line >= target ? line - target : 1000 + target - line);
  fit.sort(
    (a, b) =>
      Number(messageOf(b.id) !== null) - Number(messageOf(a.id) !== null) ||
      a.rank - b.rank ||
      distance(a.line) - distance(b.line),
  );
  const best = fit[0];
  if (!best) return null;
  const content = wholeFileText(window);
  const span = chooseAnchor(window, best.line, content, 0) ?? { from: best.line, to: best.line };
  return { id: best.id, line: best.line, from: span.from, to: span.to, message: messageOf(best.id) };
}

/**
 * The first body line of the function defined at `start` that raises the {@link Mismatch} — where
 * {@link clearerGuard} finds the value of the wrong kind read (`list(x)`, `for … in x`, `x.attr`, `x.f(…)`) — outside
 * the blocks that already narrowed that value (an `if`/`elif` testing `hasattr(x, …)`, `isinstance(x, …)` or
 * `typeof x`) and outside exception handlers (a recovery path, not where the error was raised). Null when none does.
 */
function lineRaising(
  w: FileWindow,
  start: number,
  body: readonly [number, string][],
  mismatch: Mismatch,
  lang: CodeLanguage,
): number | null {
  const enc = enclosingDefinition(w.lines, start + 1, lang);
  const width = (t: string) => indentOf(t).length;
  /** The header lines of the blocks holding line `n`, innermost first. */
  const headers = (n: number): string[] => {
    const out: string[] = [];
    let depth = width(w.lines.get(n) ?? "");
    for (let k = n - 1; k > start && depth > 0; k--) {
      const t = w.lines.get(k);
      if (t === undefined || t.trim() === "") continue;
      if (width(t) < depth) {
        out.push(t);
        depth = width(t);
      }
    }
    return out;
  };
  for (const [n, t] of body) {
    const earlier = Array.from({ length: n - start }, (_, i) => w.lines.get(start + i) ?? "").join("\n");
    const guard = clearerGuard(mismatch, lang, t, t, earlier, enc);
    if (!guard) continue;
    const parts = guard.receiver.split(".");
    const x = escapeRe(/^(?:this|self)$/.test(parts[0] ?? "") ? parts.slice(0, 2).join(".") : (parts[0] ?? ""));
    const narrowing = new RegExp(
      String.raw`^\s*(?:\}\s*)?(?:(?:if|elif|else\s+if)\b.*` +
        String.raw`(?:\b(?:hasattr|isinstance|callable)\(\s*${x}\b|\btypeof\s+${x}\b)|(?:except|catch|rescue)\b)`,
    );
    if (headers(n).some((h) => narrowing.test(h))) continue;
    return n;
  }
  return null;
}

/**
 * The line to anchor on inside a function located through a compiled-output frame (whose line number belongs to the
 * compiled file): the first body line that reads the member the crash names or a quoted identifier, else the first
 * statement of the body. Null when the body was not read.
 */
function lineInCompiledFunction(
  w: FileWindow,
  fnLines: { start: number; end: number | null },
  problem: ProblemFacts,
  lang: CodeLanguage | null = null,
): number | null {
  const end = fnLines.end ?? fnLines.start + 40;
  const body: [number, string][] = [];
  /** The quote that closes the Python docstring being skipped; "" once it is closed. */
  let docstring: string | null = null;
  for (let n = fnLines.start + 1; n <= end; n++) {
    const t = w.lines.get(n);
    if (t === undefined || w.clipped.has(n)) continue;
    const code = t.trim();
    // A Python docstring is no statement: nothing goes before it (that would turn it into a plain string).
    if (docstring) {
      if (code.includes(docstring)) docstring = "";
      continue;
    }
    const doc: RegExpExecArray | null =
      lang === "python" && body.length === 0 && docstring === null ? /^[rRuU]?("""|''')/.exec(code) : null;
    if (doc?.[1]) {
      docstring = code.slice(doc[0].length).includes(doc[1]) ? "" : doc[1];
      continue;
    }
    if (code === "" || /^(?:\/\/|\/\*|\*|#|[{}]|\)\s*\{?)$/.test(code) || /^[}\])]+;?$/.test(code)) continue;
    body.push([n, t]);
  }
  const mismatch = lang ? mismatchOf(problem.errorMessages[0] ?? null) : null;
  const raised = mismatch && lang ? lineRaising(w, fnLines.start, body, mismatch, lang) : null;
  if (raised !== null) return raised;
  const name = crashOf(problem.errorMessages[0] ?? null)?.name ?? null;
  const words = [...(name ? [name] : []), ...problem.identifiers];
  for (const word of words) {
    const hit = body.find(([, t]) => readsMember(t, word, "member", lang));
    if (hit) return hit[0];
  }
  return body[0]?.[0] ?? null;
}

/**
 * True when `line` of `lang` calls `callee` (`callee(`, `x.callee(`, `this.#callee(`) in its code: inside an
 * interpolation too (`` `${callee(x)}` ``), not in string text or a comment ({@link liveCode}).
 */
function lineCalls(line: string, callee: string, lang: CodeLanguage | null): boolean {
  return new RegExp(`(?<![\\w$])${escapeRe(callee)}\\s*\\(`).test(lang ? liveCode(line, lang) : line);
}

/** The first line of the function spanning `fn` (its definition lines) that calls `callee`, or null. */
function lineCalling(
  w: FileWindow,
  fn: { start: number; end: number | null },
  callee: string,
  lang: CodeLanguage | null,
): number | null {
  for (let n = fn.start + 1; n <= (fn.end ?? fn.start + 40); n++)
    if (!w.clipped.has(n) && lineCalls(w.lines.get(n) ?? "", callee, lang)) return n;
  return null;
}

function analyse(steps: readonly Step[], cand: Candidate, problem: ProblemFacts): Analysis {
  const window = knownLines(steps, cand.path);
  const lang = languageOf(cand.path);
  let targetLine = cand.line !== null && window.lines.has(cand.line) ? cand.line : null;
  if (cand.compiled) targetLine = lineInCompiledFunction(window, cand.compiled, problem, lang);
  // A caller chosen over a relaying frame: the line is its call of the relaying function.
  const from = cand.relayedFrom;
  const callee = from ? calleeName((from.via ?? from).frame.fn ?? "") : null;
  if (cand.compiled && callee) targetLine = lineCalling(window, cand.compiled, callee, lang) ?? targetLine;
  const reanchor =
    targetLine !== null &&
    !cand.compiled &&
    lang &&
    !(callee && lineCalls(window.lines.get(targetLine) ?? "", callee, lang))
      ? checkFrameLine(steps, cand, window, targetLine, lang, problem)
      : null;
  if (reanchor) targetLine = reanchor.line;
  const lineInFile = targetLine !== null;
  if (targetLine === null)
    targetLine = lineWith(window.lines, [
      ...problem.identifiers,
      ...(cand.evidence === "search" ? problem.searchWords : []),
    ]);
  // Kotlin: a lateinit property read too early, no frame line: the first read of it in a function of the file.
  const noFrameLine = !lineInFile || (cand.evidence !== "frame" && cand.evidence !== "alert");
  const lateinit = lang === "kotlin" && noFrameLine ? lateinitProperty(problem.errorMessages[0] ?? null) : null;
  if (lateinit) targetLine = lateinitRead(window.lines, lateinit) ?? targetLine;
  // Java/C#: no frame line, a member the report names: the first statement of its body.
  const member =
    noFrameLine && (lang === "java" || lang === "csharp")
      ? namedMemberLine(cand.path, window.lines, problem.identifiers)
      : null;
  if (member) targetLine = member.line;
  // No frame line: the function the issue names, when one line of it reads the member the crash names.
  const read =
    noFrameLine && lang && !member && !lateinit
      ? namedRead(cand.path, window, problem.errorMessages[0] ?? null, [
          ...problem.identifiers,
          ...codeShapedWords(`${problem.errorMessages.join("\n")}\n${problem.title}\n${problem.body}`),
        ])
      : null;
  if (read) targetLine = read.line;
  // Java/C#: the report asks for argument checks in a constructor the file defines: its first statement.
  const text = `${problem.title}\n${problem.body}`;
  const named = (w: string) => problem.identifiers.includes(w) || wholeWord(w).test(text);
  const checks =
    (lang === "java" || lang === "csharp") && asksForNullChecks(text)
      ? (problem.identifiers
          .map((id) => requestedChecks(window.lines, id.split(".").pop() ?? id, named))
          .find((c) => c !== null) ?? null)
      : null;
  if (checks) targetLine = checks.line;
  let ins: InsertionPoint | null = null;
  let editBlocked: string | null = null;
  let enc: Enclosing | null = null;
  if (!lang)
    editBlocked = `the heuristic does not write ${cand.path.slice(cand.path.lastIndexOf(".")) || "this kind of"} files`;
  else if (targetLine === null) editBlocked = "no line of the file could be tied to the problem";
  if (lang && targetLine !== null) {
    ins = insertionBefore(window.lines, targetLine, lang);
    enc = enclosingDefinition(window.lines, ins?.line ?? targetLine, lang);
    if (ins && (lang === "go" || lang === "java" || lang === "csharp" || lang === "kotlin") && enc?.kind !== "function")
      ins = null;
    if (!ins && !editBlocked)
      editBlocked = `line ${targetLine} is not at a place where a statement can be inserted safely`;
  }
  const fnName = enc?.name ?? cand.frame?.fn ?? null;
  const decl = findDeclaration(steps, cand, window, targetLine, problem);
  const relay = callee && lang ? relayedParameter(steps, cand, callee, lang, problem) : null;
  return {
    cand,
    lang,
    window,
    targetLine,
    lineInFile,
    ins,
    enc,
    fnName,
    editBlocked,
    decl,
    reanchor,
    member: member?.name ?? null,
    read,
    checks: checks?.params ?? null,
    relay,
  };
}

/** The message's missing member: `Cannot destructure property 'x' of 'undefined'`, else {@link crashOf}'s name. */
function missingName(message: string | null): { name: string | null; destructured: boolean } | null {
  const d = message ? /Cannot destructure property ['"]([\w$]+)['"] of ['"]?(?:undefined|null)/.exec(message) : null;
  if (d?.[1]) return { name: d[1], destructured: true };
  const crash = crashOf(message);
  return crash ? { name: crash.name, destructured: false } : null;
}

/** True when `line` opens the definition of function `name`, also one whose parameters continue on the next lines. */
function definesFunction(line: string, name: string): boolean {
  const n = escapeRe(name);
  return new RegExp(
    String.raw`\bfunction\s*\*?\s*${n}\s*[(<]|\bdef\s+${n}\s*\(|` +
      String.raw`(?:^|[\s.])${n}\s*[:=]\s*(?:async\s+)?(?:function\b|\()|` +
      String.raw`^\s*(?:(?:public|private|protected|static|async|override)\s+)*#?${n}\s*\([^)]*\)\s*(?::[^{]*)?\{\s*$`,
  ).test(line);
}

/**
 * For a caller chosen over a frame that only received a missing value (not a validator's throw): the function it
 * calls, the member that function reads, and the position of the parameter that arrived missing, read off the
 * callee's definition in the relaying frame's file (the destructuring pattern holding the member, or the parameter
 * whose member the frame line reads). Null when the message names no missing value.
 */
function relayedParameter(
  steps: readonly Step[],
  cand: Candidate,
  callee: string,
  lang: CodeLanguage,
  problem: ProblemFacts,
): Relay | null {
  const from = cand.relayedFrom;
  const missing = missingName(problem.errorMessages[0] ?? null);
  if (!from || from.why === "validator" || !missing) return null;
  // Through callers that only passed it on: the parameter of the one this caller calls that it passed.
  const called = from.via ?? from;
  const inner = knownLines(steps, called.path);
  const innerLang = languageOf(called.path) ?? lang;
  const bare = callee.replace(/^#/, "");
  let signature: string | null = null;
  for (const [n, t] of [...inner.lines.entries()].sort((x, y) => x[0] - y[0])) {
    if (definitionOn(t, innerLang)?.name !== bare && !definesFunction(t, bare)) continue;
    signature = Array.from({ length: 15 }, (_, i) => inner.lines.get(n + i) ?? "").join("\n");
    break;
  }
  const frameText = from.frame.line !== null ? (inner.lines.get(from.frame.line) ?? "") : "";
  const param = from.via
    ? from.via.param
    : missing.name
      ? (new RegExp(`([A-Za-z_$][\\w$]*)\\s*(?:\\?\\.|\\.|&\\.|\\[['"])${escapeRe(missing.name)}(?![\\w$])`).exec(
          frameText,
        )?.[1] ?? null)
      : null;
  const destructured = !from.via && missing.destructured ? missing.name : null;
  const index = signature ? missingParameterIndex(signature, destructured, param) : null;
  const reader = from.via && from.frame.fn ? calleeName(from.frame.fn)?.replace(/^#/, "") : undefined;
  return { callee, member: missing.name, index, ...(reader ? { reader } : {}) };
}

/**
 * The frame line checked against the function the frame names (see {@link Reanchor}): when the function is defined
 * in the file and the line lies outside it, the line in that function that reads what the crash names (else its
 * first statement); when the line is in the function but does not read the member the crash names and another line
 * of the same function does, that line. Null when the frame line stands.
 */
function checkFrameLine(
  steps: readonly Step[],
  cand: Candidate,
  w: FileWindow,
  line: number,
  lang: CodeLanguage,
  problem: ProblemFacts,
): Reanchor | null {
  const fn = cand.frame?.fn ?? null;
  if (cand.evidence !== "frame" || !fn) return null;
  const sites = sitesIn(steps, fn, cand.path);
  const inside = (s: DefinitionSite) => line >= s.line && line <= (s.endLine ?? s.line);
  const reader = enclosingDefinition(w.lines, line, lang);
  if (sites.length && sites.every((s) => s.endLine !== null) && !sites.some(inside) && reader?.name !== fn) {
    const site = [...sites].sort((x, y) => Math.abs(x.line - line) - Math.abs(y.line - line))[0] as DefinitionSite;
    const at = lineInCompiledFunction(w, { start: site.line, end: site.endLine }, problem, lang);
    return at !== null ? { line: at, from: line, why: "outside" } : null;
  }
  const crash = crashOf(problem.errorMessages[0] ?? null);
  const name = crash?.name ?? null;
  if (!crash || !name) return null;
  // a member is read as `.x`, `?.x` or `['x']`; a missing dict key only as `['x']`
  const access = crash.access === "key" ? "key" : "member";
  const reads = (t: string) => readsMember(t, name, access, lang);
  if (reads(w.lines.get(line) ?? "")) return null;
  const enc = enclosingDefinition(w.lines, line, lang);
  const site = sites.find(inside);
  if (!enc || enc.kind !== "function" || enc.name !== fn) return null;
  const end = site?.endLine ?? line + 40;
  for (let d = 1; d <= 40; d++) {
    for (const n of [line + d, line - d]) {
      if (n <= enc.line || n > end || w.clipped.has(n)) continue;
      const t = w.lines.get(n);
      if (t === undefined || !reads(t)) continue;
      if (enclosingDefinition(w.lines, n, lang)?.name !== fn) continue;
      return { line: n, from: line, why: "member" };
    }
  }
  return null;
}

/** What the clarifying addition is, in proportion to the problem (see `proportion.ts`), and how it reads. */
interface AdditionDesign {
  kind: "guard" | "comment" | "log";
  lines: string[];
  /** A clearer error for a value of the wrong kind, no cause found: a proposal, below the pull-request threshold. */
  clearer?: boolean;
  /** Why the guard is only a proposal, below the pull-request threshold (a summary sentence, see `guardProposal`). */
  proposal?: string;
  /** The line the lines go before, when it is not the insertion point of the frame's statement (`a.ins.line`). */
  at?: number;
  /** For the rationale and the summary: what was added (a noun phrase), and whether it is plural. */
  what: string;
  plural?: boolean;
  output: string;
}

/**
 * The lines of the enclosing function the window holds, after its definition line (to the function's end when known).
 */
function functionBody(a: Analysis): string[] {
  if (!a.enc || a.enc.kind !== "function") return [];
  const start = a.enc.line;
  const indent = (a.window.lines.get(start) ?? "").match(/^\s*/)?.[0].length ?? 0;
  const out: string[] = [];
  for (let n = start + 1; a.window.lines.has(n) && n < start + 400; n++) {
    const t = a.window.lines.get(n) ?? "";
    const w = t.match(/^\s*/)?.[0].length ?? 0;
    if (t.trim() !== "" && w <= indent && !/^\s*[)\]]/.test(t)) break;
    out.push(t);
  }
  return out;
}

/**
 * How the guard leaves (see `GuardExit`): `skip` the item (`continue`) in a loop over items that already skips items
 * when the missing value belongs to the item (see `loop-skip.ts`); `return <v>` when the function's own code shows
 * that convention — a predicate (`is…`/`has…`/`should…`/`can…`) that returns `false`, or an early guard of the
 * function (`if (…) return v`, `if …: return v`) — else `throw` (Go: `return false` in a predicate whose only result
 * is `bool`, `return <zero values>, fmt.Errorf(…)` or `errors.New(…)` when the function's last result is `error`,
 * else `panic`).
 */
function guardExit(a: Analysis, lang: CodeLanguage, root: string, signature: string, content: string): GuardExit {
  const fnLine = a.enc?.kind === "function" ? a.enc.line : 0;
  if (a.ins && skipsItem(a.window.lines, a.ins.line, a.ins.indent.length, fnLine, root, lang)) return { kind: "skip" };
  const body = functionBody(a);
  const returns = body
    .map((t) => /^\s*return\b\s*([^;]*?)\s*;?\s*$/.exec(t)?.[1])
    .filter((v): v is string => v !== undefined);
  const falsy = lang === "python" ? "False" : "false";
  const predicate = /^(?:is|has|should|can|contains|includes|needs|allows?)(?:[A-Z_]|$)/.test(a.enc?.name ?? "");
  if (predicate && lang !== "go" && returns.includes(falsy)) return { kind: "return", value: falsy };
  const guard = body
    .map(
      (t, i) =>
        /^\s*if\b.*(?:\)\s*return\b\s*([^;{}]*?)\s*;?\s*$|:\s*return\b\s*(.*?)\s*$)/.exec(t) ??
        (/^\s*if\b/.test(t) ? /^\s*return\b\s*([^;]*?)\s*;?\s*$/.exec(body[i + 1] ?? "") : null),
    )
    .find((m) => m !== null);
  const value = guard ? (guard[1] ?? guard[2] ?? "").trim() : null;
  if (value !== null && lang !== "go" && /^(?:false|False|null|None|nil|undefined|\[\]|\{\}|""|''|0|-1|)$/.test(value))
    return { kind: "return", value };
  const predicateExit = lang === "go" ? goPredicateExit(goResults(signature)) : null;
  if (predicateExit) return predicateExit;
  const params = a.enc?.params ?? [];
  const goReturn = lang === "go" ? goErrorReturn(signature) : null;
  return {
    kind: "throw",
    parameter: params.includes(root),
    ...(lang === "go"
      ? {
          ...(goReturn ? { goReturn } : {}),
          // the import block may lie outside the lines read: a `fmt.Errorf(` in the code read also shows the import
          goFmt: /"fmt"/.test(content) || /^(?![ \t]*\/\/).*(?<![\w.])fmt\.[A-Z]\w*\(/m.test(content),
          goErrors: /"errors"/.test(content) || /^(?![ \t]*\/\/).*(?<![\w.])errors\.New\(/m.test(content),
          goLog: /^\s*(?:import\s+)?"log"\s*$/m.test(content),
        }
      : {}),
  };
}

/**
 * What the function's doc comment says a parameter is (`@param {T} name The … node to check.`), lower-cased, or null.
 */
function parameterDoc(a: Analysis, name: string): string | null {
  if (!a.enc) return null;
  for (let n = a.enc.line - 1; n >= Math.max(1, a.enc.line - 30); n--) {
    const t = a.window.lines.get(n);
    if (t === undefined || !/^\s*(?:\*|\/\*\*|\/\/\/|#)/.test(t)) break;
    const m = new RegExp(`@param\\s+(?:\\{[^}]*\\}\\s+)?\\[?${name}\\]?\\s+(?:-\\s+)?(.{6,100}?)\\.?\\s*$`).exec(t);
    if (m?.[1]) return `${m[1].charAt(0).toLowerCase()}${m[1].slice(1)}`;
  }
  return null;
}

/** A Go statement that leaves the block (a return, a panic, a loop jump, an exit or fatal log of any logger). */
const GO_LEAVES = /^\s*(?:return|panic|goto|break|continue|os\.Exit)\b|(?:Exit|Fatal|Panic|Abort|Die)\w*\s*\(/;

/**
 * The Go log-and-continue bug: the statement at the frame line reads `x.…` where `x, err := f()` was assigned just
 * above, and the `if err != nil { … }` block between them does not leave (it only logs, or wraps the error and drops
 * it), so the nil `x` is read and panics. The addition is the missing `return` at the end of that block: the block's
 * own error expression when it is a single call on the error (`errors.Wrap(err, msg)`, `fmt.Errorf(…, err)`), else
 * the error itself, after the zero values of the function's other results. Null when the code is not that shape
 * or the function's results are not `(…, error)` with known zero values.
 */
function droppedGoError(a: Analysis, signature: string): AdditionDesign | null {
  if (!a.ins || a.targetLine === null) return null;
  const get = (n: number) => a.window.lines.get(n);
  const prevCode = (n: number) => {
    let p = n - 1;
    while (p >= 1 && get(p) !== undefined && (get(p) ?? "").trim() === "") p--;
    return get(p) === undefined ? null : p;
  };
  const close = prevCode(a.ins.line);
  if (close === null || (get(close) ?? "").trim() !== "}" || indentOf(get(close) ?? "") !== a.ins.indent) return null;
  let open = close - 1;
  while (open >= 1 && get(open) !== undefined && indentOf(get(open) ?? "").length > a.ins.indent.length) open--;
  const check = /^\s*if\s+(\w+)\s*!=\s*nil\s*\{\s*$/.exec(get(open) ?? "");
  if (!check || indentOf(get(open) ?? "") !== a.ins.indent) return null;
  const errVar = check[1] ?? "";
  const body = Array.from({ length: close - open - 1 }, (_, i) => get(open + 1 + i) ?? "").filter(
    (t) => t.trim() !== "" && !/^\s*\/\//.test(t),
  );
  if (body.length === 0 || body.some((t) => GO_LEAVES.test(t))) return null;
  const assigned = prevCode(open);
  const lhs =
    /^\s*([\w\s,]+?)\s*:?=[^=]/
      .exec(get(assigned ?? 0) ?? "")?.[1]
      ?.split(",")
      .map((x) => x.trim()) ?? [];
  if (!lhs.includes(errVar)) return null;
  const statement = Array.from(
    { length: a.targetLine - a.ins.statement + 1 },
    (_, i) => get(a.ins!.statement + i) ?? "",
  )
    .join("\n")
    .replace(/"(?:[^"\\]|\\.)*"|`[^`]*`/g, '""');
  const nilRead = lhs.find(
    (x) => x !== errVar && x !== "_" && new RegExp(`(^|[^\\w.])${escapeRe(x)}\\s*\\.`).test(statement),
  );
  if (!nilRead) return null;
  const zeros = goErrorReturn(signature);
  if (!zeros) return null;
  const wrap =
    body.length === 1
      ? /^\s*((?:[\w.]+\.)?(?:Wrap\w*|Errorf|With\w+|New\w*Error|Annotate\w*)\(.*\))\s*$/.exec(body[0] ?? "")
      : null;
  const returned = wrap && new RegExp(`\\b${escapeRe(errVar)}\\b`).test(wrap[1] ?? "") ? (wrap[1] ?? errVar) : errVar;
  const indent = indentOf(body[0] ?? "") || `${a.ins.indent}\t`;
  return {
    kind: "guard",
    at: close,
    lines: [`${indent}return ${[...zeros, returned].join(", ")}`],
    what:
      `the missing \`return\` of the \`${errVar}\` checked ` +
      `above (the block went on to read the nil \`${nilRead}\`)`,
    output: "",
  };
}

/** Go: the grep for the package-level declaration of the value a report names as nil, when a frame was located. */
function goVarCheck(a: Analysis, problem: ProblemFacts): Record<string, unknown> | null {
  if (a.lang !== "go" || a.cand.evidence !== "frame" || !a.lineInFile) return null;
  const named = goNamedNil(problem.title, problem.body);
  return named ? goVarQuery(named, a.cand.path) : null;
}

/**
 * The guard on the argument a caller passes to the function that received it missing (see `relay-guard.ts`): read
 * off the statement from its first line through the call (at most 8 lines on), it leaves as the function's own
 * guards do (else throws), naming the argument, the callee and the member the callee reads, with a lookup's key by
 * value or else the cheap context of the parameters. Null when the argument cannot be checked without side effects.
 */
function relayGuard(
  a: Analysis,
  problem: ProblemFacts,
  relay: Relay,
  lang: CodeLanguage,
  where: string,
  content: string,
): AdditionDesign | null {
  if (!a.ins || a.targetLine === null) return null;
  const get = (n: number) => a.window.lines.get(n) ?? "";
  const lines: string[] = [];
  for (let n = a.ins.statement; n <= a.targetLine + 8 && a.window.lines.has(n); n++) lines.push(get(n));
  const top = a.enc?.kind === "function" ? a.enc.line : 1;
  const earlier = Array.from({ length: Math.max(0, a.ins.line - top) }, (_, i) => get(top + i)).join("\n");
  const arg = relayedArgument(lines.join("\n"), relay.callee, relay.index, lang, earlier);
  if (!arg) return null;
  const root = arg.expr.replace(/^(?:this\.|self\.|@)/, "").split(/[.(]/)[0] ?? "";
  // in scope: a parameter or a name seen above in the function (an instance member in an instance method)
  const instance = /^(?:this\.|self\.|@)/.test(arg.expr);
  if (instance ? !a.enc?.instance : !new RegExp(`(^|[^\\w$.])${escapeRe(root)}([^\\w$]|$)`).test(earlier)) return null;
  const signature = a.enc ? get(a.enc.line) : "";
  const exit = guardExit(a, lang, root, signature, content);
  const unit = indentUnit(a.window.lines, lang, a.ins.indent);
  const shape: AdditionShape =
    lang === "python"
      ? { kind: "guard", open: [`if ${arg.condition}:`], close: [], inner: unit, exit }
      : lang === "ruby"
        ? { kind: "guard", open: [], close: [], inner: "", suffix: ` if ${arg.condition}`, exit }
        : { kind: "guard", open: [`if (${arg.condition}) {`], close: ["}"], inner: unit, exit };
  const callee = relay.callee.replace(/^#/, "");
  const keyName = arg.key?.split(".").pop() ?? "";
  // a lookup's key by value (labelled with its last name, to leave room for the message): what was looked up
  const keyValue: ContextValue[] = arg.key && !SECRET_LIKE.test(keyName) ? [{ label: keyName, expr: arg.key }] : [];
  const map = arg.key ? arg.expr.slice(0, arg.expr.lastIndexOf(".get(")) : "";
  const member = relay.member && /^[\w$]+$/.test(relay.member) ? relay.member : null;
  const text = arg.key
    ? `no ${map} entry for ${arg.key}`
    : `${arg.expr} is ${nullWord(lang)}; ${callee}() ${
        member
          ? relay.reader
            ? `passes it to ${relay.reader}(), which reads '${member}'`
            : `reads '${member}'`
          : "needs it"
      }`;
  const values = exit.kind !== "throw" ? [] : arg.key ? keyValue : contextValues(a.enc, lines.join("\n"), lang, [root]);
  const added = buildAddition({
    lang,
    indent: a.ins.indent,
    style: { receiver: "", method: "", form: "args" },
    note: { head: "", text: "", tail: "" },
    shape,
    message: { head: where, text, tail: "" },
    values,
  });
  const what =
    exit.kind === "return"
      ? `a guard that returns${exit.value ? ` ${exit.value}` : ""} when \`${arg.expr}\` is missing before it is ` +
        `passed to \`${callee}\`, as the function's own guards do`
      : exit.kind === "skip"
        ? `a guard that skips the item when \`${arg.expr}\` is missing before it is passed to \`${callee}\`, ` +
          `as the loop already skips items`
        : `a guard that fails with a clear error when \`${arg.expr}\` is missing before it is passed to \`${callee}\``;
  const proposal = guardProposal(a, problem, lang, added, exit, arg.expr, root);
  return { kind: "guard", lines: added, what, output: "", ...(proposal ? { proposal } : {}) };
}

/**
 * Why a guard is a proposal rather than a pull request, as a sentence; null when a maintainer could merge it:
 * - Go: it panics (`panic(…)`, `log.Panicf(…)`) while no guard in the lines read of the file panics (an `if` whose
 *   body is a panic): a maintainer would rather use the file's own error path;
 * - it throws on a parameter itself (`value` is the bare parameter, not a member of it; a Go method's receiver is
 *   one) that the function does not assign above the guard: the function received the missing value, so the cause
 *   is in the caller that passed it, and the guard only swaps the runtime's error (`AttributeError`,
 *   `NullPointerException`, …) for another one at the same place;
 * - JavaScript/TypeScript: it throws inside an HTTP request handler, or in a function the trace shows running while
 *   a request is served (a frame of Node's `_http_server`, Express's router, Koa, Fastify or hapi: see
 *   {@link servedFrame}) — the request still fails, a 500 for a 500, and with Node's own `http` an uncaught throw ends
 *   the process as the TypeError did — or
 *   while React renders (`render-path.ts`: the page still fails, the tree unmounted up to an error boundary): it
 *   converts one crash into another the user sees the same way, and what to answer or render instead is the
 *   application's choice. A throw elsewhere (a library, a CLI) stays a pull request: there the clearer error is the
 *   caller's or the user's answer (changesets' own fix for eval case changesets-unknown-package is such an error).
 *
 * @param lines the guard's lines as written
 * @param value the checked expression (`projectData`, `f.Body`); `root` its first name
 */
function guardProposal(
  a: Analysis,
  problem: ProblemFacts,
  lang: CodeLanguage,
  lines: readonly string[],
  exit: GuardExit,
  value: string,
  root: string,
): string | null {
  if (lang === "go" && lines.some((l) => GO_PANICS.test(l)) && !goGuardsPanic(a.window.lines))
    return (
      `It panics, and no guard read in ${baseName(a.cand.path)} does: a proposal, ` +
      `for a maintainer to turn into the file's own error path.`
    );
  const receiver =
    lang === "go" && a.enc?.kind === "function" ? goReceiverName(a.window.lines.get(a.enc.line) ?? "") : null;
  const parameter = (a.enc?.params ?? []).includes(root) || receiver === root;
  if (exit.kind === "throw" && value === root && parameter && !assignedAbove(a, root))
    return (
      `It fails on the ${receiver === root ? "receiver" : "parameter"} \`${root}\` itself, which arrived missing: ` +
      `the cause is in the caller that passed it, so this is a proposal, not the fix.`
    );
  // A request handler that throws still fails the request (a 500 instead of a TypeError's 500): what the client
  // should get instead (a 404, `next(err)`, a message) is the application's decision.
  const params = (lang === "javascript" || lang === "typescript") && exit.kind === "throw" ? handlerParams(a) : null;
  if (params)
    return (
      `It throws inside a request handler (\`(${params})\`): the request still fails, only with a ` +
      `clearer error in the log; how to answer it (a 404, \`next(err)\`) is the application's choice, so this is ` +
      `a proposal.`
    );
  const served =
    (lang === "javascript" || lang === "typescript") && exit.kind === "throw" ? servedFrame(problem) : null;
  if (served)
    return (
      `It throws while a request is served (the trace's \`${served}\`): the request still fails, only with a ` +
      `clearer error in the log; how to answer it (a 404, an error response) is the application's choice, so this ` +
      `is a proposal.`
    );
  // Throwing while React renders still fails the render (the tree unmounts up to an error boundary, a blank page
  // without one), as the TypeError did: what to render instead is the application's decision (render-path.ts).
  const render = (lang === "javascript" || lang === "typescript") && exit.kind === "throw" ? renderPath(a) : null;
  if (render)
    return (
      `It throws while ${renderWhat(render)}: ` +
      `the page still fails (React unmounts the tree up to the nearest error boundary), only with a clearer ` +
      `error; what to render instead (nothing, a placeholder, a loading state) is the application's choice, so ` +
      `this is a proposal.`
    );
  return null;
}

/** A stack-trace line of an HTTP server's request dispatch: Node's `http`, Express, Koa, Fastify, hapi. */
const SERVED_FRAME = new RegExp(
  String.raw`^\s*at\s.*?[(\s](?:node:_http_server|[^\s()]*/_http_server\.js|[^\s()]*/node_modules/` +
    String.raw`(?:express/lib/router|koa-compose|koa/lib/application|fastify/lib|@hapi/hapi/lib)/[^\s():]+)` +
    String.raw`(?::\d+){1,2}\)?\s*$`,
);

/**
 * The first stack-trace line of the issue (`at parserOnIncoming (node:_http_server:1107:12)`, trimmed, at most 120
 * characters) that shows the crash happened while an HTTP server dispatched a request, or null. Hostile text can
 * only make a guard a proposal with it (never a pull request), so prose that imitates a frame is harmless.
 */
function servedFrame(problem: ProblemFacts): string | null {
  for (const line of problem.body.split("\n")) {
    if (line.length < 400 && SERVED_FRAME.test(line)) return line.trim().slice(0, 120).replace(/`/g, "'");
  }
  return null;
}

/** What runs when the guard throws, for the summary: "`UserCard` renders", "the hook `useUser` runs in a render". */
function renderWhat(r: RenderPath): string {
  if (r.kind === "hook") return `the hook \`${r.name}\` runs in a render`;
  return r.kind === "render" ? "the component's `render()` runs" : `\`${r.name}\` renders`;
}

/** The React render-path function around the guard's insertion line (see `render-path.ts`), or null. */
function renderPath(a: Analysis): RenderPath | null {
  return reactRenderPath(a.window.lines, a.enc, a.cand.path);
}

/**
 * The parameter list of the innermost function around the guard's insertion line when it is an HTTP request handler
 * (Express, Koa-router, Fastify, Node's `http`: a `req`/`request` parameter, then `res`/`response`/`reply`), as
 * written (`req, res, next`); else null. The innermost function is the nearest line above, indented less than the
 * insertion line, that opens a function (`function (…)`, `(…) =>`, a method `name(…) {`), at most 60 lines up.
 */
function handlerParams(a: Analysis): string | null {
  if (!a.ins) return null;
  const depth = (t: string) => (/^[ \t]*/.exec(t)?.[0] ?? "").replace(/\t/g, "    ").length;
  const at = depth(a.ins.indent);
  for (let n = a.ins.line - 1; n >= Math.max(1, a.ins.line - 60); n--) {
    const t = a.window.lines.get(n);
    if (t === undefined) return null;
    if (t.trim() === "" || depth(t) >= at) continue;
    const m =
      /\bfunction\b[^(]*\(([^()]*)\)/.exec(t) ??
      /(?:^|[^\w$])(?:async\s+)?\(([^()]*)\)\s*(?::[^=]*)?=>/.exec(t) ??
      /^\s*(?:async\s+)?[\w$]+\s*\(([^()]*)\)\s*\{/.exec(t);
    if (!m) continue;
    const names = (m[1] ?? "").split(",").map((p) => p.trim().split(/[\s:=]/)[0] ?? "");
    const req = names.findIndex((p) => p === "req" || p === "request");
    const res = names.findIndex((p) => p === "res" || p === "response" || p === "reply");
    return req !== -1 && res === req + 1 ? names.filter((p) => p !== "").join(", ") : null;
  }
  return null;
}

/**
 * True when a statement of the function above the guard assigns `name` (`name = …`, `name, err := …`,
 * `name ||= …`); a default in the signature (`cart=None,` of a multi-line signature) is no assignment.
 */
function assignedAbove(a: Analysis, name: string): boolean {
  if (!a.ins || a.enc?.kind !== "function") return false;
  const get = (n: number) => (a.window.lines.get(n) ?? "").replace(/\s*(?:\/\/|#).*$/, "");
  let body = a.enc.line;
  // the signature ends at its `{` / `:` / `=>` (Ruby: on the `def` line)
  if (a.lang !== "ruby")
    while (body < a.enc.line + 20 && body < a.ins.line && !/(?:[{:]|=>)\s*$/.test(get(body))) body++;
  const assigns = new RegExp(
    `(?:^|[^\\w.$])${escapeRe(name)}\\s*(?:,\\s*[\\w$]+\\s*)*(?::|\\|\\||\\?\\?|&&)?=(?![=~>])`,
  );
  for (let n = body + 1; n < a.ins.line; n++) if (assigns.test(get(n))) return true;
  return false;
}

/**
 * The lines known of the file where argument checks go (`a.checks`): the whole file when it was read whole, else the
 * window plus every line the `checksQuery` grep found — null while that grep was not made, or when it was capped
 * (then a line naming a parameter may be missing).
 */
function checkedLines(steps: readonly Step[], a: Analysis): KnownFile | null {
  if (coversWholeFile(a.window)) return { lines: a.window.lines, whole: true };
  if (!a.checks) return null;
  const grep = grepHits(steps, checksQuery(a.cand.path, a.checks));
  if (!grep || grep.hits.length < grep.total) return null;
  const lines = new Map(a.window.lines);
  for (const h of grep.hits) if (h.path === a.cand.path && !lines.has(h.line)) lines.set(h.line, h.text);
  return { lines, whole: false };
}

/** Decide and write the clarifying addition for the analysis (null when no insertion point). */
function designAddition(steps: readonly Step[], a: Analysis, problem: ProblemFacts): AdditionDesign | null {
  if (!a.ins || !a.lang || a.targetLine === null) return null;
  const lang = a.lang;
  const get = (n: number) => a.window.lines.get(n) ?? "";
  const statement = Array.from({ length: Math.max(1, a.targetLine - a.ins.statement + 1) }, (_, i) =>
    get(a.ins!.statement + i),
  ).join("\n");
  const fn = a.enc?.kind === "function" ? a.enc.name : null;
  const wording = additionWording(wordingInput(a, problem, fn));
  const content = [...a.window.lines.values()].join("\n");
  const message0 = problem.errorMessages[0] ?? null;
  // An alert's finding is its message (no exception line): "Property access on a possibly undefined value `item`."
  const named = lang === "go" && a.cand.evidence === "frame" ? goNamedNil(problem.title, problem.body) : null;
  const crash =
    crashOf(message0) ??
    (a.cand.evidence === "alert" ? (crashOf(oneLine(problem.body, 400)) ?? crashOf(problem.title)) : null) ??
    (named ? { access: "any" as const, name: null, receiver: named } : null) ??
    (a.member ? (crashOf(oneLine(problem.body, 400)) ?? crashOf(problem.title)) : null);
  const where = fn ? `${fn}(): ` : `${baseName(a.cand.path)}: `;
  // 0a. Java/C#: the argument checks a report asks for, at the start of the constructor. A proposal (the place comes
  // from the report's words, not from a frame) unless a null argument already fails in this file (see
  // `nullAlreadyFails`): then the checks only name the argument, and are the fix a maintainer merges.
  if (a.checks && (lang === "java" || lang === "csharp") && a.enc?.kind === "function") {
    const unit = indentUnit(a.window.lines, lang, a.ins.indent);
    const body = a.targetLine;
    const known = checkedLines(steps, a);
    const fails = known !== null && a.checks.every((p) => nullAlreadyFails(known, body, p, lang));
    const names = a.checks.map((p) => `\`${p}\``).join(" and ");
    return {
      kind: "guard",
      lines: nullCheckLines(lang, a.checks, content, a.ins.indent, unit),
      clearer: !fails,
      what:
        `checks that ${names} ${a.checks.length > 1 ? "are" : "is"} not null, as the issue asks` +
        (fails
          ? a.checks.length > 1
            ? " (a null one already fails: the file dereferences each and never tests them for null)"
            : " (null already fails: the file dereferences it and never tests it for null)"
          : ""),
      plural: true,
      output: "",
    };
  }
  // 0. Go: a nil result read just after its error was checked and not returned: the missing return, in that block.
  if (lang === "go" && crash && a.lineInFile && a.cand.evidence === "frame") {
    const dropped = droppedGoError(a, get(a.enc?.line ?? 0));
    if (dropped) return dropped;
  }
  // 1r. the caller of a function that received the missing value: a guard on the argument it passes.
  if (a.relay && a.lineInFile && a.cand.evidence === "frame") {
    const design = relayGuard(a, problem, a.relay, lang, where, content);
    if (design) return design;
  }
  /** Go: why the crash's receiver got no guard, for the summary ("no guard: …"), or null. */
  let goWhy: string | null = null;
  // 1. a crash that names what was missing, at the frame line: a guard on the receiver that leaves the function.
  if (crash && ((a.lineInFile && (a.cand.evidence === "frame" || a.cand.evidence === "alert")) || a.member || a.read)) {
    const top = a.enc?.kind === "function" ? a.enc.line : 1;
    const signature0 = a.enc ? get(a.enc.line) : "";
    // In scope besides the function's own lines: Go's package-level `var`s (found by the greps), Java/C# fields.
    const goVar = goVarCheck(a, problem);
    const varHits = goVar ? (grepHits(steps, goVar)?.hits ?? []) : [];
    const visible =
      lang === "go"
        ? [
            ...goPackageDeclarations([...declarationHits(steps, problem), ...varHits], a.cand.path),
            ...goPointerFunctions(a.window.lines),
          ]
        : lang === "java" || lang === "csharp"
          ? fieldLines(a.window.lines, indentOf(signature0))
          : [];
    const earlier = [...visible, ...Array.from({ length: Math.max(0, a.ins.line - top) }, (_, i) => get(top + i))].join(
      "\n",
    );
    const imports = [...content.matchAll(/^\s*(?:import\s+)?(?:(\w+)\s+)?"([\w./-]+)"\s*$/gm)].map(
      (m) => m[1] ?? m[2]?.split("/").pop() ?? "",
    );
    const guard = guardFor(
      crash,
      lang,
      get(a.targetLine),
      statement,
      earlier,
      a.enc,
      a.enc ? get(a.enc.line) : null,
      imports,
      a.targetLine === a.cand.line && !a.reanchor && !a.cand.compiled ? a.cand.frame?.column : undefined,
    );
    if (guard) {
      const style = detectLogStyle(content, lang, a.enc?.instance ?? false, "warn");
      const root = guard.receiver.replace(/^(?:this\.|self\.|@)/, "").split(".")[0] ?? "";
      const unit = indentUnit(a.window.lines, lang, a.ins.indent);
      const allman = lang === "csharp" && /^\s*\{\s*$/m.test(content);
      const signature = a.enc ? get(a.enc.line) : "";
      const exit = guardExit(a, lang, root, signature, content);
      const shape: AdditionShape =
        lang === "python"
          ? { kind: "guard", open: [`if ${guard.condition}:`], close: [], inner: unit, exit }
          : lang === "ruby"
            ? { kind: "guard", open: [], close: [], inner: "", suffix: ` if ${guard.condition}`, exit }
            : lang === "go"
              ? { kind: "guard", open: [`if ${guard.condition} {`], close: ["}"], inner: unit, exit }
              : {
                  kind: "guard",
                  open: allman ? [`if (${guard.condition})`, "{"] : [`if (${guard.condition}) {`],
                  close: ["}"],
                  inner: unit,
                  exit,
                };
      const expected = exit.kind === "throw" ? parameterDoc(a, root) : null;
      const lines = buildAddition({
        lang,
        indent: a.ins.indent,
        style,
        // The guard is about the crash, not about a declaration the problem quotes nearby.
        note: additionWording({ ...wordingInput(a, problem, fn), decl: null }).note,
        shape,
        message: { head: where, text: `${guard.message}${expected ? `; expected ${expected}` : ""}`, tail: "" },
        values:
          exit.kind !== "throw"
            ? []
            : lang === "go"
              ? goContextValues(signature, [root], (n) => cheapContext(n, "go"))
              : contextValues(a.enc, statement, lang, [root]),
      });
      const what =
        exit.kind === "return"
          ? `a guard that returns${exit.value ? ` ${exit.value}` : ""} when ` +
            `${guard.absent}, ` +
            `${lang === "go" ? "as a predicate answers for a missing value" : "as the function's own guards do"}`
          : exit.kind === "skip"
            ? `a guard that skips the item when ${guard.absent}, as the loop already skips items`
            : `a guard that fails with a clear error when ${guard.absent}`;
      const proposal =
        guardProposal(a, problem, lang, lines, exit, guard.receiver, root) ??
        (a.read
          ? `${a.cand.evidence === "frame" || a.cand.evidence === "alert" ? STALE_LINE : NO_TRACE}: ` +
            `line ${a.read.line} is the only line of \`${a.read.fn}\` that reads ` +
            `${a.read.access === "key" ? `\`['${a.read.member}']\`` : `\`.${a.read.member}\``}, ` +
            "so the guard is a proposal for a maintainer to confirm."
          : null);
      return { kind: "guard", lines, what, output: "", ...(proposal ? { proposal } : {}) };
    }
    // Go: `x == nil` compiles only for a value that can be nil; the reader is told why there is no guard.
    if (lang === "go") goWhy = goUnguardedWhy(liveCode(get(a.targetLine), lang), imports);
  }
  // 1c. Kotlin: a lateinit property read before it was set: an `isInitialized` check before the read.
  const lateinit = lang === "kotlin" ? lateinitProperty(message0) : null;
  if (lateinit && a.enc?.kind === "function" && mentions(liveCode(get(a.targetLine), lang), lateinit)) {
    const unit = indentUnit(a.window.lines, lang, a.ins.indent);
    const guard = lateinitGuardLines(lateinit, get(a.enc.line), a.ins.indent, unit, where, wording.note);
    const what = guard.returns
      ? `a check that returns early while \`${lateinit}\` is not initialized yet`
      : `a check that fails with a clear error while \`${lateinit}\` is not initialized yet`;
    return { kind: "guard", lines: guard.lines, what, output: "" };
  }
  // 1b. a value of the wrong kind at the frame line, no cause found: a clearer error just before it is raised (a
  // proposal: below the pull-request threshold, see CLEARER_CAP).
  const mismatch = crash ? null : mismatchOf(message0);
  if (
    mismatch &&
    a.lineInFile &&
    a.cand.evidence === "frame" &&
    a.enc?.kind === "function" &&
    (lang === "python" || lang === "javascript" || lang === "typescript")
  ) {
    const top = a.enc.line;
    const earlier = Array.from({ length: Math.max(0, a.ins.line - top) }, (_, i) => get(top + i)).join("\n");
    const guard = clearerGuard(mismatch, lang, get(a.targetLine), statement, earlier, a.enc);
    if (guard) {
      const root = guard.receiver.replace(/^(?:this\.|self\.)/, "").split(".")[0] ?? "";
      const typeOf = lang === "python" && root ? cheapContext(root, lang) : null;
      const lines = buildAddition({
        lang,
        indent: a.ins.indent,
        style: { receiver: "", method: "", form: "args" },
        note: wording.note,
        shape:
          lang === "python"
            ? {
                kind: "guard",
                open: [`if ${guard.condition}:`],
                close: [],
                inner: indentUnit(a.window.lines, lang, a.ins.indent),
                exit: { kind: "throw", parameter: false, wrongType: true },
              }
            : {
                kind: "guard",
                open: [`if (${guard.condition}) {`],
                close: ["}"],
                inner: indentUnit(a.window.lines, lang, a.ins.indent),
                exit: { kind: "throw", parameter: false, wrongType: true },
              },
        message: { head: where, text: guard.message, tail: "" },
        values: typeOf?.type ? [typeOf] : [],
      });
      return {
        kind: "guard",
        lines,
        clearer: true,
        what: `a clearer error when \`${guard.receiver}\` is not what the code expects (no cause was found)`,
        output: "",
      };
    }
  }
  const comment = (what: string, fix?: FittedText): AdditionDesign => ({
    kind: "comment",
    lines: buildAddition({
      lang,
      indent: a.ins!.indent,
      style: { receiver: "", method: "", form: "args" },
      note: wording.note,
      message: wording.message,
      values: [],
      shape: fix ? { kind: "comment", fix } : { kind: "comment" },
    }),
    what,
    output: "",
  });
  // 2. module level (no enclosing function): a log line would run at every load, one more startup message: a comment.
  if (a.enc?.kind !== "function" && !a.decl)
    return comment("a comment naming the problem (module level: no log line that would run at every load)");
  // 3. a warning about a name the file declares, no crash: comments only (the finding and the fix options).
  if (a.decl && !crash && /\bwarn/i.test(a.decl.message ?? message0 ?? ""))
    return comment("a comment with the finding and the fix options (no runtime change)", {
      head: "",
      text: fixOptions(a.decl.id, a.decl.message ?? message0),
      tail: ".",
    });
  // 4. otherwise: a comment naming the finding. An unconditional log line would only restate the error (the throw
  // below already says it) on every call: no runtime change without a cause to guard against.
  return comment(`a comment naming the problem (${goWhy ?? "no log line: it would only restate the error"})`);
}

/**
 * The `suggest_addition` arguments for the analysis, with the anchor widened by `extra` lines; null when impossible.
 */
function buildEdit(
  steps: readonly Step[],
  a: Analysis,
  problem: ProblemFacts,
  extra: number,
  uniqueLine: boolean,
): Record<string, unknown> | null {
  if (!a.ins || !a.lang || a.targetLine === null) return null;
  const design = designAddition(steps, a, problem);
  if (!design) return null;
  const content = wholeFileText(a.window);
  const at = design.at ?? a.ins.line;
  const through = design.at ? at : a.ins.statement <= a.ins.line + 4 ? a.ins.statement : a.ins.line;
  const anchor = chooseAnchor(a.window, at, content, content === null && !uniqueLine ? extra + 2 : extra, through);
  if (!anchor) return null;
  const get = (n: number) => a.window.lines.get(n) ?? "";
  const before: string[] = [];
  for (let n = anchor.from; n <= anchor.to; n++) before.push(get(n));
  const addition = design.lines;
  const fn = a.enc?.kind === "function" ? a.enc.name : null;
  const after: string[] = [];
  for (let n = anchor.from; n <= anchor.to; n++) {
    if (n === at) after.push(...addition);
    after.push(get(n));
  }
  const where = fn ? ` in ${fn}()` : "";
  const because = a.decl
    ? `the statement that uses the declaration of \`${a.decl.id}\` (line ${a.decl.line})`
    : a.cand.evidence === "frame"
      ? "the innermost stack frame in the repository"
      : a.cand.evidence === "alert"
        ? "the alert location"
        : `the code tied to the problem by ${a.cand.evidence}`;
  return {
    path: a.cand.path,
    code_before: before.join("\n"),
    code_after: after.join("\n"),
    rationale:
      `Clarifying addition before line ${at}${where}, at ${because}: ${design.what}` +
      `${design.output ? ` with the file's ${design.output}` : ""}, so the next occurrence ` +
      `of "${oneLine(problem.errorMessages[0] ?? problem.title, 80)}" shows where it comes from.`,
  };
}

/**
 * Where the declaration sits relative to the insertion point: inside the statement below it (brackets still open),
 * further below, or above.
 */
function declPlace(a: Analysis, decl: Declaration): DeclaredName["place"] {
  if (!a.ins) return decl.line >= (a.targetLine ?? 0) ? "below" : "above";
  if (decl.line < a.ins.statement) return "above";
  if (decl.line === a.ins.statement) return "statement";
  let depth = 0;
  for (let n = a.ins.statement; n < decl.line; n++) {
    const code = (a.window.lines.get(n) ?? "").replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, "");
    for (const c of code) {
      if ("([{".includes(c)) depth++;
      else if (")]}".includes(c)) depth--;
    }
    if (depth <= 0) return "below";
  }
  return "statement";
}

/** The facts the wording needs, from the analysis. */
function wordingInput(a: Analysis, problem: ProblemFacts, fn: string | null): WordingInput {
  return {
    source: problem.source,
    message: problem.errorMessages[0] ?? null,
    title: problem.title,
    evidence: a.cand.evidence,
    path: a.cand.path,
    line: a.cand.compiled ? a.targetLine : a.cand.line,
    fn,
    lineInFile: a.lineInFile || (a.cand.evidence !== "frame" && a.cand.evidence !== "alert"),
    tied: a.cand.tied ?? false,
    identifier: a.cand.identifier ?? null,
    pkg: a.cand.pkg ?? null,
    decl: a.decl ? { id: a.decl.id, line: a.decl.line, message: a.decl.message, place: declPlace(a, a.decl) } : null,
    relayed: relayedWording(a.cand),
  };
}

/** The {@link WordingInput.relayed} of a caller chosen over relaying frames, or null. */
function relayedWording(cand: Candidate): WordingInput["relayed"] {
  const from = cand.relayedFrom;
  if (!from) return null;
  const line = from.frame.line !== null ? `:${from.frame.line}` : "";
  return { at: `${from.path}${line}`, fn: from.frame.fn ?? null, via: from.via?.frame.fn ? [from.via.frame.fn] : [] };
}

/**
 * The root cause quoted verbatim: the declaring line(s) of a quoted identifier when the file has one (trimmed to the
 * declaring line after one rejection), else the frame line with its statement (at most 3 lines).
 */
function snippetFor(a: Analysis, short: boolean): string | null {
  if (a.decl) {
    const lines = Array.from(
      { length: a.decl.to - a.decl.from + 1 },
      (_, i) => a.window.lines.get(a.decl!.from + i) ?? "",
    );
    return short ? (a.window.lines.get(a.decl.line) ?? "").trim() || null : lines.join("\n");
  }
  if (a.targetLine === null) return null;
  const line = a.window.lines.get(a.targetLine);
  if (line === undefined || line.trim() === "" || a.window.clipped.has(a.targetLine)) return null;
  if (short || !a.ins || a.targetLine - a.ins.statement > 2 || a.ins.statement > a.targetLine) return line.trim();
  const out: string[] = [];
  for (let n = a.ins.statement; n <= a.targetLine; n++) out.push(a.window.lines.get(n) ?? "");
  return out.join("\n");
}

/**
 * The function to name with `snippet`: `fn` when the snippet lies inside it (or the file's whole text is unknown),
 * else the innermost function, method or class of `content` that holds the snippet, else null. The claims check
 * refuses a snippet outside the named function (`tools/submit-answer.ts`), e.g. a class field cited for a method.
 */
function holdingFunction(
  path: string,
  content: string | null,
  fn: string | null,
  snippet: string | null,
): string | null {
  if (fn === null || snippet === null || content === null) return fn;
  const matches = locateVerbatim(content, trimBlankLines(snippet));
  if (matches.length === 0) return fn;
  const symbols = extractSymbols(path, content).filter(
    (s) => s.endLine !== undefined && (s.kind === "function" || s.kind === "method" || s.kind === "class"),
  );
  const holds = (s: SymbolDef, m: VerbatimMatch) => s.line <= m.startLine && (s.endLine ?? s.line) >= m.endLine;
  const named = symbols.filter((s) => s.name === fn || `${s.container}.${s.name}` === fn);
  if (named.length === 0 || matches.some((m) => named.some((s) => holds(s, m)))) return fn;
  const first = matches[0]!;
  const inner = symbols
    .filter((s) => holds(s, first))
    .sort((x, y) => (x.endLine ?? x.line) - x.line - ((y.endLine ?? y.line) - y.line))[0];
  return inner ? inner.name : null;
}

function baseConfidence(a: Analysis, applied: boolean, agree: boolean): number {
  const table: Record<Evidence, [number, number]> = {
    frame: [0.85, 0.65],
    alert: [0.8, 0.6],
    identifier: [0.65, 0.6],
    path: [0.55, 0.5],
    search: [0.45, 0.45],
  };
  let c = table[a.cand.evidence][applied ? 0 : 1];
  if (a.cand.evidence === "search" && a.targetLine === null) c = 0.3;
  if ((a.cand.evidence === "frame" || a.cand.evidence === "alert") && !a.lineInFile) c -= 0.2;
  if (a.cand.tied) c -= 0.1;
  if (agree && a.cand.evidence === "frame") c += 0.05;
  return c;
}

const round = (x: number) => Math.round(Math.min(0.95, Math.max(0.05, x)) * 100) / 100;

/** The tools whose call reads the repository's code, as the answer gate counts them (src/agent/gates.ts). */
const CODE_READS = new Set(["get_file_contents", "grep_codebase", "search_codebase"]);

/** The longest run of 2+ letters or digits in `text` (the first of equal length), at most 40 characters; or null. */
function longestWord(text: string): string | null {
  let best: string | null = null;
  for (const m of text.matchAll(/[\p{L}\p{N}_]{2,40}/gu)) if (best === null || m[0].length > best.length) best = m[0];
  return best;
}

/** The needs-information answer: what was tried and which evidence is missing. */
function needsInformation(problem: ProblemFacts, tried: string[]): PlannedCall {
  const missing =
    "Missing evidence: a stack trace whose frames point at files of this repository, " +
    "the exact error message, or the name of the file, function or field involved.";
  return call("submit_answer", {
    summary: oneLine(
      `Could not tie ${problem.title ? `"${headlineOf(problem.title, 120)}"` : "the problem"} ` +
        `to code in this repository. ${tried.join(" ")} ${missing}`,
      900,
    ),
    affected_file: null,
    affected_function: null,
    root_cause_snippet: null,
    confidence: 0.3,
  });
}

/**
 * Decide the next turn from the conversation. `available` is the set of tool names offered (empty = all).
 * Pure and deterministic: the same messages always give the same plan.
 */
export function planNextTurn(messages: readonly Message[], available: ReadonlySet<string>): Plan {
  const has = (n: string) => available.size === 0 || available.has(n);
  const first = messages.find((m) => m.role === "user");
  const problem = parseProblem(first?.content ?? "");
  const { steps, turns } = readHistory(messages);
  const pending = (calls: PlannedCall[]) => calls.filter((c) => resultOf(steps, c.name, c.arguments) === undefined);

  // 1. discover, 2. locate
  const located = locate(problem, steps, turns < MAX_TURNS, has);
  if ("calls" in located) return located;
  const { chosen, tried } = located;
  if (chosen?.tooLarge) return tooLargeTurn(problem, chosen, steps);
  const submits = steps.filter((s) => s.call.name === "submit_answer");
  if (!chosen) {
    // An answer needs a read of the code first (the tool_name gate): an issue too vague to locate anything ("hi")
    // gets one grep for its longest word (else its text), so that the needs-information answer is not refused and
    // the run does not fail closed.
    const readCode = steps.some((s) => CODE_READS.has(s.call.name) && s.result !== null);
    const text = `${problem.title}\n${problem.body}`;
    const word = readCode ? null : (longestWord(text) ?? (oneLine(text, 40).trim() || null));
    if (word && has("grep_codebase") && turns < MAX_TURNS)
      return {
        text: `Nothing in the issue points at a file; looking for its word "${word}" in the code.`,
        calls: [call("grep_codebase", { pattern: word })],
      };
    if (submits.length && !has("get_file_contents"))
      return { text: "Submitting what is known.", calls: [needsInformation(problem, tried)] };
    return {
      text: "No file of the repository could be tied to the problem.",
      calls: [needsInformation(problem, tried)],
    };
  }

  // 3. check
  const a = analyse(steps, chosen, problem);
  // Go, Java, Kotlin and C# take a statement only inside a function: when the window read holds none around the
  // line (its signature lies further up, e.g. a method the symbol index does not list), read up to 400 lines above.
  const top = Math.min(...a.window.lines.keys());
  if (
    a.targetLine !== null &&
    a.enc?.kind !== "function" &&
    (a.lang === "go" || a.lang === "java" || a.lang === "kotlin" || a.lang === "csharp") &&
    top > 1 &&
    has("get_file_contents")
  ) {
    const above = { path: chosen.path, start_line: Math.max(1, top - 400), end_line: top - 1 };
    if (resultOf(steps, "get_file_contents", above) === undefined && turns < MAX_TURNS)
      return {
        text: `Reading ${chosen.path} above line ${top} for the function that holds line ${a.targetLine}.`,
        calls: [call("get_file_contents", above)],
      };
  }
  // The line was searched inside the frame's function (compiled output, or a frame line outside that function): when
  // the window read holds only part of it, read the whole function (at most 400 lines) and search again.
  const span =
    chosen.compiled ??
    (a.reanchor?.why === "outside" && chosen.frame?.fn
      ? sitesIn(steps, chosen.frame.fn, chosen.path)
          .map((s) => ({ start: s.line, end: s.endLine }))
          .find((s) => s.end !== null && a.reanchor!.line >= s.start && a.reanchor!.line <= s.end)
      : undefined);
  if (span?.end && has("get_file_contents") && turns < MAX_TURNS) {
    const whole = { path: chosen.path, start_line: span.start, end_line: Math.min(span.end, span.start + 400) };
    let missing = false;
    for (let n = whole.start_line; n <= whole.end_line && !missing; n++) missing = !a.window.lines.has(n);
    if (missing && resultOf(steps, "get_file_contents", whole) === undefined)
      return {
        text:
          `Reading the whole of \`${chosen.frame?.fn ?? "the function"}\` in ${chosen.path} ` +
          `(lines ${whole.start_line}-${whole.end_line}).`,
        calls: [call("get_file_contents", whole)],
      };
  }
  const checks: PlannedCall[] = [];
  const fnCandidates = [
    ...new Set(
      [
        a.enc?.kind === "function" ? a.enc.name : null,
        chosen.frame?.fn ?? null,
        a.enc?.kind === "class" ? a.enc.name : null,
      ].filter((n): n is string => !!n),
    ),
  ];
  if (has("verify_symbol_in_repo"))
    for (const n of fnCandidates.slice(0, 2))
      checks.push(call("verify_symbol_in_repo", { name: n, path: chosen.path }));
  const singleLine = a.ins ? (a.window.lines.get(a.ins.line)?.trim() ?? "") : "";
  const uniqueCheck =
    a.ins && !coversWholeFile(a.window) && singleLine.length >= 4 && has("grep_codebase")
      ? call("grep_codebase", { pattern: singleLine, path_glob: chosen.path, case_sensitive: true, max_results: 5 })
      : null;
  if (uniqueCheck) checks.push(uniqueCheck);
  const goVar = goVarCheck(a, problem);
  if (goVar && has("grep_codebase")) checks.push(call("grep_codebase", goVar));
  // Java/C# argument checks in a file not read whole: every line naming the parameters (does null fail anyway?).
  if (a.checks && !coversWholeFile(a.window) && has("grep_codebase"))
    checks.push(call("grep_codebase", checksQuery(chosen.path, a.checks)));
  const checkCalls = pending(checks);
  if (checkCalls.length && turns < MAX_TURNS) {
    return {
      text:
        `Checking ` +
        (fnCandidates.length
          ? `that ${fnCandidates.slice(0, 2).join("/")} is defined in ${chosen.path}`
          : `the anchor line of ${chosen.path}`) +
        `.`,
      calls: checkCalls,
    };
  }
  let affectedFunction: string | null = null;
  for (const n of fnCandidates.slice(0, 2)) {
    if (definitionSites(steps, { name: n, path: chosen.path })?.length) {
      affectedFunction = n;
      break;
    }
  }
  if (!has("verify_symbol_in_repo")) affectedFunction = fnCandidates[0] ?? null;
  const uniqueRes = uniqueCheck ? grepHits(steps, uniqueCheck.arguments) : null;
  const uniqueLine = uniqueRes
    ? uniqueRes.total === 1 && uniqueRes.hits.filter((h) => h.path === chosen!.path).length === 1
    : false;

  // 4. edit
  const suggests = steps.filter((s) => s.call.name === "suggest_addition");
  const applied = suggests.some((s) => s.result !== null && isApplied(s.result));
  let editNote = a.editBlocked ? `No edit: ${a.editBlocked}.` : "";
  if (!applied && !a.editBlocked && has("suggest_addition") && turns < MAX_TURNS) {
    const rejections = suggests.map((s) =>
      s.result !== null && isRejected(s.result) ? classifyEditRejection(s.result) : "other",
    );
    const stop = rejections.some((r) => r === "policy" || r === "budget") || suggests.length >= MAX_EDIT_ATTEMPTS;
    if (!stop) {
      const last = suggests[suggests.length - 1];
      const lastKind = rejections[rejections.length - 1];
      if (last && (lastKind === "unread" || lastKind === "not_found" || lastKind === "other")) {
        const idx = steps.indexOf(last);
        const rereadAfter = steps.slice(idx + 1).some((s) => s.call.name === "get_file_contents");
        if (!rereadAfter && has("get_file_contents")) {
          const line = a.ins?.line ?? a.targetLine ?? 1;
          const k = suggests.length;
          return {
            text: `The edit was rejected (${lastKind}); re-reading ${chosen.path} around line ${line}.`,
            calls: [
              call("get_file_contents", {
                path: chosen.path,
                start_line: Math.max(1, line - 20 - 10 * k),
                end_line: line + 20 + 10 * k,
              }),
            ],
          };
        }
      }
      let extra = rejections.filter((r) => r !== "unread").length;
      let args = buildEdit(steps, a, problem, extra, uniqueLine);
      const used = new Set(suggests.map((s) => callKey(s.call.name, s.call.arguments)));
      while (args && used.has(callKey("suggest_addition", args)) && extra < 6)
        args = buildEdit(steps, a, problem, ++extra, uniqueLine);
      if (args && !used.has(callKey("suggest_addition", args))) {
        return {
          text: `Adding a clarifying addition to ${chosen.path} before line ${a.ins?.line}.`,
          calls: [call("suggest_addition", args)],
        };
      }
      editNote = "No edit: no anchor unique in the file could be built from the lines read.";
    } else {
      editNote = "No edit: the suggested addition was rejected.";
    }
  } else if (!applied && !editNote && !has("suggest_addition")) editNote = "No edit: suggest_addition is not offered.";

  // 5. answer
  const rejectedSubmits = submits.filter((s) => s.result !== null);
  const texts = rejectedSubmits.map((s) => s.result ?? "");
  const gateRejected = texts.some((t) => /must call at least one of|at least \d+ tool call/.test(t));
  if (gateRejected && has("get_file_contents")) {
    const reread = { path: chosen.path, start_line: 1, end_line: Math.max(1, Math.min(a.window.totalLines ?? 40, 40)) };
    if (resultOf(steps, "get_file_contents", reread) === undefined)
      return {
        text: "The answer needs a successful read first; reading the file again.",
        calls: [call("get_file_contents", reread)],
      };
  }
  const dropFile = texts.some((t) => /affected_file/.test(t));
  const dropFn = dropFile || texts.some((t) => /affected_function/.test(t));
  const snippetRejections = texts.filter((t) => /root_cause_snippet/.test(t)).length;
  const agree = located.identifierFile === chosen.path;
  const design = applied ? designAddition(steps, a, problem) : null;
  // A comment changes nothing at run time: it is no pull request on its own (below the threshold), also when it
  // names the fix options a warning gives (a maintainer applies them).
  const commentCap =
    design?.kind === "comment"
      ? COMMENT_ONLY_CAP
      : design?.clearer
        ? CLEARER_CAP
        : design?.proposal
          ? GUARD_PROPOSAL_CAP
          : 1;
  const conf = round(Math.min(commentCap, baseConfidence(a, applied, agree)) - 0.1 * rejectedSubmits.length);
  const snippet = dropFile || snippetRejections >= 2 ? null : snippetFor(a, snippetRejections === 1);
  const fn = dropFn ? null : holdingFunction(chosen.path, wholeFileText(a.window), affectedFunction, snippet);
  const sentences = diagnosisSentences(wordingInput(a, problem, fn));
  if (a.reanchor && chosen.frame?.fn) {
    const what =
      a.reanchor.why === "outside"
        ? `is not inside \`${chosen.frame.fn}\` here`
        : `does not read the member the error names`;
    sentences.push(
      `Line ${a.reanchor.from} of the trace ${what} (the reporter's version may ` +
        `differ); line ${a.reanchor.line} of \`${chosen.frame.fn}\`, which does, was used.`,
    );
  }
  if (chosen.compiled && chosen.frame) {
    const shown = chosen.frame.path.length <= 60 ? chosen.frame.path : baseName(chosen.frame.path);
    sentences.push(
      `The frame is compiled output (${shown}:${chosen.frame.line}); its source ${chosen.path} defines ` +
        `\`${chosen.frame.fn}\` at line ${chosen.compiled.start}, and the line was found inside that ` +
        `function.`,
    );
  }
  if (applied) {
    // "proposed", never "added": the model answers before the outcome is decided, and a comment, a proposal or an
    // answer below the pull-request threshold is committed nowhere (src/agent/outcome.ts).
    const what = design?.what ?? "a clarifying addition";
    sentences.push(
      `${what.charAt(0).toUpperCase()}${what.slice(1)} ${design?.plural ? "are" : "is"} ` +
        `proposed before line ${design?.at ?? a.ins?.line ?? a.targetLine}.`,
    );
    if (design?.proposal) sentences.push(design.proposal);
  } else if (editNote) sentences.push(editNote);
  const summary = oneLine(sentences.join(" "), 900);
  const finalConf = dropFile ? Math.min(conf, 0.3) : conf;
  return {
    text: `Submitting the diagnosis for ${chosen.path} (confidence ${finalConf}).`,
    calls: [
      call("submit_answer", {
        summary,
        affected_file: dropFile ? null : chosen.path,
        affected_function: dropFile ? null : fn,
        root_cause_snippet: snippet,
        confidence: finalConf,
      }),
    ],
  };
}
