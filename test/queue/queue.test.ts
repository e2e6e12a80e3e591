import { describe, expect, it } from "vitest";
import { createQueue, type JobData, type QueueOptions } from "../../src/queue/index.js";

/** A job whose run waits until the test releases it, recording starts and ends. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { done, release };
}

/**
 * A queue whose processor runs the function registered for each job (jobs are JSON, so the test keeps the work
 * apart, keyed by a job's `payload`). `job(key, run, extra)` builds a job and registers its work.
 */
function queueWith(options: QueueOptions = {}) {
  const q = createQueue(options);
  const work = new Map<number, () => Promise<void>>();
  q.process(async (job) => work.get(job.payload as number)!());
  let next = 0;
  const job = (key: string, run: () => Promise<void>, extra: Partial<JobData> = {}): JobData => {
    work.set(next, run);
    return { kind: "run", key, installationId: 0, payload: next++, ...extra };
  };
  return { q, job };
}

describe("createQueue", () => {
  it("runs at most `concurrency` jobs at once, the rest in arrival order", async () => {
    const { q, job } = queueWith({ concurrency: 2 });
    const log: string[] = [];
    const gates = [gate(), gate(), gate()];
    for (const [i, g] of gates.entries()) {
      await q.enqueue(
        job(`k${i}`, async () => {
          log.push(`start ${i}`);
          await g.done;
          log.push(`end ${i}`);
        }),
      );
    }
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(["start 0", "start 1"]);
    expect(q.stats()).toEqual({ running: 2, waiting: 1 });
    gates[1]!.release();
    await new Promise((r) => setImmediate(r));
    expect(log).toEqual(["start 0", "start 1", "end 1", "start 2"]);
    gates[0]!.release();
    gates[2]!.release();
    await q.idle();
    expect(log).toHaveLength(6);
  });

  it("claims a delivery id once, even after its job finished", async () => {
    const { q, job } = queueWith();
    let runs = 0;
    expect(await q.claimDelivery("d1")).toBe(true);
    expect(await q.enqueue(job("a", async () => void runs++, { deliveryId: "d1" }))).toBe("queued");
    await q.idle();
    expect(await q.claimDelivery("d1")).toBe(false);
    await q.idle();
    expect(runs).toBe(1);
  });

  it("forgets the oldest delivery ids beyond maxDeliveries", async () => {
    const { q } = queueWith({ maxDeliveries: 2 });
    for (const id of ["d1", "d2", "d3"]) await q.claimDelivery(id);
    expect([await q.claimDelivery("d2"), await q.claimDelivery("d3"), await q.claimDelivery("d1")]).toEqual([
      false,
      false,
      true,
    ]);
  });

  it("holds jobs until a processor is set", async () => {
    const q = createQueue();
    const ran: string[] = [];
    expect(await q.enqueue({ kind: "review", key: "r", installationId: 7, payload: { pr: 1 } })).toBe("queued");
    expect(q.stats()).toEqual({ running: 0, waiting: 1 });
    q.process(async (job) => void ran.push(`${job.kind} ${job.installationId} ${JSON.stringify(job.payload)}`));
    await q.idle();
    expect(ran).toEqual(['review 7 {"pr":1}']);
  });

  it("coalesces a job whose key is waiting or running; a rerun while running runs once after", async () => {
    const { q, job } = queueWith({ concurrency: 1 });
    const order: string[] = [];
    const g = gate();
    await q.enqueue(
      job("x", async () => {
        order.push("x1");
        await g.done;
      }),
    );
    await q.enqueue(job("y", async () => void order.push("y1")));
    expect(await q.enqueue(job("y", async () => void order.push("y2")))).toBe("coalesced");
    await new Promise((r) => setImmediate(r));
    expect(await q.enqueue(job("x", async () => void order.push("x-plain")))).toBe("coalesced");
    expect(await q.enqueue(job("x", async () => void order.push("x-retry1"), { rerun: true }))).toBe(
      "queued_after_running",
    );
    expect(await q.enqueue(job("x", async () => void order.push("x-retry2"), { rerun: true }))).toBe("coalesced");
    g.release();
    await q.idle();
    expect(order).toEqual(["x1", "y1", "x-retry2"]);
  });

  it("catches and logs a failing job and keeps running the next ones", async () => {
    const errors: string[] = [];
    const { q, job } = queueWith({ log: { info() {}, error: (_o, msg) => void errors.push(String(msg)) } });
    let ran = false;
    await q.enqueue(
      job("bad", async () => {
        throw new Error("boom");
      }),
    );
    await q.enqueue(job("good", async () => void (ran = true)));
    await q.idle();
    expect(ran).toBe(true);
    expect(errors).toEqual(["groundfix job bad failed"]);
  });

  it("close aborts the running job's signal, drops the waiting ones with a log line, and calls no gaveUp", async () => {
    const errors: string[] = [];
    const q = createQueue({ concurrency: 1, log: { info() {}, error: (_o, msg) => void errors.push(String(msg)) } });
    const gaveUp: string[] = [];
    let ran = 0;
    q.process(
      async (job, attempt) => {
        ran++;
        if (job.key === "stuck")
          await new Promise((_, reject) =>
            attempt.signal!.addEventListener("abort", () => reject(new Error("aborted"))),
          );
      },
      async (job) => void gaveUp.push(job.key),
    );
    await q.enqueue({ kind: "run", key: "stuck", installationId: 1, payload: {} });
    await q.enqueue({ kind: "run", key: "later", installationId: 1, payload: {} });
    expect(await q.close()).toEqual(["stuck"]);
    expect(ran).toBe(1);
    expect(gaveUp).toEqual([]);
    expect(errors.sort()).toEqual([
      "groundfix job later dropped by the shutdown before it ran",
      "groundfix job stuck stopped by the shutdown and dropped",
    ]);
  });

  it("close refuses new jobs and waits for the accepted ones", async () => {
    const { q, job } = queueWith();
    let done = false;
    await q.enqueue(
      job("a", async () => {
        await new Promise((r) => setTimeout(r, 5));
        done = true;
      }),
    );
    const closed = q.close();
    expect(await q.enqueue(job("b", async () => {}))).toBe("closed");
    await closed;
    expect(done).toBe(true);
  });
});
