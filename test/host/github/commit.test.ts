import nock from "nock";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  API,
  BASE_SHA,
  githubHost,
  OWNER,
  ownCommit,
  REPO,
  recordCalls,
  resetGitHubFakes,
  testOctokit,
} from "./helpers.js";

const BRANCH = "groundfix/issue-12";
const files = [
  { path: "src/orders.js", content: "edited\n", mode: "100644" },
  { path: "bin/run.sh", content: "#!/bin/sh\necho edited\n", mode: "100755" },
];
const repoPath = `/repos/${OWNER}/${REPO}`;
const BOT = "groundfix[bot]";
const TRAILER = "Groundfix-Run: run-1";

const refExists = {
  message: "Reference already exists",
  documentation_url: "https://docs.github.com/rest/git/refs#create-a-reference",
  status: "422",
};

beforeAll(() => nock.disableNetConnect());
afterEach(() => expect(resetGitHubFakes()).toEqual([]));

function mockTreeAndCommit(treeSeen: (b: any) => void, commitSeen: (b: any) => void, commitSha = "c".repeat(40)) {
  nock(API)
    .post(`${repoPath}/git/trees`, (b) => (treeSeen(b), true))
    .reply(201, { sha: "t2".padEnd(40, "0") })
    .post(`${repoPath}/git/commits`, (b) => (commitSeen(b), true))
    .reply(201, { sha: commitSha });
}

/**
 * The branch exists: the base tree lookup, our tree and commit (`commitSha`), the 422 on the ref, the branch head
 * `head`, and — unless `head` is the base — that head's commit (`tree`, `parent`) and, when given, its compare answer.
 */
function mockExistingBranch(
  head: string,
  commitSha: string,
  headCommit?: { tree: string; parent: string; compare?: object },
) {
  nock(API)
    .get(`${repoPath}/git/commits/${BASE_SHA}`)
    .reply(200, { tree: { sha: "t1".padEnd(40, "0") } });
  mockTreeAndCommit(
    () => undefined,
    () => undefined,
    commitSha,
  );
  const scope = nock(API)
    .post(`${repoPath}/git/refs`)
    .reply(422, refExists)
    .get(/\/git\/ref\/heads(\/|%2F)groundfix(\/|%2F)issue-12$/)
    .reply(200, { ref: `refs/heads/${BRANCH}`, object: { sha: head, type: "commit" } });
  if (!headCommit) return;
  scope.get(`${repoPath}/git/commits/${head}`).reply(200, {
    sha: head,
    message: "theirs",
    tree: { sha: headCommit.tree },
    parents: [{ sha: headCommit.parent }],
  });
  if (headCommit.compare)
    scope.get(`${repoPath}/compare/${BASE_SHA}...${head}`).query(true).reply(200, headCommit.compare);
}

describe("the GitHub host's delivery through the Git Data API", () => {
  it("writes one tree with base_tree and inline content (modes kept), one commit on the base, one ref", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    let tree: any, commit: any, ref: any;
    nock(API)
      .get(`${repoPath}/git/commits/${BASE_SHA}`)
      .reply(200, { sha: BASE_SHA, tree: { sha: "t1".padEnd(40, "0") } });
    mockTreeAndCommit(
      (b) => (tree = b),
      (b) => (commit = b),
    );
    nock(API)
      .post(`${repoPath}/git/refs`, (b) => ((ref = b), true))
      .reply(201, { ref: `refs/heads/${BRANCH}` });

    const host = githubHost(octokit);
    const out = await host.deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "groundfix: guard total()", files });

    expect(out).toEqual({ kind: "created", branch: BRANCH, headSha: "c".repeat(40) });
    expect(tree).toEqual({
      base_tree: "t1".padEnd(40, "0"),
      tree: [
        { path: "src/orders.js", mode: "100644", type: "blob", content: "edited\n" },
        { path: "bin/run.sh", mode: "100755", type: "blob", content: "#!/bin/sh\necho edited\n" },
      ],
    });
    expect(commit).toEqual({ message: "groundfix: guard total()", tree: "t2".padEnd(40, "0"), parents: [BASE_SHA] });
    expect(ref).toEqual({ ref: `refs/heads/${BRANCH}`, sha: "c".repeat(40) });
    expect(calls).toHaveLength(4);
  });

  it("takes the base tree from resolveBase's branch answer, saving the commit lookup", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    const base = "d".repeat(40);
    nock(API)
      .get(repoPath)
      .reply(200, { default_branch: "main" })
      .get(`${repoPath}/branches/main`)
      .reply(200, { name: "main", commit: { sha: base, commit: { tree: { sha: "e".repeat(40) } } } });
    let tree: any;
    mockTreeAndCommit(
      (b) => (tree = b),
      () => undefined,
    );
    nock(API).post(`${repoPath}/git/refs`).reply(201, {});

    const host = githubHost(octokit);
    expect(await host.resolveBase()).toEqual({ sha: base, ref: "main" });
    await host.deliver({ baseSha: base, branch: BRANCH, message: "m", files });
    expect(tree.base_tree).toBe("e".repeat(40));
    expect(calls.filter((c) => c.includes("/git/commits/"))).toEqual([]);
  });

  it(
    "reuses an existing branch that already holds exactly this commit (parent = base, same tree) as the app's " +
      "own, writing nothing",
    async () => {
      const octokit = testOctokit();
      const calls = recordCalls(octokit);
      const existing = "f".repeat(40);
      const compare = { ahead_by: 1, commits: [ownCommit(existing, "an earlier run")], files: [] };
      mockExistingBranch(existing, "c".repeat(40), { tree: "t2".padEnd(40, "0"), parent: BASE_SHA, compare });

      const host = githubHost(octokit, { botLogin: BOT });
      const out = await host.deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "m", files });
      expect(out).toEqual({ kind: "reused", branch: BRANCH, headSha: existing });
      expect(calls.filter((c) => !c.startsWith("GET"))).toEqual([
        "POST /repos/{owner}/{repo}/git/trees",
        "POST /repos/{owner}/{repo}/git/commits",
        "POST /repos/{owner}/{repo}/git/refs",
      ]);
    },
  );

  /** Someone else's commit (the run trailer copied into its message, not signed), as compare lists it. */
  const lookalike = (sha: string) => ({
    sha,
    commit: { author: { name: "Mallory" }, message: "my own wording\n\nGroundfix-Run: run-1", verification: null },
    author: { login: "mallory" },
    committer: { login: "mallory" },
  });

  /** The branch holds {@link lookalike} `f…f`; the open pull request lookup answers none. Returns its SHA. */
  function mockLookalikeBranch() {
    const theirs = "f".repeat(40);
    const compare = { ahead_by: 1, commits: [lookalike(theirs)], files: [] };
    mockExistingBranch(theirs, "c".repeat(40), { tree: "t2".padEnd(40, "0"), parent: BASE_SHA, compare });
    nock(API).get(`${repoPath}/pulls`).query(true).reply(200, []);
    return theirs;
  }

  it("a retry (force) on that branch commits on `<branch>-2`, as for any commit groundfix did not make", async () => {
    const octokit = testOctokit();
    mockLookalikeBranch();
    let alternative: any;
    nock(API)
      .post(`${repoPath}/git/refs`, (b) => ((alternative = b), true))
      .reply(201, {});
    const host = githubHost(octokit, { botLogin: BOT });
    const out = await host.deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "m", files, force: true });
    expect(out).toMatchObject({ kind: "created", branch: `${BRANCH}-2`, headSha: "c".repeat(40) });
    expect(alternative).toEqual({ ref: `refs/heads/${BRANCH}-2`, sha: "c".repeat(40) });
  });

  it.each([
    ["other content", "9".repeat(40)],
    ["this run's exact content (parent = base, same tree)", "t2".padEnd(40, "0")],
  ])("holds a branch whose head is someone else's commit with %s, naming it and its author", async (_, tree) => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    const foreign = "f".repeat(40);
    const compare = { ahead_by: 1, commits: [lookalike(foreign)], files: [] };
    mockExistingBranch(foreign, "c".repeat(40), { tree, parent: BASE_SHA, compare });
    nock(API).get(`${repoPath}/pulls`).query(true).reply(200, []); // the open PR from the branch, to point at

    const host = githubHost(octokit, { botLogin: BOT });
    const out = await host.deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "m", files });
    expect(out).toMatchObject({
      kind: "held",
      headSha: foreign,
      why: "other_commits",
      commits: [{ sha: foreign, author: "mallory", subject: "my own wording", ours: false }],
    });
    expect(calls.filter((c) => c.startsWith("PATCH") || c.startsWith("DELETE"))).toEqual([]);
  });

  it("fast-forwards a branch that has no commit beyond the base (nothing is lost, no force)", async () => {
    const octokit = testOctokit();
    let patch: any;
    mockExistingBranch(BASE_SHA, "9".repeat(40));
    nock(API)
      .patch(/\/git\/refs\/heads(\/|%2F)groundfix(\/|%2F)issue-12$/, (b) => ((patch = b), true))
      .reply(200, { object: { sha: "9".repeat(40) } });
    const out = await githubHost(octokit).deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "m", files });
    expect(out).toEqual({ kind: "fast_forwarded", branch: BRANCH, headSha: "9".repeat(40) });
    expect(patch).toEqual({ sha: "9".repeat(40), force: false });
  });

  it(
    "with force, replaces a branch holding only groundfix's " +
      "own earlier commit (trailer, the app's verified bot commit)",
    async () => {
      const octokit = testOctokit();
      let patch: any;
      const old = "8".repeat(40);
      const compare = { ahead_by: 1, commits: [ownCommit(old, "an older run")], files: [] };
      mockExistingBranch(old, "9".repeat(40), { tree: "7".repeat(40), parent: "6".repeat(40), compare });
      nock(API).get(`${repoPath}/pulls`).query(true).reply(200, []);
      nock(API)
        .patch(/\/git\/refs\/heads(\/|%2F)groundfix(\/|%2F)issue-12$/, (b) => ((patch = b), true))
        .reply(200, { object: { sha: "9".repeat(40) } });

      const host = githubHost(octokit, { botLogin: BOT });
      const out = await host.deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "m", files, force: true });
      expect(out).toMatchObject({
        kind: "replaced",
        headSha: "9".repeat(40),
        previousSha: old,
        commits: [{ sha: old, author: BOT, ours: true }],
      });
      expect(patch).toEqual({ sha: "9".repeat(40), force: true });
    },
  );

  it.each([
    [
      "someone's commit",
      { sha: "8".repeat(40), commit: { author: { name: "Ann" }, message: "an older edit" }, author: null },
    ],
    ["a forged trailer", { ...ownCommit("8".repeat(40), "x"), author: { login: "mallory" } }],
    [
      "a forged trailer under the bot's login, unverified",
      { ...ownCommit("8".repeat(40), "x"), commit: { message: `x\n\n${TRAILER}` } },
    ],
    [
      "the app's verified commit without the trailer",
      { ...ownCommit("8".repeat(40), "x"), commit: { message: "x", verification: { verified: true } } },
    ],
  ])(
    "with force, never force-pushes over %s: it commits on `<branch>-2` and names what holds the branch",
    async (_, held) => {
      const octokit = testOctokit();
      const calls = recordCalls(octokit);
      const compare = { ahead_by: 1, commits: [held], files: [] };
      mockExistingBranch(held.sha, "9".repeat(40), { tree: "7".repeat(40), parent: BASE_SHA, compare });
      let alternative: any;
      nock(API)
        .get(`${repoPath}/pulls`)
        .query(true)
        .reply(200, [])
        .post(`${repoPath}/git/refs`, (b) => ((alternative = b), true))
        .reply(201, {});

      const host = githubHost(octokit, { botLogin: BOT });
      const out = await host.deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "m", files, force: true });
      expect(out).toMatchObject({
        kind: "created",
        branch: `${BRANCH}-2`,
        headSha: "9".repeat(40),
        insteadOf: { branch: BRANCH, count: 1, commits: [{ sha: held.sha, ours: false }] },
      });
      expect(alternative).toEqual({ ref: `refs/heads/${BRANCH}-2`, sha: "9".repeat(40) });
      expect(calls.filter((c) => c.startsWith("PATCH") || c.startsWith("DELETE"))).toEqual([]);
    },
  );

  it("without the app's login (GET /app failed) no commit counts as its own, so nothing is replaced", async () => {
    const octokit = testOctokit();
    const old = "8".repeat(40);
    const compare = { ahead_by: 1, commits: [ownCommit(old, "an older run")], files: [] };
    mockExistingBranch(old, "9".repeat(40), { tree: "7".repeat(40), parent: "6".repeat(40), compare });
    nock(API).get(`${repoPath}/pulls`).query(true).reply(200, []);
    const out = await githubHost(octokit).deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "m", files });
    expect(out).toMatchObject({ kind: "held", why: "other_commits", commits: [{ ours: false }] });
  });

  it("a 502 on the commit step rethrows and creates no branch", async () => {
    const octokit = testOctokit();
    const calls = recordCalls(octokit);
    nock(API)
      .get(`${repoPath}/git/commits/${BASE_SHA}`)
      .reply(200, { tree: { sha: "t1".padEnd(40, "0") } })
      .post(`${repoPath}/git/trees`)
      .reply(201, { sha: "t2".padEnd(40, "0") })
      .post(`${repoPath}/git/commits`)
      .reply(502, { message: "Server Error" });

    const host = githubHost(octokit);
    await expect(host.deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "m", files })).rejects.toMatchObject({
      status: 502,
    });
    expect(calls.some((c) => c.includes("/git/refs"))).toBe(false);
  });

  it("a different 422 on the ref step is not mistaken for an existing branch", async () => {
    const octokit = testOctokit();
    nock(API)
      .get(`${repoPath}/git/commits/${BASE_SHA}`)
      .reply(200, { tree: { sha: "t1".padEnd(40, "0") } });
    mockTreeAndCommit(
      () => undefined,
      () => undefined,
    );
    nock(API).post(`${repoPath}/git/refs`).reply(422, { message: "Reference update failed" });
    const host = githubHost(octokit);
    await expect(host.deliver({ baseSha: BASE_SHA, branch: BRANCH, message: "m", files })).rejects.toMatchObject({
      status: 422,
    });
  });
});
