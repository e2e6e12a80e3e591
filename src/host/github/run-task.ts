import { randomUUID } from "node:crypto";
import { createModel, runAgent, type RunResult } from "../../agent/index.js";
import { selectModelSpec, type OperatorEnv } from "../../config/env.js";
import { ConfigError, type GroundfixConfig } from "../../config/schema.js";
import type { RunRequest } from "../../events/types.js";
import type { Task } from "../../types.js";
import { createGitHubHost } from "./host.js";
import { httpStatus, type Octokit } from "./octokit.js";
import type { BranchCommit } from "./commit.js";
import { capText, escapeUntrusted, GITHUB_BODY_LIMIT } from "./markdown.js";
import { deliverPullRequest, type DeliveryProgress, type HeldBranch } from "./pull-request.js";
import { renderStatusComment, STATUS_MARKER } from "./render.js";
import type { Delay } from "./retry.js";
import type { ReviewClaims } from "./review-claims.js";
import { upsertStatusComment, type StatusCommentIds, type StatusCommentOptions } from "./status-comment.js";

/** Logger subset (Probot's pino logger fits). */
export interface RunLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Everything one queued run needs; nothing here refers to the webhook handler, which has already returned. */
export interface RunTaskInput {
  octokit: Octokit;
  log: RunLogger;
  request: RunRequest;
  config: GroundfixConfig;
  operator: OperatorEnv;
  /** Where model keys and base URLs are read (default `process.env`). */
  env?: NodeJS.ProcessEnv;
  /** The default branch from the webhook payload (saves `GET /repos/{o}/{r}`); asked from GitHub when absent. */
  baseBranch?: string;
  /** Id of this run (PR record, check-run external_id); default a random UUID. */
  runId?: string;
  /** The app's bot login (`<slug>[bot]`, from `GET /app` once per process); undefined when it could not be read. */
  botLogin?: () => Promise<string | undefined>;
  /** The wait before the one retry of a status-comment or check-run write on 5xx/429 (tests: instant). */
  delay?: Delay;
  /** The process's review claims (the delivered head SHA is claimed; see {@link deliverPullRequest}). */
  claimReview: ReviewClaims;
  /** The process's status-comment ids, so each stage edits the comment without listing again. */
  commentIds: StatusCommentIds;
}

/** How a run ended, for logs and tests. */
export interface RunTaskSummary {
  status: "pull_request" | "held" | "comment" | "refused" | "error";
  outcome?: RunResult["outcome"];
  baseSha?: string;
  pullRequest?: { number: number; url: string; reused: boolean };
  error?: string;
}

/**
 * The queued job of one trigger (issue #5, "A run"):
 * 1. status comment "starting" (when the request has a status issue: one comment, edited in place at each stage);
 * 2. the model spec: the operator's, or the repository's `model:` only if the operator allowed it (else refused);
 * 3. pin the base ONCE (`resolveBase(default branch)`: one `GET branches/{b}`) and load its snapshot (one tarball);
 * 4. `runAgent` (for `approve`, the pull-request threshold is lowered to the comment threshold; gates unchanged);
 * 5. `pr_ready` → {@link deliverPullRequest} on `<prefix><branchSuffix>` (`force` for `retry`), which reuses a branch
 *    only when it already holds exactly this commit, leaves a branch with other commits alone (`held`: the comment
 *    names them and says `/groundfix retry` replaces it), and always tries the review check; other outcomes → the
 *    grounded diagnosis or what is missing.
 * Any error (GitHub 5xx, rate limit 403/429, a model that cannot be created) ends with a status comment that says
 * what failed and what was already written (a pushed branch, an opened PR) — "nothing was pushed" only when so.
 * Status-comment writes are retried once on 5xx/429. Requests without a status issue (code-scanning alerts,
 * dispatch without issue_number) are logged only.
 *
 * Never throws for run trouble; it returns a summary. It throws only if posting the failure comment itself fails.
 */
export async function runTask(input: RunTaskInput): Promise<RunTaskSummary> {
  const { octokit, log, request, config } = input;
  const repo = request.task.repo;
  const runId = input.runId ?? randomUUID();
  const status = statusWriter(input);
  const progress: DeliveryProgress = {};
  let baseSha: string | undefined;
  try {
    await status({ stage: "starting", detail: modeDetail(request) });
    const spec = selectModelSpec(input.operator, config);
    if (!spec.ok) {
      await status({ stage: "refused", detail: spec.message }, true);
      return { status: "refused", error: spec.message };
    }
    const model = createModel(spec.spec, { env: input.env ?? process.env });

    const host = createGitHubHost(octokit, repo);
    const base = await host.resolveBase(input.baseBranch);
    baseSha = base.sha;
    await status({ stage: "loading the repository", detail: `snapshot of ${base.ref} at ${base.sha.slice(0, 12)}` });
    const snapshot = await host.loadSnapshot(base.sha);
    const task: Task = { ...request.task, baseSha: base.sha };

    await status({ stage: "investigating", detail: `model ${model.spec}, reading code at ${base.sha.slice(0, 12)}` });
    const runConfig = request.mode === "approve" ? approvedConfig(config) : config;
    const result = await runAgent({ task, snapshot, model, config: runConfig });
    log.info({ key: task.key, outcome: result.outcome, usage: result.usage }, "groundfix run finished");

    const site = { task, result, baseSha: base.sha, owner: repo.owner, repo: repo.name };
    if (result.outcome !== "pr_ready") {
      const note = request.mode === "approve" ? "approved, but the rerun has no applicable edit at or above the comment threshold, so there is nothing to open" : undefined;
      await status(renderStatusComment({ ...site, ...(note ? { note } : {}) }));
      return { status: "comment", outcome: result.outcome, baseSha: base.sha };
    }

    const branch = `${config.pull_request.branch_prefix}${request.branchSuffix}`;
    await status({ stage: "delivering", detail: `committing ${result.files.length} file(s) on ${branch}` });
    const botLogin = await input.botLogin?.();
    const delivery = await deliverPullRequest(octokit, {
      owner: repo.owner,
      repo: repo.name,
      task,
      result,
      baseSha: base.sha,
      baseBranch: base.ref,
      branch,
      config,
      force: request.mode === "retry",
      runId,
      progress,
      claimReview: input.claimReview,
      ...(botLogin ? { botLogin } : {}),
      ...(input.delay ? { delay: input.delay } : {}),
    });
    if (delivery.status === "held") {
      await status(renderStatusComment({ ...site, note: heldNote(delivery) }));
      log.warn({ key: task.key, branch, head: delivery.headSha }, "branch holds commits groundfix did not write; nothing pushed");
      return { status: "held", outcome: result.outcome, baseSha: base.sha };
    }
    const pullRequest = { number: delivery.number, url: delivery.url, reused: delivery.status === "existing" };
    const notes = [delivery.replaced ? replacedNote(branch, delivery.replaced) : "", delivery.reviewStage && delivery.reviewStage !== "create" ? reviewNote(delivery) : ""];
    const note = notes.filter(Boolean).join("\n\n");
    let body = renderStatusComment({ ...site, pullRequest, ...(note ? { note } : {}) });
    if (delivery.reviewStage === "create") body = withTopWarning(body, reviewNote(delivery));
    await status(body);
    log.info({ key: task.key, pullRequest }, delivery.status === "opened" ? "opened pull request" : "pointed at existing pull request");
    return { status: "pull_request", outcome: result.outcome, baseSha: base.sha, pullRequest };
  } catch (error) {
    const what = describeFailure(error);
    log.error({ err: error, key: request.task.key }, `groundfix run failed: ${what}`);
    await status(`${STATUS_MARKER}\n**groundfix** failed: ${escapeUntrusted(what)}.\n\n${writtenSoFar(progress)}`, true);
    return { status: "error", error: what, ...(baseSha ? { baseSha } : {}) };
  }
}

/** What a failed run had already written, for its failure comment (one line). */
function writtenSoFar(progress: DeliveryProgress): string {
  if (progress.pullRequest) {
    return `Pull request #${progress.pullRequest.number} (${progress.pullRequest.url}) was already opened or updated${progress.pushed ? ` with commit ${progress.pushed.headSha.slice(0, 12)}` : ""}; look there, or comment \`/groundfix retry\` to run again.`;
  }
  if (progress.pushed) {
    return `Branch \`${progress.pushed.branch}\` was already moved to commit ${progress.pushed.headSha.slice(0, 12)}, but no pull request was opened for it; comment \`/groundfix retry\` to run again.`;
  }
  return "Nothing was pushed; comment `/groundfix retry` to run again.";
}

/** `abc1234` by `login`, … (at most 10 named). Backticks keep a login from pinging anyone. */
function commitList(commits: BranchCommit[]): string {
  const named = commits.slice(0, 10).map((c) => `\`${c.sha.slice(0, 7)}\` by \`${c.author.replace(/`/g, "")}\``);
  return named.join(", ") + (commits.length > 10 ? ` and ${commits.length - 10} more` : "");
}

/** Why a held branch got no commit and no PR, and how to proceed (one line). */
function heldNote(held: HeldBranch): string {
  const foreign = held.commits.filter((c) => !c.ours);
  const what = foreign.length
    ? `the branch \`${held.branch}\` already holds commits groundfix did not make: ${commitList(foreign)}`
    : `the branch \`${held.branch}\` already holds an earlier groundfix commit made on another base or with other edits: ${commitList(held.commits)}`;
  const pr = held.pullRequest ? ` Its open pull request #${held.pullRequest.number} (${held.pullRequest.url}) was left as it is.` : "";
  return `${what}. Nothing was written to it and no pull request was opened.${pr} Comment \`/groundfix retry\` to replace the branch with this run's commit (the commits listed are dropped from it), or delete the branch and run again.`;
}

/** What `/groundfix retry` dropped when it replaced a branch. */
function replacedNote(branch: string, replaced: { was: string; commits: BranchCommit[] }): string {
  const foreign = replaced.commits.filter((c) => !c.ours);
  const who = foreign.length ? ` including commits groundfix did not make` : "";
  return `\`/groundfix retry\` replaced the branch \`${branch}\` (was ${replaced.was}), dropping ${commitList(replaced.commits)}${who}. GitHub keeps no reflog for it: the pull request timeline shows the force-push.`;
}

/** The reader-facing line for a review check that could not be written. */
function reviewNote(delivery: { reviewStage?: string; reviewError?: string; warningError?: string }): string {
  const why = delivery.reviewError ?? "unknown error";
  if (delivery.reviewStage === "conclude") {
    return `The \`groundfix/review\` check run was created but could not be concluded (${why}); it stays in progress. Re-run it from the pull request's Checks tab.`;
  }
  if (delivery.reviewStage === "annotations") {
    return `The \`groundfix/review\` check run was concluded, but some of its annotations could not be sent (${why}). Re-run it to see them all.`;
  }
  const warned = delivery.warningError ? ` (${delivery.warningError})` : "";
  return `**Warning: do not merge the pull request yet.** The \`groundfix/review\` check could not be created (${why}). The pull request was kept as a draft with this warning at the top of its body${warned}; it must not be merged until \`groundfix/review\` has run: push to the branch, re-run the checks, or comment \`/groundfix retry\`.`;
}

/** `body` with `warning` as its first visible line (right after the status marker), capped to GitHub's limit. */
function withTopWarning(body: string, warning: string): string {
  const rest = body.startsWith(STATUS_MARKER) ? body.slice(STATUS_MARKER.length) : `\n${body}`;
  return capText(`${STATUS_MARKER}\n> [!WARNING]\n> ${warning}\n${rest}`, GITHUB_BODY_LIMIT);
}

/**
 * Post the status comment of a request whose repository config is invalid (quoting each bad key), or log it when
 * the request has no status issue. Costs one list and one create/update of comments.
 */
export async function reportConfigError(
  octokit: Octokit,
  log: RunLogger,
  request: RunRequest,
  error: ConfigError,
  options: StatusCommentOptions = {},
): Promise<void> {
  log.warn({ key: request.task.key, issues: error.issues }, "invalid .github/groundfix.yml");
  if (request.statusIssue === null) return;
  const body = [
    STATUS_MARKER,
    "**groundfix** did not run: `.github/groundfix.yml` is invalid.",
    "",
    ...error.issues.map((issue) => `- \`${issue.replace(/`/g, "'")}\``),
    "",
    "Fix the file on the default branch, then comment `/groundfix retry`.",
  ].join("\n");
  await upsertStatusComment(octokit, { owner: request.task.repo.owner, repo: request.task.repo.name, issueNumber: request.statusIssue, body }, options);
}

/**
 * Post the one status comment of a trigger that could not be checked because a lookup failed (GitHub 5xx/429):
 * `config` — `.github/groundfix.yml` could not be read, so groundfix did not run; `permission` — the sender's
 * permission could not be read, so it is unknown whether they may trigger: the comment is neutral (it says the
 * trigger could not be checked, not that it was accepted) and nothing runs. Logs only without a status issue.
 */
export async function reportLookupFailure(
  octokit: Octokit,
  log: RunLogger,
  request: RunRequest,
  lookup: "config" | "permission",
  error: unknown,
  options: StatusCommentOptions = {},
): Promise<void> {
  const what = describeFailure(error);
  log.warn({ key: request.task.key, lookup, err: error }, `groundfix: could not read the ${lookup}: ${what}`);
  if (request.statusIssue === null) return;
  const body =
    lookup === "config"
      ? `${STATUS_MARKER}\n**groundfix** did not run: it could not read \`.github/groundfix.yml\` (${escapeUntrusted(what)}). Comment \`/groundfix retry\` to try again.`
      : `${STATUS_MARKER}\n**groundfix** could not check this trigger: reading the sender's permission on the repository failed (${escapeUntrusted(what)}), so nothing ran. Someone allowed to trigger groundfix can comment \`/groundfix retry\`.`;
  await upsertStatusComment(octokit, { owner: request.task.repo.owner, repo: request.task.repo.name, issueNumber: request.statusIssue, body }, options);
}

/**
 * One line that says what failed, never a stack trace: a rate limit (403 with `x-ratelimit-remaining: 0` or a
 * "secondary rate limit" message, or 429), a GitHub server error (5xx) with the request that failed, a config
 * error with its keys, else the error's first line.
 */
export function describeFailure(error: unknown): string {
  if (error instanceof ConfigError) return `invalid ${error.source}: ${error.issues.join("; ")}`;
  const status = httpStatus(error);
  const message = firstLine(error instanceof Error ? error.message : String(error));
  if (status === undefined) return message;
  const req = (error as { request?: { method?: string; url?: string } }).request;
  const where = req?.method && req.url ? ` on ${req.method} ${new URL(req.url, "https://api.github.com").pathname}` : "";
  const headers = (error as { response?: { headers?: Record<string, string | undefined> } }).response?.headers ?? {};
  const limited = status === 429 || (status === 403 && (headers["x-ratelimit-remaining"] === "0" || /rate limit/i.test(message)));
  if (limited) {
    const retry = headers["retry-after"] ? ` (retry after ${headers["retry-after"]} s)` : "";
    return `GitHub rate limit (HTTP ${status})${where}${retry}`;
  }
  if (status >= 500) return `GitHub server error (HTTP ${status})${where}`;
  return `GitHub answered HTTP ${status}${where}: ${message}`;
}

/** The config for an approved rerun: the pull-request threshold drops to the comment threshold; nothing else changes. */
function approvedConfig(config: GroundfixConfig): GroundfixConfig {
  return { ...config, thresholds: { ...config.thresholds, pull_request: config.thresholds.comment } };
}

function modeDetail(request: RunRequest): string {
  if (request.mode === "retry") return "rerun requested with /groundfix retry";
  if (request.mode === "approve") return "rerun approved with /groundfix approve (pull-request threshold waived, verification kept)";
  return `task from ${request.task.source.replace("_", " ")}`;
}

/**
 * A writer for the request's status comment: a stage object is rendered by E2's `renderStatusComment`, a string
 * is posted as is. Without a status issue it only logs. Progress updates that fail are logged and ignored
 * (`final` ones propagate: the run must not end silently).
 */
function statusWriter(input: RunTaskInput): (body: string | { stage: string; detail?: string }, final?: boolean) => Promise<void> {
  const { octokit, log, request } = input;
  return async (body, final = false) => {
    const text = typeof body === "string" ? body : renderStatusComment(body);
    if (request.statusIssue === null) {
      log.info({ key: request.task.key, status: typeof body === "string" ? "outcome" : body.stage }, "groundfix status (no issue to comment on)");
      return;
    }
    try {
      await upsertStatusComment(octokit, { owner: request.task.repo.owner, repo: request.task.repo.name, issueNumber: request.statusIssue, body: text }, await commentOptions(input));
    } catch (error) {
      if (final || typeof body === "string") throw error;
      log.warn({ err: error, key: request.task.key }, "could not update the status comment");
    }
  };
}

/**
 * The status-comment options of a run: the app's login (so only its own comment is edited), the retry wait and the
 * process's remembered comment ids.
 */
export async function commentOptions(input: { botLogin?: () => Promise<string | undefined>; delay?: Delay; commentIds?: StatusCommentIds }): Promise<StatusCommentOptions> {
  const botLogin = await input.botLogin?.();
  return { ...(botLogin ? { botLogin } : {}), ...(input.delay ? { delay: input.delay } : {}), ...(input.commentIds ? { commentIds: input.commentIds } : {}) };
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").trim();
}
