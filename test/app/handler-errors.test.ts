/**
 * A webhook whose payload makes the handler's pure checks throw (a TypeError on a shape GitHub did not send): the
 * delivery gets an answer that says so, not the queue's 503 (`src/app/acknowledge.ts`).
 */
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { createNodeMiddleware, Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { createApp } from "../../src/index.js";
import { createQueue } from "../../src/queue/index.js";
import { TestOctokit, testPrivateKey, webhookExample } from "../fixtures/github.js";

const privateKey = testPrivateKey();
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function serve() {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
  cleanups.push(() => nock.enableNetConnect());
  const queue = createQueue({ concurrency: 1 });
  const probot = new Probot({ appId: 1, privateKey, secret: "s", logLevel: "fatal", Octokit: TestOctokit });
  // role web: the jobs stay queued (no worker calls GitHub); no connection leaves this machine.
  const middleware = await createNodeMiddleware(createApp({ queue, env: {}, role: "web" }), { probot });
  const server: Server = createServer((req, res) => void middleware(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise((r) => server.close(r)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`, queue };
}

async function deliver(url: string, event: string, payload: unknown, id: string = randomUUID()) {
  const body = JSON.stringify(payload);
  const headers = {
    "content-type": "application/json",
    "x-github-event": event,
    "x-github-delivery": id,
    "x-hub-signature-256": `sha256=${createHmac("sha256", "s").update(body).digest("hex")}`,
  };
  const res = await fetch(url, { method: "POST", body, headers });
  return { status: res.status, body: await res.text() };
}

describe("a delivery whose payload the handler's checks cannot read", () => {
  it("is answered 422 naming the event and the error (not 503), nothing queued, a redelivery read again", async () => {
    const { url, queue } = await serve();
    const enqueued: string[] = [];
    const enqueue = queue.enqueue.bind(queue);
    queue.enqueue = (job) => (enqueued.push(job.key), enqueue(job));
    const numberBody = webhookExample("issue_comment", "created");
    numberBody.comment.body = 42;
    const noOwner = webhookExample("issue_comment", "created");
    noOwner.comment.body = "/groundfix retry";
    delete noOwner.repository.owner;
    const cases = [
      [numberBody, "TypeError: body.replace is not a function"],
      [noOwner, "TypeError: Cannot read properties of undefined (reading 'login')"],
    ] as const;
    for (const [payload, error] of cases) {
      const answer = await deliver(url, "issue_comment", payload, "d-unreadable");
      expect(answer).toEqual({
        status: 422,
        body: JSON.stringify({
          error:
            "UnreadableDeliveryError: groundfix could not read this issue_comment delivery, " +
            `so nothing was queued (${error})`,
        }),
      });
    }
    // The second case had the first one's delivery id: its claim was released, so it was read, not taken for a copy.
    expect(enqueued).toEqual([]);
    // A delivery it can read is still queued.
    const fine = webhookExample("issue_comment", "created");
    fine.comment.body = "/groundfix retry";
    expect((await deliver(url, "issue_comment", fine)).status).toBe(200);
    expect(enqueued).toHaveLength(1);
  });
});
