import { randomUUID } from "node:crypto";
import { Context } from "probot";
import { createModel } from "../../agent/index.js";
import { selectModelSpec, type OperatorEnv } from "../../config/env.js";
import type { GroundfixConfig } from "../../config/schema.js";
import { lookupConfig } from "../../events/config-lookup.js";
import type { ReviewEvent } from "../../events/review-trigger.js";
import type { RunRequest } from "../../events/types.js";
import { runPipeline } from "../../pipeline/run.js";
import type { RunReport } from "../../pipeline/types.js";
import type { Attempt, GaveUp, JobData, JobProcessor } from "../../queue/types.js";
import { createGitHubHost, type HostLogger } from "./host.js";
import { asTokenError, isTokenFailure } from "./installation.js";
import { escapeUntrusted } from "./markdown.js";
import { describeFailure, httpStatus, type Octokit } from "./octokit.js";
import { STATUS_MARKER } from "./render.js";
import { issueBullets } from "./status.js";
import type { ReviewClaims } from "./review-claims.js";
import { isArchivedRefusal, repositoryStateBody, type RepositoryState } from "./repository-state.js";
import { reviewOnEvent } from "./review-handler.js";
import { concludeStaleChecks } from "./review-check.js";
import { upsertStatusComment, type BotLogin, type StatusCommentIds } from "./status-comment.js";

/**
 * The JSON payload of a `run` job: the request with the config it was decided with, or a status comment to post
 * instead of a run (`.github/groundfix.yml` invalid, or a lookup failed), each message already one line.
 */
export type RunJobPayload =
  | { type: "run"; request: RunRequest; config: GroundfixConfig; baseBranch?: string }
  | { type: "config_error"; request: RunRequest; issues: string[] }
  | { type: "lookup_failure"; request: RunRequest; lookup: "config" | "permission"; message: string }
  | { type: "repository_state"; request: RunRequest; state: RepositoryState };

/** The JSON payload of a `review` job: the parsed review webhook (decided in the job, with the config). */
export interface ReviewJobPayload {
  event: ReviewEvent;
}

/** What the job processor shares across jobs of one process. */
export interface JobDeps {
  /**
   * An installation Octokit (Probot's `app.auth(installationId)`) with its token, its requests bound to `signal`
   * (`installation.ts`).
   */
  auth(installationId: number, signal?: AbortSignal): Promise<Octokit>;
  log: HostLogger;
  operator: OperatorEnv;
  /** Where model keys and base URLs are read. */
  env: NodeJS.ProcessEnv;
  /** The app's bot login (`<slug>[bot]`), looked up (`GET /app`) at most once per process and only when needed. */
  botLogin: BotLogin;
  claimReview: ReviewClaims;
  commentIds: StatusCommentIds;
}

/**
 * The worker side of the App: turn one {@link JobData} into its work with a fresh installation Octokit and ONE
 * GitHub host per job. `run` jobs run the pipeline (`pipeline/run.ts`) or post the status comment their trigger
 * asked for; `review` jobs review a pull request head (`review-handler.ts`). A run never throws for run trouble (it
 * ends with a status comment); the processor throws only when that comment itself cannot be posted. An archived
 * repository refuses every write: such a job posts nothing and ends without throwing (no retry can help).
 */
export function createJobProcessor(deps: JobDeps): JobProcessor {
  return async (job: JobData, attempt: Attempt = { number: 1, final: true }) => {
    const octokit = await deps.auth(job.installationId, attempt.signal);
    if (job.kind === "review") {
      const { event } = job.payload as ReviewJobPayload;
      // Probot's own `context.config` (repository, then the owner's `.github` repository, `_extends`), outside a
      // webhook.
      const payload = { repository: { owner: { login: event.owner }, name: event.repo } };
      const context = new Context(
        { id: job.deliveryId ?? job.key, name: "pull_request", payload } as never,
        octokit,
        deps.log as never,
      );
      await reviewOnEvent({
        octokit,
        log: deps.log,
        event,
        config: () =>
          lookupConfig(context, { is: isTokenFailure, toError: (e) => asTokenError(e, job.installationId) }),
        claimReview: deps.claimReview,
        botLogin: deps.botLogin,
        attempt,
      });
      return;
    }
    const data = job.payload as RunJobPayload;
    const botLogin = deps.botLogin;
    const host = createGitHubHost({
      octokit,
      repo: data.request.task.repo,
      log: deps.log,
      ...(data.type === "run" ? { config: data.config } : {}),
      botLogin,
      claimReview: deps.claimReview,
      commentIds: deps.commentIds,
    });
    if (data.type === "repository_state" && data.state === "archived") {
      // GitHub refuses every write to an archived repository, comments included: log it, post nothing, no retry.
      deps.log.warn({ key: data.request.task.key }, "groundfix: the repository is archived (read-only); not run");
      return;
    }
    if (data.type !== "run") {
      const body =
        data.type === "config_error"
          ? configErrorBody(data.issues)
          : data.type === "repository_state"
            ? repositoryStateBody(data.state)
            : lookupFailureBody(data.lookup, data.message);
      deps.log.warn({ key: data.request.task.key, type: data.type }, "groundfix: did not run");
      if (data.request.statusIssue === null) return;
      const options = { botLogin, commentIds: deps.commentIds };
      const target = { owner: host.repo.owner, repo: host.repo.name, issueNumber: data.request.statusIssue, body };
      await upsertStatusComment(octokit, target, options);
      return;
    }
    let report: RunReport;
    try {
      report = await runPipeline(host, {
        request: data.request,
        ...(data.baseBranch ? { baseRef: data.baseBranch } : {}),
        runId: randomUUID(),
        model(config) {
          const spec = selectModelSpec(deps.operator, config);
          return spec.ok ? createModel(spec.spec, { env: deps.env }) : { refused: spec.message };
        },
      });
    } catch (error) {
      // Archived after the webhook was sent: its final status cannot be posted either. A retry cannot help.
      if (!isArchivedRefusal(error)) throw error;
      deps.log.warn({ key: data.request.task.key }, "groundfix: the repository was archived during the run; stopped");
      return;
    }
    logReport(deps.log, report);
  };
}

/**
 * The final word on a `run` job whose last attempt threw (the queue retries no more; `JobQueue.process`'s
 * `gaveUp`): the status comment is edited to say the run stopped and why, and what exists of it — looked up, not
 * assumed: `GET git/ref` of the run's branch and `GET pulls?head=` for its open pull request (so it never says
 * "nothing was pushed" when something was) — and any `groundfix/review` check the attempts left in progress on the
 * branch head is cancelled (`concludeStaleChecks`). Other jobs are logged only.
 * @throws the `RequestError` of the comment write (the queue logs it).
 */
export function createGaveUp(deps: JobDeps): GaveUp {
  return async (job, error) => {
    const data = job.payload as RunJobPayload;
    deps.log.error({ err: error, key: job.key }, "groundfix: the job failed on its last attempt");
    if (job.kind !== "run" || data.type !== "run" || data.request.statusIssue === null) return;
    const octokit = await deps.auth(job.installationId);
    const { owner, name } = data.request.task.repo;
    const branch = `${data.config.pull_request.branch_prefix}${data.request.branchSuffix}`;
    let found: string;
    try {
      const head = await octokit.rest.git
        .getRef({ owner, repo: name, ref: `heads/${branch}` })
        .then(({ data: ref }) => ref.object.sha)
        .catch((e: unknown) => (httpStatus(e) === 404 ? null : Promise.reject(e)));
      const pr = head
        ? (await octokit.rest.pulls.list({ owner, repo: name, head: `${owner}:${branch}`, state: "open", per_page: 1 }))
            .data[0]
        : undefined;
      if (head) await concludeStaleChecks(octokit, { owner, repo: name, headSha: head }).catch(() => undefined);
      const at = head ? ` (commit ${head.slice(0, 12)})` : "";
      found = pr
        ? `Pull request #${pr.number} (${pr.html_url}) is open from \`${branch}\`${at}: ` +
          `make sure its \`groundfix/review\` check has run before merging it.`
        : head
          ? `Branch \`${branch}\` holds commit ${head.slice(0, 12)}, but no pull request is open from it.`
          : `There is no branch \`${branch}\`: nothing of this run is left in the repository.`;
    } catch (lookup) {
      found = `What it had written could not be checked (${escapeUntrusted(describeFailure(lookup))}).`;
    }
    const body =
      `${STATUS_MARKER}\n**groundfix** stopped: this run failed on its last attempt ` +
      `(${escapeUntrusted(describeFailure(error))}), so it is not retried again. ${found} Comment ` +
      `\`/groundfix retry\` to run again.`;
    const target = { owner, repo: name, issueNumber: data.request.statusIssue, body };
    await upsertStatusComment(octokit, target, { botLogin: deps.botLogin, commentIds: deps.commentIds });
  };
}

function logReport(log: HostLogger, report: RunReport): void {
  const key = report.request.task.key;
  if (report.status === "error") log.error({ err: report.error, key }, "groundfix run failed");
  else
    log.info(
      {
        key,
        status: report.status,
        outcome: report.result?.outcome,
        usage: report.result?.usage,
        pullRequest: report.pullRequest,
      },
      "groundfix run finished",
    );
}

/** The status comment of a request whose repository config is invalid, quoting each bad key. */
function configErrorBody(issues: readonly string[]): string {
  return [
    STATUS_MARKER,
    "**groundfix** did not run: `.github/groundfix.yml` is invalid.",
    "",
    issueBullets(issues),
    "",
    "Fix the file on the default branch, then comment `/groundfix retry`.",
  ].join("\n");
}

/**
 * The one status comment of a trigger that could not be checked because a lookup failed (GitHub 5xx/429):
 * `config` — `.github/groundfix.yml` could not be read, so groundfix did not run; `permission` — the sender's
 * permission could not be read, so it is unknown whether they may trigger: the comment is neutral (it says the
 * trigger could not be checked, not that it was accepted) and nothing runs.
 */
function lookupFailureBody(lookup: "config" | "permission", message: string): string {
  const what = escapeUntrusted(message);
  return lookup === "config"
    ? `${STATUS_MARKER}\n**groundfix** did not run: it could not read ` +
        `\`.github/groundfix.yml\` (${what}). Comment \`/groundfix retry\` to try again.`
    : `${STATUS_MARKER}\n**groundfix** could not check this trigger: reading ` +
        `the sender's permission on the repository failed (${what}), so nothing ` +
        `ran. Someone allowed to trigger groundfix can comment \`/groundfix retry\`.`;
}
