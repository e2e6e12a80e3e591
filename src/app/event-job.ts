/**
 * The worker side of an acknowledged webhook (`app/acknowledge.ts`): the `event` job rebuilds the Probot context
 * with a fresh installation Octokit, reads the repository config without throwing (`events/config-lookup.ts`),
 * decides with the pure functions of `events/`, then `host/github/accept.ts` checks the sender's permission, adds
 * the `eyes` reaction and enqueues the `run` job (keyed by the task, so N triggers of one issue run once).
 */
import { Context } from "probot";
import { requestFromCodeScanningAlert } from "../events/code-scanning.js";
import { requestFromCommand } from "../events/command.js";
import { lookupConfig as lookupRepoConfig } from "../events/config-lookup.js";
import { requestFromDispatch } from "../events/dispatch.js";
import { requestFromLabeledIssue } from "../events/issue.js";
import type { createAccept } from "../host/github/accept.js";
import type { HostLogger } from "../host/github/host.js";
import { asTokenError, isTokenFailure } from "../host/github/installation.js";
import type { Octokit } from "../host/github/octokit.js";
import type { Attempt, JobData } from "../queue/types.js";
import type { EventJobPayload } from "./acknowledge.js";

/** What {@link createEventJob} needs. */
export interface EventJobDeps {
  /** The installation client with its token, its requests bound to `signal` (`host/github/installation.ts`). */
  auth(installationId: number, signal?: AbortSignal): Promise<Octokit>;
  accept: ReturnType<typeof createAccept>;
  log: HostLogger;
}

/**
 * Run one `event` job (see the module comment); webhooks other than the run triggers are ignored.
 * @throws InstallationTokenError when no installation token can be had, also when that surfaces in the config
 *   lookup (the job fails as a whole, to be retried, instead of deciding with the defaults)
 */
export function createEventJob(deps: EventJobDeps): (job: JobData, attempt?: Attempt) => Promise<void> {
  const { accept } = deps;
  return async (job, attempt) => {
    const { name, payload } = job.payload as EventJobPayload;
    if (name === "issue_comment" && !requestFromCommand(payload as never)) return;
    const octokit = await deps.auth(job.installationId, attempt?.signal);
    const tokenFailure = { is: isTokenFailure, toError: (e: unknown) => asTokenError(e, job.installationId) };
    const lookupConfig = (c: Context<any>) => lookupRepoConfig(c, tokenFailure);
    const event = { id: job.deliveryId ?? job.key, name, payload } as never;
    const context = new Context(event, octokit as never, deps.log as never) as Context<any>;
    const p = context.payload;
    if (name === "issues") {
      const found = await lookupConfig(context);
      const react = () => context.octokit.rest.reactions.createForIssue(context.issue({ content: "eyes" as const }));
      await accept(context as never, requestFromLabeledIssue(p, found.config, found.error?.labels), found, { react });
    } else if (name === "issue_comment") {
      const command = requestFromCommand(p);
      if (!command) return;
      const found = await lookupConfig(context);
      const react = () =>
        context.octokit.rest.reactions.createForIssueComment(
          context.repo({ comment_id: p.comment.id, content: "eyes" as const }),
        );
      const reply = (text: string) => context.octokit.rest.issues.createComment(context.issue({ body: text }));
      await accept(context as never, { run: command.request }, found, { react, reply });
    } else if (name === "code_scanning_alert") {
      const found = await lookupConfig(context);
      if (found.error)
        return void deps.log.warn(
          { issues: found.error.issues },
          "groundfix: invalid .github/groundfix.yml; code-scanning alert ignored",
        );
      if (found.unreadable)
        return void deps.log.warn(
          { id: context.id },
          "groundfix: .github/groundfix.yml unreadable; code-scanning alert ignored (opt-in unknown)",
        );
      await accept(context as never, requestFromCodeScanningAlert(p, found.config), found);
    } else if (name === "repository_dispatch") {
      const found = await lookupConfig(context);
      await accept(context as never, requestFromDispatch(p, found.config), found);
    }
  };
}
