import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openQueue } from "../../src/queue/open.js";
import { createRedisQueue, RedisUnavailableError, type RedisJobQueue } from "../../src/queue/redis.js";
import type { JobData } from "../../src/queue/types.js";
import { startRedis, type TestRedis } from "./redis-server.js";

let redis: TestRedis;
let n = 0;
const opened: RedisJobQueue[] = [];

beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.allSettled(opened.splice(0).map((q) => q.close()));
});
afterAll(async () => {
  await redis.stop();
});

/** A queue on the test Redis; `prefix` shared between calls of one test makes them two replicas. */
async function replica(
  prefix: string,
  extra: Partial<Parameters<typeof createRedisQueue>[0]> = {},
): Promise<RedisJobQueue> {
  const q = await createRedisQueue({
    url: redis.url,
    prefix,
    backoffMs: 50,
    lockDurationMs: 30_000,
    stalledIntervalMs: 250,
    ...extra,
  });
  opened.push(q);
  return q;
}

function job(key: string, extra: Partial<JobData> = {}): JobData {
  return { kind: "run", key, installationId: 1, payload: { n: 0 }, ...extra };
}

function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { done, release };
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
}

describe("Redis job queue", () => {
  it("queues a task once across two replicas and runs it once", async () => {
    const prefix = `t${n++}`;
    const [a, b] = [await replica(prefix), await replica(prefix)];
    expect(await a.enqueue(job("o/r#issue-1"))).toBe("queued");
    expect(await b.enqueue(job("o/r#issue-1"))).toBe("coalesced");
    expect(await a.enqueue(job("o/r#issue-1"))).toBe("coalesced");
    const runs: string[] = [];
    a.process(async (j) => void runs.push(`a ${j.key}`));
    b.process(async (j) => void runs.push(`b ${j.key}`));
    await a.idle();
    expect(runs).toHaveLength(1);
    expect(runs[0]).toMatch(/ o\/r#issue-1$/);
  });

  it(
    "drops a plain job whose key is running; a rerun " + "runs once after it, later reruns merge into that one",
    async () => {
      const prefix = `t${n++}`;
      const q = await replica(prefix);
      const g = gate();
      const seen: { n: unknown; rerun: boolean | undefined }[] = [];
      q.process(async (j) => {
        seen.push({ n: (j.payload as { n: number }).n, rerun: j.rerun });
        if (seen.length === 1) await g.done;
      });
      expect(await q.enqueue(job("k", { payload: { n: 1 } }))).toBe("queued");
      await until(() => seen.length === 1, "the first run to start");
      expect(await q.enqueue(job("k", { payload: { n: 2 } }))).toBe("coalesced");
      expect(await q.enqueue(job("k", { payload: { n: 3 }, rerun: true }))).toBe("queued_after_running");
      expect(await q.enqueue(job("k", { payload: { n: 4 }, rerun: true }))).toBe("queued_after_running");
      expect(seen).toHaveLength(1); // nothing runs next to a running job of the same key
      g.release();
      await q.idle();
      expect(seen).toEqual([
        { n: 1, rerun: undefined },
        { n: 4, rerun: true },
      ]);
      // The key is free again once nothing of it is queued: a new plain job runs.
      expect(await q.enqueue(job("k", { payload: { n: 5 } }))).toBe("queued");
      await q.idle();
      expect(seen.map((s) => s.n)).toEqual([1, 4, 5]);
    },
  );

  it("a rerun for a key that is still waiting replaces the waiting job, which runs once", async () => {
    const q = await replica(`t${n++}`);
    expect(await q.enqueue(job("k", { payload: { n: 1 } }))).toBe("queued");
    expect(await q.enqueue(job("k", { payload: { n: 2 }, rerun: true }))).toBe("coalesced");
    const seen: unknown[] = [];
    q.process(async (j) => void seen.push([(j.payload as { n: number }).n, j.rerun]));
    await q.idle();
    expect(seen).toEqual([[2, true]]);
  });

  it("runs at most `concurrency` jobs at once in one process", async () => {
    const q = await replica(`t${n++}`, { concurrency: 2 });
    let running = 0;
    let most = 0;
    const g = gate();
    q.process(async () => {
      running++;
      most = Math.max(most, running);
      await g.done;
      running--;
    });
    for (const k of ["a", "b", "c", "d"]) await q.enqueue(job(k));
    await until(() => running === 2, "two jobs running");
    await new Promise((r) => setTimeout(r, 200));
    expect(running).toBe(2);
    g.release();
    await q.idle();
    expect(most).toBe(2);
  });

  it("close() aborts a running job, hands it back: no attempt spent, another replica runs it", async () => {
    const prefix = `t${n++}`;
    const a = await replica(prefix);
    const started = gate();
    a.process(async (_j, attempt) => {
      started.release();
      // A job stuck on the network: it ends only when its signal aborts (as fetch does).
      await new Promise((_, reject) => attempt.signal!.addEventListener("abort", () => reject(attempt.signal!.reason)));
    });
    await a.enqueue(job("stuck"));
    await started.done;
    expect(await a.close()).toEqual(["stuck"]);
    const inspect = new Queue(`tasks`, { connection: { url: redis.url } as never, prefix });
    const waiting = await inspect.getWaiting();
    expect(waiting.map((j) => [j.data.key, j.attemptsMade])).toEqual([["stuck", 0]]);
    await inspect.close();
    const b = await replica(prefix);
    const ran: { final: boolean }[] = [];
    b.process(async (_j, attempt) => void ran.push({ final: attempt.final }));
    await b.idle();
    expect(ran).toEqual([{ final: false }]);
  });

  it("retries a job that threw, with the attempt number, and says which attempt is the last", async () => {
    const q = await replica(`t${n++}`, { attempts: 3 });
    const attempts: { number: number; final: boolean }[] = [];
    q.process(async (_j, attempt) => {
      attempts.push({ number: attempt.number, final: attempt.final });
      if (attempt.number < 3) throw Object.assign(new Error("502 Bad Gateway"), { status: 502 });
    });
    await q.enqueue(job("flaky"));
    await q.idle();
    expect(attempts).toEqual([
      { number: 1, final: false },
      { number: 2, final: false },
      { number: 3, final: true },
    ]);
  });

  it(
    "hands a job whose last attempt threw to `gaveUp` once, " + "with that attempt's error (not after a retried one)",
    async () => {
      const q = await replica(`t${n++}`, { attempts: 2 });
      const gaveUp: [string, string][] = [];
      let calls = 0;
      q.process(
        async (j) => {
          calls++;
          if (j.key === "doomed" || calls === 1) throw new Error(`attempt ${calls} of ${j.key}`);
        },
        async (j, error) => void gaveUp.push([j.key, (error as Error).message]),
      );
      await q.enqueue(job("recovers"));
      await q.idle();
      await q.enqueue(job("doomed"));
      await q.idle();
      for (let i = 0; i < 100 && gaveUp.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(gaveUp).toEqual([["doomed", "attempt 4 of doomed"]]);
    },
  );

  it("keeps the key's next job from starting while a retry of it is in its backoff", async () => {
    const q = await replica(`t${n++}`, { attempts: 2, backoffMs: 300 });
    const runs: number[] = [];
    q.process(async (j) => {
      runs.push((j.payload as { n: number }).n);
      if (runs.length === 1) throw new Error("transient");
    });
    await q.enqueue(job("k", { payload: { n: 1 } }));
    await until(() => runs.length === 1, "the first attempt");
    expect(await q.enqueue(job("k", { payload: { n: 2 } }))).toBe("coalesced");
    await q.idle();
    expect(runs).toEqual([1, 1]);
  });

  it("a job whose worker process was killed mid-run completes in another process", async () => {
    const prefix = `t${n++}`;
    const child = spawn(
      process.execPath,
      ["--import", "tsx", fileURLToPath(new URL("./worker-child.ts", import.meta.url))],
      {
        env: { ...process.env, TEST_REDIS_URL: redis.url, TEST_PREFIX: prefix },
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => (out += chunk.toString()));
    const q = await replica(prefix);
    await until(() => out.includes("ready"), "the child worker");
    await q.enqueue(job("o/r#issue-7"));
    await until(() => out.includes("started o/r#issue-7 1"), "the child to start the job");
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGKILL");
    await exited;
    const runs: number[] = [];
    q.process(async (_j, attempt) => void runs.push(attempt.number));
    await q.idle();
    expect(runs).toEqual([2]);
    expect(await q.enqueue(job("o/r#issue-7"))).toBe("queued"); // the key is free after the recovered run
  });

  it("claims a delivery id once across replicas; the id outlives its job's run", async () => {
    const prefix = `t${n++}`;
    const [a, b] = [
      await replica(prefix, { deliveryTtlSeconds: 3600, pendingDeliverySeconds: 60 }),
      await replica(prefix),
    ];
    expect(await a.claimDelivery("d-1")).toBe(true);
    expect(await b.claimDelivery("d-1")).toBe(false);
    expect(await a.claimDelivery("d-1")).toBe(false);
    const raw = new Redis(redis.url);
    try {
      const key = `${prefix}:tasks:delivery:d-1`;
      // Claimed but not yet enqueued: held briefly, so a process that died here does not swallow GitHub's redelivery.
      expect(await raw.ttl(key)).toBeLessThanOrEqual(60);
      await a.enqueue(job("k", { deliveryId: "d-1" }));
      a.process(async () => {});
      await a.idle();
      expect(await raw.ttl(key)).toBeGreaterThan(3000);
      expect(await b.claimDelivery("d-1")).toBe(false);
      expect(await b.claimDelivery("d-2")).toBe(true);
    } finally {
      raw.disconnect();
    }
  });

  it("keeps finished jobs for inspection without blocking the next run of the same key", async () => {
    const prefix = `t${n++}`;
    const q = await replica(prefix);
    let runs = 0;
    q.process(async () => {
      runs++;
      if (runs === 2) throw new Error("permanent");
    });
    await q.enqueue(job("k"));
    await q.idle();
    const q2 = await replica(prefix, { attempts: 1 });
    await q2.enqueue(job("k"));
    await q.idle();
    expect(await q.enqueue(job("k"))).toBe("queued");
    await q.idle();
    expect(runs).toBe(3);
    const inspect = new Queue("tasks", { connection: new Redis(redis.url), prefix });
    try {
      expect(await inspect.getJobCounts("completed", "failed")).toEqual({ completed: 2, failed: 1 });
    } finally {
      await inspect.close();
    }
  });

  it("answers a clear one-line error when Redis is unreachable at start, without the password", async () => {
    const error = await createRedisQueue({ url: "redis://:s3cret@127.0.0.1:1", connectTimeoutMs: 1_000 }).catch(
      (e) => e,
    );
    expect(error).toBeInstanceOf(RedisUnavailableError);
    expect(error.message).toBe("cannot reach Redis at redis://:***@127.0.0.1:1 (GROUNDFIX_REDIS_URL): ECONNREFUSED");
    expect(error.message).not.toContain("s3cret");
    const bad = await openQueue({ redisUrl: "localhost:6379", concurrency: 1 }).catch((e) => e);
    expect(bad).toBeInstanceOf(RedisUnavailableError);
    expect(bad.message).toMatch(/^GROUNDFIX_REDIS_URL must look like redis:\/\//);
  });

  it("rejects an enqueue at once while Redis is down, reports not ready, and recovers when it is back", async () => {
    const q = await replica(`t${n++}`);
    expect(await q.ready()).toEqual({ ok: true, detail: "ok" });
    await redis.stop();
    try {
      const t0 = Date.now();
      await expect(q.enqueue(job("k"))).rejects.toThrow();
      await expect(q.claimDelivery("d-x")).rejects.toThrow();
      expect(Date.now() - t0).toBeLessThan(2_000);
      const state = await q.ready();
      expect(state.ok).toBe(false);
      expect(state.detail).toContain(redis.url);
    } finally {
      await redis.start();
    }
    let back = false;
    for (let i = 0; i < 100 && !(back = (await q.ready()).ok); i++) await new Promise((r) => setTimeout(r, 50));
    expect(back).toBe(true);
    expect(await q.enqueue(job("k"))).toBe("queued");
  });
});
