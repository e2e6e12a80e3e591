/**
 * The App on a shared Redis queue, as replicas run it: GitHub faked in this process (nock), Redis real
 * (`test/queue/redis-server.ts`), each replica a Probot instance with its own queue connections — in this process,
 * or a child process reaching the fake through `github-bridge.ts`.
 */
import { spawn } from "node:child_process";
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import nock from "nock";
import { createNodeMiddleware, Probot } from "probot";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/index.js";
import { createRedisQueue, type RedisJobQueue } from "../../src/queue/redis.js";
import { createGitHubFake, type GitHubFake } from "../fixtures/github-fake.js";
import { TestOctokit, testPrivateKey, webhookExample } from "../fixtures/github.js";
import { freePort, startRedis, type TestRedis } from "../queue/redis-server.js";
import { startGitHubBridge } from "./github-bridge.js";
import { labeledIssue, OWNER, REPO, SHOP_FILES } from "./harness.js";

const privateKey = testPrivateKey();
let redis: TestRedis;
let fake: GitHubFake;
let n = 0;
const cleanups: (() => Promise<unknown> | void)[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  fake?.stop();
  nock.enableNetConnect();
});

function startFake(): GitHubFake {
  nock.disableNetConnect();
  nock.enableNetConnect("127.0.0.1");
  fake = createGitHubFake({
    owner: OWNER,
    name: REPO,
    defaultBranch: "master",
    files: SHOP_FILES,
    roles: { Codertocat: "write" },
  });
  return fake;
}

/** One replica in this process: Probot + the app on its own Redis connections, webhooks over HTTP. */
async function replica(prefix: string): Promise<{ url: string; queue: RedisJobQueue }> {
  // A long lock (a loaded machine must not make a live worker look dead), a short look for dead workers' jobs.
  const queue = await createRedisQueue({ url: redis.url, prefix, lockDurationMs: 30_000, stalledIntervalMs: 500 });
  const probot = new Probot({ appId: 1, privateKey, secret: "s", logLevel: "fatal", Octokit: TestOctokit });
  const middleware = await createNodeMiddleware(createApp({ queue, env: {} }), { probot });
  const server: Server = createServer((req, res) => void middleware(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(
    () => queue.close(),
    () => new Promise((r) => server.close(r)),
  );
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`, queue };
}

/** POST a signed delivery; the HTTP status of the answer. */
async function deliver(url: string, payload: unknown, id: string = randomUUID(), event = "issues"): Promise<number> {
  const body = JSON.stringify(payload);
  const signature = `sha256=${createHmac("sha256", "s").update(body).digest("hex")}`;
  const headers = {
    "content-type": "application/json",
    "x-github-event": event,
    "x-github-delivery": id,
    "x-hub-signature-256": signature,
  };
  const res = await fetch(url, { method: "POST", body, headers });
  await res.text();
  return res.status;
}

function expectOneRun(): void {
  const { state } = fake;
  expect([...state.refs.keys()].filter((ref) => ref.startsWith("groundfix/"))).toEqual(["groundfix/issue-1"]);
  expect(state.calls.filter((c) => c.route === "POST /repos/{o}/{r}/git/refs")).toHaveLength(1);
  expect(state.pulls).toHaveLength(1);
  expect(state.checkRuns).toHaveLength(1);
  expect(state.checkRuns[0]).toMatchObject({ status: "completed" });
}

describe("two app processes sharing one Redis", () => {
  it(
    "the same delivery to both and 10 more deliveries of " + "one label event: one branch, one PR, one check run",
    async () => {
      startFake();
      const prefix = `app${n++}`;
      const [a, b] = [await replica(prefix), await replica(prefix)];
      const payload = labeledIssue();
      const statuses = await Promise.all([
        deliver(a.url, payload, "same-id"),
        deliver(b.url, payload, "same-id"),
        ...Array.from({ length: 10 }, (_, i) => deliver(i % 2 ? a.url : b.url, payload)),
      ]);
      expect(statuses.every((s) => s === 200)).toBe(true);
      await a.queue.idle();
      expectOneRun();
      expect(fake.state.reactions).toHaveLength(1);
    },
  );

  it("a refused command gets one reply per issue across replicas, not one per process", async () => {
    startFake();
    fake.state.roles.Codertocat = "read";
    const prefix = `app${n++}`;
    const [a, b] = [await replica(prefix), await replica(prefix)];
    const command = (id: number) => {
      const payload = webhookExample("issue_comment", "created");
      payload.comment = { ...payload.comment, id, body: "/groundfix retry" };
      return payload;
    };
    expect(await deliver(a.url, command(1), undefined, "issue_comment")).toBe(200);
    await a.queue.idle();
    expect(await deliver(b.url, command(2), undefined, "issue_comment")).toBe(200);
    await b.queue.idle();
    expect(fake.state.comments.map((c) => c.body)).toEqual([
      "groundfix: @Codertocat has read access; trigger_permission is write, so this command was ignored.",
    ]);
  });

  it("answers 503 while Redis is away, with nothing written; GitHub's redelivery then runs once", async () => {
    startFake();
    const a = await replica(`app${n++}`);
    const payload = labeledIssue();
    await redis.stop();
    try {
      expect(await deliver(a.url, payload, "while-down")).toBe(503);
    } finally {
      await redis.start();
    }
    expect(fake.state.calls).toEqual([]);
    for (let i = 0; i < 100 && !(await a.queue.ready()).ok; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await deliver(a.url, payload, "while-down")).toBe(200); // the redelivery is not taken for a copy
    await a.queue.idle();
    expectOneRun();
  });

  it("a worker killed (SIGKILL) right after acknowledging: the run completes in another process, one PR", async () => {
    startFake();
    const bridge = await startGitHubBridge();
    cleanups.push(() => bridge.close());
    const prefix = `app${n++}`;
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL("./app-child.ts", import.meta.url))],
      {
        env: {
          ...process.env,
          TEST_REDIS_URL: redis.url,
          TEST_PREFIX: prefix,
          TEST_BASE_URL: bridge.url,
          TEST_PRIVATE_KEY: privateKey,
          TEST_PORT: String(port),
        },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    const exited = new Promise((r) => child.once("exit", r));
    cleanups.push(() => void child.kill("SIGKILL"));
    let out = "";
    child.stdout.on("data", (c: Buffer) => (out += c));
    for (let i = 0; i < 400 && !out.includes("listening"); i++) await new Promise((r) => setTimeout(r, 25));
    bridge.hold(/./); // the child's worker gets stuck on its first GitHub call
    expect(await deliver(`http://127.0.0.1:${port}/api/github/webhooks`, labeledIssue())).toBe(200);
    for (let i = 0; i < 400 && bridge.seen.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    expect(bridge.seen.length).toBeGreaterThan(0); // it had started the job
    child.kill("SIGKILL");
    await exited;
    bridge.drop();
    expect(fake.state.calls).toEqual([]);
    const b = await replica(prefix); // finds the job its dead worker held once that lock expires (1 s)
    for (let i = 0; i < 400 && fake.state.pulls.length === 0; i++) await new Promise((r) => setTimeout(r, 25));
    await b.queue.idle();
    expectOneRun();
  });
});
