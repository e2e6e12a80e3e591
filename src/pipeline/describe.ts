import { readCommentOnly } from "../agent/comment-only.js";
import { COMMENT_ONLY_REASON } from "../agent/outcome.js";
import { extractSymbols } from "../grounding/symbols.js";
import { changedLines, fileFirstLine, inertLines, isCommentOnly } from "../lang/comments.js";
import type { AppliedEdit, Diagnosis } from "../types.js";
import { postedLine } from "../grounding/posted.js";

/**
 * Most characters of a commit subject (and of the pull request title, which is the same line): 72, the width git's
 * documentation ("DISCUSSION" in git-commit(1): a subject line of less than 50 characters is a good idea) and
 * GitHub's commit lists work with (GitHub shows a longer first line cut with `…`).
 */
export const SUBJECT_MAX = 72;

const PREFIX = "groundfix: ";

/**
 * A name from code or a model that may appear in a subject: an identifier or a `.` / `?.` / `::` / `->` chain of them,
 * with calls of such chains (`m.get(k.name)`), at most 40 characters. Anything else (spaces, backticks, `@`, `#`,
 * brackets, non-ASCII) is never shown, so a subject holds no mention, issue reference, link or markup however hostile
 * the code it describes.
 */
const SAFE_NAME = /^[A-Za-z_$][\w$]*(?:(?:\??\.|::|->)[A-Za-z_$][\w$]*|\((?:[A-Za-z_$][\w$.]*)?\))*$/;
const safeName = (name: string | null | undefined): string | null =>
  name && name.length <= 40 && SAFE_NAME.test(name) ? name : null;

/** A file name that may appear in a subject: letters, digits, `.`, `_`, `-` (at most 40 characters). */
const safeFileName = (path: string): string | null => {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return base.length <= 40 && /^[\w.-]+$/.test(base) && /\w/.test(base) ? base : null;
};

/** A name chain in a condition (`a.b`, `a?.b`, `A::b`, `a->b`), with at most one call of a chain: `m.get(k.name)`. */
const CHAIN = String.raw`[A-Za-z_$][\w$]*(?:(?:\??\.|::|->)[A-Za-z_$][\w$]*)*`;
const NAME = String.raw`(${CHAIN}(?:\((?:${CHAIN})?\)(?:(?:\??\.)[A-Za-z_$][\w$]*)*)?)`;

/** Conditions a guard tests, each with what it guards against. Tried in order on one `||`/`or` part. */
const CHECKS: readonly [RegExp, string][] = [
  [new RegExp(`^${NAME}\\s*(?:===?|is)\\s*(null|undefined|nil|None)$`), ""],
  [new RegExp(`^(null|undefined|nil|None)\\s*===?\\s*${NAME}$`), ""],
  [new RegExp(`^typeof\\s+${NAME}\\s*===?\\s*["']undefined["']$`), "undefined"],
  [new RegExp(`^${NAME}\\.nil\\?$`), "nil"],
  [new RegExp(`^!\\s*::${NAME}\\.isInitialized$`), "use before initialization"],
  [new RegExp(`^(?:!\\s*|not\\s+)(${CHAIN})$`), "a missing value"],
  [new RegExp(`^!\\s*Array\\.isArray\\((${CHAIN})\\)$`), "a value that is not an array"],
  [
    new RegExp(`^(?:len\\(${NAME}\\)\\s*==\\s*0|${NAME}\\.length\\s*===?\\s*0|${NAME}\\.(?:isEmpty|IsEmpty)\\(\\))$`),
    "an empty value",
  ],
  [new RegExp(`^(?:string|String)\\.IsNullOrEmpty\\(${NAME}\\)$`), "null or empty"],
  [new RegExp(`^not\\s+isinstance\\(${NAME}\\s*,.*\\)$`), "a value of the wrong type"],
  [new RegExp(`^not\\s+hasattr\\(${NAME}\\s*,\\s*["']([A-Za-z_]\\w*)["']\\)$`), "a missing $2"],
];

/** The `(name, against)` of one condition part, or null when it is not a check {@link CHECKS} knows. */
function checkOf(part: string): { name: string; against: string } | null {
  const t = part
    .trim()
    .replace(/^\((.*)\)$/, "$1")
    .trim();
  for (const [re, against] of CHECKS) {
    const m = re.exec(t);
    if (!m) continue;
    const groups = m.slice(1).filter((g): g is string => g !== undefined);
    const keyword = /^(null|undefined|nil|None)$/;
    const name = safeName(groups.find((g) => !keyword.test(g)));
    if (!name) continue;
    const said = against.replace(/\$(\d)/, (_, i: string) => m[Number(i)] ?? "");
    return { name, against: said || groups.find((g) => keyword.test(g))! };
  }
  return null;
}

/**
 * The condition of a guard on an added line, or null: `if (c) …` / `if c {` / `if c:` / `if c then`, Ruby's
 * `return … if c` / `raise … unless c` (an `unless` is kept as `!c`), and the library checks
 * `Objects.requireNonNull(x…)`, `ArgumentNullException.ThrowIfNull(x)` (as `x == null`) and Kotlin's `x ?: return`.
 */
function guardCondition(line: string): string | null {
  const t = line.trim();
  const required = /^(?:Objects\.requireNonNull|ArgumentNullException\.ThrowIfNull)\(\s*([A-Za-z_$][\w$.]*)/.exec(t);
  if (required) return `${required[1]} == null`;
  const elvis = /^(?:val|var|let|const)?\s*[A-Za-z_$][\w$]*\s*=\s*([A-Za-z_$][\w$.]*)\s*\?:\s*(?:return|throw)\b/.exec(
    t,
  );
  if (elvis) return `${elvis[1]} == null`;
  const ruby = /^(?:return|raise|next|break|fail)\b.*?\s(if|unless)\s+(.+?)\s*$/.exec(t);
  if (ruby) return ruby[1] === "unless" ? `!${ruby[2]}` : ruby[2]!;
  const head = /^(?:\}\s*else\s+)?if\b\s*/.exec(t);
  if (!head) return null;
  const rest = t.slice(head[0].length);
  // `if (c) {`, `if (c)`, `if (c) return …`: the shortest parenthesised head a block or a statement follows.
  const paren = /^\((.+?)\)\s*(?:\{\s*$|$|(?:return|throw|continue|break|panic)\b)/.exec(rest);
  if (paren) return paren[1]!;
  const m = /^(.+?)\s*(?:\{|:|\bthen)\s*$/.exec(rest) ?? /^(.+?)\s*$/.exec(rest);
  return m ? m[1]! : null;
}

/** How a guard reads in a subject: `guard a and b against null`, or null when its condition is not a known check. */
function guardPhrase(condition: string): string | null {
  const parts = condition.split(/\s*(?:\|\||\bor\b)\s*/);
  const checks = parts.map(checkOf);
  if (checks.some((c) => c === null)) return null;
  const names = [...new Set(checks.map((c) => c!.name))];
  const kinds = new Set(checks.map((c) => c!.against));
  const against = kinds.size === 1 ? [...kinds][0]! : "missing values";
  return `guard ${listOf(names)} against ${against}`;
}

/**
 * The guards an edit's code lines add, as one phrase (`guard a and b against null`), or null unless the first code
 * line is a guard: every line at that line's indentation must be a guard {@link guardPhrase} reads, or a closing
 * brace or `else`-free continuation, so `if (a == null) {…}` followed by other code is not called a guard.
 */
function guardsOf(code: readonly string[]): string | null {
  const indent = (l: string) => /^[ \t]*/.exec(l)![0].length;
  const top = indent(code[0]!);
  const phrases: string[] = [];
  for (const line of code) {
    if (indent(line) !== top || /^\s*[}\])]*;?\s*$/.test(line) || /^\s*\{\s*$/.test(line)) continue;
    const condition = line.length <= 300 ? guardCondition(line) : null;
    const phrase = condition === null ? null : guardPhrase(condition);
    if (phrase === null) return null;
    phrases.push(phrase);
  }
  return phrases.length === 0 ? null : mergeGuards(phrases);
}

/** The innermost function or method of `content` whose lines hold `line`, or null. */
function enclosingFunction(path: string, content: string, line: number): string | null {
  let best: { name: string; line: number } | null = null;
  for (const s of extractSymbols(path, content)) {
    if (s.kind !== "function" && s.kind !== "method") continue;
    if (s.line > line || (s.endLine ?? s.line) < line) continue;
    if (!best || s.line >= best.line) best = s;
  }
  return best?.name ?? null;
}

/** What one edit does and where, as parts of a subject: `what` ("guard x against null") and `where` ("f()"). */
export interface EditDescription {
  /**
   * What the edit does: `guard node against null`, `add a comment`, `add 3 lines`, `change 2 lines`. Safe to post.
   */
  what: string;
  /** Where: `name()` of the function holding it, else the file's name; null when neither is safe to show. */
  where: string | null;
  /**
   * True when the edit changes no code: the run's reading of it when the caller gives one (`readCommentOnly`,
   * src/agent/comment-only.ts, as the outcome was decided), else its own hunks (`isCommentOnly`, src/lang/comments.ts).
   */
  commentOnly: boolean;
}

/**
 * Describe one applied edit for a commit subject, from its added lines: a guard (its first code line tests a value:
 * `if (x == null)`, `if x is None:`, `if x == nil {`, `return if x.nil?`, `Objects.requireNonNull(x)`, …) is `guard x
 * against null`; a comment-only edit (`commentOnly`, the run's reading of this edit when the caller has it, else the
 * edit's own hunks) `add a comment`; anything else `add N lines` / `change N lines` (N: the code lines it adds, else
 * those it removes, else every line it adds or removes: an edit that changes code is never "add 0 lines"). `where` is
 * the innermost function or method around the edit's line in the base file (`readBase`, symbols of
 * src/grounding/symbols.ts), else the diagnosis' function when the edit is in its file, else the file's name. Names
 * are shown only when they are plain identifiers ({@link SAFE_NAME}): code and model text are untrusted.
 */
export function describeEdit(
  edit: AppliedEdit,
  diagnosis: Pick<Diagnosis, "affected_file" | "affected_function"> | null,
  readBase?: (path: string) => string | undefined,
  changesNoCode?: boolean,
): EditDescription {
  const { added, removed } = changedLines(edit.diff);
  const content = readBase?.(edit.path);
  const first = fileFirstLine(content);
  const inert = inertLines(edit.path, added, first);
  const code = added.filter((_, i) => !inert[i]);
  const commentOnly = changesNoCode ?? isCommentOnly(edit, first);
  // No code added but code removed (commented out, deleted): the lines it changes; no line reading as code at all
  // (a `# note` inside a string): every line it changes.
  const n =
    code.length > 0 || commentOnly
      ? code.length
      : inertLines(edit.path, removed, first).filter((x) => !x).length || added.length || removed.length;
  const what = commentOnly
    ? "add a comment"
    : ((code.length > 0 ? guardsOf(code) : null) ??
      `${edit.kind === "addition" ? "add" : "change"} ${n} line${n === 1 ? "" : "s"}`);
  const line = edit.baseStartLine;
  const fn =
    content !== undefined && line !== undefined
      ? enclosingFunction(edit.path, content, line)
      : edit.path === diagnosis?.affected_file
        ? diagnosis.affected_function
        : null;
  const name = safeName(fn?.replace(/\(\)$/, ""));
  const where = name ? `${name}()` : safeFileName(edit.path);
  return { what, where, commentOnly };
}

/**
 * The subject of a run's commit and the title of its pull request: `groundfix: ` and what the edits do, e.g.
 * `groundfix: guard options.root against undefined in resolve()` (one edit), `groundfix: guard a and b against null
 * in f()` (one kind of edit in one place), `groundfix: guard x against nil in f() and 1 more edit`. At most
 * {@link SUBJECT_MAX} characters: the place is left out, then the names are cut, when it would be longer. Built only
 * from plain identifiers and fixed words, so no issue or model text (a mention, `Fixes #1`, markup) reaches it;
 * secrets are redacted all the same. Whether an edit is `add a comment` is the run's own reading of it
 * (`readCommentOnly` with `readBase`, the reading the outcome was decided on), not its hunks alone.
 */
export function changeSubject(
  edits: readonly AppliedEdit[],
  diagnosis: Pick<Diagnosis, "affected_file" | "affected_function"> | null,
  readBase?: (path: string) => string | undefined,
): string {
  if (edits.length === 0) return `${PREFIX}a grounded change`;
  const reading = readCommentOnly(edits, readBase).edits;
  const described = edits.map((e, i) => describeEdit(e, diagnosis, readBase, reading[i]));
  const first = described[0]!;
  const sameWhere = described.every((d) => d.where === first.where);
  const sameWhat = described.every((d) => d.what === first.what);
  let what = first.what;
  let more = "";
  if (described.length > 1 && !(sameWhere && sameWhat)) {
    const guards = described.every((d) => d.what.startsWith("guard ")) && sameWhere;
    if (guards) what = mergeGuards(described.map((d) => d.what));
    else more = ` and ${described.length - 1} more edit${described.length === 2 ? "" : "s"}`;
  }
  const room = SUBJECT_MAX - PREFIX.length;
  const at = what.startsWith("add ") ? "to" : "in";
  const guard = /^guard (.+) against (.+)$/.exec(what);
  const names = guard ? guard[1]!.split(/, | and /) : [];
  const counted = names.length > 1 ? `guard ${names.length} values against ${guard![2]}` : what;
  const candidates = [
    ...(first.where ? [`${what} ${at} ${first.where}${more}`, `${counted} ${at} ${first.where}${more}`] : []),
    `${what}${more}`,
    `${counted}${more}`,
    counted,
  ];
  const fitting = candidates.find((c) => c.length <= room) ?? `${counted.slice(0, room - 1)}…`;
  return postedLine(`${PREFIX}${fitting}`, SUBJECT_MAX);
}

/** `guard a against null` + `guard b against null` → `guard a and b against null` (else `missing values`). */
function mergeGuards(phrases: readonly string[]): string {
  const parts = phrases.map((p) => /^guard (.+) against (.+)$/.exec(p)!);
  const names = [...new Set(parts.flatMap((m) => m[1]!.split(/, | and /)))];
  const kinds = new Set(parts.map((m) => m[2]!));
  return `guard ${listOf(names)} against ${kinds.size === 1 ? [...kinds][0] : "missing values"}`;
}

/** `a`, `a and b`, `a, b and c`. */
const listOf = (names: readonly string[]): string =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;

/** `line 12` or `lines 12-14`. */
export const lineRange = (start: number, end: number): string =>
  end > start ? `lines ${start}-${end}` : `line ${start}`;

/**
 * What a run whose edits are all comments (`commentOnly` of the run, as its outcome was decided; for a result built
 * without it, the outcome's comment-only reason or the edits' own hunks) and that committed nothing says in
 * place of a fix, on every host: no edit is proposed for merging, and why (with the outcome's `reason`, e.g.
 * `confidence 0.6 is below the pull-request threshold 0.7`; nothing more for the comment-only reason, which the
 * sentence says). Null when the outcome is `pr_ready` (an approved run commits the comment), the run has no edit, or
 * any edit changes code.
 */
export function commentOnlyNote(result: {
  outcome: string;
  reason: string | null;
  edits: readonly Pick<AppliedEdit, "path" | "diff">[];
  commentOnly?: boolean;
}): string | null {
  const { outcome, edits } = result;
  const commentOnly =
    result.commentOnly ?? (result.reason === COMMENT_ONLY_REASON || edits.every((e) => isCommentOnly(e)));
  if (outcome === "pr_ready" || edits.length === 0 || !commentOnly) return null;
  // The comment-only reason is what the sentence says already.
  const why =
    result.reason === COMMENT_ONLY_REASON
      ? ""
      : result.reason
        ? ` (${result.reason})`
        : ", so it stays below the pull-request threshold";
  return (
    "no edit is proposed for merging, because the only edit groundfix could ground is a comment, " +
    `which changes nothing at run time${why}; it is shown as a note, not as a fix`
  );
}
