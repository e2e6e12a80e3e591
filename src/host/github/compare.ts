import { structuredPatch } from "diff";
import type { FilePatch, Snapshot } from "../../types.js";
import type { Octokit, RepoRef } from "./octokit.js";

/**
 * A commit of the compare answer's `commits` list, the fields `madeByApp` (src/host/github/commit.ts) reads: the
 * GitHub accounts of its author and committer (null when GitHub links none) and whether GitHub verified its signature.
 */
export interface ComparedCommit {
  sha: string;
  author?: { login?: string } | null;
  committer?: { login?: string } | null;
  commit: { message: string; verification?: { verified?: boolean } | null };
}

/** The diff GitHub shows for a pull request: from the merge base of base and head to head. */
export interface Comparison {
  /** `merge_base_commit.sha` of the compare answer; equals `base` when head descends from it. */
  mergeBase: string;
  patches: FilePatch[];
  /** `ahead_by`: how many commits head has that base does not. */
  aheadBy: number;
  /** The first (oldest) of those commits, as the answer lists it; null when it lists none. */
  first: ComparedCommit | null;
}

/** GitHub's compare API lists at most this many changed files (REST docs, "Compare two commits"). */
const COMPARE_FILE_LIMIT = 300;

type CompareFile = {
  filename: string;
  previous_filename?: string;
  status: string;
  changes: number;
  patch?: string;
};

function patchStatus(status: string): FilePatch["status"] {
  if (status === "added" || status === "removed" || status === "renamed") return status;
  if (status === "copied") return "added";
  return "modified"; // modified, changed (mode only), unchanged
}

/**
 * Hunks of one file computed from the two snapshots, for a file GitHub sent without `patch` because its diff was too
 * large to show (GitHub leaves `patch` out for binary files and for diffs over its size limit). Returns null when a
 * side is not text in its snapshot (binary, too large for the snapshot, LFS pointer): then the file is `binary`.
 */
function patchFromSnapshots(file: FilePatch, base: Snapshot, head: Snapshot): string | null {
  const before = file.status === "added" ? "" : base.read(file.oldPath ?? file.path);
  const after = file.status === "removed" ? "" : head.read(file.path);
  if (before === undefined || after === undefined) return null;
  const { hunks } = structuredPatch(file.oldPath ?? file.path, file.path, before, after, "", "", { context: 3 });
  return hunks
    .map((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join("\n"))
    .join("\n");
}

/**
 * `GET /repos/{o}/{r}/compare/{base}...{head}` (one call; GitHub lists up to 300 files, all on the first page) as
 * {@link FilePatch}es, with the merge base, `ahead_by` and the first commit listed (oldest first, one per page here).
 *
 * A file without `patch` is either binary (GitHub reports `changes: 0` for it, unless it is a pure rename) or a text
 * file whose diff was too large for the compare API: for the latter the hunks are rebuilt from the two snapshots
 * (`loadSnapshots(mergeBase, head)`, called only then), and when that is impossible the file is reported as `binary:
 * true`, so the review refuses it instead of passing an empty diff. Modes are not in the compare answer
 * (`oldMode`/`newMode` stay unset; the review reads them from the snapshots).
 *
 * @throws the Octokit `RequestError` (404 when a SHA is unknown); Error when the answer lists 300 files (GitHub's cap),
 *   since files beyond it would go unreviewed.
 */
export async function compareCommits(
  octokit: Octokit,
  repo: RepoRef,
  base: string,
  head: string,
  loadSnapshots: (mergeBase: string, head: string) => Promise<{ base: Snapshot; head: Snapshot }>,
): Promise<Comparison> {
  const { data } = await octokit.rest.repos.compareCommitsWithBasehead({
    owner: repo.owner,
    repo: repo.name,
    basehead: `${base}...${head}`,
    // Pagination applies to the commit list only; the first page carries every file (up to 300), so ask for one commit.
    per_page: 1,
  });
  const mergeBase = data.merge_base_commit?.sha ?? base;
  const first = ((data.commits ?? [])[0] as ComparedCommit | undefined) ?? null;
  const aheadBy = typeof data.ahead_by === "number" ? data.ahead_by : 0;
  const files = (data.files ?? []) as CompareFile[];
  if (files.length >= COMPARE_FILE_LIMIT) {
    throw new Error(
      `the diff ${base.slice(0, 12)}...${head.slice(0, 12)} lists ${files.length} files, ` +
        `GitHub's compare limit, so some changed files cannot be seen; split the change`,
    );
  }
  const patches: FilePatch[] = [];
  let snapshots: { base: Snapshot; head: Snapshot } | undefined;
  for (const file of files) {
    const patch: FilePatch = {
      path: file.filename,
      status: patchStatus(file.status),
      binary: false,
      patch: file.patch ?? "",
    };
    if (file.previous_filename && file.status === "renamed") patch.oldPath = file.previous_filename;
    if (file.patch === undefined) {
      const pureRename = file.status === "renamed" && file.changes === 0;
      if (file.changes === 0 && !pureRename) {
        patch.binary = true;
      } else if (file.changes > 0) {
        snapshots ??= await loadSnapshots(mergeBase, head);
        const rebuilt = patchFromSnapshots(patch, snapshots.base, snapshots.head);
        if (rebuilt === null) patch.binary = true;
        else patch.patch = rebuilt;
      }
    }
    patches.push(patch);
  }
  return { mergeBase, patches, aheadBy, first };
}
