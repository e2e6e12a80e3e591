/**
 * The webhook side of the App: acknowledge at once. A handler only verifies (Probot did), parses, claims and enqueues;
 * it makes no GitHub call, so its answer never waits on Octokit's write limiter (GitHub gives up after 10 s). The
 * config lookup, the permission check and the reaction happen in the queued `event` job (`app/event-job.ts`).
 *
 * Dedupe, before anything is queued:
 * - the delivery id (`X-GitHub-Delivery`, the same on a manual redelivery), claimed once for days
 *   (`JobQueue.claimDelivery`), so a redelivery never runs twice, also after its run finished;
 * - the event itself: a copy of one event under another delivery id (the same payload) is claimed by its
 *   fingerprint, so N deliveries of one label event queue one job and cost no GitHub call.
 *   `repository_dispatch` has no such identity (two dispatches may carry the same payload on purpose): only its
 *   delivery id counts.
 *
 * When the queue's backend (Redis) is unreachable the handler throws {@link QueueUnavailableError}: the webhook
 * middleware answers 503, so GitHub's delivery log shows the failure and the delivery can be redelivered; the claims
 * made before the failure are released (best effort), so that redelivery is not taken for a copy. When the pure
 * checks themselves throw (a payload shape they did not expect: a TypeError), the answer is 422
 * {@link UnreadableDeliveryError}, which names the event and the error, not the queue: nothing was queued, and the
 * claims are released the same way.
 */
import { createHash } from "node:crypto";
import type { JobData, JobQueue } from "../queue/types.js";

/** The `event` job's payload: the webhook as Probot delivered it. */
export interface EventJobPayload {
  name: string;
  payload: Record<string, unknown>;
}

/**
 * The queue could not take the delivery. `status` 503 is read by `@octokit/webhooks`' node middleware as the HTTP
 * status of its answer (it uses the first handler error's `status`, else 500).
 */
export class QueueUnavailableError extends Error {
  readonly status = 503;
  constructor(cause: unknown) {
    super(`groundfix: the job queue is unavailable (${(cause as Error)?.message?.split("\n")[0] ?? String(cause)})`);
    this.name = "QueueUnavailableError";
  }
}

/**
 * The handler's pure checks threw on a delivery (a payload shape they do not read: `comment.body` not a string,
 * `repository.owner` missing): nothing was queued. `status` 422 is the HTTP status of the webhook's answer (read by
 * `@octokit/webhooks`' node middleware, as for {@link QueueUnavailableError}); the message names the event and the
 * error, so GitHub's delivery log says what went wrong; `cause` is the error.
 */
export class UnreadableDeliveryError extends Error {
  readonly status = 422;
  constructor(event: string, cause: unknown) {
    const what = cause instanceof Error ? `${cause.name}: ${cause.message.split("\n")[0]}` : String(cause);
    super(`groundfix could not read this ${event} delivery, so nothing was queued (${what})`, { cause });
    this.name = "UnreadableDeliveryError";
  }
}

/** sha256 of the event name and its payload as JSON, hex, first 32 characters. */
export function eventFingerprint(name: string, payload: unknown): string {
  return createHash("sha256")
    .update(`${name}\n${JSON.stringify(payload)}`)
    .digest("hex")
    .slice(0, 32);
}

/** The webhook fields {@link acknowledge} reads (a Probot context fits). */
export interface WebhookContext {
  id: string;
  name: string;
  payload: unknown;
}

/** The `event` job of a webhook: its key is the event's fingerprint (or, for `repository_dispatch`, the delivery). */
export function eventJob(context: WebhookContext): JobData {
  const payload = context.payload as { repository?: { full_name?: string }; installation?: { id?: number } };
  const id =
    context.name === "repository_dispatch" ? `delivery-${context.id}` : eventFingerprint(context.name, payload);
  return {
    kind: "event",
    key: `${payload.repository?.full_name ?? "?"}#event-${id}`,
    installationId: payload.installation?.id ?? 0,
    deliveryId: context.id,
    payload: { name: context.name, payload } as EventJobPayload,
  };
}

/**
 * Claim `context`'s delivery, build its job with `toJob` (pure: no API call; null drops the delivery), claim the
 * event's fingerprint (except for `repository_dispatch`, see the module comment), and enqueue the job.
 * @returns what the queue did, or `"duplicate"` (delivery or event seen) / `"dropped"` (`toJob` said null)
 * @throws QueueUnavailableError when the queue rejects (Redis unreachable); UnreadableDeliveryError when `toJob`
 *   throws. Either way the claims made are released, so a redelivery is not taken for a copy.
 */
export async function acknowledge(
  queue: JobQueue,
  context: WebhookContext,
  toJob: (context: WebhookContext) => JobData | null,
): Promise<string> {
  const claimed: string[] = [];
  try {
    if (!(await queue.claimDelivery(context.id))) return "duplicate";
    claimed.push(context.id);
    let job: JobData | null;
    try {
      job = toJob(context);
    } catch (error) {
      throw new UnreadableDeliveryError(context.name, error);
    }
    if (!job) return "dropped";
    if (context.name !== "repository_dispatch") {
      const event = `event-${eventFingerprint(context.name, context.payload)}`;
      if (!(await queue.claimDelivery(event))) return "duplicate";
      claimed.push(event);
    }
    return await queue.enqueue(job);
  } catch (error) {
    await Promise.allSettled(claimed.map((id) => queue.releaseDelivery(id)));
    throw error instanceof UnreadableDeliveryError ? error : new QueueUnavailableError(error);
  }
}
