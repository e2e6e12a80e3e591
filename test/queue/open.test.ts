import { describe, expect, it } from "vitest";
import { openQueue } from "../../src/queue/open.js";
import type { JobData } from "../../src/queue/types.js";

const job = (key: string, extra: Partial<JobData> = {}): JobData => ({
  kind: "run",
  key,
  installationId: 1,
  payload: null,
  ...extra,
});

describe("openQueue without GROUNDFIX_REDIS_URL", () => {
  it("is the in-process queue: always ready, jobs accepted before process() wait for it", async () => {
    const q = await openQueue({ redisUrl: " ", concurrency: 1 });
    expect(q.backend).toBe("memory");
    expect(await q.ready()).toEqual({ ok: true, detail: "in-process queue" });
    expect(await q.enqueue(job("a"))).toBe("queued");
    const seen: string[] = [];
    await new Promise((r) => setTimeout(r, 20));
    q.process(async (j, attempt) => void seen.push(`${j.key} ${attempt.number} ${attempt.final}`));
    await q.idle();
    expect(seen).toEqual(["a 1 true"]);
  });

  it(
    "runs a job whose delivery id was claimed first (the " + "claim is not a redelivery), and drops a second claim",
    async () => {
      const q = await openQueue({ concurrency: 1 });
      let runs = 0;
      q.process(async () => void runs++);
      expect(await q.claimDelivery("d1")).toBe(true);
      expect(await q.enqueue(job("a", { deliveryId: "d1" }))).toBe("queued");
      await q.idle();
      expect(await q.claimDelivery("d1")).toBe(false);
      expect(runs).toBe(1);
    },
  );

  it("keeps the coalescing rules: a waiting key merges, a rerun while running runs once after", async () => {
    const q = await openQueue({ concurrency: 1 });
    let release!: () => void;
    const hold = new Promise<void>((r) => (release = r));
    const seen: unknown[] = [];
    q.process(async (j) => {
      seen.push([j.key, j.rerun ?? false]);
      if (seen.length === 1) await hold;
    });
    expect(await q.enqueue(job("k"))).toBe("queued");
    await new Promise((r) => setTimeout(r, 10));
    expect(await q.enqueue(job("k"))).toBe("coalesced");
    expect(await q.enqueue(job("k", { rerun: true }))).toBe("queued_after_running");
    expect(await q.enqueue(job("k", { rerun: true }))).toBe("coalesced");
    release();
    await q.idle();
    expect(seen).toEqual([
      ["k", false],
      ["k", true],
    ]);
    await q.close();
    expect(await q.enqueue(job("z"))).toBe("closed");
  });
});
