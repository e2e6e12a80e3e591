/**
 * The Octokit class the App runs with: Probot's (`ProbotOctokit`: throttling and retry on, as in production), with
 * the throttling limiters keyed per installation and, when a Redis connection is given, shared by every process on
 * that Redis.
 *
 * Why: @octokit/plugin-throttling keeps one limiter per `throttle.id` (writes: one at a time, at most one a second;
 * notification-triggering writes: one every 3 s). Probot gives the installation clients it builds for webhook
 * contexts no id, so every installation of a process queues behind one write limiter ("no-id"). GitHub's guidance is
 * per actor ("Best practices for using the REST API": make requests for a single user or client ID serially, wait at
 * least one second between mutative requests); an installation token is one actor. With Redis, replicas acting for
 * the same installation also share its limiter (Bottleneck's IORedisConnection, which the plugin accepts as
 * `throttle.connection`), so N replicas do not write N times as fast.
 *
 * Retries are `host/github/requests.ts`'s (bounded, logged, abortable, with a time limit per attempt) instead of
 * `@octokit/plugin-retry`'s, which retried the installation-token request inside every retry of the request that
 * needed it, silently, with no limit on how long one try may wait.
 */
import Bottleneck from "bottleneck";
import { Redis } from "ioredis";
import { ProbotOctokit } from "probot";
import { boundedRequests, type RequestPolicy } from "../host/github/requests.js";

/** The throttling id of a client: `installation-<id>` for an installation token, `app` for the app's own JWT. */
export function throttleId(auth: unknown): string {
  const id = (auth as { installationId?: unknown } | undefined)?.installationId;
  return typeof id === "number" || (typeof id === "string" && id !== "") ? `installation-${id}` : "app";
}

/** Options of {@link groundfixOctokit}. */
export interface GroundfixOctokitOptions {
  /**
   * An ioredis client of the Redis where the limiter state lives (its settings are copied for the limiter's own two
   * connections); omit for limiters in this process only.
   */
  redis?: Redis;
  /** Where a limiter's Redis error is reported (Bottleneck keeps retrying). */
  onError?: (error: unknown) => void;
  /** Retries and the time limit per attempt ({@link RequestPolicy}; tests shorten the waits). */
  requestPolicy?: RequestPolicy;
}

/**
 * `ProbotOctokit` whose throttle id is per installation ({@link throttleId}), with `redis` whose limiters live in
 * that Redis, and whose requests are bounded by `server/requests.ts` (`@octokit/plugin-retry` off). Pass it to Probot
 * (`new Probot({ Octokit })`, or `run(app, { Octokit })`).
 *
 * Note: the plugin creates its limiter groups once per process, with the first client's connection; one process
 * uses one Redis for throttling.
 */
export function groundfixOctokit(options: GroundfixOctokitOptions = {}): typeof ProbotOctokit {
  let connection: Bottleneck.IORedisConnection | undefined;
  if (options.redis) {
    // Bottleneck subscribes on `client.duplicate()`, which keeps the client's options: a duplicate of a lazyConnect
    // client (`queue/redis.ts` connectRedis's) never connects, and every request then waited forever for the
    // limiter. Its own client connects at once.
    const client = options.redis.duplicate({ lazyConnect: false });
    connection = new Bottleneck.IORedisConnection({ client, Redis });
    connection.on("error", options.onError ?? (() => {}));
  }
  const shared = connection ? { Bottleneck, connection } : {};
  const requestPolicy = options.requestPolicy ?? {};
  return ProbotOctokit.plugin(boundedRequests as never).defaults((instance: Record<string, any>) => ({
    ...instance,
    retry: { ...instance.retry, enabled: false },
    requestPolicy: { ...requestPolicy, ...instance.requestPolicy },
    throttle: { ...instance.throttle, ...shared, id: throttleId(instance.auth) },
  })) as unknown as typeof ProbotOctokit;
}
