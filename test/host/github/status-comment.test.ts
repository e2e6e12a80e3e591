import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { STATUS_MARKER } from "../../../src/host/github/render.js";
import { createStatusCommentIds, upsertStatusComment } from "../../../src/host/github/status-comment.js";
import { API, OWNER, recordCalls, REPO, resetGitHubFakes, testOctokit } from "./helpers.js";

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

  it("retries a write that answers 502 or 429 once (the retry plugin; a create only after looking again) and throws a second failure", async () => {
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
  });
});
