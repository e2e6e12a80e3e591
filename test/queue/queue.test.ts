import { describe, expect, it } from "vitest";
import { createQueue } from "../../src/queue/index.js";

/** A job whose run waits until the test releases it, recording starts and ends. */
function gate() {
  let release!: () => void;
  const done = new Promise<void>((r) => (release = r));
  return { done, release };
}

describe("createQueue", () => {
  it("runs at most `concurrency` jobs at once, the rest in arrival order", async () => {
    const q = createQueue({ concurrency: 2 });
    const log: string[] = [];
    const gates = [gate(), gate(), gate()];
    gates.forEach((g, i) =>
      q.enqueue({
        key: `k${i}`,
        run: async () => {
          log.push(`start ${i}`);
          await g.done;
          log.push(`end ${i}`);
        },
      }),
    );
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

  it("drops a second delivery with the same id, even after the first finished", async () => {
    const q = createQueue();
    let runs = 0;
    expect(q.enqueue({ key: "a", deliveryId: "d1", run: async () => void runs++ })).toBe("queued");
    await q.idle();
    expect(q.seen("d1")).toBe(true);
    expect(q.enqueue({ key: "a", deliveryId: "d1", run: async () => void runs++ })).toBe("duplicate_delivery");
    await q.idle();
    expect(runs).toBe(1);
  });

  it("forgets the oldest delivery ids beyond maxDeliveries", async () => {
    const q = createQueue({ maxDeliveries: 2 });
    for (const id of ["d1", "d2", "d3"]) q.enqueue({ key: id, deliveryId: id, run: async () => {} });
    await q.idle();
    expect([q.seen("d1"), q.seen("d2"), q.seen("d3")]).toEqual([false, true, true]);
  });

  it("coalesces a job whose key is waiting or running; a rerun while running runs once after", async () => {
    const q = createQueue({ concurrency: 1 });
    const order: string[] = [];
    const g = gate();
    q.enqueue({ key: "x", run: async () => { order.push("x1"); await g.done; } });
    q.enqueue({ key: "y", run: async () => void order.push("y1") });
    expect(q.enqueue({ key: "y", run: async () => void order.push("y2") })).toBe("coalesced");
    await new Promise((r) => setImmediate(r));
    expect(q.enqueue({ key: "x", run: async () => void order.push("x-plain") })).toBe("coalesced");
    expect(q.enqueue({ key: "x", rerun: true, run: async () => void order.push("x-retry1") })).toBe("queued_after_running");
    expect(q.enqueue({ key: "x", rerun: true, run: async () => void order.push("x-retry2") })).toBe("coalesced");
    g.release();
    await q.idle();
    expect(order).toEqual(["x1", "y1", "x-retry2"]);
  });

  it("catches and logs a failing job and keeps running the next ones", async () => {
    const errors: string[] = [];
    const q = createQueue({ log: { info() {}, error: (_o, msg) => void errors.push(String(msg)) } });
    let ran = false;
    q.enqueue({ key: "bad", run: async () => { throw new Error("boom"); } });
    q.enqueue({ key: "good", run: async () => void (ran = true) });
    await q.idle();
    expect(ran).toBe(true);
    expect(errors).toEqual(["groundfix job bad failed"]);
  });

  it("drain refuses new jobs and waits for the accepted ones", async () => {
    const q = createQueue();
    let done = false;
    q.enqueue({ key: "a", run: async () => { await new Promise((r) => setTimeout(r, 5)); done = true; } });
    const drained = q.drain();
    expect(q.enqueue({ key: "b", run: async () => {} })).toBe("closed");
    await drained;
    expect(done).toBe(true);
  });
});
