/**
 * One task through both hosts: the same pipeline (`runPipeline`) on a temporary git repository (the local host) and
 * on the faked GitHub (the GitHub host, Octokit's retry and throttling plugins on). What a reader compares — the
 * outcome, the commit's files and message, the run record, the review — is the same; only the host's own facts
 * (the base and head SHAs, the pull request) differ.
 */
import { execFileSync } from "node:child_process";
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { createModel } from "../../src/agent/index.js";
import { defaultConfig } from "../../src/config/schema.js";
import type { RunRequest } from "../../src/events/types.js";
import { createGitHubHost } from "../../src/host/github/host.js";
import type { Octokit } from "../../src/host/github/octokit.js";
import { createLocalHost } from "../../src/host/local/index.js";
import { isGroundfixMessage } from "../../src/pipeline/record.js";
import { runPipeline } from "../../src/pipeline/run.js";
import type { RunReport } from "../../src/pipeline/types.js";
import { clearSnapshotCache } from "../../src/snapshot/index.js";
import { issueRequest, OWNER, REPO, SHOP_FILES } from "../app/harness.js";
import { createGitHubFake, type GitHubFake } from "../fixtures/github-fake.js";
import { TestOctokit } from "../fixtures/github.js";
import { makeRepo, sh } from "../host/local/git-repo.js";

const request: RunRequest = issueRequest(null);
const BRANCH = "groundfix/issue-1";
const silent = { info() {}, warn() {}, error() {} };
const run = (host: Parameters<typeof runPipeline>[0]) =>
  runPipeline(host, { request, runId: "run-both", model: () => createModel("heuristic", { env: {} }) });

let fake: GitHubFake | undefined;
afterEach(() => {
  fake?.stop();
  fake = undefined;
  nock.enableNetConnect();
});

/** A run's report with its host's own facts (the SHAs it pinned and wrote, its pull request) named, not valued. */
function hostFree(report: RunReport) {
  const base = report.base!.sha;
  const head = report.delivery!.headSha;
  const named = (text: string) =>
    text
      .replaceAll(base, "<base>")
      .replaceAll(head, "<head>")
      .replaceAll(base.slice(0, 7), "<base>")
      .replaceAll(head.slice(0, 7), "<head>");
  return {
    status: report.status,
    outcome: report.result!.outcome,
    diagnosis: report.result!.diagnosis,
    edits: report.result!.edits,
    files: report.result!.files,
    message: named(report.message!),
    record: JSON.parse(named(JSON.stringify(report.record))),
    review: { ...report.review!, summary: named(report.review!.summary) },
    delivery: report.delivery!.kind,
  };
}

describe("one task through both hosts", () => {
  it(
    "gives the same outcome, commit content and message, " + "run record and review on a checkout and on GitHub",
    async () => {
      clearSnapshotCache();
      const repo = makeRepo(SHOP_FILES);
      const local = await run(createLocalHost(repo.dir));

      nock.disableNetConnect();
      fake = createGitHubFake({ owner: OWNER, name: REPO, defaultBranch: "master", files: SHOP_FILES });
      const octokit = new TestOctokit({ auth: "token" }) as unknown as Octokit;
      const github = await run(
        createGitHubHost({ octokit, repo: { owner: OWNER, name: REPO }, log: silent, config: defaultConfig() }),
      );

      expect(local.status).toBe("pull_request");
      expect(hostFree(github)).toEqual(hostFree(local));
      expect(local.host).toBe("local");
      expect(github.host).toBe("github");

      // The commit each host wrote: one commit on the base, the same files, the same message (with the trailer).
      const localHead = local.delivery!.headSha;
      expect(sh(repo.dir, "rev-parse", `${localHead}^`)).toBe(repo.base);
      const localMessage = execFileSync("git", ["-C", repo.dir, "log", "-1", "--format=%B", localHead], {
        encoding: "utf8",
      }).replace(/\n+$/, "");
      const githubCommit = fake.state.calls.find((c) => c.route === "POST /repos/{o}/{r}/git/commits")!.body;
      expect(githubCommit.parents).toEqual([fake.baseSha]);
      expect(localMessage.replaceAll(repo.base, "<base>")).toBe(
        githubCommit.message.replaceAll(fake.baseSha, "<base>"),
      );
      expect(isGroundfixMessage(localMessage)).toBe(true);
      expect(localMessage).toMatch(/\nGroundfix-Run: run-both$/);
      const onGitHub = fake.filesOf(BRANCH)!;
      for (const file of local.result!.files) {
        expect(sh(repo.dir, "show", `${localHead}:${file.path}`)).toBe(file.content.replace(/\n$/, ""));
        expect(onGitHub[file.path]!.content).toBe(file.content);
      }

      // Each host's own result: the branch locally, a pull request with the record and a concluded check on GitHub.
      expect(local.pullRequest).toMatchObject({ number: 0, url: null, branch: BRANCH, headSha: localHead });
      expect(github.pullRequest).toMatchObject({ branch: BRANCH, headSha: fake.state.refs.get(BRANCH) });
      expect(fake.state.checkRuns).toMatchObject([
        { name: "groundfix/review", status: "completed", conclusion: "success", external_id: "run-both" },
      ]);
    },
  );

  it("recognises groundfix's own earlier commit the same way on both hosts: its trailer and who made it", async () => {
    clearSnapshotCache();
    const repo = makeRepo(SHOP_FILES);
    const first = await run(createLocalHost(repo.dir));
    // The default branch moves on; the rerun's branch now holds groundfix's commit on another base.
    sh(repo.dir, "commit", "-q", "--allow-empty", "-m", "later");
    const local = await run(createLocalHost(repo.dir));

    fake = startFake();
    await run(githubHost());
    fake.push("master", { "README.md": "later\n" });
    const github = await run(githubHost());

    for (const report of [local, github]) {
      expect(report.status).toBe("held");
      expect(report.delivery).toMatchObject({ kind: "held", why: "other_base", count: 1, commits: [{ ours: true }] });
    }
    expect(local.delivery!.headSha).toBe(first.delivery!.headSha);
  });

  it(
    "a human commit that forges the trailer is not " + "groundfix's on either host, and is never force-pushed over",
    async () => {
      clearSnapshotCache();
      const forged = "groundfix: looks like a run\n\nGroundfix-Run: forged-by-mallory";
      // Locally: the attacker's commit on the base, with the trailer, committed under their own identity.
      const repo = makeRepo(SHOP_FILES);
      const tree = sh(repo.dir, "rev-parse", "HEAD^{tree}");
      const theirs = sh(repo.dir, "commit-tree", tree, "-p", repo.base, "-m", forged);
      sh(repo.dir, "update-ref", `refs/heads/${BRANCH}`, theirs);
      const local = await run(createLocalHost(repo.dir));
      expect(sh(repo.dir, "rev-parse", BRANCH)).toBe(theirs);

      // On GitHub: the same commit by mallory, who even set the author to the app's bot e-mail (GitHub then shows the
      // bot's login) — but GitHub did not verify it as the app's. No pull request is open (as after a squash merge).
      fake = startFake();
      fake.state.refs.set(BRANCH, fake.baseSha);
      const pushed = fake.push(BRANCH, { "README.md": "mine\n" }, "groundfix[bot]", forged);
      const github = await run(githubHost());
      expect(fake.state.refs.get(BRANCH)).toBe(pushed);
      expect(fake.state.calls.filter((c) => c.method === "PATCH" && c.route.includes("/git/refs/"))).toEqual([]);

      for (const report of [local, github]) {
        expect(report.status).toBe("held");
        expect(report.delivery).toMatchObject({ kind: "held", why: "other_commits", commits: [{ ours: false }] });
      }
      expect(fake.state.pulls).toEqual([]);

      // A retry (`/groundfix retry`) on GitHub commits on another branch name and still leaves the attacker's alone.
      const retried = await runPipeline(githubHost(), {
        request: { ...request, mode: "retry" },
        runId: "run-retry",
        model: () => createModel("heuristic", { env: {} }),
      });
      expect(retried.status).toBe("pull_request");
      expect(retried.delivery).toMatchObject({ branch: `${BRANCH}-2`, insteadOf: { branch: BRANCH, count: 1 } });
      expect(fake.state.refs.get(BRANCH)).toBe(pushed);
      expect(fake.state.pulls.map((p) => p.head)).toEqual([`${BRANCH}-2`]);
    },
  );
});

function startFake(): GitHubFake {
  nock.disableNetConnect();
  return createGitHubFake({ owner: OWNER, name: REPO, defaultBranch: "master", files: SHOP_FILES });
}

/** A GitHub host on the fake, as the App builds it: it knows the app's bot login (`GET /app` in the App). */
function githubHost() {
  const octokit = new TestOctokit({ auth: "token" }) as unknown as Octokit;
  const repo = { owner: OWNER, name: REPO };
  return createGitHubHost({ octokit, repo, log: silent, config: defaultConfig(), botLogin: "groundfix[bot]" });
}
