import { afterEach, describe, expect, it } from "vitest";
import { decodeRunRecord, encodeRunRecord } from "../../../src/review/index.js";
import { labeledIssue, OWNER, REPO, startApp } from "../../app/harness.js";
import { webhookExample } from "../../fixtures/github.js";

/**
 * The run record counts only when GitHub confirms the commit it names (`lookupNamedCommit`,
 * src/host/github/review-check.ts: `GET compare/{base_sha}...{head_sha}` and `GET /app` for the bot login). When
 * GitHub cannot answer, the review must fail closed, saying why, and still conclude its check run: never pass, never
 * crash, never stay `in_progress`. Driven through the whole app on the fake GitHub: the app's own pull request for
 * issue #1, then a re-run of its check on the app's own head (`check_run.rerequested`) while GitHub misbehaves.
 */
describe("GitHub failing while the commit a run record names is looked up", () => {
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  afterEach(() => {
    app?.stop();
    app = undefined;
  });
  const BRANCH = "groundfix/issue-1";

  /** Re-review the app's own head with `body` as the pull request body; the new groundfix/review check run. */
  async function reReview(body?: (own: string) => string) {
    app = await startApp();
    await app.receive("issues", labeledIssue());
    const pr = app.fake.state.pulls[0]!;
    const own = app.fake.state.refs.get(BRANCH)!;
    if (body) pr.body = body(own);
    const payload = webhookExample("check_run", "rerequested");
    payload.repository = labeledIssue().repository;
    const repo = { id: 1, url: `https://api.github.com/repos/${OWNER}/${REPO}` };
    const base = { ref: "master", sha: app.fake.baseSha, repo };
    Object.assign(payload.check_run, {
      name: "groundfix/review",
      head_sha: own,
      pull_requests: [{ number: pr.number, head: { ref: BRANCH, sha: own, repo }, base }],
    });
    const before = app.fake.state.checkRuns.length;
    return { payload, before, own };
  }

  async function deliver(r: Awaited<ReturnType<typeof reReview>>) {
    await app!.receive("check_run", r.payload);
    const runs = app!.fake.state.checkRuns.slice(r.before);
    expect(runs).toHaveLength(1);
    expect(runs[0]!.status).toBe("completed");
    return runs[0]!;
  }

  it("a record naming a SHA the repository lacks (404) fails evidence, saying it was not found", async () => {
    const r = await reReview((own) => {
      const record = decodeRunRecord(app!.fake.state.pulls[0]!.body)!;
      expect(record.head_sha).toBe(own);
      return encodeRunRecord({ ...record, head_sha: "d".repeat(40) });
    });
    const run = await deliver(r);
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("could not be looked up");
    expect(run.output.summary).toMatch(/404|Not Found/);
  });

  it("a 500 from the compare call fails the check closed, and the next delivery can pass again", async () => {
    const r = await reReview();
    app!.fake.state.failures.set("GET /repos/{o}/{r}/compare/{sha}", 500);
    const run = await deliver(r);
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toMatch(/could not (run|be looked up)/);
    app!.fake.state.failures.clear();
    // Another re-run of the check (another check run id: the same payload again is the same event, coalesced).
    const payload = { ...r.payload, check_run: { ...r.payload.check_run, id: r.payload.check_run.id + 1 } };
    const again = await deliver({ ...r, payload, before: app!.fake.state.checkRuns.length });
    expect(again.conclusion).toBe("success");
  });
});
