import { describe, expect, it } from "vitest";
import { createStatusPacer, type PacerTimers } from "../../../src/host/github/progress.js";
import { manualClock } from "./helpers.js";

/** Resolve the promise callbacks queued so far (the pacer chains its writes). */
const settle = () => new Promise((resolve) => setImmediate(resolve));

function pacerWith(clock: PacerTimers, write: (s: string) => Promise<void> = async () => {}) {
  const written: string[] = [];
  const failed: string[] = [];
  const pacer = createStatusPacer<string>({
    afterMs: 10_000,
    timers: clock,
    write: async (s) => {
      await write(s);
      written.push(s);
    },
    onProgressError: (_e, s) => failed.push(s),
  });
  return { pacer, written, failed };
}

describe("createStatusPacer", () => {
  it("a run whose stages are all fast writes once: the final status, no progress", async () => {
    const clock = manualClock();
    const { pacer, written } = pacerWith(clock);
    pacer.stage("starting");
    clock.advance(3_000);
    pacer.stage("loading");
    clock.advance(9_999);
    pacer.stage("investigating");
    clock.advance(5_000);
    await pacer.final("done");
    clock.advance(60_000); // nothing left to fire
    await settle();
    expect(written).toEqual(["done"]);
    expect(clock.pending()).toBe(0);
  });

  it("a stage that lasts longer than afterMs is written once its time has passed, then the final status", async () => {
    const clock = manualClock();
    const { pacer, written } = pacerWith(clock);
    pacer.stage("loading");
    clock.advance(1_000);
    pacer.stage("investigating");
    clock.advance(10_000); // the model is slow
    await settle();
    expect(written).toEqual(["investigating"]);
    clock.advance(50_000); // still the same stage: written once, not again
    pacer.stage("delivering");
    clock.advance(2_000);
    await pacer.final("done");
    expect(written).toEqual(["investigating", "done"]);
  });

  it("the final status waits for a progress write under way, so it is always the last write", async () => {
    const clock = manualClock();
    let release!: () => void;
    const slowFirst = new Promise<void>((resolve) => (release = resolve));
    const { pacer, written } = pacerWith(clock, (s) => (s === "investigating" ? slowFirst : Promise.resolve()));
    pacer.stage("investigating");
    clock.advance(10_000);
    const final = pacer.final("done");
    await settle();
    expect(written).toEqual([]); // the progress write has not answered yet; the final one waits
    release();
    await final;
    expect(written).toEqual(["investigating", "done"]);
  });

  it(
    "a failed progress write is reported and the final status " +
      "is still written; stages after the final are ignored",
    async () => {
      const clock = manualClock();
      const { pacer, written, failed } = pacerWith(clock, async (s) => {
        if (s === "investigating") throw new Error("502");
      });
      pacer.stage("investigating");
      clock.advance(10_000);
      await settle();
      await pacer.final("done");
      pacer.stage("late");
      clock.advance(60_000);
      await settle();
      expect(failed).toEqual(["investigating"]);
      expect(written).toEqual(["done"]);
    },
  );

  it("a failed final write throws to the caller", async () => {
    const { pacer } = pacerWith(manualClock(), async (s) => {
      if (s === "done") throw new Error("GitHub answered 502");
    });
    await expect(pacer.final("done")).rejects.toThrow("502");
  });
});
