import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig, parseConfig } from "../../../src/config/schema.js";
import { createGitHubHost } from "../../../src/host/github/host.js";
import { deliverPullRequest } from "../../../src/host/github/pull-request.js";
import { createReviewClaims } from "../../../src/host/github/review-claims.js";
import { decodeRunRecord, encodeRunRecord } from "../../../src/review/index.js";
import {
  API,
  BASE_FILES,
  BASE_SHA,
  COMPARE_PATCH,
  EDITED_ORDERS,
  OWNER,
  recordCalls,
  REPO,
  runResult,
  serveTarball,
  tarball,
  task,
  resetGitHubFakes,
  testOctokit,
} from "./helpers.js";

const repoPath = `/repos/${OWNER}/${REPO}`;
const BRANCH = "groundfix/issue-12";
const COMMIT = "c".repeat(40);
const PR_URL = `https://github.com/${OWNER}/${REPO}/pull/34`;

beforeAll(() => nock.disableNetConnect());
afterEach(() => expect(resetGitHubFakes()).toEqual([]));

/** The review's reads: compare, then the two tarballs. */
async function mockReviewReads(headSha: string) {
  nock(API)
    .get(`${repoPath}/compare/${BASE_SHA}...${headSha}`)
    .query(true)
    .reply(200, {
      merge_base_commit: { sha: BASE_SHA },
      files: [{ filename: "src/orders.js", status: "modified", changes: 1, additions: 1, deletions: 0, patch: COMPARE_PATCH }],
    });
  serveTarball(BASE_SHA, await tarball(BASE_SHA, BASE_FILES));
  serveTarball(headSha, await tarball(headSha, { ...BASE_FILES, "src/orders.js": EDITED_ORDERS }));
}

function mockCommit() {
  nock(API)
    .get(`${repoPath}/git/commits/${BASE_SHA}`)
    .reply(200, { tree: { sha: "1".repeat(40) } })
    .post(`${repoPath}/git/trees`)
    .reply(201, { sha: "2".repeat(40) })
    .post(`${repoPath}/git/commits`)
    .reply(201, { sha: COMMIT });
}

/**
 * The delivery's writes up to an opened PR: {@link mockCommit}, create the branch ref, then `POST pulls` answered
 * 201 with `pr`; the request body sent is kept in `sent.pr`. Returns the nock scope to chain the check-run mocks.
 */
function mockOpenPullRequest(pr: Record<string, unknown>, sent: { pr?: any } = {}) {
  mockCommit();
  return nock(API)
    .post(`${repoPath}/git/refs`)
    .reply(201, {})
    .post(`${repoPath}/pulls`, (b) => ((sent.pr = b), true))
    .reply(201, pr);
}

const input = (overrides = {}) => ({
  owner: OWNER,
  repo: REPO,
  task: task(),
  result: runResult(),
  baseSha: BASE_SHA,
  baseBranch: "main",
  branch: BRANCH,
  config: defaultConfig(),
  runId: "run-42",
  claimReview: createReviewClaims(),
  ...overrides,
});

describe("deliverPullRequest", () => {
  it("commits, opens a draft PR with a grounded body, and creates then completes the groundfix/review check run", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    const sent: { pr?: any } = {};
    let created: any, completed: any;
    mockOpenPullRequest({ number: 34, html_url: PR_URL, head: { sha: COMMIT } }, sent)
      .post(`${repoPath}/check-runs`, (b) => ((created = b), true))
      .reply(201, { id: 777 })
      .patch(`${repoPath}/check-runs/777`, (b) => ((completed = b), true))
      .reply(200, { id: 777 });
    await mockReviewReads(COMMIT);

    const out = await deliverPullRequest(octokit, input());
    const pr = sent.pr;

    expect(out).toMatchObject({ status: "opened", number: 34, url: PR_URL, branch: BRANCH, headSha: COMMIT });
    expect(pr).toMatchObject({ head: BRANCH, base: "main", draft: true });
    expect(pr.title).toMatch(/^groundfix: total\(\) reduces over/);
    expect(pr.body).toContain("Refs #12");
    expect(pr.body).toContain(`https://github.com/${OWNER}/${REPO}/blob/${BASE_SHA}/src/orders.js#L2`);
    expect(pr.body).toContain(`https://github.com/${OWNER}/${REPO}/blob/${BASE_SHA}/src/orders.js#L1`);
    expect(decodeRunRecord(pr.body)).toMatchObject({ run_id: "run-42", base_sha: BASE_SHA, head_sha: COMMIT, edits: [{ path: "src/orders.js", start_line: 1 }] });

    expect(created).toMatchObject({ name: "groundfix/review", head_sha: COMMIT, status: "in_progress", details_url: PR_URL, external_id: "run-42" });
    expect(completed).toMatchObject({ status: "completed", conclusion: "success" });
    expect(completed.output.title).toBeTruthy();
    expect(completed.output.summary).toBeTruthy();
    expect(completed.output.annotations.length).toBeLessThanOrEqual(50);
    expect(out.status !== "held" && out.review?.conclusion).toBe("success");

    // The REST calls of one delivery (the codeload redirect targets are not REST calls).
    expect(calls).toEqual([
      "GET /repos/{owner}/{repo}/git/commits/{commit_sha}",
      "POST /repos/{owner}/{repo}/git/trees",
      "POST /repos/{owner}/{repo}/git/commits",
      "POST /repos/{owner}/{repo}/git/refs",
      "POST /repos/{owner}/{repo}/pulls",
      "POST /repos/{owner}/{repo}/check-runs",
      "GET /repos/{owner}/{repo}/compare/{basehead}",
      "GET /repos/{owner}/{repo}/tarball/{ref}",
      "GET /repos/{owner}/{repo}/tarball/{ref}",
      "PATCH /repos/{owner}/{repo}/check-runs/{check_run_id}",
    ]);
  });

  it("costs 8 REST calls when the run already resolved and loaded the base (the app's path)", async () => {
    const octokit = testOctokit();
    nock(API)
      .get(repoPath)
      .reply(200, { default_branch: "main" })
      .get(`${repoPath}/branches/main`)
      .reply(200, { commit: { sha: BASE_SHA, commit: { tree: { sha: "1".repeat(40) } } } });
    await mockReviewReads(COMMIT);
    const host = createGitHubHost(octokit, { owner: OWNER, name: REPO });
    await host.resolveBase();
    await host.loadSnapshot(BASE_SHA);
    const calls = recordCalls(octokit);
    nock(API)
      .post(`${repoPath}/git/trees`)
      .reply(201, { sha: "2".repeat(40) })
      .post(`${repoPath}/git/commits`)
      .reply(201, { sha: COMMIT })
      .post(`${repoPath}/git/refs`)
      .reply(201, {})
      .post(`${repoPath}/pulls`)
      .reply(201, { number: 34, html_url: PR_URL, head: { sha: COMMIT } })
      .post(`${repoPath}/check-runs`)
      .reply(201, { id: 9 })
      .patch(`${repoPath}/check-runs/9`)
      .reply(200, {});
    const out = await deliverPullRequest(octokit, input());
    expect(out.status !== "held" && out.review?.conclusion).toBe("success");
    expect(calls).toHaveLength(8);
  });

  it("a check run GitHub refuses to create leaves a draft PR that warns at the top of its body not to merge it", async () => {
    const octokit = testOctokit();
    let patched: any;
    mockOpenPullRequest({ number: 34, html_url: PR_URL, head: { sha: COMMIT }, draft: true })
      .post(`${repoPath}/check-runs`)
      .reply(403, { message: "Resource not accessible by integration" })
      .patch(`${repoPath}/pulls/34`, (b) => ((patched = b), true))
      .reply(200, {});
    const out = await deliverPullRequest(octokit, input());
    expect(out).toMatchObject({ status: "opened", number: 34, review: null, reviewStage: "create" });
    expect(out.status !== "held" && out.reviewError).toContain("403");
    const firstLines = patched.body.split("\n").slice(0, 4).join("\n");
    expect(firstLines).toContain("Do not merge this pull request yet");
    expect(firstLines).toContain("`groundfix/review` check could not be created (GitHub answered 403");
    expect(decodeRunRecord(patched.body)?.head_sha).toBe(COMMIT); // the evidence rule still finds the record
  });

  it("retries a check-run create that answers 502 once, and converts a ready PR to draft when it fails again", async () => {
    const octokit = testOctokit();
    let graphql: any;
    mockOpenPullRequest({ number: 34, node_id: "PR_34", html_url: PR_URL, head: { sha: COMMIT }, draft: false })
      .post(`${repoPath}/check-runs`)
      .times(2)
      .reply(502, { message: "Server Error" })
      .post("/graphql", (b) => ((graphql = b), true))
      .reply(200, { data: { convertPullRequestToDraft: { pullRequest: { isDraft: true } } } })
      .patch(`${repoPath}/pulls/34`)
      .reply(200, {});
    const waits: number[] = [];
    const config = parseConfig({ pull_request: { draft: false } });
    const out = await deliverPullRequest(octokit, input({ config, delay: async (ms: number) => void waits.push(ms) }));
    expect(out).toMatchObject({ status: "opened", reviewStage: "create" });
    expect(waits).toEqual([1000]);
    expect(graphql.query).toContain("convertPullRequestToDraft");
    expect(graphql.variables).toEqual({ id: "PR_34" });
  });

  it("reuses the branch and its open PR: no second commit on it, no second PR, and the head is reviewed again", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    mockCommit();
    const existingHead = "e".repeat(40);
    const body = `${encodeRunRecord({ version: 1, run_id: "run-1", base_sha: BASE_SHA, head_sha: existingHead, edits: [] })}\nolder body`;
    let created: any;
    nock(API)
      .post(`${repoPath}/git/refs`)
      .reply(422, { message: "Reference already exists" })
      .get(/\/git\/ref\/heads(\/|%2F)groundfix(\/|%2F)issue-12$/)
      .reply(200, { object: { sha: existingHead } })
      .get(`${repoPath}/git/commits/${existingHead}`)
      .reply(200, { sha: existingHead, tree: { sha: "2".repeat(40) }, parents: [{ sha: BASE_SHA }] })
      .get(`${repoPath}/pulls`)
      .query({ head: `${OWNER}:${BRANCH}`, state: "open", per_page: 1 })
      .reply(200, [{ number: 34, html_url: PR_URL, body, head: { sha: existingHead } }])
      .post(`${repoPath}/check-runs`, (b) => ((created = b), true))
      .reply(201, { id: 778 })
      .patch(`${repoPath}/check-runs/778`)
      .reply(200, {});
    await mockReviewReads(existingHead);

    const out = await deliverPullRequest(octokit, input());
    expect(out).toMatchObject({ status: "existing", number: 34, url: PR_URL, headSha: existingHead });
    expect(created).toMatchObject({ name: "groundfix/review", head_sha: existingHead });
    expect(calls.filter((c) => c.startsWith("POST") && c.includes("/pulls"))).toEqual([]);
    expect(calls.filter((c) => c.startsWith("PATCH") && c.includes("/git/refs"))).toEqual([]);
  });

  it("a 502 when opening the PR deletes the branch it created and rethrows (no orphan branch)", async () => {
    const octokit = testOctokit();
    mockCommit();
    let deleted = false;
    nock(API)
      .post(`${repoPath}/git/refs`)
      .reply(201, {})
      .post(`${repoPath}/pulls`)
      .reply(502, { message: "Server Error" })
      .delete(/\/git\/refs\/heads(\/|%2F)groundfix(\/|%2F)issue-12$/)
      .reply(204, () => ((deleted = true), ""));
    await expect(deliverPullRequest(octokit, input())).rejects.toMatchObject({ status: 502 });
    expect(deleted).toBe(true);
  });

  it("opens a ready (non-draft) PR with 'Closes #N' when the config asks for it", async () => {
    const octokit = testOctokit();
    const sent: { pr?: any } = {};
    mockOpenPullRequest({ number: 35, html_url: PR_URL, head: { sha: COMMIT } }, sent)
      .post(`${repoPath}/check-runs`)
      .reply(201, { id: 1 })
      .patch(`${repoPath}/check-runs/1`)
      .reply(200, {});
    await mockReviewReads(COMMIT);
    const config = parseConfig({ pull_request: { draft: false, link_keyword: "Closes" } });
    await deliverPullRequest(octokit, input({ config }));
    expect(sent.pr.draft).toBe(false);
    expect(sent.pr.body).toContain("Closes #12");
    expect(sent.pr.body).not.toContain("Refs #12");
  });
});
