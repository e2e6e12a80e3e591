import type { ApplicationFunction, Context, Probot } from "probot";
import { loadOperatorEnv } from "./config/env.js";
import { loadRepoConfig, RepoConfigError } from "./config/load.js";
import { defaultConfig, type GroundfixConfig } from "./config/schema.js";
import { requestFromCodeScanningAlert } from "./events/code-scanning.js";
import { requestFromCommand } from "./events/command.js";
import { requestFromDispatch } from "./events/dispatch.js";
import { labeledIssuePrecheck, requestFromLabeledIssue } from "./events/issue.js";
import { mayTrigger } from "./events/permission.js";
import { reviewRequestFromEvent } from "./events/review-trigger.js";
import type { Decision, RunRequest } from "./events/types.js";
import { reviewPullRequest } from "./host/github/review-handler.js";
import type { Delay } from "./host/github/retry.js";
import { commentOptions, reportConfigError, reportLookupFailure, runTask } from "./host/github/run-task.js";
import { createQueue, type TaskQueue } from "./queue/index.js";

/** Options of {@link createApp}; every one has a production default. */
export interface AppOptions {
  /** The run queue (tests pass their own to await `queue.idle()`); default: concurrency GROUNDFIX_CONCURRENCY. */
  queue?: TaskQueue;
  /** Where GROUNDFIX_* and model keys are read (default `process.env`, read when the app is loaded). */
  env?: NodeJS.ProcessEnv;
  /** The wait before the one retry of a status-comment or check-run write on 5xx/429 (tests pass an instant one). */
  delay?: Delay;
}

type AnyContext = Context<"issues.labeled" | "issue_comment.created" | "code_scanning_alert" | "repository_dispatch">;

/** Issues whose refused command got a reply in this process (a stranger cannot make the app comment without limit). */
const REPLIED_LIMIT = 5000;

/**
 * The groundfix Probot app. Each handler is thin: decide (pure functions of `events/`), check the sender, add an
 * `eyes` reaction, enqueue `runTask` and return without awaiting the run (GitHub waits 10 s for the answer).
 * A delivery id already seen (a manual redelivery carries the same `X-GitHub-Delivery`) is dropped before any call,
 * also while its first copy is still being handled. A payload without the `issue` or `sender` its event needs is
 * dropped with a log line. A config or permission lookup that fails (GitHub 5xx/429) never throws out of a handler:
 * the trigger gets one status comment that says which lookup failed (nothing runs). Bots never get a reply; a
 * refused human gets at most one reply per issue per process.
 */
export function createApp(options: AppOptions = {}): ApplicationFunction {
  return (app: Probot) => {
    const env = options.env ?? process.env;
    const operator = loadOperatorEnv(env);
    const queue = options.queue ?? createQueue({ concurrency: operator.concurrency, log: app.log });
    const replied = new Set<string>();
    let login: Promise<string | undefined> | undefined;

    /**
     * The app's own bot login, `<slug>[bot]`, from `GET /app` (the app's JWT octokit), asked once per process; a
     * failed lookup is not cached (undefined now, asked again next time), so no other bot's comment is ever edited.
     */
    const botLogin = (): Promise<string | undefined> => {
      login ??= app
        .auth()
        .then((octokit) => octokit.rest.apps.getAuthenticated())
        .then(({ data }) => (data?.slug ? `${data.slug}[bot]` : undefined))
        .catch((error: unknown) => {
          app.log.warn({ err: error }, "groundfix: could not read the app's slug (GET /app)");
          login = undefined;
          return undefined;
        });
      return login;
    };
    const run = { botLogin, ...(options.delay ? { delay: options.delay } : {}) };

    /** Config; when it is invalid, the error (with the still-valid trigger keys); when unreadable, the failure. */
    async function configOf(context: AnyContext): Promise<{ config: GroundfixConfig; error?: RepoConfigError; unreadable?: unknown }> {
      try {
        return { config: await loadRepoConfig(context) };
      } catch (error) {
        if (error instanceof RepoConfigError) return { config: error.fallback, error };
        context.log.warn({ id: context.id, err: error }, "groundfix: could not read .github/groundfix.yml; deciding with the defaults");
        return { config: defaultConfig(), unreadable: error };
      }
    }

    /** Post the one reply a refused command gets on an issue in this process (never to a bot). */
    async function replyOnce(context: AnyContext, key: string, reply: (text: string) => Promise<unknown>, text: string): Promise<void> {
      if (replied.has(key)) return void context.log.info({ id: context.id, key }, "groundfix: refused command already answered on this issue");
      replied.add(key);
      if (replied.size > REPLIED_LIMIT) replied.delete(replied.values().next().value!);
      await reply(text).catch((e: unknown) => context.log.warn({ err: e }, "could not reply to a refused command"));
    }

    /** Permission check, reaction, enqueue. `reply` answers a refused command; triggers are refused silently. */
    async function accept(
      context: AnyContext,
      decision: Decision,
      found: { config: GroundfixConfig; error?: RepoConfigError; unreadable?: unknown },
      react?: () => Promise<unknown>,
      reply?: (text: string) => Promise<unknown>,
    ): Promise<void> {
      if ("skip" in decision) return void context.log.info({ id: context.id, reason: decision.skip }, "groundfix: not a trigger");
      const request: RunRequest = decision.run;
      const { config, error, unreadable } = found;
      const octokit = context.octokit;
      const log = context.log;
      if (context.name !== "code_scanning_alert") {
        const sender = context.payload.sender as { login?: string; type?: string } | undefined;
        if (!sender?.login) return void log.warn({ id: context.id, key: request.task.key }, "groundfix: payload without a sender; dropped");
        let verdict: Awaited<ReturnType<typeof mayTrigger>>;
        try {
          verdict = await mayTrigger(octokit, request.task.repo, { login: sender.login, type: sender.type ?? "User" }, config);
        } catch (failure) {
          // Unknown whether the sender may trigger: a neutral comment, no reaction, no run.
          queue.enqueue({ key: request.task.key, run: async () => reportLookupFailure(octokit, log, request, "permission", failure, await commentOptions(run)) });
          return;
        }
        if (!verdict.allowed) {
          log.info({ id: context.id, key: request.task.key, reason: verdict.reason }, "groundfix: trigger refused");
          if (reply && sender.type !== "Bot") await replyOnce(context, request.task.key, reply, `groundfix: ${verdict.reason}, so this command was ignored.`);
          return;
        }
      }
      if (react) await react().catch((e: unknown) => log.warn({ err: e }, "could not add the eyes reaction"));
      const baseBranch = (context.payload.repository as { default_branch?: string }).default_branch;
      const result = queue.enqueue({
        key: request.task.key,
        rerun: request.mode !== "run",
        run: async () => {
          if (unreadable) await reportLookupFailure(octokit, log, request, "config", unreadable, await commentOptions(run));
          else if (error) await reportConfigError(octokit, log, request, error, await commentOptions(run));
          else await runTask({ octokit, log, request, config, operator, env, ...run, ...(baseBranch ? { baseBranch } : {}) });
        },
      });
      log.info({ id: context.id, key: request.task.key, queue: result }, "groundfix: enqueued");
    }

    /** A payload without what its event needs: logged and dropped (never a TypeError, never a half-built call). */
    function malformed(context: { id: string; log: AnyContext["log"]; payload: unknown }, needs: ("issue" | "sender" | "comment")[]): boolean {
      const payload = (context.payload ?? {}) as Record<string, unknown>;
      const missing = ["repository", ...needs].filter((key) => !payload[key] || typeof payload[key] !== "object");
      if (missing.length) context.log.warn({ id: context.id, missing }, "groundfix: malformed payload dropped");
      return missing.length > 0;
    }

    app.on("issues.labeled", async (context) => {
      if (!queue.claim(context.id) || malformed(context, ["issue", "sender"]) || labeledIssuePrecheck(context.payload)) return;
      const found = await configOf(context);
      const react = () => context.octokit.rest.reactions.createForIssue(context.issue({ content: "eyes" as const }));
      await accept(context, requestFromLabeledIssue(context.payload, found.config), found, react);
    });

    app.on("issue_comment.created", async (context) => {
      if (!queue.claim(context.id) || malformed(context, ["issue", "sender", "comment"])) return;
      const command = requestFromCommand(context.payload);
      if (!command) return;
      const found = await configOf(context);
      const react = () => context.octokit.rest.reactions.createForIssueComment(context.repo({ comment_id: context.payload.comment.id, content: "eyes" as const }));
      const reply = (text: string) => context.octokit.rest.issues.createComment(context.issue({ body: text }));
      await accept(context, { run: command.request }, found, react, reply);
    });

    app.on(["code_scanning_alert.created", "code_scanning_alert.appeared_in_branch", "code_scanning_alert.reopened"], async (context) => {
      if (!queue.claim(context.id) || malformed(context, [])) return;
      const found = await configOf(context);
      if (found.error) return void context.log.warn({ issues: found.error.issues }, "groundfix: invalid .github/groundfix.yml; code-scanning alert ignored");
      if (found.unreadable) return void context.log.warn({ id: context.id }, "groundfix: .github/groundfix.yml unreadable; code-scanning alert ignored (opt-in unknown)");
      await accept(context, requestFromCodeScanningAlert(context.payload, found.config), found);
    });

    app.on("repository_dispatch", async (context) => {
      if (!queue.claim(context.id) || malformed(context, ["sender"])) return;
      const found = await configOf(context);
      await accept(context, requestFromDispatch(context.payload, found.config), found);
    });

    app.on(
      ["pull_request.opened", "pull_request.reopened", "pull_request.synchronize", "check_run.rerequested", "check_suite.requested", "check_suite.rerequested"],
      async (context) => {
        if (!queue.claim(context.id) || !reviewRequestFromEvent(context.name, context.payload, "")) return;
        const config = await loadRepoConfig(context).catch((e: unknown) => (e instanceof RepoConfigError ? e.fallback : Promise.reject(e)));
        const review = reviewRequestFromEvent(context.name, context.payload, config.pull_request.branch_prefix);
        if (!review) return;
        const octokit = context.octokit;
        const log = context.log;
        queue.enqueue({
          key: `${review.owner}/${review.repo}#review-${review.prNumber}@${review.headSha}`,
          run: async () => {
            const done = await reviewPullRequest(octokit, review, config, prBodyOf(context.payload), options.delay);
            log.info({ pr: review.prNumber, status: done.status }, "groundfix review job finished");
          },
        });
      },
    );
  };
}

/** The default app: `probot run ./dist/index.js` loads this (queue and operator env from `process.env`). */
const groundfix: ApplicationFunction = (app, options) => createApp()(app, options);
export default groundfix;

/** The PR body of a `pull_request` payload, or undefined for check_run/check_suite (the job then asks GitHub). */
function prBodyOf(payload: unknown): string | null | undefined {
  const pr = (payload as { pull_request?: { body?: string | null } }).pull_request;
  return pr ? (pr.body ?? null) : undefined;
}
