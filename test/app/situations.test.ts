/**
 * Situations a real installation meets, each through the faked GitHub: a retry on a branch someone else committed
 * to, an archived repository, a run that died half-way, `POST /pulls` answered 5xx after GitHub created the pull
 * request, the installation token lost mid-run. Some drive the whole app (`startApp`), others one queued `run` job
 * (`createJobProcessor`, as a worker runs it, attempt by attempt).
 */
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { reviewEventOf } from "../../src/events/review-trigger.js";
import { loadOperatorEnv } from "../../src/config/env.js";
import type { RunRequest } from "../../src/events/types.js";
import { createJobProcessor } from "../../src/host/github/jobs.js";
import type { Octokit } from "../../src/host/github/octokit.js";
import { createReviewClaims } from "../../src/host/github/review-claims.js";
import { createStatusCommentIds } from "../../src/host/github/status-comment.js";
import type { JobData } from "../../src/queue/types.js";
import { clearSnapshotCache } from "../../src/snapshot/index.js";
import { createGitHubFake, type GitHubFake } from "../fixtures/github-fake.js";
import { TestOctokit, webhookExample } from "../fixtures/github.js";
import { issueRequest, labeledIssue, OWNER, REPO, retryComment, SHOP_FILES, startApp } from "./harness.js";

const BRANCH = "groundfix/issue-1";
const MARKER = "<!-- groundfix:status -->";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
let fake: GitHubFake | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
  fake?.stop();
  fake = undefined;
  nock.enableNetConnect();
});

const statusOf = (f: GitHubFake) => f.state.comments.filter((c) => c.body.includes(MARKER));

const request: RunRequest = issueRequest(1);

/** The faked GitHub alone (no Probot): for tests that run one queued job through {@link worker}. */
function startFake(): GitHubFake {
  nock.disableNetConnect();
  clearSnapshotCache();
  fake = createGitHubFake({ owner: OWNER, name: REPO, defaultBranch: "master", files: SHOP_FILES });
  return fake;
}

/**
 * The worker side of the App for one process: `createJobProcessor` with an installation Octokit per attempt (a
 * token Octokit with the app's retry and throttling plugins), the app's bot login, and a `run` job for `request`.
 */
function worker() {
  const silent = { info() {}, warn() {}, error() {} };
  const processor = createJobProcessor({
    auth: async () => new TestOctokit({ auth: "ghs_fake" }) as unknown as Octokit,
    log: silent,
    operator: loadOperatorEnv({}),
    env: {},
    botLogin: { get: async () => "groundfix[bot]" },
    claimReview: createReviewClaims(),
    commentIds: createStatusCommentIds(),
  });
  const job: JobData = {
    kind: "run",
    key: request.task.key,
    installationId: 1,
    payload: { type: "run", request, config: defaultConfig(), baseBranch: "master" },
  };
  return {
    attempt: (number: number, final = false) => processor(job, { number, final }),
    /** An attempt of the `review` job of `pull_request.synchronize` for the open PR from `branch` at its head. */
    review(f: GitHubFake, number: number, final = false) {
      const pr = f.state.pulls.find((p) => p.head === BRANCH && p.state === "open")!;
      const payload = webhookExample("pull_request", "synchronize");
      payload.repository = labeledIssue().repository;
      payload.number = pr.number;
      Object.assign(payload.pull_request, { number: pr.number, html_url: pr.html_url, body: pr.body });
      payload.pull_request.head = { ...payload.pull_request.head, ref: BRANCH, sha: f.state.refs.get(BRANCH) };
      payload.pull_request.base = { ...payload.pull_request.base, ref: "master", sha: f.baseSha };
      const event = reviewEventOf("pull_request", payload)!;
      const review: JobData = { kind: "review", key: `review-${pr.number}`, installationId: 1, payload: { event } };
      return processor(review, { number, final });
    },
  };
}

describe("/groundfix retry never force-pushes over commits groundfix did not make", () => {
  it(
    "a branch someone committed to: the retry names the " + "commits that hold it and commits on a new branch name",
    async () => {
      app = await startApp();
      await app.receive("issues", labeledIssue());
      const { state } = app.fake;
      const theirs = app.fake.push(BRANCH, { "notes.md": "my follow-up\n" }, "mallory");
      state.pulls[0]!.state = "closed";
      await app.receive("issue_comment", retryComment());

      expect(state.refs.get(BRANCH)).toBe(theirs); // never force-pushed
      const forced = state.calls.filter((c) => c.method === "PATCH" && c.route.includes("/git/refs/") && c.body.force);
      expect(forced).toEqual([]);
      expect(state.pulls.map((p) => [p.head, p.state])).toEqual([
        [BRANCH, "closed"],
        [`${BRANCH}-2`, "open"],
      ]);
      expect(state.checkRuns.at(-1)).toMatchObject({ head_sha: state.refs.get(`${BRANCH}-2`), status: "completed" });
      const status = statusOf(app.fake)[0]!.body;
      expect(status).toContain(`holds commits groundfix did not make: \`${theirs.slice(0, 7)}\` by \`mallory\`.`);
      expect(status).toContain(`committed on \`${BRANCH}-2\` instead`);
      expect(status).toContain(`Opened pull request [#${state.pulls[1]!.number}]`);
    },
  );

  it("a branch pointed at someone's commit with the run's exact content is theirs: never reused", async () => {
    app = await startApp();
    await app.receive("issues", labeledIssue());
    const { state } = app.fake;
    const fixed = app.fake.filesOf(BRANCH)!["src/cart.js"]!.content;
    state.refs.set(BRANCH, app.fake.baseSha); // mallory rewrites the branch: the same file, her commit on the base
    const theirs = app.fake.push(BRANCH, { "src/cart.js": fixed }, "mallory", "my fix\n\nGroundfix-Run: copied");
    await app.receive("issue_comment", retryComment());
    expect(state.refs.get(BRANCH)).toBe(theirs); // left as it is
    const head = state.refs.get(`${BRANCH}-2`)!;
    expect(state.checkRuns.at(-1)).toMatchObject({ head_sha: head, conclusion: "success" });
    const status = statusOf(app.fake)[0]!.body;
    expect(status).toContain(`holds commits groundfix did not make: \`${theirs.slice(0, 7)}\` by \`mallory\`.`);
    expect(status).toContain(`committed on \`${BRANCH}-2\` instead`);
  });

  it("a second retry reuses the new branch name (groundfix's own commit there) instead of taking a third", async () => {
    app = await startApp();
    await app.receive("issues", labeledIssue());
    app.fake.push(BRANCH, { "notes.md": "my follow-up\n" }, "mallory");
    await app.receive("issue_comment", retryComment());
    app.fake.push("master", { "README.md": "# shop\n" }, "Codertocat"); // the default branch moves on
    await app.receive("issue_comment", retryComment());
    const { state } = app.fake;
    expect([...state.refs.keys()].filter((r) => r.startsWith("groundfix/")).sort()).toEqual([BRANCH, `${BRANCH}-2`]);
    const commits = state.calls.filter((c) => c.route === "POST /repos/{o}/{r}/git/commits");
    expect(commits.at(-1)!.body.parents).toEqual([state.refs.get("master")]);
    expect(state.pulls.filter((p) => p.state === "open").map((p) => p.head)).toEqual([BRANCH, `${BRANCH}-2`]);
  });
});

describe("a config at a name groundfix does not read", () => {
  it("is named in the final status comment (the run used the defaults)", async () => {
    app = await startApp({ files: { ...SHOP_FILES, ".github/groundfix.yaml": "trigger_label: autofix\n" } });
    await app.receive("issues", labeledIssue());
    const status = statusOf(app.fake).at(-1)!.body;
    expect(status).toContain(
      "found .github/groundfix.yaml, which is not read: groundfix reads only .github/groundfix.yml (move it there).",
    );
  });
});

describe("an archived repository refuses every write (403 “Repository was archived so is read-only.”)", () => {
  it(
    "archived in the payload: nothing is tried — no " + "reaction, no comment, no model run — and the job ends",
    async () => {
      app = await startApp();
      app.fake.state.archived = true;
      const payload = labeledIssue();
      payload.repository.archived = true;
      await app.receive("issues", payload);
      const { state } = app.fake;
      expect(state.calls.filter((c) => c.method !== "GET" && !c.route.includes("access_tokens"))).toEqual([]);
      expect(state.calls.map((c) => c.route)).not.toContain("GET /repos/{o}/{r}/tarball/{sha}");
      expect(state.comments).toEqual([]);
    },
  );

  it("archived during the run: the job ends without an error (no retry loop) and without a pull request", async () => {
    const f = startFake();
    f.state.archived = true; // the payload said not archived; GitHub refuses the writes
    const run = worker();
    await expect(run.attempt(1)).resolves.toBeUndefined();
    expect(f.state.pulls).toEqual([]);
    expect(f.state.comments).toEqual([]);
    const refused = f.state.calls.filter((c) => c.method !== "GET");
    expect(refused.length).toBeLessThanOrEqual(8); // each stage tried once, nothing repeated
  });
});

describe("`POST /pulls` answered 5xx", () => {
  const PULLS = "POST /repos/{o}/{r}/pulls";

  it(
    "after GitHub created the pull request: it is found by " + "its head and used — one PR, its check, nothing deleted",
    async () => {
      app = await startApp();
      app.fake.state.failAfter.set(PULLS, 502);
      await app.receive("issues", labeledIssue());
      const { state } = app.fake;
      expect(state.calls.filter((c) => c.route === PULLS)).toHaveLength(1); // never retried blindly
      expect(state.pulls).toHaveLength(1);
      expect(state.refs.get(BRANCH)).toBeDefined();
      expect(state.calls.map((c) => c.route)).not.toContain("DELETE /repos/{o}/{r}/git/refs/heads/{branch}");
      expect(state.checkRuns).toMatchObject([{ head_sha: state.refs.get(BRANCH), status: "completed" }]);
      expect(statusOf(app.fake)[0]!.body).toContain(`Opened pull request [#${state.pulls[0]!.number}]`);
    },
  );

  it(
    "and no pull request exists: the branch it pushed is " +
      "deleted, and the comment says so (not “Nothing was pushed”)",
    async () => {
      app = await startApp();
      app.fake.state.failures.set(PULLS, 502);
      await app.receive("issues", labeledIssue());
      const { state } = app.fake;
      expect(state.refs.has(BRANCH)).toBe(false);
      const body = statusOf(app.fake)[0]!.body;
      expect(body).toContain(`GitHub server error (HTTP 502) on POST /repos/${OWNER}/${REPO}/pulls`);
      expect(body).toMatch(
        /Branch `groundfix\/issue-1` was pushed \(commit [0-9a-f]{12}\), but no pull request was opened/,
      );
      expect(body).toContain("the branch was deleted again");
      expect(body).not.toContain("Nothing was pushed");
    },
  );

  it("a cleanup that fails is said in the comment, and the branch stays", async () => {
    app = await startApp();
    app.fake.state.failures.set(PULLS, 502);
    app.fake.state.failures.set("DELETE /repos/{o}/{r}/git/refs/heads/{branch}", 500);
    await app.receive("issues", labeledIssue());
    expect(app.fake.state.refs.has(BRANCH)).toBe(true);
    const body = statusOf(app.fake)[0]!.body;
    expect(body).toContain("the branch could not be cleaned up: deleting it failed (GitHub server error (HTTP 500)");
    expect(body).not.toContain("Nothing was pushed");
  });

  it(
    "when it cannot be checked whether a PR was opened, the " + "branch is never deleted (it may be an open PR's head)",
    async () => {
      app = await startApp();
      app.fake.state.failAfter.set(PULLS, 502);
      app.fake.state.failures.set("GET /repos/{o}/{r}/pulls", 502);
      await app.receive("issues", labeledIssue());
      const { state } = app.fake;
      expect(state.pulls).toHaveLength(1); // GitHub did create it
      expect(state.refs.has(BRANCH)).toBe(true);
      expect(state.calls.map((c) => c.route)).not.toContain("DELETE /repos/{o}/{r}/git/refs/heads/{branch}");
      const body = statusOf(app.fake)[0]!.body;
      expect(body).toContain("whether a pull request is open from it could not be checked");
      expect(body).not.toContain("Nothing was pushed");
    },
  );
});

describe("a run that dies half-way is recovered by the next attempt", () => {
  it(
    "the token is lost after the PR was opened: the attempt fails (so " +
      "it is retried); the next one adds the check and the final status",
    async () => {
      const f = startFake();
      const run = worker();
      f.state.loseTokenAt = "POST /repos/{o}/{r}/check-runs";
      await expect(run.attempt(1)).rejects.toMatchObject({ status: 401 });
      expect(f.state.pulls).toHaveLength(1);
      expect(f.state.checkRuns).toEqual([]); // a PR without its check, and no status written: the job must not end here
      f.state.tokenLost = false; // the next attempt gets a new installation token
      f.state.loseTokenAt = null;
      await run.attempt(2);
      expect(f.state.pulls).toHaveLength(1);
      expect(f.state.checkRuns).toMatchObject([{ head_sha: f.state.refs.get(BRANCH), status: "completed" }]);
      expect(statusOf(f)).toHaveLength(1);
      expect(statusOf(f)[0]!.body).toContain(`pull request [#${f.state.pulls[0]!.number}]`);
    },
  );

  it(
    "a review job that lost its token before concluding its " +
      "check: the retry cancels that check and reviews the head again",
    async () => {
      const f = startFake();
      const run = worker();
      await run.attempt(1);
      f.push(BRANCH, { "notes.md": "a reviewer's note\n" }, "mallory"); // a human push: the PR head is reviewed
      f.state.loseTokenAt = "PATCH /repos/{o}/{r}/check-runs/{n}";
      await expect(run.review(f, 1)).rejects.toMatchObject({ stage: "conclude" });
      const head = f.state.refs.get(BRANCH)!;
      expect(f.state.checkRuns.filter((r) => r.head_sha === head)).toMatchObject([{ status: "in_progress" }]);
      f.state.tokenLost = false;
      f.state.loseTokenAt = null;
      await run.review(f, 2);
      const runs = f.state.checkRuns.filter((r) => r.head_sha === head);
      expect(runs.map((r) => r.status)).toEqual(["completed", "completed"]);
      expect(runs[0]!.conclusion).toBe("cancelled"); // never `neutral`: a required check would count it as passing
      expect(runs[1]!.conclusion).not.toBe("cancelled"); // the head was reviewed again
      expect(runs[1]!.output.title).not.toBe(runs[0]!.output.title);
      expect(runs[0]!.output.summary).toContain("stopped before it concluded it");
      expect(f.state.checkRuns.filter((r) => r.status !== "completed")).toEqual([]);
    },
  );

  it("the last attempt of a review job that cannot conclude its check does not throw: it is logged", async () => {
    const f = startFake();
    const run = worker();
    await run.attempt(1);
    f.push(BRANCH, { "notes.md": "a reviewer's note\n" }, "mallory");
    f.state.loseTokenAt = "PATCH /repos/{o}/{r}/check-runs/{n}";
    await expect(run.review(f, 4, true)).resolves.toBeUndefined();
  });

  it(
    "a job that fails on its last attempt gets a final " + "status comment naming what exists (the in-process queue)",
    async () => {
      app = await startApp();
      const { state } = app.fake;
      const real = state.failures;
      // Neither the run's final status nor its failure status can be created (each tried twice, as createOnce does),
      // so the job's only attempt throws; the gave-up comment after it can.
      let creates = 0;
      (state as { failures: { get(k: string): number | undefined } }).failures = {
        get: (k) => (k === "POST /repos/{o}/{r}/issues/{n}/comments" && ++creates <= 4 ? 502 : real.get(k)),
      };
      await app.receive("issues", labeledIssue());
      expect(state.pulls).toHaveLength(1);
      const body = statusOf(app.fake)[0]!.body;
      expect(body).toContain("**groundfix** stopped: this run failed on its last attempt");
      expect(body).toContain(
        `Pull request #${state.pulls[0]!.number} (${state.pulls[0]!.html_url}) is open from \`${BRANCH}\``,
      );
      expect(state.checkRuns.filter((r) => r.status !== "completed")).toEqual([]);
    },
  );
});
