import { structuredPatch } from "diff";
import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/config/schema.js";
import { publishReviewCheck, runReviewCheck } from "../../../src/host/github/review-check.js";
import { createReviewClaims } from "../../../src/host/github/review-claims.js";
import { reviewPullRequest } from "../../../src/host/github/review-handler.js";
import { encodeRunRecord } from "../../../src/review/index.js";
import type { ReviewReport } from "../../../src/types.js";
import {
  API,
  BASE_SHA,
  githubHost,
  HEAD_SHA,
  OWNER,
  recordCalls,
  REPO,
  serveTarball,
  tarball,
  resetGitHubFakes,
  testOctokit,
} from "./helpers.js";

const repoPath = `/repos/${OWNER}/${REPO}`;
const PR_URL = `https://github.com/${OWNER}/${REPO}/pull/9`;

beforeAll(() => nock.disableNetConnect());
afterEach(() => expect(resetGitHubFakes()).toEqual([]));

/** GitHub's compare answer for one changed text file, hunks computed like git does. */
function compareAnswer(path: string, before: string, after: string) {
  const { hunks } = structuredPatch(path, path, before, after, "", "", { context: 3 });
  const patch = hunks
    .map((h) => [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines].join("\n"))
    .join("\n");
  return { merge_base_commit: { sha: BASE_SHA }, files: [{ filename: path, status: "modified", changes: 1, patch }] };
}

async function serveChange(path: string, before: string, after: string) {
  nock(API)
    .get(`${repoPath}/compare/${BASE_SHA}...${HEAD_SHA}`)
    .query(true)
    .reply(200, compareAnswer(path, before, after));
  serveTarball(BASE_SHA, await tarball(BASE_SHA, { [path]: before }));
  serveTarball(HEAD_SHA, await tarball(HEAD_SHA, { [path]: after }));
}

const checkInput = {
  owner: OWNER,
  repo: REPO,
  headSha: HEAD_SHA,
  baseSha: BASE_SHA,
  prNumber: 9,
  prUrl: PR_URL,
  config: defaultConfig(),
  record: null,
};

describe("runReviewCheck", () => {
  it("reviews a pull request from the merge base, not from the head its base branch moved to", async () => {
    const newer = "c".repeat(40); // the base branch's head now, as the pull request's base.sha reports it
    const before = "a\nb\nc\n";
    const after = "a\nb\nc\nd\n";
    // GitHub's compare of newer...head answers the merge base (BASE_SHA) and the diff from it, like the PR's diff.
    nock(API)
      .get(`${repoPath}/compare/${newer}...${HEAD_SHA}`)
      .query(true)
      .reply(200, compareAnswer("notes.txt", before, after));
    await serveChange("notes.txt", before, after); // the review's own compare and snapshots: BASE_SHA and HEAD_SHA
    // No tarball of `newer` is served: the review must read the merge base, not the base branch's head.
    let update: any;
    nock(API)
      .post(`${repoPath}/check-runs`)
      .reply(201, { id: 6 })
      .patch(`${repoPath}/check-runs/6`, (b) => ((update = b), true))
      .reply(200, {});

    const report = await runReviewCheck(githubHost(testOctokit()), { ...checkInput, baseSha: newer });

    expect(report.findings).toEqual([]);
    expect(report.conclusion).toBe("success");
    expect(update.conclusion).toBe("success");
  });

  it("a change with 120 findings sends its annotations in three batches of at most 50", async () => {
    const base = Array.from({ length: 240 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";
    const head =
      base
        .split("\n")
        .filter((_, i) => i % 2 === 0)
        .join("\n") + "\n"; // every other line removed
    await serveChange("notes.txt", base, head);
    const updates: any[] = [];
    nock(API)
      .post(`${repoPath}/check-runs`)
      .reply(201, { id: 5 })
      .patch(`${repoPath}/check-runs/5`, (b) => (updates.push(b), true))
      .times(3)
      .reply(200, {});

    const report = await runReviewCheck(githubHost(testOctokit()), checkInput);

    expect(report.conclusion).toBe("failure");
    expect(report.findings.filter((f) => f.rule === "edit_policy")).toHaveLength(120);
    expect(updates.map((u) => u.output.annotations.length)).toEqual([50, 50, 20]);
    expect(updates[0]).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(updates[1].output.title).toBe(updates[0].output.title);
    expect(updates[2].output.summary).toBe(updates[0].output.summary);
    expect(updates[0].output.annotations[0]).toMatchObject({ path: "notes.txt", annotation_level: "failure" });
  });

  it(
    "when the review cannot run, the check run fails " + "closed with the reason instead of staying in progress",
    async () => {
      nock(API)
        .get(`${repoPath}/compare/${BASE_SHA}...${HEAD_SHA}`)
        .query(true)
        .reply(404, { message: "No commit found for SHA" });
      let update: any;
      nock(API)
        .post(`${repoPath}/check-runs`)
        .reply(201, { id: 6 })
        .patch(`${repoPath}/check-runs/6`, (b) => ((update = b), true))
        .reply(200, {});

      const report = await runReviewCheck(githubHost(testOctokit()), checkInput);
      expect(report.conclusion).toBe("failure");
      expect(update).toMatchObject({ status: "completed", conclusion: "failure" });
      expect(update.output.summary).toContain("could not run");
      expect(update.output.summary).toContain("404");
    },
  );
});

/** A failing review of `n` findings on notes.txt, one line each. */
function reviewOf(n: number): ReviewReport {
  const findings = Array.from({ length: n }, (_, i) => ({
    rule: "edit_policy" as const,
    level: "failure" as const,
    path: "notes.txt",
    start_line: i + 1,
    end_line: i + 1,
    message: `line ${i + 1} was removed`,
  }));
  return { conclusion: "failure", title: "edit policy failed", summary: "removed lines", findings, rulesChecked: [] };
}

describe("publishReviewCheck (the run's own pull request, reviewed before its commit existed)", () => {
  const target = { owner: OWNER, repo: REPO, headSha: HEAD_SHA, prNumber: 9, prUrl: PR_URL, externalId: "run-7" };

  it("creates the check run already concluded in ONE request when its annotations fit in one (≤50)", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    let created: any;
    nock(API)
      .post(`${repoPath}/check-runs`, (b) => ((created = b), true))
      .reply(201, { id: 11 });
    expect(await publishReviewCheck(octokit, target, reviewOf(50))).toBe(11);
    expect(calls).toEqual(["POST /repos/{owner}/{repo}/check-runs"]);
    expect(created).toMatchObject({
      name: "groundfix/review",
      head_sha: HEAD_SHA,
      status: "completed",
      conclusion: "failure",
      details_url: PR_URL,
      external_id: "run-7",
      output: { title: "edit policy failed" },
    });
    expect(created.output.annotations).toHaveLength(50);
    expect(created.completed_at).toEqual(expect.any(String));
  });

  it("120 annotations: created concluded with the first 50, then one PATCH per further batch (50, 20)", async () => {
    const octokit = testOctokit();
    let created: any;
    const updates: any[] = [];
    nock(API)
      .post(`${repoPath}/check-runs`, (b) => ((created = b), true))
      .reply(201, { id: 12 })
      .patch(`${repoPath}/check-runs/12`, (b) => (updates.push(b), true))
      .times(2)
      .reply(200, {});
    await publishReviewCheck(octokit, target, reviewOf(120));
    expect(created).toMatchObject({ status: "completed", conclusion: "failure" });
    expect([created, ...updates].map((u) => u.output.annotations.length)).toEqual([50, 50, 20]);
    expect(updates.every((u) => u.status === undefined && u.conclusion === undefined)).toBe(true);
    expect(updates[1].output.title).toBe(created.output.title);
    expect(updates[0].output.annotations[0].start_line).toBe(51);
  });

  it(
    "a refused create throws stage `create`; a refused later " +
      "batch throws stage `annotations` (the run stays concluded)",
    async () => {
      const octokit = testOctokit();
      nock(API).post(`${repoPath}/check-runs`).reply(403, { message: "Resource not accessible by integration" });
      await expect(publishReviewCheck(octokit, target, reviewOf(1))).rejects.toMatchObject({ stage: "create" });
      nock(API)
        .post(`${repoPath}/check-runs`)
        .reply(201, { id: 13 })
        .patch(`${repoPath}/check-runs/13`)
        .reply(422, { message: "Validation Failed" });
      await expect(publishReviewCheck(octokit, target, reviewOf(60))).rejects.toMatchObject({ stage: "annotations" });
    },
  );
});

describe("reviewPullRequest (the job behind the review triggers)", () => {
  const request = {
    owner: OWNER,
    repo: REPO,
    prNumber: 9,
    prUrl: PR_URL,
    headSha: HEAD_SHA,
    baseSha: BASE_SHA,
    headRef: "groundfix/issue-9",
    baseRef: "main",
    fork: false,
    rerequested: false,
    joins: false,
  };
  const before = "a\nb\nc\n";

  it(
    "reviews a human push that deletes a line: the edit policy fails it, and so does evidence, which checks the " +
      "app's own commit (named by the record, made by the app) and the whole pull request against the record",
    async () => {
      const octokit = testOctokit();
      const appCommit = "d".repeat(40);
      await serveChange("src/x.js", before, "a\nc\n");
      // The record names the app's commit: one compare call shows it is one commit on the base, by the app's bot,
      // verified, with the trailer; reviewCommit reuses that answer (the host caches it) for the app's own range.
      const bot = { login: "groundfix[bot]" };
      nock(API)
        .get(`${repoPath}/compare/${BASE_SHA}...${appCommit}`)
        .query(true)
        .reply(200, {
          merge_base_commit: { sha: BASE_SHA },
          ahead_by: 1,
          commits: [
            {
              sha: appCommit,
              author: bot,
              committer: bot,
              commit: { message: "groundfix: x\n\nGroundfix-Run: run-7", verification: { verified: true } },
            },
          ],
          files: [],
        });
      // ... and replays the record on the app's own commit's files
      serveTarball(appCommit, await tarball(appCommit, { "src/x.js": before }));
      let update: any;
      nock(API)
        .get(`${repoPath}/commits/${HEAD_SHA}/check-runs`)
        .query(true)
        .reply(200, { total_count: 0, check_runs: [] })
        .get(`${repoPath}/commits/${HEAD_SHA}/pulls`)
        .query(true)
        .reply(200, [])
        .post(`${repoPath}/check-runs`)
        .reply(201, { id: 8 })
        .patch(`${repoPath}/check-runs/8`, (b) => ((update = b), true))
        .reply(200, {});
      const body = encodeRunRecord({ version: 1, run_id: "run-7", base_sha: BASE_SHA, head_sha: appCommit, edits: [] });

      const host = githubHost(octokit, { botLogin: "groundfix[bot]" });
      const out = await reviewPullRequest(host, request, defaultConfig(), createReviewClaims(), body);
      expect(out.status).toBe("reviewed");
      expect(update.conclusion).toBe("failure");
      const annotations = update.output.annotations.filter((a: any) => a.path === "src/x.js");
      expect(annotations.some((a: any) => /removes 1 line/.test(a.message))).toBe(true);
      expect(annotations.some((a: any) => /matches no edit in the run record/.test(a.message))).toBe(true);
      expect(update.output.summary).toContain("Commits were pushed after groundfix's own commit");
    },
  );

  it(
    "skips a head SHA this process already claimed (the " + "delivery path claims its own) without a call to GitHub",
    async () => {
      const octokit = testOctokit();
      const calls = recordCalls(octokit);
      const claims = createReviewClaims();
      expect(claims(OWNER, REPO, HEAD_SHA)).toBe(true);
      const out = await reviewPullRequest(githubHost(octokit), request, defaultConfig(), claims, "");
      expect(out).toMatchObject({
        status: "skipped",
        reason: expect.stringContaining("already reviewed by this process"),
      });
      expect(calls).toEqual([]);
    },
  );

  it("skips a head SHA that already has a groundfix/review check run, unless the run was re-requested", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    nock(API)
      .get(`${repoPath}/commits/${HEAD_SHA}/check-runs`)
      .query(true)
      .reply(200, { total_count: 1, check_runs: [{ id: 1 }] });
    expect(
      (await reviewPullRequest(githubHost(octokit), request, defaultConfig(), createReviewClaims(), "")).status,
    ).toBe("skipped");
    expect(calls.filter((c) => c.startsWith("POST"))).toEqual([]);

    // An explicit re-run produces a fresh completed check on the same SHA; the PR body is fetched for the record.
    await serveChange("src/x.js", before, "a\nb\nc\nd();\n"); // a call: a bare `d` line is refused (it only reads)
    let created: any, update: any;
    nock(API)
      .get(`${repoPath}/commits/${HEAD_SHA}/pulls`)
      .query(true)
      .reply(200, [])
      .get(`${repoPath}/pulls/9`)
      .reply(200, { body: "no record", base: { sha: BASE_SHA } })
      .post(`${repoPath}/check-runs`, (b) => ((created = b), true))
      .reply(201, { id: 10 })
      .patch(`${repoPath}/check-runs/10`, (b) => ((update = b), true))
      .reply(200, {});
    const again = await reviewPullRequest(
      githubHost(octokit),
      { ...request, rerequested: true },
      defaultConfig(),
      createReviewClaims(),
    );
    expect(again.status).toBe("reviewed");
    expect(created).toMatchObject({ name: "groundfix/review", head_sha: HEAD_SHA, details_url: PR_URL });
    // The body holds no run record, and the branch is a groundfix branch: every rule but evidence passes, and
    // evidence fails, saying why.
    expect(update).toMatchObject({ status: "completed", conclusion: "failure" });
    expect(again.status === "reviewed" && again.report.findings.map((f) => f.rule)).toEqual(["evidence"]);
    expect(update.output.summary).toContain("holds no run record");
  });
});
