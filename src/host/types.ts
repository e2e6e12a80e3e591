import type { GroundfixConfig } from "../config/schema.js";
import type { RunResult } from "../agent/index.js";
import type { FreshBase } from "../pipeline/fresh-base.js";
import type { RunStatus } from "../pipeline/types.js";
import type { ChangedFile, FilePatch, ReviewReport, RunRecord, Snapshot, Task } from "../types.js";

/** A commit an existing branch holds beyond the base: SHA, who wrote it, its subject, whether groundfix made it. */
export interface BranchCommit {
  sha: string;
  /** The GitHub login of the author, else the git author name, else "unknown". */
  author: string;
  /** The first line of the commit message (untrusted text). */
  subject: string;
  /**
   * True when groundfix made it: the `Groundfix-Run:` trailer AND the host's proof of who made it (`isOwnCommit` in
   * `pipeline/record.ts`: the app's verified bot commit on GitHub, groundfix's committer identity locally).
   */
  ours: boolean;
}

/**
 * Why a branch was left as it is: it holds groundfix's commit on another base or with other edits, or others' commits.
 */
/**
 * Why a branch was held: see {@link heldReason} (src/pipeline/record.ts) for the first three; `checked_out` (local
 * checkouts only): the branch is checked out in a working tree of the repository (`worktree`), whose files and index
 * would no longer match a moved branch (`git branch -f` refuses it for the same reason).
 */
export type HeldReason = "other_base" | "other_edits" | "other_commits" | "checked_out";

/**
 * What {@link Host.deliver} did with `refs/heads/<branch>`, the same on every host:
 * - `created`: the branch did not exist; it now points at a new commit whose only parent is the base;
 * - `reused`: the branch already held exactly this commit (only parent = base, same tree) as groundfix's own
 *   (`isOwnCommit` of src/pipeline/record.ts); nothing was written. Anyone else's commit with that content is held
 *   like any other commit groundfix did not make (its message and authorship would be what the pull request shows);
 * - `fast_forwarded`: the branch had no commit beyond the base (it was the base or an ancestor); moved, nothing lost;
 * - `held`: the branch holds something else and `force` was not given: NOTHING was written; `headSha` is the
 *   branch's head, `headParent` its first parent, `commits` its commits beyond the base (at most 10 named, `count`
 *   in all);
 * - `replaced`: `force` moved the branch from `previousSha` to a new commit, dropping `commits` (`count` in all);
 *   `ownEarlier` when no `force` was asked: the GitHub host replaces a branch that holds only groundfix's own earlier
 *   commits and has no open pull request (its pull request was merged, e.g. squash-merged with the branch kept, or
 *   closed), so nothing anyone else wrote is dropped.
 * A GitHub delivery with `insteadOf` went to another branch name than asked, because the one asked holds commits
 * groundfix did not make (a retry never force-pushes over them).
 */
export type Delivery =
  | { kind: "created" | "reused" | "fast_forwarded"; branch: string; headSha: string; insteadOf?: HeldBranch }
  | {
      kind: "held";
      branch: string;
      headSha: string;
      headParent: string | null;
      why: HeldReason;
      commits: BranchCommit[];
      count: number;
      /** The open pull request from the branch, left as it is (GitHub). */
      pullRequest?: { number: number; url: string };
      /** With `why: "checked_out"`: the working tree the branch is checked out in (an absolute path). */
      worktree?: string;
    }
  | {
      kind: "replaced";
      branch: string;
      headSha: string;
      previousSha: string;
      commits: BranchCommit[];
      count: number;
      ownEarlier?: true;
      insteadOf?: HeldBranch;
    };

/**
 * The branch a retry was meant for, left as it is because it holds commits groundfix did not make (GitHub): the run
 * went to another branch name (`Delivery.branch`). `commits` as in a `held` delivery (at most 10 named, `count` in
 * all).
 */
export interface HeldBranch {
  branch: string;
  commits: BranchCommit[];
  count: number;
}

/** The input of {@link Host.deliver}. */
export interface DeliverInput {
  baseSha: string;
  branch: string;
  /** The commit message (`pipeline/record.ts` `commitMessage`, with the `Groundfix-Run:` trailer). */
  message: string;
  files: ChangedFile[];
  /**
   * Replace a branch that holds something else: `groundfix fix --force` locally (the dropped commits are named and
   * stay in the reflog); `/groundfix retry` on GitHub, which replaces only groundfix's own commits (see `insteadOf`).
   */
  force?: boolean;
}

/** A file as {@link Host.readFile} found it at a commit. */
export interface HostFile {
  content: string;
  /** "100644" or "100755"; undefined when the host cannot tell (GitHub). */
  mode?: string;
}

/** A delivered pull request, or locally the branch that stands for it (`number` 0, `url` null). */
export interface PullRequestRef {
  number: number;
  url: string | null;
  branch: string;
  headSha: string;
  /** True when an open pull request from the branch already existed (it was pointed at, or its body updated). */
  existing: boolean;
}

/** The input of {@link Host.openPullRequest}: the delivered branch and what the pull request body shows. */
export interface PullRequestInput {
  branch: string;
  /** The branch the base was resolved from: the pull request's target. */
  baseRef: string;
  delivery: Delivery & { kind: "created" | "reused" | "fast_forwarded" | "replaced" };
  /** The pull request's title: the commit's subject (`pullRequestTitle` in `pipeline/record.ts`). */
  title: string;
  task: Task;
  result: RunResult;
  /** The run record with `head_sha`, hidden in the body. */
  record: RunRecord;
  config: GroundfixConfig;
  /**
   * Set when the base branch moved during the run and the edits were applied again on its new head (`to`, which is
   * `task.baseSha`); the diagnosis was verified at `from`, so its citations link there.
   */
  baseMoved?: FreshBase & { kind: "moved" };
}

/**
 * Where a run reads from and where its results go. The pipeline (`pipeline/run.ts`) calls only these methods, so a
 * local run exercises the same code as the App, the way Renovate has `platform/github` and `platform/local`:
 * `host/github` (REST API, no clone) and `host/local` (git plumbing in a checkout, never touching the working tree,
 * the index or the current branch). Every method of both is implemented.
 */
export interface Host {
  /** `github` or `local`: the only field of a run that says where it ran. */
  readonly name: "github" | "local";
  /**
   * Resolve a ref (default: the default branch / HEAD) to the commit SHA the whole run pins. Asked again with the
   * returned `ref` before committing (`pipeline/fresh-base.ts`), it reads that branch's head anew: on GitHub one
   * `GET branches/{branch}`; a 40-hex SHA never moves (no call). Locally `HEAD` is resolved through the branch it
   * names at the first call, so switching branches during a run does not move the base onto another branch.
   */
  resolveBase(ref?: string): Promise<{ sha: string; ref: string }>;
  /**
   * The file `path` at commit `sha`, decoded as UTF-8 exactly as committed, with its git `mode` when the host knows
   * it (locally always; GitHub's contents API does not report it). Null when `sha` has no regular text file there
   * (deleted, a symlink, a submodule, a folder, not UTF-8). Read only for the files a run edits, when the base moved.
   */
  readFile(sha: string, path: string): Promise<HostFile | null>;
  /** Every text file of `sha`, from one tar stream. Reading the same SHA twice reuses the snapshot. */
  loadSnapshot(sha: string): Promise<Snapshot>;
  /**
   * The repository config for a run at `sha`: locally `.github/groundfix.yml` at that commit; on GitHub the config
   * the trigger was decided with (read once through Probot at the default branch, whose head the base is).
   * @throws ConfigError when the file is invalid.
   */
  readConfig(sha: string): Promise<GroundfixConfig>;
  /** Write `files` as ONE commit whose only parent is the base on `branch` (one reuse rule, see {@link Delivery}). */
  deliver(input: DeliverInput): Promise<Delivery>;
  /**
   * Delete a branch this run created, when a later step failed (no branch without a pull request or a note).
   * @throws when it cannot, with a one-line reason; on GitHub also when a pull request is open from the branch, or
   *   that cannot be checked (the head of an open pull request is never deleted).
   */
  deleteBranch(branch: string): Promise<void>;
  /** Open the pull request for a delivered branch, or find the open one (locally: the branch is the result). */
  openPullRequest(input: PullRequestInput): Promise<PullRequestRef>;
  /**
   * Post or edit the run's status: on GitHub the one status comment of the issue (logged only without one), locally
   * a progress line on stderr for a stage (the final report is the command's output). A failed progress update is
   * logged and ignored; a failed final one throws (a run must not end silently).
   */
  postStatus(status: RunStatus): Promise<void>;
  /**
   * Publish the `groundfix/review` check run on the pull request head with `report`, the review the run already made
   * (GitHub: created already concluded; locally: nothing to create, the report's review section is `report`).
   * @throws an error with `stage` `create` (no check run exists) or `annotations` (concluded, but part of its
   *   annotations could not be sent), and `warningError` when the host could not warn about a missing check.
   */
  publishReviewCheck(pr: PullRequestRef, runId: string, report: ReviewReport): Promise<void>;
  /** The per-file diff from `baseSha` to `headSha`, hunks included (the review of commits the run did not make). */
  diff(baseSha: string, headSha: string): Promise<FilePatch[]>;
}
