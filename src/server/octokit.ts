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
 */
import Bottleneck from "bottleneck";
import { Redis } from "ioredis";
import { ProbotOctokit } from "probot";

/** The throttling id of a client: `installation-<id>` for an installation token, `app` for the app's own JWT. */
export function throttleId(auth: unknown): string {
  const id = (auth as { installationId?: unknown } | undefined)?.installationId;
  return typeof id === "number" || (typeof id === "string" && id !== "") ? `installation-${id}` : "app";
}

/** Options of {@link groundfixOctokit}. */
export interface GroundfixOctokitOptions {
  /** A connected ioredis client (the limiter state lives there); omit for limiters in this process only. */
  redis?: Redis;
  /** Where a limiter's Redis error is reported (Bottleneck keeps retrying). */
  onError?: (error: unknown) => void;
}

/**
 * `ProbotOctokit` whose throttle id is per installation ({@link throttleId}) and, with `redis`, whose limiters live
 * in that Redis. Pass it to Probot (`new Probot({ Octokit })`, or `run(app, { Octokit })`).
 *
 * Note: the plugin creates its limiter groups once per process, with the first client's connection; one process
 * uses one Redis for throttling.
 */
export function groundfixOctokit(options: GroundfixOctokitOptions = {}): typeof ProbotOctokit {
  let connection: Bottleneck.IORedisConnection | undefined;
  if (options.redis) {
    connection = new Bottleneck.IORedisConnection({ client: options.redis, Redis });
    connection.on("error", options.onError ?? (() => {}));
  }
  const shared = connection ? { Bottleneck, connection } : {};
  return ProbotOctokit.defaults((instance: Record<string, any>) => ({
    ...instance,
    throttle: { ...instance.throttle, ...shared, id: throttleId(instance.auth) },
  }));
}
