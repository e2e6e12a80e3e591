import { randomUUID } from "node:crypto";
import { createModel, runAgent, type RunResult } from "../../agent/index.js";
import { selectModelSpec, type OperatorEnv } from "../../config/env.js";
import { ConfigError, type GroundfixConfig } from "../../config/schema.js";
import type { RunRequest } from "../../events/types.js";
import type { Task } from "../../types.js";
import { createGitHubHost } from "./host.js";
import { httpStatus, type Octokit } from "./octokit.js";
import { deliverPullRequest } from "./pull-request.js";
import { renderStatusComment } from "./render.js";
import { upsertStatusComment } from "./status-comment.js";

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
}

/** How a run ended, for logs and tests. */
export interface RunTaskSummary {
  status: "pull_request" | "comment" | "refused" | "error";
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
 * 5. `pr_ready` → {@link deliverPullRequest} on `<prefix><branchSuffix>` (`force` for `retry`), which reuses an
 *    existing branch/PR and always runs the review check; other outcomes → the grounded diagnosis or what is missing.
 * Any error (GitHub 5xx, rate limit 403/429, a model that cannot be created) ends with a status comment that says
 * what failed and that nothing was pushed (the delivery deletes a branch it created before failing).
 * Requests without a status issue (code-scanning alerts, dispatch without issue_number) are logged only.
 *
 * Never throws for run trouble; it returns a summary. It throws only if posting the failure comment itself fails.
 */
export async function runTask(input: RunTaskInput): Promise<RunTaskSummary> {
  const { octokit, log, request, config } = input;
  const repo = request.task.repo;
  const runId = input.runId ?? randomUUID();
  const status = statusWriter(input);
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

    await status({ stage: "delivering", detail: `committing ${result.files.length} file(s) on ${config.pull_request.branch_prefix}${request.branchSuffix}` });
    const delivery = await deliverPullRequest(octokit, {
      owner: repo.owner,
      repo: repo.name,
      task,
      result,
      baseSha: base.sha,
      baseBranch: base.ref,
      branch: `${config.pull_request.branch_prefix}${request.branchSuffix}`,
      config,
      force: request.mode === "retry",
      runId,
    });
    const pullRequest = { number: delivery.number, url: delivery.url, reused: delivery.status === "existing" };
    const note = delivery.reviewError ? `The groundfix/review check could not be created: ${delivery.reviewError}` : undefined;
    await status(renderStatusComment({ ...site, pullRequest, ...(note ? { note } : {}) }));
    log.info({ key: task.key, pullRequest }, delivery.status === "opened" ? "opened pull request" : "pointed at existing pull request");
    return { status: "pull_request", outcome: result.outcome, baseSha: base.sha, pullRequest };
  } catch (error) {
    const what = describeFailure(error);
    log.error({ err: error, key: request.task.key }, `groundfix run failed: ${what}`);
    await status({ stage: "failed", detail: `${what}. Nothing was pushed; comment \`/groundfix retry\` to run again.` }, true);
    return { status: "error", error: what, ...(baseSha ? { baseSha } : {}) };
  }
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
): Promise<void> {
  log.warn({ key: request.task.key, issues: error.issues }, "invalid .github/groundfix.yml");
  if (request.statusIssue === null) return;
  const body = [
    "<!-- groundfix:status -->",
    "**groundfix** did not run: `.github/groundfix.yml` is invalid.",
    "",
    ...error.issues.map((issue) => `- \`${issue.replace(/`/g, "'")}\``),
    "",
    "Fix the file on the default branch, then comment `/groundfix retry`.",
  ].join("\n");
  await upsertStatusComment(octokit, { owner: request.task.repo.owner, repo: request.task.repo.name, issueNumber: request.statusIssue, body });
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
      await upsertStatusComment(octokit, { owner: request.task.repo.owner, repo: request.task.repo.name, issueNumber: request.statusIssue, body: text });
    } catch (error) {
      if (final || typeof body === "string") throw error;
      log.warn({ err: error, key: request.task.key }, "could not update the status comment");
    }
  };
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").trim();
}
