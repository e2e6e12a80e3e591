/**
 * `groundfix worker` as an operator runs it (a child process, the sources through tsx), on a local Redis, with a
 * "GitHub" on 127.0.0.1 (GHE_HOST) that never answers or refuses: what it logs, how it stops, what becomes of the job.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventJob } from "../../src/app/acknowledge.js";
import { createRedisQueue } from "../../src/queue/redis.js";
import { testPrivateKey, webhookExample } from "../fixtures/github.js";
import { freePort, startRedis, type TestRedis } from "../queue/redis-server.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));
const privateKey = testPrivateKey();
let redis: TestRedis;
let db = 0;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** Queue one `issues.labeled` event job (installation 1234) on Redis `url`, as a web process would. */
async function queueLabelEvent(url: string): Promise<string> {
  const q = await createRedisQueue({ url });
  const payload = webhookExample("issues", "labeled", 1234);
  payload.label = { ...payload.label, name: "groundfix" };
  const job = eventJob({ id: "d-1", name: "issues", payload });
  await q.enqueue(job);
  await q.close();
  return job.key;
}

/** `groundfix worker` on Redis `url`, with GitHub at `ghHost` (host:port, plain HTTP). */
function worker(url: string, ghHost: string): { child: ChildProcess; output: () => string; exit: Promise<unknown> } {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, "worker"], {
    cwd: fileURLToPath(new URL("./", import.meta.url)),
    env: {
      PATH: process.env.PATH,
      GROUNDFIX_REDIS_URL: url,
      APP_ID: "1",
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: "s",
      GHE_HOST: ghHost,
      GHE_PROTOCOL: "http",
      LOG_FORMAT: "json",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  const exit = new Promise((r) => child.on("exit", (code, signal) => r(code ?? signal)));
  return { child, output: () => out, exit };
}

async function until(check: () => boolean, what: string, output: () => string): Promise<void> {
  for (let i = 0; i < 1200 && !check(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!check()) throw new Error(`timed out waiting for ${what}; output:\n${output()}`);
}

describe("groundfix worker", () => {
  it("stops on SIGTERM while a job waits on a GitHub that never answers: exit 0, the job back in waiting", async () => {
    const url = `${redis.url}/${++db}`; // a database of its own
    const key = await queueLabelEvent(url);
    const asked: string[] = [];
    const github = createServer((req) => void asked.push(`${req.method} ${req.url}`)); // never answers
    await new Promise<void>((r) => github.listen(0, "127.0.0.1", r));
    const run = worker(url, `127.0.0.1:${(github.address() as AddressInfo).port}`);
    try {
      await until(() => asked.length > 0, "the token request", run.output);
      expect(asked).toEqual(["POST /api/v3/app/installations/1234/access_tokens"]);
      run.child.kill("SIGTERM");
      // Before: the worker waited for the job, which waited on GitHub: only SIGKILL stopped it.
      const guard = setTimeout(() => run.child.kill("SIGKILL"), 40_000);
      const code = await run.exit;
      clearTimeout(guard);
      expect(code, run.output()).toBe(0);
      expect(run.output()).toContain(
        "groundfix: SIGTERM: stopping; no new jobs, the running ones are stopped and handed back to the queue\n",
      );
      expect(run.output()).toContain(`groundfix: 1 running job(s) handed back to the queue: ${key}\n`);
      const inspect = new Queue("tasks", { connection: { url } as never, prefix: "groundfix" });
      const waiting = await inspect.getWaiting();
      await inspect.close();
      expect(waiting.map((j) => [j.data.key, j.attemptsMade])).toEqual([[key, 0]]);
    } finally {
      run.child.kill("SIGKILL");
      github.closeAllConnections();
      github.close();
    }
  }, 90_000);

  it("logs each retry of the token request and fails the job naming the token, not the config", async () => {
    const url = `${redis.url}/${++db}`; // a database of its own
    const key = await queueLabelEvent(url);
    const run = worker(url, `127.0.0.1:${await freePort()}`); // refused
    try {
      await until(() => run.output().includes("failed on attempt 1 of 4"), "the job's failed attempt", run.output);
      const lines = run
        .output()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l).msg as string);
      const token = "POST /api/v3/app/installations/1234/access_tokens (the installation token of installation 1234)";
      expect(lines.filter((l) => l.includes("GitHub request"))).toEqual([
        `groundfix: GitHub request ${token} failed: no answer (ECONNREFUSED); attempt 1 of 4, next in 1 s`,
        `groundfix: GitHub request ${token} failed: no answer (ECONNREFUSED); attempt 2 of 4, next in 4 s`,
        `groundfix: GitHub request ${token} failed: no answer (ECONNREFUSED); attempt 3 of 4, next in 9 s`,
      ]);
      expect(lines).toContain(
        `groundfix job ${key} failed on attempt 1 of 4 (could not get an installation token for installation 1234 ` +
          "(POST /app/installations/1234/access_tokens): no answer (ECONNREFUSED) after 4 attempts); retried in 10 s",
      );
      expect(run.output()).not.toContain("groundfix.yml");
      // The queue keeps it for its retry.
      const inspect = new Queue("tasks", { connection: { url } as never, prefix: "groundfix" });
      const delayed = await inspect.getDelayed();
      await inspect.close();
      expect(delayed.map((j) => j.data.key)).toEqual([key]);
    } finally {
      run.child.kill("SIGKILL");
    }
  }, 120_000);
});
