import type { GroundfixConfig } from "../../config/schema.js";
import { cachedSnapshot, decodeText } from "../../snapshot/index.js";
import type { FilePatch, Snapshot } from "../../types.js";
import type { Delivery, Host, PullRequestRef } from "../types.js";
import { deleteBranch, pointBranch, replaceBranch, writeCommit } from "./commit.js";
import { compareCommits, type Comparison } from "./compare.js";
import { capText, GITHUB_BODY_LIMIT, oneLine } from "./markdown.js";
import {
  describeError,
  describeFailure,
  httpStatus,
  NO_RETRY,
  RETRY_ONCE,
  type Octokit,
  type RepoRef,
} from "./octokit.js";
import { RepositoryStateError } from "./repository-state.js";
import { renderPullRequestBody } from "./render.js";
import { failReviewCheck, publishReviewCheck, ReviewCheckError } from "./review-check.js";
import { headProblem } from "./head-pulls.js";
import { loadGitHubSnapshot } from "./snapshot.js";
import { deliveredKey, type ReviewClaims } from "./review-claims.js";
import { statusCommentBody } from "./status.js";
import { upsertStatusComment, type BotLogin, type StatusCommentIds } from "./status-comment.js";
import { createStatusPacer, type PacerTimers } from "./progress.js";
import type { RunStatus } from "../../pipeline/types.js";

const FULL_SHA = /^[0-9a-f]{40}$/i;

/** How many other branch names (`<branch>-2` … `-5`) a retry tries when its branch holds others' commits. */
const RETRY_BRANCHES = 4;

/** A held branch whose commits beyond the base are all groundfix's own (all listed, each `ours`). */
function ownOnly(held: Delivery & { kind: "held" }): boolean {
  return held.why !== "other_commits" && held.count === held.commits.length && held.commits.every((c) => c.ours);
}

/** Logger subset (Probot's pino logger fits). */
export interface HostLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** What one App run (or review job) gives its GitHub host. */
export interface GitHubHostOptions {
  /** The installation Octokit of the job (`app.auth(installationId)`). */
  octokit: Octokit;
  repo: RepoRef;
  log: HostLogger;
  /** The config the trigger was decided with (`readConfig` answers it). */
  config?: GroundfixConfig;
  /** The issue that carries the status comment; null or absent: statuses are logged only. */
  statusIssue?: number | null;
  /** The app's bot login (`<slug>[bot]`) or its lookup: only a status comment by it is ever edited. */
  botLogin?: string | BotLogin;
  /**
   * The process's review claims: the delivered head SHA and its `deliveredKey` (head, branch, base) are claimed so
   * the webhooks the pull request causes skip it.
   */
  claimReview?: ReviewClaims;
  /** The process's status-comment ids, so each stage edits the comment without listing again. */
  commentIds?: StatusCommentIds;
  /** How long a stage must last before the status comment shows it (ms; default {@link PROGRESS_AFTER_MS}). */
  progressAfterMs?: number;
  /** The timers that pace the progress writes (a test passes a fake clock). */
  timers?: PacerTimers;
}

/**
 * A stage shows in the status comment only once it has lasted this long (ms): a run that is faster writes its
 * status comment once, at the end, and the `eyes` reaction is its acknowledgement meanwhile.
 */
export const PROGRESS_AFTER_MS = 10_000;

/** The GitHub host: the {@link Host} interface over the REST API of one repository, plus what only GitHub has. */
export interface GitHubHost extends Host {
  readonly octokit: Octokit;
  readonly repo: RepoRef;
  /** The repository's default branch (`GET /repos/{o}/{r}`, asked once per host). */
  defaultBranch(): Promise<string>;
  /** The compare answer with its merge base; `diff` returns its patches. Cached per (base, head) in the host. */
  compare(baseSha: string, headSha: string): Promise<Comparison>;
  /** The app's bot login (`<slug>[bot]`) from the host's options (asked once through its lookup), or undefined. */
  botLogin(): Promise<string | undefined>;
}

/** The open pull request the host delivered to, as the check-run steps need it. */
interface OpenPullRequest {
  number: number;
  url: string;
  body: string;
  draft: boolean;
  nodeId: string;
}

/** What the host remembers of a pull request it delivered to: the base it was reviewed for, whether the head is old. */
interface DeliveredPullRequest extends OpenPullRequest {
  baseRef: string;
  /** The branch already held the head (`reused`): other pull requests may have it as head already. */
  reused: boolean;
}

/**
 * A {@link Host} backed by GitHub's REST API for `repo`, with no clone; ONE per App run or review job (its caches
 * live as long as the run):
 * - `resolveBase(ref?)`: without `ref`, the default branch (`GET /repos/{o}/{r}`) then `GET branches/{branch}` (which
 *   also gives the base tree for the commit); a full 40-hex SHA is returned as is (no call).
 * - `loadSnapshot(sha)`: the tarball of the commit, checked against its tree id (known from `resolveBase`); where
 *   `.gitattributes` kept files out of it or rewrote them, the tree listing and those blobs
 *   ({@link loadGitHubSnapshot}); reused under `owner/repo@sha`.
 * - `readFile(sha, path)`: `GET contents/{path}?ref={sha}` (JSON, base64 up to 1 MB; above that once more with the
 *   raw media type); null on 404 or for anything but a file (symlink, submodule, folder) or bytes that are not UTF-8.
 *   GitHub's contents API reports no file mode, so `mode` stays undefined.
 * - `readConfig`: the config the trigger was decided with (Probot's `context.config` at the default branch).
 * - `deliver`: the Git Data API, see {@link writeCommit} and {@link pointBranch}; a branch it would hold that carries
 *   only groundfix's own earlier commits (the trailer and the app's verified authorship) is replaced when no pull
 *   request is open from it (merged, e.g. squashed with the branch kept, or closed: `replaced` with `ownEarlier`) or
 *   on a retry (`force`). `force` never replaces commits groundfix did not make: the retry goes to `<branch>-2`
 *   (up to `-5`, `insteadOf` names the held branch and its commits), else the delivery is `held`.
 *   `deleteBranch`: `DELETE git/refs/heads/{b}`.
 * - `openPullRequest`: the open PR from the branch (`GET pulls?head=owner:branch&state=open`, not asked for a branch
 *   this call created), else `POST pulls` (`draft` from config, title and body from the run, the body with the run
 *   record); never a second PR for a branch. An existing PR keeps its body when the branch was reused (its record
 *   describes the commit the branch holds); when the branch moved, the body is rewritten (`PATCH pulls/{n}`).
 * - `postStatus`: the one status comment ({@link upsertStatusComment}), or a log line without a status issue. A stage
 *   is written only when it lasts longer than `progressAfterMs` ({@link createStatusPacer}); the final status always
 *   is, after any stage write under way, so the comment always ends in the final state.
 * - `publishReviewCheck`: the `groundfix/review` check run, created already concluded ({@link publishReviewCheck}:
 *   one `POST check-runs` when the annotations fit in one request). The verdict shows on every open pull request
 *   with the head, so they are listed (`headProblem`, `GET commits/{sha}/pulls`) after it — one opened after the
 *   lookup gets a later check run from its own webhook — and, for a head the branch already held (`reused`), before
 *   it too: when the head is the head of any other pull request, or its pull request is into another base than the
 *   one reviewed, a failing check run ({@link failReviewCheck}) is made after (or instead of) it. When it cannot be
 *   created, the PR is converted to draft (GraphQL `convertPullRequestToDraft`; REST has no such field) and a
 *   warning that it must not be merged until the check runs goes at the top of its body.
 * - `diff(base, head)`: `GET compare/{base}...{head}`, see {@link compareCommits}.
 * - `botLogin()`: `options.botLogin` (its lookup asks `GET /app` once per process).
 */
export function createGitHubHost(options: GitHubHostOptions): GitHubHost {
  const { octokit, repo, log } = options;
  const owner = repo.owner;
  let defaultBranch: Promise<string> | undefined;
  const trees = new Map<string, string>();
  const comparisons = new Map<string, Promise<Comparison>>();
  const opened = new Map<number, DeliveredPullRequest>();
  const writeStatus = async (status: RunStatus) => {
    const request = status.kind === "stage" ? status.request : status.report.request;
    const issueNumber = options.statusIssue ?? request.statusIssue;
    if (issueNumber === null) {
      const shown = status.kind === "done" ? status.report.status : status.stage;
      log.info({ key: request.task.key, status: shown }, "groundfix status (no issue to comment on)");
      return;
    }
    const body = statusCommentBody(status, repo);
    const commentOptions = {
      ...(options.botLogin ? { botLogin: options.botLogin } : {}),
      ...(options.commentIds ? { commentIds: options.commentIds } : {}),
    };
    await upsertStatusComment(octokit, { owner, repo: repo.name, issueNumber, body }, commentOptions);
  };
  const pacer = createStatusPacer<RunStatus>({
    afterMs: options.progressAfterMs ?? PROGRESS_AFTER_MS,
    write: writeStatus,
    onProgressError: (error, status) =>
      status.kind === "stage" &&
      log.warn({ err: error, key: status.request.task.key }, "could not update the status comment"),
    ...(options.timers ? { timers: options.timers } : {}),
  });
  const openFrom = async (branch: string, request?: typeof RETRY_ONCE) =>
    (
      await octokit.rest.pulls.list({
        owner,
        repo: repo.name,
        head: `${owner}:${branch}`,
        state: "open",
        per_page: 1,
        ...(request ? { request } : {}),
      })
    ).data[0];

  /**
   * `POST pulls`, never retried blindly (a retry of a create GitHub did perform answers 422 "A pull request already
   * exists"): when it fails, the open pull request from `branch` is looked up (`GET pulls?head=`, retried once on
   * 5xx/429) and taken when there is one, since GitHub may have created it and still answered 5xx. Otherwise the
   * create's own error is thrown.
   */
  const createOnce = async (branch: string, params: Parameters<Octokit["rest"]["pulls"]["create"]>[0] & object) => {
    try {
      return (await octokit.rest.pulls.create({ ...params, request: NO_RETRY })).data;
    } catch (error) {
      const landed = await openFrom(branch, RETRY_ONCE).catch(() => undefined);
      if (landed) {
        log.warn(
          { branch, pr: landed.number, err: error },
          "groundfix: POST pulls failed, but the pull request exists",
        );
        return landed;
      }
      throw error;
    }
  };

  const host: GitHubHost = {
    name: "github",
    octokit,
    repo,
    defaultBranch() {
      defaultBranch ??= octokit.rest.repos.get({ owner, repo: repo.name }).then(({ data }) => data.default_branch);
      defaultBranch.catch(() => (defaultBranch = undefined));
      return defaultBranch;
    },

    async resolveBase(ref?: string) {
      if (ref && FULL_SHA.test(ref)) return { sha: ref.toLowerCase(), ref };
      const branch = ref ?? (await host.defaultBranch());
      const { data } = await octokit.rest.repos
        .getBranch({ owner, repo: repo.name, branch })
        .catch(async (error: unknown) => {
          // The default branch of a repository without a commit: 404 here, 409 "Git Repository is empty." elsewhere.
          const status = httpStatus(error);
          if ((status === 404 || status === 409) && branch === (await host.defaultBranch()))
            throw new RepositoryStateError("empty", branch);
          throw error;
        });
      trees.set(data.commit.sha, data.commit.commit.tree.sha);
      return { sha: data.commit.sha, ref: branch };
    },

    loadSnapshot(sha: string): Promise<Snapshot> {
      return cachedSnapshot(`${owner}/${repo.name}@${sha}`, () =>
        loadGitHubSnapshot(octokit, repo, sha, trees.get(sha)),
      );
    },

    async readFile(sha, path) {
      let data: unknown;
      try {
        ({ data } = await octokit.rest.repos.getContent({ owner, repo: repo.name, path, ref: sha }));
      } catch (error) {
        if (httpStatus(error) === 404) return null;
        throw error;
      }
      const file = data as { type?: string; encoding?: string; content?: string; path?: string };
      if (Array.isArray(data) || file.type !== "file" || file.path !== path) return null;
      let bytes: Uint8Array;
      if (file.encoding === "base64") bytes = Buffer.from(file.content ?? "", "base64");
      else {
        // Above 1 MB the JSON answer has no content (`encoding: "none"`); the raw media type serves up to 100 MB.
        const raw = await octokit.request("GET /repos/{owner}/{repo}/contents/{path}", {
          owner,
          repo: repo.name,
          path,
          ref: sha,
          mediaType: { format: "raw" },
          request: { parseSuccessResponseBody: false },
        });
        bytes = new Uint8Array(await new Response(raw.data as unknown as ReadableStream).arrayBuffer());
      }
      const content = decodeText(bytes);
      return content === null ? null : { content };
    },

    async readConfig() {
      if (!options.config)
        throw new Error("the GitHub host was created without the config its trigger was decided with");
      return options.config;
    },

    async deliver(input) {
      const made = await writeCommit(octokit, repo, input, trees.get(input.baseSha));
      const owner = options.botLogin ? { botLogin: options.botLogin } : {};
      const point = (branch: string) => pointBranch(octokit, repo, { branch, baseSha: input.baseSha, ...made }, owner);
      const delivery = await point(input.branch);
      if (delivery.kind !== "held") return delivery;
      const open = await openFrom(input.branch);
      // Only groundfix's own earlier commits (all of them listed, each its own by the trailer AND GitHub's proof that
      // the app made it): a retry replaces them; so does a new run when no pull request is open (the earlier PR was
      // merged, e.g. squashed, or closed). Nothing anyone else wrote is dropped.
      if (ownOnly(delivery) && (input.force || !open)) {
        const replaced = await replaceBranch(octokit, repo, delivery, made.headSha);
        return input.force ? replaced : { ...replaced, ownEarlier: true };
      }
      const held = open ? { ...delivery, pullRequest: { number: open.number, url: open.html_url } } : delivery;
      if (!input.force || delivery.why !== "other_commits") return held;
      // A retry on a branch holding commits groundfix did not make never force-pushes over them: it commits on
      // `<branch>-2` (…`-5`) instead, reusing one that holds only an earlier retry's own commit.
      const insteadOf = { branch: input.branch, commits: delivery.commits, count: delivery.count };
      for (let n = 2; n <= 1 + RETRY_BRANCHES; n++) {
        const moved = await point(`${input.branch}-${n}`);
        if (moved.kind !== "held") return { ...moved, insteadOf };
        if (ownOnly(moved)) return { ...(await replaceBranch(octokit, repo, moved, made.headSha)), insteadOf };
      }
      return held;
    },

    async deleteBranch(branch) {
      // Never the head of an open pull request: a `POST pulls` answered 5xx may still have created one.
      let open;
      try {
        open = await openFrom(branch, RETRY_ONCE);
      } catch (error) {
        throw new Error(
          `it was kept: whether a pull request is open from it could not be checked (${describeFailure(error)})`,
        );
      }
      if (open) throw new Error(`it was kept: pull request #${open.number} (${open.html_url}) is open from it`);
      try {
        await deleteBranch(octokit, repo, branch);
      } catch (error) {
        throw new Error(`deleting it failed (${describeFailure(error)})`);
      }
    },

    async openPullRequest(input): Promise<PullRequestRef> {
      const { branch, delivery } = input;
      // the webhooks this PR causes must not review it again
      await options.claimReview?.(owner, repo.name, delivery.headSha);
      await options.claimReview?.(owner, repo.name, deliveredKey(delivery.headSha, branch, input.baseRef));
      const body = () =>
        renderPullRequestBody({
          task: input.task,
          result: input.result,
          owner,
          repo: repo.name,
          baseSha: input.task.baseSha,
          linkKeyword: input.config.pull_request.link_keyword,
          record: input.record,
          ...(input.baseMoved ? { baseMoved: input.baseMoved } : {}),
        });
      const existing = delivery.kind === "created" ? undefined : await openFrom(branch);
      let pr: OpenPullRequest & { headSha: string };
      if (existing) {
        let text = existing.body ?? "";
        if (delivery.kind !== "reused") {
          text = body(); // moved onto a new commit: the body must describe the commit the branch now holds
          await octokit.rest.pulls.update({ owner, repo: repo.name, pull_number: existing.number, body: text });
        }
        pr = {
          number: existing.number,
          url: existing.html_url,
          headSha: delivery.headSha,
          body: text,
          draft: !!existing.draft,
          nodeId: existing.node_id,
        };
      } else {
        const text = body();
        const data = await createOnce(branch, {
          owner,
          repo: repo.name,
          head: branch,
          base: input.baseRef,
          title: input.title,
          body: text,
          draft: input.config.pull_request.draft,
        });
        pr = {
          number: data.number,
          url: data.html_url,
          headSha: data.head.sha,
          body: data.body ?? text,
          draft: data.draft ?? input.config.pull_request.draft,
          nodeId: data.node_id,
        };
      }
      opened.set(pr.number, { ...pr, baseRef: input.baseRef, reused: delivery.kind === "reused" });
      return { number: pr.number, url: pr.url, branch, headSha: pr.headSha, existing: !!existing };
    },

    async postStatus(status) {
      if (status.kind === "stage") return pacer.stage(status);
      await pacer.final(status);
    },

    async publishReviewCheck(pr, runId, report) {
      const target = {
        owner,
        repo: repo.name,
        headSha: pr.headSha,
        prNumber: pr.number,
        prUrl: pr.url ?? "",
        externalId: runId,
      };
      const delivered = opened.get(pr.number);
      const problem = () =>
        headProblem(
          octokit,
          repo,
          pr.headSha,
          options.config?.pull_request.branch_prefix ?? "",
          delivered?.baseRef ?? "",
        );
      // Look after publishing: a pull request opened before that lookup is seen here, one opened after it is
      // reviewed (and fails) by its own webhook, with a later check run. A head the branch already held may be the
      // head of other pull requests already: look before publishing too, so no passing check is shown on them.
      const before = !delivered || delivered.reused;
      try {
        const early = before ? await problem() : undefined;
        if (early) return void (await failReviewCheck(octokit, { ...target, ...early }));
        await publishReviewCheck(octokit, target, report);
        const late = await problem();
        if (late) await failReviewCheck(octokit, { ...target, ...late });
      } catch (error) {
        const open = (error as ReviewCheckError).stage === "create" ? opened.get(pr.number) : undefined;
        const warningError = open
          ? await warnReviewMissing(octokit, repo, open, (error as ReviewCheckError).message)
          : undefined;
        throw Object.assign(error as Error, warningError ? { warningError } : {});
      }
    },

    compare(baseSha: string, headSha: string) {
      const key = `${baseSha}...${headSha}`;
      let pending = comparisons.get(key);
      if (!pending) {
        pending = compareCommits(octokit, repo, baseSha, headSha, async (mergeBase, head) => ({
          base: await host.loadSnapshot(mergeBase),
          head: await host.loadSnapshot(head),
        }));
        comparisons.set(key, pending);
        pending.catch(() => comparisons.delete(key));
      }
      return pending;
    },

    async diff(baseSha: string, headSha: string): Promise<FilePatch[]> {
      return (await host.compare(baseSha, headSha)).patches;
    },

    async botLogin() {
      const login = options.botLogin;
      return typeof login === "string" ? login : await login?.get();
    },
  };
  return host;
}

/**
 * A PR without its review check must not look mergeable: convert it to draft (GraphQL `convertPullRequestToDraft`;
 * skipped when it is a draft already) and put {@link reviewMissingWarning} at the top of its body (`PATCH pulls/{n}`;
 * the run record stays the first record of the body). Best effort: returns what could not be done, one line.
 */
async function warnReviewMissing(
  octokit: Octokit,
  repo: RepoRef,
  pr: OpenPullRequest,
  reason: string,
): Promise<string | undefined> {
  const failed: string[] = [];
  if (!pr.draft) {
    try {
      await octokit.graphql(
        "mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) { pullRequest { isDraft } } }",
        { id: pr.nodeId },
      );
    } catch (error) {
      failed.push(`could not convert the pull request to draft (${describeError(error)})`);
    }
  }
  if (!pr.body.includes(REVIEW_MISSING_MARKER)) {
    try {
      const body = capText(`${reviewMissingWarning(reason)}\n\n${pr.body}`, GITHUB_BODY_LIMIT);
      await octokit.rest.pulls.update({ owner: repo.owner, repo: repo.name, pull_number: pr.number, body });
    } catch (error) {
      failed.push(`could not add the warning to the pull request body (${describeError(error)})`);
    }
  }
  return failed.length ? failed.join("; ") : undefined;
}

/** Marks the PR-body warning that the review check is missing (not repeated when it is already there). */
const REVIEW_MISSING_MARKER = "<!-- groundfix:review-missing -->";

/** The warning put at the top of a PR body when its `groundfix/review` check could not be created. */
function reviewMissingWarning(reason: string): string {
  return [
    REVIEW_MISSING_MARKER,
    "> [!WARNING]",
    `> **Do not merge this pull request yet.** The \`groundfix/review\` check ` +
      `could not be created (${oneLine(reason, 300).replace(/</g, "&lt;")}).`,
    "> It must not be merged until `groundfix/review` has run: push to the branch, " +
      "re-run the checks, or comment `/groundfix retry` on the issue to have it reviewed.",
  ].join("\n");
}
