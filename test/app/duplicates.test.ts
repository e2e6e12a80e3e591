import { afterEach, describe, expect, it } from "vitest";
import { labeledIssue, startApp } from "./harness.js";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});

describe("duplicate deliveries", () => {
  it(
    "20 deliveries of one label event, arriving at once, " + "cost what one costs: one run, one PR, one check run",
    async () => {
      app = await startApp();
      const payload = labeledIssue();
      await Promise.all(
        Array.from({ length: 20 }, (_, i) => app!.probot.receive({ id: `copy-${i}`, name: "issues", payload } as any)),
      );
      await app.queue.idle();
      const once = app.fake.state.calls.length;
      const { state } = app.fake;
      expect(state.pulls).toHaveLength(1);
      expect(state.checkRuns).toHaveLength(1);
      expect(state.reactions).toHaveLength(1);
      expect(state.calls.filter((c) => c.route === "POST /repos/{o}/{r}/git/refs")).toHaveLength(1);
      // A single delivery of a fresh event, for the count of one run.
      app.stop();
      app = await startApp();
      await app.receive("issues", labeledIssue());
      expect(once).toBe(app.fake.state.calls.length);
    },
  );

  it("a redelivered delivery id after its run finished makes no GitHub call and no second check run", async () => {
    app = await startApp();
    const payload = labeledIssue();
    await app.receive("issues", payload, "d-1");
    const before = app.fake.state.calls.length;
    await app.receive("issues", payload, "d-1");
    await app.receive("issues", payload, "d-2"); // the same event under another id
    expect(app.fake.state.calls.length).toBe(before);
    expect(app.fake.state.checkRuns).toHaveLength(1);
  });
});
