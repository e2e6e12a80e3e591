/**
 * `GET /ready`: a readiness probe for a load balancer or an orchestrator, next to Probot's `GET /ping` (liveness).
 * 200 `{"ready":true,"queue":"redis","detail":"ok"}` when the queue's backend answers, 503 with `ready: false` and the
 * reason when it does not (Redis unreachable). With the in-process queue it is always ready.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ReadyState } from "../queue/redis.js";

/** Handler shape of Probot's `addHandler`: true when it answered the request. */
export type HttpHandler = (req: IncomingMessage, res: ServerResponse) => boolean | Promise<boolean>;

/** The `/ready` handler for a queue of `backend` whose probe is `probe`. */
export function readyHandler(queue: { backend: string; ready(): Promise<ReadyState> }): HttpHandler {
  return async (req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    if (new URL(req.url ?? "/", "http://localhost").pathname !== "/ready") return false;
    const state = await queue.ready();
    res.writeHead(state.ok ? 200 : 503, { "content-type": "application/json", "cache-control": "no-store" });
    res.end(
      req.method === "HEAD"
        ? undefined
        : JSON.stringify({ ready: state.ok, queue: queue.backend, detail: state.detail }),
    );
    return true;
  };
}
