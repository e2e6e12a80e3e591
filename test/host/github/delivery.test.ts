import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { defaultConfig, parseConfig, type GroundfixConfig } from "../../../src/config/schema.js";
import type { GitHubHost } from "../../../src/host/github/host.js";
import type { Octokit } from "../../../src/host/github/octokit.js";
import { deliverEdits } from "../../../src/pipeline/run.js";
import type { RunReport } from "../../../src/pipeline/types.js";
import { decodeRunRecord, encodeRunRecord } from "../../../src/review/index.js";
import { snapshotFromTar } from "../../../src/snapshot/index.js";
import {
  API,
  BASE_FILES,
  BASE_SHA,
  githubHost,
  OWNER,
  ownCommit,
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

/** The fresh-base read of the branch head (unmoved: still the base, with its tree), then the commit's writes. */
function mockCommit() {
  nock(API)
    .get(`${repoPath}/branches/main`)
    .reply(200, { commit: { sha: BASE_SHA, commit: { tree: { sha: "1".repeat(40) } } } })
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

/** `GET commits/{head}/pulls`: the delivered pull request #34, the only one with that head. */
function mockHeadPulls(scope = nock(API), head = COMMIT) {
  const repo = { id: 1, full_name: `${OWNER}/${REPO}` };
  return scope
    .get(`${repoPath}/commits/${head}/pulls`)
    .query(true)
    .reply(200, [
      {
        number: 34,
        html_url: PR_URL,
        state: "open",
        body: "",
        head: { ref: BRANCH, sha: head, label: `${OWNER}:${BRANCH}`, repo },
        base: { ref: "main", sha: BASE_SHA, repo },
      },
    ]);
}

/**
 * The pipeline's delivery of the `pr_ready` run of helpers.ts through a GitHub host (statuses logged only): the
 * review in memory over the base snapshot, the commit, the pull request, the check run.
 */
async function deliver(octokit: Octokit, options: { config?: GroundfixConfig; host?: GitHubHost } = {}) {
  const snapshot = await snapshotFromTar(await tarball(BASE_SHA, BASE_FILES), { sha: BASE_SHA, stripTopFolder: true });
  const request = { task: task(), mode: "run" as const, statusIssue: null, branchSuffix: "issue-12" };
  const report: RunReport = { host: "github", runId: "run-42", status: "error", request, written: {} };
  const edits = {
    task: task(),
    result: runResult(),
    snapshot,
    config: options.config ?? defaultConfig(),
    base: { sha: BASE_SHA, ref: "main" },
  };
  report.status = await deliverEdits(options.host ?? githubHost(octokit), report, edits);
  return report;
}

describe("deliverEdits through the GitHub host", () => {
  it(
    "commits, opens a draft PR with a grounded body, and " + "creates the groundfix/review check run already concluded",
    async () => {
      const octokit = testOctokit();
      const calls = recordCalls(octokit);
      const sent: { pr?: any } = {};
      let created: any;
      mockHeadPulls(
        mockOpenPullRequest({ number: 34, html_url: PR_URL, head: { sha: COMMIT } }, sent)
          .post(`${repoPath}/check-runs`, (b) => ((created = b), true))
          .reply(201, { id: 777 }),
      );

      const out = await deliver(octokit);
      const pr = sent.pr;

      expect(out.status).toBe("pull_request");
      expect(out.pullRequest).toMatchObject({
        number: 34,
        url: PR_URL,
        branch: BRANCH,
        headSha: COMMIT,
        existing: false,
      });
      expect(pr).toMatchObject({ head: BRANCH, base: "main", draft: true });
      expect(pr.title).toBe("groundfix: guard items against a value that is not an array in total()");
      expect(pr.body).toContain("Refs #12");
      expect(pr.body).toContain(`https://github.com/${OWNER}/${REPO}/blob/${BASE_SHA}/src/orders.js#L2`);
      expect(pr.body).toContain(`https://github.com/${OWNER}/${REPO}/blob/${BASE_SHA}/src/orders.js#L1`);
      expect(decodeRunRecord(pr.body)).toMatchObject({
        run_id: "run-42",
        base_sha: BASE_SHA,
        head_sha: COMMIT,
        edits: [{ path: "src/orders.js", start_line: 1 }],
      });

      // One request: the review ran before the commit existed, so the check run is born concluded (never in_progress).
      expect(created).toMatchObject({
        name: "groundfix/review",
        head_sha: COMMIT,
        status: "completed",
        conclusion: "success",
        details_url: PR_URL,
        external_id: "run-42",
      });
      expect(created.completed_at).toEqual(expect.any(String));
      expect(created.output.title).toBeTruthy();
      expect(created.output.summary).toBeTruthy();
      expect(created.output.annotations.length).toBeLessThanOrEqual(50);
      expect(out.review?.conclusion).toBe("success");
      // the commit reviewed, named once it exists
      expect(created.output.summary).toContain(`head \`${COMMIT.slice(0, 7)}\``);

      // The REST calls of one delivery: the review ran in memory (no compare call, no head tarball); the fresh-base
      // read of the branch head also gives the base tree, so no `GET git/commits` is needed for it. The pull
      // requests with the new head are listed after the check run exists (one opened meanwhile would fail it).
      expect(calls).toEqual([
        "GET /repos/{owner}/{repo}/branches/{branch}",
        "POST /repos/{owner}/{repo}/git/trees",
        "POST /repos/{owner}/{repo}/git/commits",
        "POST /repos/{owner}/{repo}/git/refs",
        "POST /repos/{owner}/{repo}/pulls",
        "POST /repos/{owner}/{repo}/check-runs",
        "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls",
      ]);
    },
  );

  it("costs 7 REST calls when the run already resolved and loaded the base (the app's path)", async () => {
    const octokit = testOctokit();
    nock(API)
      .get(repoPath)
      .reply(200, { default_branch: "main" })
      .get(`${repoPath}/branches/main`)
      .reply(200, { commit: { sha: BASE_SHA, commit: { tree: { sha: "1".repeat(40) } } } });
    serveTarball(BASE_SHA, await tarball(BASE_SHA, BASE_FILES));
    const host = githubHost(octokit);
    await host.resolveBase();
    await host.loadSnapshot(BASE_SHA);
    const calls = recordCalls(octokit);
    nock(API)
      .get(`${repoPath}/branches/main`) // the fresh base: the branch head read again before committing
      .reply(200, { commit: { sha: BASE_SHA, commit: { tree: { sha: "1".repeat(40) } } } })
      .post(`${repoPath}/git/trees`)
      .reply(201, { sha: "2".repeat(40) })
      .post(`${repoPath}/git/commits`)
      .reply(201, { sha: COMMIT })
      .post(`${repoPath}/git/refs`)
      .reply(201, {})
      .post(`${repoPath}/pulls`)
      .reply(201, { number: 34, html_url: PR_URL, head: { sha: COMMIT } })
      .post(`${repoPath}/check-runs`)
      .reply(201, { id: 9 });
    mockHeadPulls();
    const out = await deliver(octokit, { host });
    expect(out.review?.conclusion).toBe("success");
    expect(calls).toHaveLength(7);
  });

  it(
    "a check run GitHub refuses to create leaves a draft " + "PR that warns at the top of its body not to merge it",
    async () => {
      const octokit = testOctokit();
      let patched: any;
      mockOpenPullRequest({ number: 34, html_url: PR_URL, head: { sha: COMMIT }, draft: true })
        .post(`${repoPath}/check-runs`)
        .reply(403, { message: "Resource not accessible by integration" })
        .patch(`${repoPath}/pulls/34`, (b) => ((patched = b), true))
        .reply(200, {});
      const out = await deliver(octokit);
      expect(out).toMatchObject({
        status: "pull_request",
        pullRequest: { number: 34 },
        reviewCheck: { stage: "create" },
      });
      expect(out.reviewCheck?.message).toContain("403");
      const firstLines = patched.body.split("\n").slice(0, 4).join("\n");
      expect(firstLines).toContain("Do not merge this pull request yet");
      expect(firstLines).toContain("`groundfix/review` check could not be created (GitHub answered 403");
      expect(decodeRunRecord(patched.body)?.head_sha).toBe(COMMIT); // the evidence rule still finds the record
    },
  );

  it(
    "retries a check-run create that answers 502 once, " + "and converts a ready PR to draft when it fails again",
    async () => {
      const octokit = testOctokit({ plugins: true });
      let graphql: any;
      mockOpenPullRequest({ number: 34, node_id: "PR_34", html_url: PR_URL, head: { sha: COMMIT }, draft: false })
        .post(`${repoPath}/check-runs`)
        .times(2)
        .reply(502, { message: "Server Error" })
        .post("/graphql", (b) => ((graphql = b), true))
        .reply(200, { data: { convertPullRequestToDraft: { pullRequest: { isDraft: true } } } })
        .patch(`${repoPath}/pulls/34`)
        .reply(200, {});
      const config = parseConfig({ pull_request: { draft: false } });
      const out = await deliver(octokit, { config });
      expect(out).toMatchObject({ status: "pull_request", reviewCheck: { stage: "create" } }); // both 502s were met
      expect(graphql.query).toContain("convertPullRequestToDraft");
      expect(graphql.variables).toEqual({ id: "PR_34" });
    },
  );

  it(
    "reuses the branch and its open PR: no second commit " + "on it, no second PR, and the head is reviewed again",
    async () => {
      const octokit = testOctokit();
      const calls = recordCalls(octokit);
      mockCommit();
      const existingHead = "e".repeat(40);
      const record = { version: 1 as const, run_id: "run-1", base_sha: BASE_SHA, head_sha: existingHead, edits: [] };
      const body = `${encodeRunRecord(record)}\nolder body`;
      let created: any;
      nock(API)
        .post(`${repoPath}/git/refs`)
        .reply(422, { message: "Reference already exists" })
        .get(/\/git\/ref\/heads(\/|%2F)groundfix(\/|%2F)issue-12$/)
        .reply(200, { object: { sha: existingHead } })
        .get(`${repoPath}/git/commits/${existingHead}`)
        .reply(200, { sha: existingHead, message: "m", tree: { sha: "2".repeat(40) }, parents: [{ sha: BASE_SHA }] })
        .get(`${repoPath}/compare/${BASE_SHA}...${existingHead}`) // the head is the app's own commit
        .query(true)
        .reply(200, { ahead_by: 1, commits: [ownCommit(existingHead)], files: [] })
        .get(`${repoPath}/pulls`)
        .query({ head: `${OWNER}:${BRANCH}`, state: "open", per_page: 1 })
        .reply(200, [{ number: 34, html_url: PR_URL, body, head: { sha: existingHead } }])
        .post(`${repoPath}/check-runs`, (b) => ((created = b), true))
        .reply(201, { id: 778 });
      // A head the branch already held: its pull requests are listed before the check run and after it.
      for (let i = 0; i < 2; i++) mockHeadPulls(undefined, existingHead);

      const out = await deliver(octokit, { host: githubHost(octokit, { botLogin: "groundfix[bot]" }) });
      expect(out.pullRequest).toMatchObject({ existing: true, number: 34, url: PR_URL, headSha: existingHead });
      expect(created).toMatchObject({ name: "groundfix/review", head_sha: existingHead, status: "completed" });
      expect(calls.filter((c) => c.startsWith("POST") && c.includes("/pulls"))).toEqual([]);
      expect(calls.filter((c) => c.startsWith("PATCH") && c.includes("/git/refs"))).toEqual([]);
    },
  );

  it("a 502 when opening the PR deletes the branch it created and rethrows (no orphan branch)", async () => {
    const octokit = testOctokit();
    mockCommit();
    let deleted = false;
    nock(API)
      .post(`${repoPath}/git/refs`)
      .reply(201, {})
      .post(`${repoPath}/pulls`)
      .reply(502, { message: "Server Error" })
      .get(`${repoPath}/pulls`)
      .query(true)
      .times(2) // did the create land? (no) — and, before deleting, is a pull request open from the branch? (no)
      .reply(200, [])
      .delete(/\/git\/refs\/heads(\/|%2F)groundfix(\/|%2F)issue-12$/)
      .reply(204, () => ((deleted = true), ""));
    await expect(deliver(octokit)).rejects.toMatchObject({ status: 502 });
    expect(deleted).toBe(true);
  });

  it("opens a ready (non-draft) PR with 'Closes #N' when the config asks for it", async () => {
    const octokit = testOctokit();
    const sent: { pr?: any } = {};
    mockOpenPullRequest({ number: 35, html_url: PR_URL, head: { sha: COMMIT } }, sent)
      .post(`${repoPath}/check-runs`)
      .reply(201, { id: 1 });
    const config = parseConfig({ pull_request: { draft: false, link_keyword: "Closes" } });
    await deliver(octokit, { config });
    expect(sent.pr.draft).toBe(false);
    expect(sent.pr.body).toContain("Closes #12");
    expect(sent.pr.body).not.toContain("Refs #12");
  });
});
