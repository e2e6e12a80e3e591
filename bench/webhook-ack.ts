/**
 * Webhook acknowledgement: 50 concurrent signed deliveries to Probot's node middleware on loopback while the runs
 * queue behind it; p50/p99 time to the 2xx answer. Reference, same run: the same deliveries to a Probot server
 * whose app does nothing. Both servers run the production Octokit (`server/octokit.ts`: throttling and retry on),
 * are warmed the same way, and are measured in interleaved rounds (the order alternating); the figures are the
 * medians over the rounds of each round's percentile. groundfix runs as a web replica (`role: "web"`): its jobs
 * are queued and not run here, so what is measured is the acknowledgement, not the runs competing for the CPU.
 */
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import nock from "nock";
import { type ApplicationFunction, createNodeMiddleware, Probot } from "probot";
import { CRASH_BODY, SHOP_FILES, labeledIssue, OWNER, REPO } from "../test/app/harness.js";
import { createGitHubFake } from "../test/fixtures/github-fake.js";
import { testPrivateKey } from "../test/fixtures/github.js";
import { createApp } from "../src/index.js";
import { createQueue } from "../src/queue/index.js";
import { groundfixOctokit } from "../src/server/octokit.js";
import { type BenchRow, median, percentile } from "./lib.js";

const SECRET = "bench-secret";

async function serve(appFn: ApplicationFunction): Promise<{ url: string; server: Server }> {
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: SECRET,
    logLevel: "fatal",
    Octokit: groundfixOctokit(),
  });
  const middleware = await createNodeMiddleware(appFn, { probot });
  const server = createServer((req, res) => {
    void middleware(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${port}/api/github/webhooks`, server };
}

let nextIssue = 100;

async function deliverAll(url: string, count: number): Promise<number[]> {
  const times = await Promise.all(
    Array.from({ length: count }, async () => {
      const payload = labeledIssue("groundfix", CRASH_BODY);
      payload.issue.number = nextIssue++; // distinct keys: every delivery queues a run
      const body = JSON.stringify(payload);
      const signature = `sha256=${createHmac("sha256", SECRET).update(body).digest("hex")}`;
      const t0 = performance.now();
      const res = await fetch(url, {
        method: "POST",
        body,
        headers: {
          "content-type": "application/json",
          "x-github-event": "issues",
          "x-github-delivery": randomUUID(),
          "x-hub-signature-256": signature,
        },
      });
      await res.text();
      if (res.status >= 300) throw new Error(`delivery answered ${res.status}`);
      return performance.now() - t0;
    }),
  );
  return times;
}

export async function benchWebhookAck(count: number, rounds = 5): Promise<BenchRow[]> {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
  const fake = createGitHubFake({
    owner: OWNER,
    name: REPO,
    defaultBranch: "master",
    files: SHOP_FILES,
    roles: { Codertocat: "write" },
  });
  const queue = createQueue({ concurrency: 2 });
  const ours = await serve(createApp({ queue, env: {}, role: "web" }));
  const noop = await serve(() => {});
  try {
    // Warm-up, the same for both.
    await deliverAll(noop.url, 5);
    await deliverAll(ours.url, 5);
    const p = {
      ours: { p50: [] as number[], p99: [] as number[] },
      noop: { p50: [] as number[], p99: [] as number[] },
    };
    let queued = "";
    for (let round = 0; round < rounds; round++) {
      for (const which of round % 2 === 0 ? (["noop", "ours"] as const) : (["ours", "noop"] as const)) {
        const times = await deliverAll(which === "ours" ? ours.url : noop.url, count);
        if (which === "ours") queued ||= JSON.stringify(queue.stats());
        p[which].p50.push(percentile(times, 50));
        p[which].p99.push(percentile(times, 99));
      }
    }
    const row = (q: "p50" | "p99", note: string): BenchRow => {
      const value = median(p.ours[q]);
      const reference = median(p.noop[q]);
      return {
        section: "webhook",
        name: `${count} concurrent deliveries, ${q} to 2xx`,
        value,
        unit: "ms",
        reference: { name: `no-op app ${q}`, value: reference },
        ratio: value / reference,
        ratioMeaning: "of no-op",
        note,
      };
    };
    return [
      row("p50", `median of ${rounds} rounds; queue after the first round: ${queued}`),
      row("p99", "goal ≤ 1.3× of no-op; GitHub waits 10,000 ms"),
    ];
  } finally {
    ours.server.close();
    noop.server.close();
    fake.stop();
    nock.enableNetConnect();
  }
}
