/**
 * Webhook acknowledgement: 50 concurrent signed deliveries to Probot's node middleware on loopback while the runs
 * queue behind it; p50/p99 time to the 2xx answer. Reference, same run: the same deliveries to a Probot server
 * whose app does nothing.
 */
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { type ApplicationFunction, createNodeMiddleware, Probot, ProbotOctokit } from "probot";
import { CRASH_BODY, SHOP_FILES, labeledIssue, OWNER, REPO } from "../test/app/harness.js";
import { createGitHubFake } from "../test/fixtures/github-fake.js";
import { testPrivateKey } from "../test/fixtures/github.js";
import { createApp } from "../src/index.js";
import { createQueue } from "../src/queue/index.js";
import { type BenchRow, percentile } from "./lib.js";

const SECRET = "bench-secret";

async function serve(appFn: ApplicationFunction): Promise<{ url: string; server: Server }> {
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: SECRET,
    logLevel: "fatal",
    Octokit: ProbotOctokit.defaults((o: any) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false } })),
  });
  const middleware = await createNodeMiddleware(appFn, { probot });
  const server = createServer((req, res) => {
    void middleware(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/api/github/webhooks`, server };
}

async function deliverAll(url: string, count: number): Promise<number[]> {
  const times = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const payload = labeledIssue("groundfix", CRASH_BODY);
      payload.issue.number = 100 + i; // distinct keys: every delivery queues a run
      const body = JSON.stringify(payload);
      const signature = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
      const t0 = performance.now();
      const res = await fetch(url, {
        method: "POST",
        body,
        headers: { "content-type": "application/json", "x-github-event": "issues", "x-github-delivery": randomUUID(), "x-hub-signature-256": signature },
      });
      await res.text();
      if (res.status >= 300) throw new Error(`delivery answered ${res.status}`);
      return performance.now() - t0;
    }),
  );
  return times;
}

export async function benchWebhookAck(count: number): Promise<BenchRow[]> {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
  const fake = createGitHubFake({ owner: OWNER, name: REPO, defaultBranch: "master", files: SHOP_FILES, roles: { Codertocat: "write" } });
  const queue = createQueue({ concurrency: 2 });
  const ours = await serve(createApp({ queue, env: {} }));
  const noop = await serve(() => {});
  try {
    await deliverAll(noop.url, 5); // warm-up
    const ref = await deliverAll(noop.url, count);
    const times = await deliverAll(ours.url, count);
    const queued = queue.stats();
    await queue.idle();
    const p50 = percentile(times, 50);
    const p99 = percentile(times, 99);
    return [
      { section: "webhook", name: `${count} concurrent deliveries, p50 to 2xx`, value: p50, unit: "ms", reference: { name: "no-op app p50", value: percentile(ref, 50) }, ratio: p50 / percentile(ref, 50), ratioMeaning: "of no-op", note: `queue at answer time: ${JSON.stringify(queued)}` },
      { section: "webhook", name: `${count} concurrent deliveries, p99 to 2xx`, value: p99, unit: "ms", reference: { name: "no-op app p99", value: percentile(ref, 99) }, ratio: p99 / percentile(ref, 99), ratioMeaning: "of no-op", note: "GitHub waits 10,000 ms" },
    ];
  } finally {
    ours.server.close();
    noop.server.close();
    fake.stop();
    nock.enableNetConnect();
  }
}
