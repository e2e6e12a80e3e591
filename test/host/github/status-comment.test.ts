import nock from "nock";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { STATUS_MARKER } from "../../../src/host/github/render.js";
import { createStatusCommentIds, upsertStatusComment } from "../../../src/host/github/status-comment.js";
import type { RunReport } from "../../../src/pipeline/types.js";
import { API, githubHost, manualClock, OWNER, recordCalls, REPO, resetGitHubFakes, testOctokit } from "./helpers.js";

const comments = `/repos/${OWNER}/${REPO}/issues/12/comments`;
beforeAll(() => nock.disableNetConnect());
afterEach(() => expect(resetGitHubFakes()).toEqual([]));

describe("upsertStatusComment", () => {
  it("creates one comment, then edits it in place on the next stage without listing again", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    let created: any, edited: any;
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [{ id: 1, body: `quoting ${STATUS_MARKER}`, user: { type: "User" } }])
      .post(comments, (b) => ((created = b), true))
      .reply(201, { id: 50, html_url: "https://github.com/acme/shop/issues/12#issuecomment-50" })
      .patch(`/repos/${OWNER}/${REPO}/issues/comments/50`, (b) => ((edited = b), true))
      .reply(200, { id: 50, html_url: "https://github.com/acme/shop/issues/12#issuecomment-50" });
    const target = { owner: OWNER, repo: REPO, issueNumber: 12 };
    const options = { commentIds: createStatusCommentIds() };
    expect(await upsertStatusComment(octokit, { ...target, body: "starting" }, options)).toEqual({
      id: 50,
      html_url: "https://github.com/acme/shop/issues/12#issuecomment-50",
    });
    await upsertStatusComment(octokit, { ...target, body: "done" }, options);
    expect(created.body).toBe(`${STATUS_MARKER}\nstarting`);
    expect(edited.body).toBe(`${STATUS_MARKER}\ndone`);
    expect(calls.filter((c) => c.startsWith("GET"))).toHaveLength(1);
  });

  it("finds the app's earlier comment by its marker (a rerun edits it, never a second comment)", async () => {
    let edited: any;
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [
        { id: 2, body: "hello", user: { login: "ann", type: "User" } },
        { id: 3, body: `echo: ${STATUS_MARKER}`, user: { login: "github-actions[bot]", type: "Bot" } },
        { id: 4, body: `${STATUS_MARKER}\nold`, user: { login: "groundfix[bot]", type: "Bot" } },
      ])
      .patch(`/repos/${OWNER}/${REPO}/issues/comments/4`, (b) => ((edited = b), true))
      .reply(200, { id: 4, html_url: "u" });
    const out = await upsertStatusComment(
      testOctokit(),
      { owner: OWNER, repo: REPO, issueNumber: 12, body: `${STATUS_MARKER}\nnew` },
      { botLogin: "groundfix[bot]" },
    );
    expect(out.id).toBe(4);
    expect(edited.body).toBe(`${STATUS_MARKER}\nnew`);
  });

  it(
    "retries a write that answers 502 or 429 once (the retry plugin; " +
      "a create only after looking again) and throws a second failure",
    async () => {
      const octokit = testOctokit({ plugins: true });
      const commentIds = createStatusCommentIds();
      nock(API)
        .get(comments)
        .query(true)
        .reply(200, [])
        .post(comments)
        .reply(429, { message: "slow down" }, { "retry-after": "60" })
        .post(comments)
        .reply(201, { id: 60, html_url: "u60" })
        .patch(`/repos/${OWNER}/${REPO}/issues/comments/60`)
        .times(2)
        .reply(502, { message: "Server Error" });
      const target = { owner: OWNER, repo: REPO, issueNumber: 12 };
      expect(await upsertStatusComment(octokit, { ...target, body: "starting" }, { commentIds })).toEqual({
        id: 60,
        html_url: "u60",
      });
      await expect(upsertStatusComment(octokit, { ...target, body: "done" }, { commentIds })).rejects.toMatchObject({
        status: 502,
      });
    },
  );
});

describe("the app's own login is looked up only when a comment could be its own", () => {
  const target = { owner: OWNER, repo: REPO, issueNumber: 12 };

  it(
    "an issue without a bot's marker comment costs no " + "login lookup; the created comment's author is learned",
    async () => {
      let lookups = 0;
      let learned: string | undefined;
      const botLogin = {
        get: async () => (lookups++, "groundfix[bot]"),
        learn: (login: string) => void (learned = login),
      };
      nock(API)
        .get(comments)
        .query(true)
        .reply(200, [{ id: 1, body: `a human quoting ${STATUS_MARKER}`, user: { login: "ann", type: "User" } }])
        .post(comments)
        .reply(201, { id: 70, html_url: "u70", user: { login: "groundfix[bot]", type: "Bot" } });
      expect((await upsertStatusComment(testOctokit(), { ...target, body: "done" }, { botLogin })).id).toBe(70);
      expect(lookups).toBe(0);
      expect(learned).toBe("groundfix[bot]");
    },
  );

  it("a bot's marker comment: the login is looked up, and only the app's own comment is edited", async () => {
    let lookups = 0;
    const botLogin = { get: async () => (lookups++, "groundfix[bot]") };
    let edited: any;
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [
        { id: 3, body: `${STATUS_MARKER}\nforged`, user: { login: "mallory-app[bot]", type: "Bot" } },
        { id: 4, body: `${STATUS_MARKER}\nold`, user: { login: "GroundFix[bot]", type: "Bot" } },
      ])
      .patch(`/repos/${OWNER}/${REPO}/issues/comments/4`, (b) => ((edited = b), true))
      .reply(200, { id: 4, html_url: "u4" });
    expect((await upsertStatusComment(testOctokit(), { ...target, body: "new" }, { botLogin })).id).toBe(4);
    expect(lookups).toBe(1);
    expect(edited.body).toBe(`${STATUS_MARKER}\nnew`);
  });

  it(
    "when the login cannot be read, another bot's marker " + "comment is never edited: a new comment is created",
    async () => {
      const botLogin = { get: async () => undefined };
      nock(API)
        .get(comments)
        .query(true)
        .reply(200, [{ id: 4, body: `${STATUS_MARKER}\nold`, user: { login: "groundfix[bot]", type: "Bot" } }])
        .post(comments)
        .reply(201, { id: 71, html_url: "u71" });
      expect((await upsertStatusComment(testOctokit(), { ...target, body: "new" }, { botLogin })).id).toBe(71);
    },
  );
});

describe("the GitHub host's status comment through a run's stages", () => {
  const request = {
    task: {
      source: "issue" as const,
      key: "acme/shop#issue-12",
      title: "t",
      body: "b",
      repo: { owner: OWNER, name: REPO },
    },
    mode: "run" as const,
    statusIssue: 12,
    branchSuffix: "issue-12",
  };
  const stage = (name: string) => ({ kind: "stage" as const, request, stage: name });
  const refused: RunReport = {
    host: "github",
    runId: "r",
    status: "refused",
    request,
    note: "model not allowed",
    written: {},
  };
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("fast stages write nothing; the final status is the one write (a lookup and a create)", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    const clock = manualClock();
    let created: any;
    nock(API)
      .get(comments)
      .query(true)
      .reply(200, [])
      .post(comments, (b) => ((created = b), true))
      .reply(201, { id: 80, html_url: "u80" });
    const host = githubHost(octokit, { timers: clock, progressAfterMs: 10_000, commentIds: createStatusCommentIds() });
    await host.postStatus(stage("starting"));
    clock.advance(4_000);
    await host.postStatus(stage("investigating"));
    clock.advance(9_000);
    await settle();
    expect(calls).toEqual([]);
    await host.postStatus({ kind: "done", report: refused });
    expect(calls.map((c) => c.split(" ")[0])).toEqual(["GET", "POST"]);
    expect(created.body).toContain("model not allowed");
  });

  it(
    "a slow stage is shown once it has lasted progressAfterMs; " + "the final status then edits the same comment",
    async () => {
      const octokit = testOctokit();
      const clock = manualClock();
      const bodies: string[] = [];
      nock(API)
        .get(comments)
        .query(true)
        .reply(200, [])
        .post(comments, (b) => (bodies.push(b.body), true))
        .reply(201, { id: 81, html_url: "u81" })
        .patch(`/repos/${OWNER}/${REPO}/issues/comments/81`, (b) => (bodies.push(b.body), true))
        .reply(200, { id: 81, html_url: "u81" });
      const host = githubHost(octokit, {
        timers: clock,
        progressAfterMs: 10_000,
        commentIds: createStatusCommentIds(),
      });
      await host.postStatus(stage("investigating"));
      clock.advance(10_000);
      await vi.waitFor(() => expect(bodies).toHaveLength(1)); // written in the background while the stage goes on
      expect(bodies[0]).toContain("is working on this: investigating");
      await host.postStatus({ kind: "done", report: refused });
      expect(bodies).toHaveLength(2);
      expect(bodies[1]).toContain("model not allowed");
      expect(bodies[1]).not.toContain("is working on this");
    },
  );
});
