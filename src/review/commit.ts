import { structuredPatch } from "diff";
import type { GroundfixConfig } from "../config/schema.js";
import { loadGrammar, type TreeSitterLanguage } from "../lang/tree-sitter.js";
import type { ChangedFile, FilePatch, ReviewReport, RunRecord, Snapshot, SnapshotEntry } from "../types.js";
import { reviewChange } from "./report.js";

/** Where {@link reviewCommit} reads two commits from (a host's `diff` and `loadSnapshot` fit). */
export interface CommitSource {
  diff(baseSha: string, headSha: string): Promise<FilePatch[]>;
  loadSnapshot(sha: string): Promise<Snapshot>;
}

/**
 * Review the commit range `baseSha..headSha`: `source.diff` plus both snapshots (loaded in parallel, with the
 * tree-sitter grammars of the Python and Go files the diff touches, for the syntax and edit-policy rules), then
 * {@link reviewChange}. When `record.head_sha` names an earlier commit than `headSha` (someone pushed on top of the
 * app's commit), the app's own commit `record.base_sha..record.head_sha` (its diff and both snapshots) is loaded too:
 * the evidence rule checks the record against it as well as against the whole range; the other rules see the whole
 * range. `recordProblem` is passed on (see `ReviewInput`).
 *
 * @throws whatever the source throws (unknown SHA, network); the rules themselves never throw.
 */
export async function reviewCommit(
  source: CommitSource,
  input: {
    baseSha: string;
    headSha: string;
    config: GroundfixConfig;
    record?: RunRecord | null;
    recordProblem?: string;
  },
): Promise<ReviewReport> {
  const record = input.record ?? null;
  const ownRange =
    record?.head_sha && record.head_sha !== input.headSha ? { base: record.base_sha, head: record.head_sha } : null;
  const diff = source.diff(input.baseSha, input.headSha);
  const grammars = diff.then((patches) => Promise.all(treeSitterLanguages(patches).map(loadGrammar)));
  const own = ownRange
    ? Promise.all([
        source.diff(ownRange.base, ownRange.head),
        source.loadSnapshot(ownRange.base),
        source.loadSnapshot(ownRange.head),
      ]).then(([patches, base, head]) => ({ patches, base, head }))
    : Promise.resolve(undefined);
  const [patches, base, head, ownCommit] = await Promise.all([
    diff,
    source.loadSnapshot(input.baseSha),
    source.loadSnapshot(input.headSha),
    own,
    grammars,
  ]);
  return reviewChange({
    patches,
    base,
    head,
    config: input.config,
    record,
    ...(ownCommit ? { own: ownCommit } : {}),
    ...(input.recordProblem !== undefined ? { recordProblem: input.recordProblem } : {}),
  });
}

/**
 * The hunks of one file from its two sides (`diff`'s `structuredPatch`, 3 lines of context), as the text of a
 * {@link FilePatch} `patch` (from the first `@@` on).
 */
export function hunksBetween(path: string, before: string, after: string): string {
  const { hunks } = structuredPatch(path, path, before, after, "", "", { context: 3 });
  return hunks
    .map((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join("\n"))
    .join("\n");
}

/**
 * `base` with `files` written over it: the head side of a run's own commit, built in memory (no second archive).
 * `sha` names the head (the commit, or a label while it does not exist yet).
 */
export function snapshotWithFiles(base: Snapshot, files: readonly ChangedFile[], sha: string): Snapshot {
  const changed = new Map(files.map((f) => [f.path, f]));
  const paths = [...new Set([...base.paths, ...changed.keys()])].sort();
  const entry = (path: string): SnapshotEntry | undefined => {
    const file = changed.get(path);
    return file
      ? { path, kind: "text", size: Buffer.byteLength(file.content, "utf8"), mode: file.mode }
      : base.entry(path);
  };
  return { sha, paths, entry, read: (path) => changed.get(path)?.content ?? base.read(path), stats: base.stats };
}

/**
 * Review a run's own edits before they are committed: the diff from `base` to `base` + `files` and both sides in
 * memory, so the verdict is known before any branch is written (every host; no second archive, no compare call).
 */
export async function reviewFiles(input: {
  base: Snapshot;
  files: readonly ChangedFile[];
  headLabel: string;
  config: GroundfixConfig;
  record: RunRecord;
}): Promise<ReviewReport> {
  const head = snapshotWithFiles(input.base, input.files, input.headLabel);
  const patches: FilePatch[] = input.files.map((f) => {
    const before = input.base.read(f.path);
    const oldMode = input.base.entry(f.path)?.mode;
    return {
      path: f.path,
      status: before === undefined ? "added" : "modified",
      ...(oldMode ? { oldMode } : {}),
      newMode: f.mode,
      binary: false,
      patch: hunksBetween(f.path, before ?? "", f.content),
    };
  });
  await Promise.all(treeSitterLanguages(patches).map(loadGrammar));
  return reviewChange({ patches, base: input.base, head, config: input.config, record: input.record });
}

/** The tree-sitter languages of the changed files (web-tree-sitter is loaded only when a diff has Python or Go). */
function treeSitterLanguages(patches: FilePatch[]): TreeSitterLanguage[] {
  const out = new Set<TreeSitterLanguage>();
  for (const p of patches) {
    if (/\.pyi?$/i.test(p.path)) out.add("python");
    else if (/\.go$/i.test(p.path)) out.add("go");
  }
  return [...out];
}
