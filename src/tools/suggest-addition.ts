import { z } from "zod";
import { createPathPolicy, partRefusal } from "../config/protected.js";
import type { GroundfixConfig } from "../config/schema.js";
import { addedLinesBetween, sharedBomOff } from "../grounding/additive.js";
import { applyVerbatimEdit, lineCount, locateVerbatim } from "../grounding/index.js";
import { findSecrets, redact, redactQuoted, withArticle } from "../grounding/secrets.js";
import { additionProblems, additionReading } from "../grounding/lexical.js";
import { addedTextProblems, structureLanguage } from "../grounding/structure.js";
import { loadGrammar } from "../lang/tree-sitter.js";
import type { AppliedEdit, ChangedFile, GateName, ReadLog, Snapshot, ToolResult } from "../types.js";
import { nearestPaths } from "./nearest.js";
import { finish, formatBytes, shortSha } from "./output.js";
import { normalizeRepoPath } from "./paths.js";
import { zodIssueLines } from "../config/zod-issues.js";
import { notLoaded } from "./serve.js";

/** Arguments of `suggest_addition` (the tool surface: `agent/tool-specs.ts`). */
export const suggestAdditionSchema = z.object({
  path: z.string().min(1).describe("Repository-relative path of the file to edit, exactly as the tools show it."),
  code_before: z
    .string()
    .describe("Lines copied verbatim from the file as it is now (no line-number prefixes); must occur exactly once."),
  code_after: z
    .string()
    .describe("What replaces code_before: all of code_before, unchanged and in order, plus your new lines."),
  rationale: z.string().describe("One or two sentences: why this addition clarifies or fixes the problem."),
});

/** Description offered to the model. */
export const SUGGEST_ADDITION_DESCRIPTION =
  "The only way to change a file: code_before, copied verbatim from lines you read with " +
  'get_file_contents in this run (same indentation, without the "  12| " prefixes, occurring ' +
  "exactly once; add a neighbouring line when it is not unique), is replaced by code_after. " +
  "code_after contains all of code_before, unchanged and in order, plus " +
  "your new lines (under the default policy an edit only adds lines). " +
  "Keep it small (a log line with context, a guard, a clearer error message) and make it before " +
  "submit_answer. It answers with the unified diff, or REJECTED with the cause and how to fix the call. " +
  'Example: {"path": "src/models/log.js", "code_before": "function formatEntry(entry) {\\n  const ' +
  'when = formatDate(entry.at);\\n", "code_after": "function formatEntry(entry) {\\n  if (!entry.user) ' +
  'throw new Error(`log entry at ${entry.at} has no user`);\\n  const when = formatDate(entry.at);\\n", ' +
  '"rationale": "Name the entry without a user instead of failing on entry.user.name."}';

/**
 * Largest `code_before`, `code_after` or `rationale` accepted, in UTF-8 bytes: a byte budget on top of
 * `edits.max_added_lines`, so one long line (or a 10 MB argument) is refused before any matching or diffing.
 */
export const MAX_EDIT_ARGUMENT_BYTES = 200_000;

/** The edits accepted so far in one run, and each edited file's current content. */
export interface EditSession {
  edits: AppliedEdit[];
  /** Current content of each edited path. */
  contents: Map<string, string>;
  /**
   * For each edited path, the base line number of each current line (index 0 = line 1); null for lines an edit wrote.
   */
  origins: Map<string, (number | null)[]>;
}

/** An empty edit session. */
export function createEditSession(): EditSession {
  return { edits: [], contents: new Map(), origins: new Map() };
}

/** What `suggest_addition` needs: the pinned snapshot, the run's reads, the config and the run's edits. */
export interface SuggestContext {
  snapshot: Snapshot;
  reads: ReadLog;
  config: GroundfixConfig;
  session: EditSession;
}

/** The answer of one `suggest_addition` call: the tool result, the gate that refused it, or the edit it applied. */
export interface SuggestOutcome {
  result: ToolResult;
  gate?: GateName;
  edit?: AppliedEdit;
}

function rejected(gate: GateName, text: string): SuggestOutcome {
  return { result: { status: "rejected", text: `REJECTED: ${text}` }, gate };
}

/**
 * Path policy for edits: the path must be a text file of the snapshot and pass the config's path policy
 * (`createPathPolicy`: secret files, the built-in protected list matched case-insensitively, `paths.deny`,
 * `paths.allow`).
 *
 * @returns null when the path may be edited, else the reason (one sentence naming the refusing rule, for the model
 *   and, through the run's rejections, the status comment).
 */
export function editPathProblem(path: string, snapshot: Snapshot, config: GroundfixConfig): string | null {
  const entry = snapshot.entry(path);
  const left = entry === undefined ? notLoaded(snapshot, path) : null;
  if (left) return `${left} It cannot be edited.`;
  if (!entry) {
    const near = nearestPaths(
      path,
      snapshot.paths.filter((p) => snapshot.entry(p)?.kind === "text"),
      5,
    );
    return (
      `${path} is not a file in the repository at ${shortSha(snapshot.sha)}.` +
      `${near.length ? ` Nearest real paths: ${near.join(", ")}.` : ""} Use an exact path from list_files ` +
      `or get_file_contents.`
    );
  }
  if (entry.kind !== "text")
    return `${path} is a ${entry.kind.replace("_", " ")} entry, not a text file; only text files can be edited.`;
  const refusal = createPathPolicy(config).refusal(path);
  return refusal === null ? null : `${refusal.message}. Put the addition in another file.`;
}

/** Lines a..b as compact ranges "3-5, 9". */
function ranges(lines: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < lines.length;) {
    let j = i;
    while (j + 1 < lines.length && lines[j + 1] === (lines[j] ?? 0) + 1) j++;
    out.push(i === j ? `${lines[i]}` : `${lines[i]}-${lines[j]}`);
    i = j + 1;
  }
  return out.join(", ");
}

function addedLineCount(diff: string): number {
  return diff.split("\n").filter((l) => l.startsWith("+") && !l.startsWith("+++")).length;
}

/**
 * Handle one `suggest_addition` call (docs/ARCHITECTURE.md, invariant 1: the only write path). In order:
 * arguments (zod) → path policy ({@link editPathProblem}) → edit budget (`edits.max_files`, `edits.max_added_lines`)
 * → read before edit (gate 3: the run's `get_file_contents` windows must cover the base lines `code_before`
 * anchors on in the file's current content; lines written by earlier edits count as read) → `applyVerbatimEdit`
 * on the current content with `edits.allow` (gate 4) → the added lines' own text and, with `edits.allow: additions`,
 * the parse of the file before and after ({@link additionProblem}). When `code_before` is not found once, the
 * verbatim rejection (with the nearest region) is what the model sees.
 *
 * On success the edit is appended to `ctx.session` and the file's current content updated. Never throws.
 */
export function runSuggestAddition(rawArgs: unknown, ctx: SuggestContext): SuggestOutcome {
  // Every text that leaves here quotes the file as it was before this call (nearest region, diff context): redact it
  // against that whole file, so a quoted line from the middle of a private key block is caught as well.
  const path = pathOf(rawArgs);
  const source = path === null ? "" : (ctx.session.contents.get(path) ?? ctx.snapshot.read(path) ?? "");
  const out = suggest(rawArgs, ctx);
  if (out.edit) out.edit.diff = redactQuoted(out.edit.diff, source);
  // Capped like every tool answer (a long diff is cut with a visible line; the edit itself is kept whole).
  return { ...out, result: finish(ctx.snapshot, { ...out.result, text: redactQuoted(out.result.text, source) }) };
}

function pathOf(rawArgs: unknown): string | null {
  const raw = (rawArgs as { path?: unknown } | null)?.path;
  if (typeof raw !== "string") return null;
  const norm = normalizeRepoPath(raw);
  return norm.ok ? norm.path : null;
}

function suggest(rawArgs: unknown, ctx: SuggestContext): SuggestOutcome {
  const parsed = suggestAdditionSchema.safeParse(rawArgs);
  if (!parsed.success) {
    const issues = zodIssueLines(parsed.error, { root: "arguments" }).join("; ");
    return {
      result: {
        status: "invalid",
        text: `INVALID: suggest_addition takes {path, code_before, code_after, rationale}, all strings (${issues}).`,
      },
    };
  }
  const args = parsed.data;
  for (const field of ["code_before", "code_after", "rationale"] as const) {
    const bytes = Buffer.byteLength(args[field], "utf8");
    if (bytes > MAX_EDIT_ARGUMENT_BYTES) {
      return rejected(
        "budget",
        `${field} is ${formatBytes(bytes)}; at most ${formatBytes(MAX_EDIT_ARGUMENT_BYTES)} ` +
          `(${MAX_EDIT_ARGUMENT_BYTES} bytes) is accepted per argument. Make the edit smaller.`,
      );
    }
  }
  const norm = normalizeRepoPath(args.path);
  if (!norm.ok) return rejected("path_policy", norm.message);
  const path = norm.path;
  const problem = editPathProblem(path, ctx.snapshot, ctx.config);
  if (problem) return rejected("path_policy", problem);

  const { session, config } = ctx;
  const editedPaths = new Set(session.edits.map((e) => e.path));
  if (!editedPaths.has(path) && editedPaths.size >= config.edits.max_files) {
    return rejected(
      "budget",
      `at most ${config.edits.max_files} file(s) may be edited in one run and you have edited ` +
        `[${[...editedPaths].join(", ")}]. Put the addition in one of those files, or call submit_answer.`,
    );
  }

  const base = ctx.snapshot.read(path) ?? "";
  const current = session.contents.get(path) ?? base;
  const origin = session.origins.get(path) ?? Array.from({ length: lineCount(base) }, (_, i) => i + 1);

  const matches = locateVerbatim(current, args.code_before);
  const only = matches.length === 1 ? matches[0] : undefined;
  if (only) {
    const unread: number[] = [];
    for (let line = only.startLine; line <= only.endLine; line++) {
      const baseLine = origin[line - 1];
      if (baseLine != null && !ctx.reads.covers(path, baseLine, baseLine)) unread.push(baseLine);
    }
    if (unread.length) {
      const seen = ctx.reads
        .windows()
        .filter((w) => w.path === path)
        .map((w) => `${w.startLine}-${w.endLine}`);
      return rejected(
        "read_before_edit",
        `code_before anchors on lines ${only.startLine}-${only.endLine} of ${path}, but you have not ` +
          `read line(s) ${ranges(unread)} of it in this run ` +
          `(${seen.length ? `you have read lines ${seen.join(", ")}` : "you have not read this file"}). ` +
          `Call get_file_contents with path "${path}", start_line ${unread[0]}, end_line ` +
          `${unread[unread.length - 1]}, then call suggest_addition again.`,
      );
    }
  }

  const secrets = [...new Set([...findSecrets(args.code_before), ...findSecrets(args.code_after)].map((f) => f.kind))];
  if (secrets.length > 0) {
    return rejected(
      "path_policy",
      `code_before or code_after holds ${secrets.map(withArticle).join(" and ")}-like string; groundfix never ` +
        `writes, moves or quotes a secret. Anchor on other lines and leave the secret out.`,
    );
  }

  const applied = applyVerbatimEdit(current, args, { allow: config.edits.allow, path });
  if (!applied.ok) return { result: { status: "rejected", text: applied.message }, gate: "verbatim_edit" };
  const part = partRefusal(path, current, applied.content, config);
  if (part) return rejected("path_policy", `${part.message}. Put the addition elsewhere.`);

  const disabling = additionProblem(path, current, applied, config);
  if (disabling) return rejected("verbatim_edit", disabling);

  const used = session.edits.reduce((n, e) => n + addedLineCount(e.diff), 0);
  const adding = addedLineCount(applied.diff);
  if (used + adding > config.edits.max_added_lines) {
    return rejected(
      "budget",
      `this edit adds ${adding} line(s) and earlier edits added ${used}; at most ${config.edits.max_added_lines} ` +
        `added lines are allowed in one run. Make the addition smaller.`,
    );
  }

  const inBase = base === current ? matches : locateVerbatim(base, args.code_before);
  const baseSpan = inBase.length === 1 ? inBase[0] : undefined;
  const edit: AppliedEdit = {
    path,
    // As applied: without a copy of the file's byte-order mark (applyVerbatimEdit), so the record, the evidence
    // rule and a re-application on a moved base read the same lines as the diff.
    code_before: applied.edit.code_before,
    code_after: applied.edit.code_after,
    rationale: redact(args.rationale),
    startLine: applied.startLine,
    endLine: applied.endLine,
    ...(baseSpan ? { baseStartLine: baseSpan.startLine, baseEndLine: baseSpan.endLine } : {}),
    kind: applied.kind,
    diff: applied.diff,
  };
  const regionLength = applied.endLine - applied.startLine + 1 + (lineCount(applied.content) - lineCount(current));
  session.origins.set(path, [
    ...origin.slice(0, applied.startLine - 1),
    ...Array.from({ length: Math.max(0, regionLength) }, () => null),
    ...origin.slice(applied.endLine),
  ]);
  session.contents.set(path, applied.content);
  session.edits.push(edit);
  return {
    result: {
      status: "ok",
      text:
        `APPLIED: edit ${session.edits.length} to ${path} (${applied.kind}, anchored on lines ` +
        `${applied.startLine}-${applied.endLine}).\n${applied.diff}`,
    },
    edit,
  };
}

/**
 * Load what {@link runSuggestAddition} needs for this call's path before it runs (synchronously): the tree-sitter
 * grammar of a Python or Go file. Call it first; without it a Python or Go addition is refused. Never throws.
 */
export async function prepareSuggestAddition(rawArgs: unknown): Promise<void> {
  const language = structureLanguage(pathOf(rawArgs) ?? "");
  if (language === "python" || language === "go") await loadGrammar(language);
}

/**
 * Why an applied edit may not stand, or null: an added line holds a hidden line break or an invisible/bidi character
 * (any `edits.allow`); with `edits.allow: additions`, the addition changes how existing code parses, runs or what it
 * means (`additionProblems` of src/grounding/lexical.ts, the review's rule too: TypeScript's parser for JS/TS, also
 * an extension-less script with a Node shebang; tree-sitter for Python and Go, whose grammar
 * {@link prepareSuggestAddition} loads; in any other file the lexical rule: an existing line put into a comment,
 * string or here-document, an added `#if 0`, a constant or missing guard before an added exit, an empty loop). A
 * Python or Go file whose grammar is not loaded is refused (fail closed). `current` is the file before the edit,
 * `applied` what `applyVerbatimEdit` gave on it.
 *
 * @returns one clause `"<path> line <n>: <why>"` (or `"<path>: <why>"`), for the model and for a status; null when
 *   the edit may stand.
 */
export function additionRefusal(
  path: string,
  current: string,
  applied: { content: string; startLine: number; endLine: number; kind: "addition" | "modification" },
  config: GroundfixConfig,
): string | null {
  const added = addedLinesBetween(current, applied.content, applied.startLine, applied.endLine);
  // A byte-order mark both sides have is the file's, not text of an added line 1 (a BOM only the edit has is).
  const [before, after] = sharedBomOff(current, applied.content);
  const rows = after.split("\n");
  const text = addedTextProblems(added.map((line) => ({ line, text: rows[line - 1] ?? "" })));
  if (text[0]) return `${path}: ${text[0].message}`;
  if (config.edits.allow !== "additions" || applied.kind !== "addition") return null;
  const problems = additionProblems(path, before, after, added);
  if (problems === undefined) {
    return (
      `${path}: the ${additionReading(path, before).parser ?? ""} grammar is not loaded, so the addition cannot be ` +
      `checked to leave existing code as it was`
    );
  }
  const first = problems[0];
  return first ? `${path} line ${first.line}: ${first.message}` : null;
}

/** {@link additionRefusal} worded for the model: what to do instead, and that nothing was applied. */
function additionProblem(
  path: string,
  current: string,
  applied: { content: string; startLine: number; endLine: number; kind: "addition" | "modification" },
  config: GroundfixConfig,
): string | null {
  const why = additionRefusal(path, current, applied, config);
  if (why === null) return null;
  if (!why.startsWith(`${path} line `)) return `${why}. Nothing was applied.`;
  return (
    `${why}. An addition must leave every existing line parsing and running as before; add a guard that tests a ` +
    `value (for example "if (!x) throw …") instead. Nothing was applied.`
  );
}

/** Final content of each edited file, in the order first edited; `mode` from the snapshot entry (default 100644). */
export function changedFiles(session: EditSession, snapshot: Snapshot): ChangedFile[] {
  return [...session.contents.entries()].map(([path, content]) => ({
    path,
    content,
    mode: snapshot.entry(path)?.mode ?? "100644",
  }));
}
