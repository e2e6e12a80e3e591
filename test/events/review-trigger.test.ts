import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { reviewEventOf, reviewRequestFromEvent } from "../../src/events/review-trigger.js";

const require = createRequire(import.meta.url);
const index = require("@octokit/webhooks-examples/api.github.com/index.json") as { name: string; examples: any[] }[];

/** A deep copy of the first real example of `name.action` from @octokit/webhooks-examples. */
function example(name: string, action: string): any {
  const found = index.find((e) => e.name === name)?.examples.find((x) => x.action === action);
  if (!found) throw new Error(`no example ${name}.${action}`);
  return structuredClone(found);
}

function prPayload(action: string, ref: string) {
  const p = example("pull_request", action);
  p.pull_request.head.ref = ref;
  return p;
}

/** A trimmed PR object as check_run / check_suite payloads carry it. */
function minimalPr(ref: string, repoId: number) {
  return {
    url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/2",
    id: 1,
    number: 2,
    head: {
      ref,
      sha: "1".repeat(40),
      repo: { id: repoId, url: "https://api.github.com/repos/Codertocat/Hello-World", name: "Hello-World" },
    },
    base: {
      ref: "main",
      sha: "2".repeat(40),
      repo: { id: repoId, url: "https://api.github.com/repos/Codertocat/Hello-World", name: "Hello-World" },
    },
  };
}

describe("reviewRequestFromEvent", () => {
  for (const action of ["opened", "synchronize"]) {
    it(`pull_request.${action} on a groundfix branch asks for a review of its head`, () => {
      const p = prPayload(action, "groundfix/issue-2");
      expect(reviewRequestFromEvent("pull_request", p, "groundfix/")).toEqual({
        owner: p.repository.owner.login,
        repo: p.repository.name,
        prNumber: p.pull_request.number,
        prUrl: p.pull_request.html_url,
        headSha: p.pull_request.head.sha,
        baseSha: p.pull_request.base.sha,
        headRef: "groundfix/issue-2",
        baseRef: p.pull_request.base.ref,
        fork: false,
        rerequested: false,
        joins: true,
      });
      expect(reviewRequestFromEvent("pull_request", prPayload(action, "feature/x"), "groundfix/")).toBeNull();
    });
  }

  it("a fork's pull request is parsed as a fork, never as a groundfix one; other actions are ignored", () => {
    const fork = prPayload("opened", "groundfix/issue-2");
    fork.pull_request.head.repo = { ...fork.pull_request.head.repo, id: 999, full_name: "mallory/Hello-World" };
    expect(reviewRequestFromEvent("pull_request", fork, "groundfix/")).toBeNull();
    const deletedFork = prPayload("opened", "groundfix/issue-2");
    deletedFork.pull_request.head.repo = null;
    expect(reviewRequestFromEvent("pull_request", deletedFork, "groundfix/")).toBeNull();
    for (const p of [fork, deletedFork])
      expect(reviewEventOf("pull_request", p)).toMatchObject({ joins: true, pulls: [{ fork: true }] });
    expect(reviewEventOf("pull_request", prPayload("opened", "x"))).toMatchObject({ pulls: [{ fork: false }] });
    expect(reviewRequestFromEvent("pull_request", prPayload("closed", "groundfix/issue-2"), "groundfix/")).toBeNull();
  });

  it("pull_request.edited asks for a fresh review only when the base changed, not for a title or body", () => {
    // The examples package has no `edited` example: the `synchronize` one with the action changed.
    const retarget = { ...prPayload("synchronize", "groundfix/issue-2"), action: "edited" };
    retarget.changes = { base: { ref: { from: "evil" }, sha: { from: "3".repeat(40) } } };
    expect(reviewRequestFromEvent("pull_request", retarget, "groundfix/")).toMatchObject({
      baseSha: retarget.pull_request.base.sha,
      rerequested: true,
    });
    const retitled = { ...retarget, changes: { title: { from: "old" }, body: { from: "old" } } };
    expect(reviewRequestFromEvent("pull_request", retitled, "groundfix/")).toBeNull();
    expect(reviewRequestFromEvent("pull_request", { ...retarget, changes: { base: null } }, "groundfix/")).toBeNull();
  });

  it("check_run.rerequested for groundfix/review finds the PR and its base SHA in pull_requests", () => {
    const p = example("check_run", "rerequested");
    p.check_run.name = "groundfix/review";
    p.check_run.pull_requests = [minimalPr("groundfix/alert-3", p.repository.id)];
    expect(reviewRequestFromEvent("check_run", p, "groundfix/")).toEqual({
      owner: p.repository.owner.login,
      repo: p.repository.name,
      prNumber: 2,
      prUrl: `${p.repository.html_url}/pull/2`,
      headSha: p.check_run.head_sha,
      baseSha: "2".repeat(40),
      headRef: "groundfix/alert-3",
      baseRef: "main",
      fork: false,
      rerequested: true,
      joins: false,
    });
    const other = structuredClone(p);
    other.check_run.name = "ci/build";
    expect(reviewRequestFromEvent("check_run", other, "groundfix/")).toBeNull();
    expect(reviewRequestFromEvent("check_run", example("check_run", "rerequested"), "groundfix/")).toBeNull(); // no PR
  });

  it("check_suite.requested reviews the suite head of a groundfix PR; other branches are ignored", () => {
    const p = example("check_suite", "requested");
    p.check_suite.pull_requests = [minimalPr("groundfix/issue-2", p.repository.id)];
    expect(reviewRequestFromEvent("check_suite", p, "groundfix/")).toMatchObject({
      prNumber: 2,
      headSha: p.check_suite.head_sha,
      baseSha: "2".repeat(40),
      rerequested: false,
    });
    expect(reviewRequestFromEvent("check_suite", p, "bots/")).toBeNull();
    expect(reviewRequestFromEvent("check_suite", example("check_suite", "requested"), "groundfix/")).toBeNull();
    const completed = example("check_suite", "completed");
    completed.check_suite.pull_requests = [minimalPr("groundfix/issue-2", p.repository.id)];
    expect(reviewRequestFromEvent("check_suite", completed, "groundfix/")).toBeNull();
  });

  it("returns null for other events and malformed payloads", () => {
    expect(reviewRequestFromEvent("issues", example("issues", "opened"), "")).toBeNull();
    expect(reviewRequestFromEvent("pull_request", { action: "opened" }, "")).toBeNull();
    expect(reviewRequestFromEvent("check_suite", null, "")).toBeNull();
  });
});
