/**
 * Shapes shared between the stages of the pipeline (docs/ARCHITECTURE.md, "The pipeline"):
 *
 *   event ─▶ task ─▶ snapshot ─▶ agent run ─▶ outcome ─▶ delivery ─▶ review
 *
 * Each stage owns its own implementation; only the contracts that cross a stage boundary live here.
 * Line numbers are 1-based and inclusive everywhere. Paths are repository-relative with forward slashes,
 * no leading `./`, never absolute, never containing `..`.
 */
import type { ToolData } from "./tools/results.js";

// ───────────────────────────── snapshot ─────────────────────────────

/** How a path of a snapshot may be used. Only `text` entries have content that tools may serve. */
export type EntryKind = "text" | "binary" | "too_large" | "symlink" | "submodule" | "lfs_pointer";

/** One path of a snapshot. `size` is in bytes (uncompressed). `mode` is the git file mode as an octal string. */
export interface SnapshotEntry {
  path: string;
  kind: EntryKind;
  size: number;
  /** "100644" | "100755" | "120000" (symlink) | "160000" (submodule). */
  mode: string;
  /** Symlink target as recorded in the archive; never followed. */
  target?: string;
}

/** Totals of a snapshot and what its caps left out. Bytes are uncompressed. */
export interface SnapshotStats {
  files: number;
  textFiles: number;
  textBytes: number;
  totalBytes: number;
  /** Paths not loaded because a total cap was reached (files or bytes), with the reason. */
  leftOut: { path: string; reason: string }[];
  /** True when any cap was reached; tools mention it in their answers. */
  truncated: boolean;
}

/** Every text file of one commit, in memory. Immutable once built. */
export interface Snapshot {
  /** The pinned commit SHA (40 hex) or, for a local tree without a commit, the rev it was built from. */
  readonly sha: string;
  /** Every recorded path (all kinds), sorted by code unit order. */
  readonly paths: readonly string[];
  entry(path: string): SnapshotEntry | undefined;
  /**
   * Decoded UTF-8 content of a `text` entry, exactly as stored (a BOM stays as U+FEFF, CRLF stays CRLF);
   * `undefined` for any other kind or a missing path.
   */
  read(path: string): string | undefined;
  readonly stats: SnapshotStats;
}

// ───────────────────────────── tools ─────────────────────────────

/** The agent's tool names. They are part of the product: prompts, traces and configs use them. */
export type ToolName =
  | "describe_repo"
  | "list_files"
  | "get_file_contents"
  | "grep_codebase"
  | "search_codebase"
  | "verify_symbol_in_repo"
  | "suggest_addition"
  | "submit_answer";

/** The read-only tools, in the order they are offered to a model. */
export const READ_TOOL_NAMES = [
  "describe_repo",
  "list_files",
  "get_file_contents",
  "grep_codebase",
  "search_codebase",
  "verify_symbol_in_repo",
] as const satisfies readonly ToolName[];

/**
 * What a tool call ended as. `ok`: a real answer. `not_found`: the thing asked for is not in the snapshot
 * (does not count as a read for the gates). `invalid`: the arguments did not fit the schema.
 * `rejected`: a gate or the verbatim rule refused it.
 */
export type ToolStatus = "ok" | "not_found" | "invalid" | "rejected";

/**
 * The answer of a tool call: `text` is exactly what a model sees (compact, capped, secrets redacted); `data`, when
 * the tool has one, is the structured answer the text was rendered from (redacted the same way), for models that
 * read objects rather than text (the heuristic).
 */
export interface ToolResult {
  status: ToolStatus;
  text: string;
  data?: ToolData;
}

/** A window of lines the agent has seen through `get_file_contents`. */
export interface ReadWindow {
  path: string;
  startLine: number;
  endLine: number;
}

/** The record of what was read in one run, for the read-before-edit gate. */
export interface ReadLog {
  record(window: ReadWindow): void;
  /** True when the union of recorded windows of `path` covers every line from `startLine` to `endLine`. */
  covers(path: string, startLine: number, endLine: number): boolean;
  windows(): ReadWindow[];
}

// ───────────────────────────── edits ─────────────────────────────

/** An edit that `suggest_addition` applied (the only write path; docs/ARCHITECTURE.md, invariant 1). */
export interface AppliedEdit {
  path: string;
  code_before: string;
  code_after: string;
  rationale: string;
  /** Lines of the matched `code_before` span in the file content the edit was applied to. */
  startLine: number;
  endLine: number;
  /** Lines of `code_before` in the base file at the pinned SHA, when it is found there once (for permalinks). */
  baseStartLine?: number;
  baseEndLine?: number;
  kind: "addition" | "modification";
  /** Unified diff of this one edit, with `a/` `b/` headers. */
  diff: string;
}

/** A file as it should be in the commit that delivers the edits. `mode` keeps the base file's git mode. */
export interface ChangedFile {
  path: string;
  content: string;
  mode: string;
}

// ───────────────────────────── task and outcome ─────────────────────────────

/** Where a problem came from and what to look at. Problem text is untrusted data. */
export interface Task {
  source: "issue" | "code_scanning" | "dispatch" | "local";
  /** Dedupe key: `owner/repo#issue-12`, `owner/repo#alert-3`, `local:<slug>`. */
  key: string;
  title: string;
  body: string;
  repo: { owner: string; name: string };
  /** The pinned base commit: snapshot, reads, commit parent and permalinks all use it. */
  baseSha: string;
  /** Issue number (issue, dispatch with issue_number) or alert number (code_scanning). */
  number?: number;
  /** A location the alert points at (code scanning), repository-relative. */
  location?: { path: string; startLine: number; endLine?: number; message?: string };
}

/** How a run ended (docs/ARCHITECTURE.md, "Outcomes, gates, models"). */
export type Outcome = "pr_ready" | "diagnosis_only" | "needs_information" | "failed_closed";

/** A verified file/line range that groundfix may post (docs/ARCHITECTURE.md, invariant 4). */
export interface Citation {
  path: string;
  start_line: number;
  end_line: number;
}

/** The answer after the claims check. Unverifiable fields are null; confidence is in [0, 1]. */
export interface Diagnosis {
  summary: string;
  affected_file: string | null;
  affected_function: string | null;
  root_cause_snippet: string | null;
  confidence: number;
  citations: Citation[];
}

/** The gate that refused a call (docs/ARCHITECTURE.md, "Outcomes, gates, models"). */
export type GateName =
  "tool_name" | "count_floor" | "read_before_edit" | "verbatim_edit" | "path_policy" | "claims" | "budget";

/** One call a gate refused in a run: the gate, the text the model was shown (`message`), and when. */
export interface GateRejection {
  gate: GateName;
  message: string;
  /** 1-based model step at which it happened. */
  step: number;
}

/**
 * Model and tool usage of one run. Tokens are as the model reported them, or estimated (chars / 4, `estimated`).
 * `input_tokens` includes the prompt-cache reads and writes counted apart in `cache_read_tokens` /
 * `cache_write_tokens`; `cost_usd` is an estimate from list prices, when the model's price is known.
 */
export interface Usage {
  model_calls: number;
  tool_calls: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
  cost_usd?: number;
  estimated?: boolean;
}

// ───────────────────────────── review ─────────────────────────────

/** The review rules (`src/review/rules/`). */
export type RuleName =
  "grounded_hunks" | "edit_policy" | "paths" | "size" | "syntax" | "imports" | "secrets" | "evidence";

/** One file of a diff between base and head, as GitHub's compare API or `git diff` reports it. */
export interface FilePatch {
  path: string;
  /** For renames: the path at base. */
  oldPath?: string;
  status: "added" | "modified" | "removed" | "renamed";
  oldMode?: string;
  newMode?: string;
  binary: boolean;
  /** The unified diff hunks of this file (from the first `@@` on); empty for binary files. */
  patch: string;
}

/**
 * One problem a review rule found in a pull request's diff: `path` and the 1-based inclusive lines
 * `start_line..end_line` of the file at the head SHA, a level that becomes the check run annotation's
 * `annotation_level` one to one, and a one-line `message` for the reader.
 */
export interface Finding {
  rule: RuleName;
  path: string;
  start_line: number;
  end_line: number;
  level: "failure" | "warning" | "notice";
  message: string;
}

/**
 * The outcome of a review, as posted in the `groundfix/review` check run: `conclusion` is "failure" when any finding
 * is at level failure; `title` and `summary` become the check run output; `rulesChecked` names the rules that ran.
 */
export interface ReviewReport {
  conclusion: "success" | "failure";
  title: string;
  /** Markdown, at most 65,535 characters (GitHub's check-run output limit). */
  summary: string;
  findings: Finding[];
  rulesChecked: RuleName[];
}

/**
 * What the app records, hidden in the body of a pull request it opens, about the edits it applied.
 * The review's evidence rule matches every hunk of the app's own commits against it.
 */
export interface RunRecord {
  version: 1;
  run_id: string;
  base_sha: string;
  /** The commit the app made for these edits; commits pushed after it are not the app's own. */
  head_sha?: string;
  edits: { path: string; start_line: number; end_line: number; code_before: string; code_after: string }[];
}
