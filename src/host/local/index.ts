import { realpathSync } from "node:fs";
import { decodeText } from "../../snapshot/builder.js";
import { cachedSnapshot } from "../../snapshot/cache.js";
import { snapshotFromGit } from "../../snapshot/git.js";
// The leaf module, not review/index.js: the index also exports reviewCommit, whose rules load the TypeScript compiler
// and the Python grammar. The CLI imports this host eagerly to answer a bad --repo/--ref before the pipeline loads.
import { parseUnifiedDiff } from "../../review/diff-parse.js";
import type { SnapshotEntry } from "../../types.js";
import type { Host } from "../types.js";
import { deliverWithPlumbing } from "./commit.js";
import { LocalInputError } from "./errors.js";
import { git, gitText, GitError } from "./git.js";
import { notRepositoryReason } from "./repo-dir.js";

export { LocalInputError } from "./errors.js";
export { GitError } from "./git.js";

/**
 * Why the committed `.github/groundfix.yml` entry `entry` has no text to read as config, for a ConfigError issue:
 * a symbolic link (named with its target; never followed), bytes that are not UTF-8 text, over the per-file cap, a
 * Git LFS pointer, a submodule.
 */
function notTextConfig(entry: SnapshotEntry): string {
  switch (entry.kind) {
    case "symlink":
      return (
        `(file): a symbolic link to ${JSON.stringify(entry.target ?? "")}, which groundfix does not follow ` +
        "(commit the file itself)"
      );
    case "binary":
      return "(file): not UTF-8 text (save it as UTF-8)";
    case "too_large":
      return `(file): ${entry.size} bytes, over the snapshot's per-file cap`;
    case "lfs_pointer":
      return "(file): a Git LFS pointer, not the file (commit it without LFS)";
    default:
      return `(file): a ${entry.kind} entry, not a file`;
  }
}

/** The local host: {@link Host} over a checkout, plus the directory it works in. */
export interface LocalHost extends Host {
  readonly repoDir: string;
}

/**
 * The local host: a git checkout on this machine stands in for GitHub (like Renovate's `platform/local`).
 * Snapshots are the committed blobs (`snapshotFromGit`), the config from `.github/groundfix.yml` at the pinned commit,
 * commits are made with plumbing on a branch (never touching the working tree, the index or the current branch), diffs
 * come from
 * `git diff --full-index -M`. The pull request is the branch itself; the status is a progress line through
 * `onProgress` (stderr in the CLI) and the final report is the command's output; the review check is the report's
 * review section (nothing to create or conclude).
 *
 * Construction is cheap and does no I/O; the first call checks that `repoDir` is a git repository.
 * @throws (from each method) LocalInputError `not_a_repository` / `no_commits` / `unknown_ref` for bad user input;
 *   GitError otherwise.
 */
export function createLocalHost(repoDir: string, options: { onProgress?: (message: string) => void } = {}): LocalHost {
  let checked: Promise<string> | null = null;
  /** The repository's top-level directory (also the snapshot cache key), after checking it is a repository. */
  const topLevel = (): Promise<string> =>
    (checked ??= gitText(repoDir, ["rev-parse", "--show-toplevel"]).catch(async (error: unknown) => {
      if ((error as NodeJS.ErrnoException).code === "ENOENT" && !(error instanceof GitError))
        throw new LocalInputError(
          "no_git",
          "git is not installed or not on PATH (groundfix reads the repository with it)",
        );
      if (!(error instanceof GitError)) throw error;
      // A bare repository has no top level but is still a repository.
      const bare = await gitText(repoDir, ["rev-parse", "--is-bare-repository"]).catch(() => "");
      if (bare === "true") return realpathSync(repoDir);
      throw new LocalInputError("not_a_repository", await notRepositoryReason(repoDir, error));
    }));

  /** Full commit ids git resolved for this host: an id names the same commit for good, so it is not asked again. */
  const commits = new Set<string>();

  /** The commit SHA `ref` names. @throws LocalInputError `unknown_ref`. */
  const resolveCommit = async (ref: string): Promise<string> => {
    await topLevel();
    if (commits.has(ref)) return ref;
    if (ref === "" || ref.startsWith("-"))
      throw new LocalInputError("unknown_ref", `unknown revision ${JSON.stringify(ref)}`);
    try {
      const sha = await gitText(repoDir, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`]);
      commits.add(sha);
      return sha;
    } catch (error) {
      if (error instanceof GitError) {
        // A repository without any commit (fresh `git init`): no revision can resolve, so say that instead.
        const any = await gitText(repoDir, ["rev-list", "-n", "1", "--all"]).catch(() => "unknown");
        if (any === "") {
          const top = await topLevel();
          throw new LocalInputError("no_commits", `repository ${top} has no commits yet (commit a file first)`);
        }
        throw new LocalInputError(
          "unknown_ref",
          `unknown revision ${JSON.stringify(ref)} in ${repoDir} (not a commit)`,
        );
      }
      throw error;
    }
  };

  /** The branch `HEAD` named when the run first resolved it (null: detached), so a re-read follows that branch. */
  let headBranch: Promise<string | null> | undefined;

  const host: LocalHost = {
    name: "local",
    repoDir,
    async resolveBase(ref = "HEAD") {
      if (ref !== "HEAD") return { sha: await resolveCommit(ref), ref };
      // The branch is asked for while the repository is checked (a failed symbolic-ref only means a detached HEAD).
      headBranch ??= gitText(repoDir, ["symbolic-ref", "-q", "HEAD"]).then(
        (name) => (name.startsWith("refs/heads/") ? name : null),
        () => null,
      );
      const [, branch] = await Promise.all([topLevel(), headBranch]);
      return { sha: await resolveCommit(branch ?? "HEAD"), ref };
    },
    async readFile(sha, path) {
      const commit = await resolveCommit(sha);
      // `ls-tree` names the entry exactly (no pathspec magic with `--literal-pathspecs`): mode, type and blob id.
      const listing = await git(repoDir, ["--literal-pathspecs", "ls-tree", "-z", commit, "--", path]);
      const entry = listing.toString("utf8").split("\0")[0]!;
      const tab = entry.indexOf("\t");
      const name = entry.slice(tab + 1);
      const [mode, type, blob] = entry.slice(0, Math.max(0, tab)).split(" ");
      if (name !== path || type !== "blob" || (mode !== "100644" && mode !== "100755") || !blob) return null;
      const content = decodeText(await git(repoDir, ["cat-file", "blob", blob]));
      return content === null ? null : { content, mode };
    },
    async loadSnapshot(sha) {
      const top = await topLevel();
      const commit = await resolveCommit(sha);
      return cachedSnapshot(`local:${top}@${commit}`, () => snapshotFromGit(top, commit));
    },
    async readConfig(sha) {
      // Loaded here, not at the top: the CLI imports this host before the pipeline (yaml and zod load with it).
      const [{ CONFIG_PATH, configFromText }, { ConfigError }] = await Promise.all([
        import("../../config/load.js"),
        import("../../config/schema.js"),
      ]);
      const snapshot = await host.loadSnapshot(sha);
      const text = snapshot.read(CONFIG_PATH);
      try {
        const entry = snapshot.entry(CONFIG_PATH);
        // Not a text file (a link, bytes that are not UTF-8…): an error, never the defaults in its place.
        if (entry !== undefined && text === undefined) throw new ConfigError([notTextConfig(entry)], CONFIG_PATH);
        return configFromText(text);
      } catch (error) {
        // Say which commit was read: a fix made in the working tree but not committed is not seen.
        if (!(error instanceof ConfigError)) throw error;
        const at = (await resolveCommit(sha)).slice(0, 12);
        throw new ConfigError(error.issues, `${CONFIG_PATH} at ${at} (as committed; uncommitted edits are not read)`);
      }
    },
    async deliver(input) {
      await topLevel();
      return deliverWithPlumbing(repoDir, input);
    },
    async deleteBranch(branch) {
      await git(repoDir, ["update-ref", "-d", `refs/heads/${branch}`]);
    },
    async openPullRequest({ branch, delivery }) {
      return { number: 0, url: null, branch, headSha: delivery.headSha, existing: delivery.kind === "reused" };
    },
    async postStatus(status) {
      if (status.kind === "stage") options.onProgress?.(status.detail ?? status.stage);
    },
    async publishReviewCheck() {},
    async diff(baseSha, headSha) {
      const base = await resolveCommit(baseSha);
      const head = await resolveCommit(headSha);
      const text = await git(repoDir, [
        "diff",
        "--full-index",
        "-M",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--src-prefix=a/",
        "--dst-prefix=b/",
        base,
        head,
      ]);
      return parseUnifiedDiff(text.toString("utf8"));
    },
  };
  return host;
}
