import picomatch from "picomatch";
import { z } from "zod";
import { denyGlobs, type GroundfixConfig } from "../config/schema.js";
import { applyVerbatimEdit, lineCount, locateVerbatim } from "../grounding/index.js";
import { isSecretPath } from "../grounding/secrets.js";
import type { AppliedEdit, ChangedFile, GateName, ReadLog, Snapshot, ToolResult } from "../types.js";
import { nearestPaths } from "./nearest.js";
import { shortSha } from "./output.js";
import { normalizeRepoPath } from "./paths.js";

/** Arguments of `suggest_addition` (CONTRACTS.md, D1). */
export const suggestAdditionSchema = z.object({
  path: z.string().min(1).describe("Repository-relative path of the file to edit, exactly as the tools show it."),
  code_before: z
    .string()
    .describe("Lines copied verbatim from the file as it is now (no line-number prefixes); must occur exactly once."),
  code_after: z.string().describe("What replaces code_before: the same lines plus your addition."),
  rationale: z.string().describe("One or two sentences: why this addition clarifies or fixes the problem."),
});
/** Validated `suggest_addition` arguments: `path`, `code_before` (verbatim, unique), `code_after`, `rationale`. */
export type SuggestAdditionArgs = z.infer<typeof suggestAdditionSchema>;

/** Description offered to the model. */
export const SUGGEST_ADDITION_DESCRIPTION =
  "Apply the smallest clarifying or fixing edit to one file: code_before must be copied verbatim from lines you have read with get_file_contents and occur exactly once; code_after replaces it. Returns the unified diff, or REJECTED with the cause and how to fix the call.";

/** The edits accepted so far in one run, and each edited file's current content. */
export interface EditSession {
  edits: AppliedEdit[];
  /** Current content of each edited path. */
  contents: Map<string, string>;
  /** For each edited path, the base line number of each current line (index 0 = line 1); null for lines an edit wrote. */
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
 * Path policy for edits: the path must be a text file of the snapshot, match `paths.allow`, match none of
 * {@link denyGlobs} (picomatch, `dot: true`), and not be a secret file.
 *
 * @returns null when the path may be edited, else the reason (one sentence, for the model).
 */
export function editPathProblem(path: string, snapshot: Snapshot, config: GroundfixConfig): string | null {
  const entry = snapshot.entry(path);
  if (!entry) {
    const near = nearestPaths(path, snapshot.paths.filter((p) => snapshot.entry(p)?.kind === "text"), 5);
    return `${path} is not a file in the repository at ${shortSha(snapshot.sha)}.${near.length ? ` Nearest real paths: ${near.join(", ")}.` : ""} Use an exact path from list_files or get_file_contents.`;
  }
  if (entry.kind !== "text") return `${path} is a ${entry.kind.replace("_", " ")} entry, not a text file; only text files can be edited.`;
  if (isSecretPath(path)) return `${path} is a secret file (environment file or key); groundfix never edits it.`;
  const deny = denyGlobs(config).find((g) => picomatch(g, { dot: true })(path));
  if (deny) return `${path} may not be edited: it matches the deny rule "${deny}". Put the addition in another file.`;
  if (!config.paths.allow.some((g) => picomatch(g, { dot: true })(path))) {
    return `${path} may not be edited: it is outside paths.allow [${config.paths.allow.join(", ")}].`;
  }
  return null;
}

/** Lines a..b as compact ranges "3-5, 9". */
function ranges(lines: number[]): string {
  const out: string[] = [];
  for (let i = 0; i < lines.length; ) {
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
 * Handle one `suggest_addition` call (DESIGN.md invariant 1: the only write path). In order:
 * arguments (zod) → path policy ({@link editPathProblem}) → edit budget (`edits.max_files`, `edits.max_added_lines`)
 * → read before edit (gate 3: the run's `get_file_contents` windows must cover the base lines `code_before`
 * anchors on in the file's current content; lines written by earlier edits count as read) → `applyVerbatimEdit`
 * on the current content with `edits.allow` (gate 4). When `code_before` is not found once, the verbatim
 * rejection (with the nearest region) is what the model sees.
 *
 * On success the edit is appended to `ctx.session` and the file's current content updated. Never throws.
 */
export function runSuggestAddition(rawArgs: unknown, ctx: SuggestContext): SuggestOutcome {
  const parsed = suggestAdditionSchema.safeParse(rawArgs);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
    return {
      result: {
        status: "invalid",
        text: `INVALID: suggest_addition takes {path, code_before, code_after, rationale}, all strings (${issues}).`,
      },
    };
  }
  const args = parsed.data;
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
      `at most ${config.edits.max_files} file(s) may be edited in one run and you have edited [${[...editedPaths].join(", ")}]. Put the addition in one of those files, or call submit_answer.`,
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
        `code_before anchors on lines ${only.startLine}-${only.endLine} of ${path}, but you have not read line(s) ${ranges(unread)} of it in this run (${seen.length ? `you have read lines ${seen.join(", ")}` : "you have not read this file"}). Call get_file_contents with path "${path}", start_line ${unread[0]}, end_line ${unread[unread.length - 1]}, then call suggest_addition again.`,
      );
    }
  }

  const applied = applyVerbatimEdit(current, args, { allow: config.edits.allow, path });
  if (!applied.ok) return { result: { status: "rejected", text: applied.message }, gate: "verbatim_edit" };

  const used = session.edits.reduce((n, e) => n + addedLineCount(e.diff), 0);
  const adding = addedLineCount(applied.diff);
  if (used + adding > config.edits.max_added_lines) {
    return rejected(
      "budget",
      `this edit adds ${adding} line(s) and earlier edits added ${used}; at most ${config.edits.max_added_lines} added lines are allowed in one run. Make the addition smaller.`,
    );
  }

  const inBase = base === current ? matches : locateVerbatim(base, args.code_before);
  const baseSpan = inBase.length === 1 ? inBase[0] : undefined;
  const edit: AppliedEdit = {
    path,
    code_before: args.code_before,
    code_after: args.code_after,
    rationale: args.rationale,
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
      text: `APPLIED: edit ${session.edits.length} to ${path} (${applied.kind}, anchored on lines ${applied.startLine}-${applied.endLine}).\n${applied.diff}`,
    },
    edit,
  };
}

/** Final content of each edited file, in the order first edited; `mode` from the snapshot entry (default 100644). */
export function changedFiles(session: EditSession, snapshot: Snapshot): ChangedFile[] {
  return [...session.contents.entries()].map(([path, content]) => ({
    path,
    content,
    mode: snapshot.entry(path)?.mode ?? "100644",
  }));
}
