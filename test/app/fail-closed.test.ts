/**
 * Fail closed: an edit the agent applied is never delivered when the run then fails or its claims stay unverified.
 * Replay models play the attacker that edits first and answers badly (or never).
 */
import { afterEach, describe, expect, it } from "vitest";
import { answer, EDIT, READ, transcript } from "../fixtures/fail-closed-calls.js";
import { labeledIssue, startApp } from "./harness.js";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});

const writes = () => app!.fake.state.calls.filter((c) => c.method !== "GET").map((c) => c.route);

describe("an applied edit is not delivered when the run fails closed", () => {
  it("the step budget runs out after the edit: no tree, commit, ref or pull request", async () => {
    const model = transcript([
      { tool_calls: [READ] },
      { tool_calls: [EDIT] },
      { tool_calls: [READ] },
      { tool_calls: [READ] },
    ]);
    app = await startApp({ config: "agent:\n  max_steps: 3\n" }, { GROUNDFIX_MODEL: model });
    await app.receive("issues", labeledIssue());
    expect(writes()).not.toContain("POST /repos/{o}/{r}/git/trees");
    expect(writes()).not.toContain("POST /repos/{o}/{r}/git/refs");
    expect(app.fake.state.pulls).toEqual([]);
    const status = app.fake.state.comments.find((c) => c.body.includes("<!-- groundfix:status -->"))!.body;
    expect(status).toContain("step budget spent");
    expect(status).not.toContain("item is undefined");
  });

  it("claims that stay unverified never make a pull request, even with both thresholds at 0", async () => {
    const wrong = "  sum += item.cost * item.qty;";
    const turns = [READ, EDIT, answer(wrong), answer(wrong), answer(wrong)].map((call) => ({ tool_calls: [call] }));
    const model = transcript(turns);
    app = await startApp({ config: "thresholds:\n  comment: 0\n  pull_request: 0\n" }, { GROUNDFIX_MODEL: model });
    await app.receive("issues", labeledIssue());
    expect(app.fake.state.pulls).toEqual([]);
    expect(writes()).not.toContain("POST /repos/{o}/{r}/git/refs");
    const status = app.fake.state.comments.find((c) => c.body.includes("<!-- groundfix:status -->"))!.body;
    expect(status).toContain("No pull request");
  });

  it("the same edit with a verified answer does make one (the tests above fail for the right reason)", async () => {
    const model = transcript(
      [READ, EDIT, answer("    sum += item.price * item.qty;")].map((call) => ({ tool_calls: [call] })),
    );
    app = await startApp({}, { GROUNDFIX_MODEL: model });
    await app.receive("issues", labeledIssue());
    expect(app.fake.state.pulls).toHaveLength(1);
  });
});
