/**
 * Drive the groundfix app end to end: a real Probot instance (throwaway key) with Octokit's retry and throttling
 * plugins ON (`TestOctokit` of test/fixtures/github.ts: short waits, so a test takes milliseconds, not seconds) — the
 * app loaded through `createApp({ queue, env })`, GitHub faked by {@link createGitHubFake}, and `receive` that delivers
 * a webhook and then waits for the queued runs.
 */
import { randomUUID } from "node:crypto";
import nock from "nock";
import { Probot } from "probot";
import { clearSnapshotCache } from "../../src/snapshot/index.js";
import type { RunRequest } from "../../src/events/types.js";
import { createApp } from "../../src/index.js";
import { createQueue } from "../../src/queue/index.js";
import { createGitHubFake, type FakeRepoOptions } from "../fixtures/github-fake.js";
import { TestOctokit, testPrivateKey, webhookExample } from "../fixtures/github.js";

const privateKey = testPrivateKey();

/** The example repository of @octokit/webhooks-examples' issues/issue_comment payloads. */
export const OWNER = "Codertocat";
export const REPO = "Hello-World";

/** A small JavaScript service whose `total()` throws on an undefined item (line 4). */
export const SHOP_FILES = {
  "src/cart.js":
    "function total(items) {\n  let sum = 0;\n  for (const item of items) {\n    sum " +
    "+= item.price * item.qty;\n  }\n  return sum;\n}\n\nmodule.exports = { total };\n",
  "index.js": "const { total } = require('./src/cart');\nconsole.log(total([{ price: 1, qty: 2 }, undefined]));\n",
  "package.json": '{"name":"shop","version":"1.0.0"}\n',
  ".github/workflows/ci.yml":
    "name: ci\non: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n",
};

export const CRASH_BODY =
  "Checkout crashes:\n\n```\nTypeError: Cannot read properties of undefined (reading 'price')\n " +
  "   at total (/app/src/cart.js:4:16)\n    at Object.<anonymous> (/app/index.js:2:13)\n```\n";

/**
 * Start Probot + the app + the fake. `env` is the operator environment (GROUNDFIX_*). The snapshot cache is
 * cleared first (review claims and status-comment ids are per app), so a faked failure is really met.
 */
export async function startApp(repo: Partial<FakeRepoOptions> = {}, env: NodeJS.ProcessEnv = {}) {
  nock.disableNetConnect();
  clearSnapshotCache();
  const fake = createGitHubFake({
    owner: OWNER,
    name: REPO,
    defaultBranch: "master",
    files: SHOP_FILES,
    roles: { Codertocat: "write" },
    ...repo,
  });
  const queue = createQueue({ concurrency: 2 });
  const probot = new Probot({ appId: 1, privateKey, logLevel: "fatal", Octokit: TestOctokit });
  await probot.load(createApp({ queue, env }));
  return {
    fake,
    queue,
    probot,
    /** Deliver a webhook (default: a fresh delivery id) and wait until every queued run has finished. */
    async receive(name: string, payload: Record<string, any>, id: string = randomUUID()) {
      await probot.receive({ id, name, payload } as any);
      await queue.idle();
    },
    stop() {
      fake.stop();
      nock.enableNetConnect();
    },
  };
}

let labelEvents = 0;

/**
 * `issues.labeled` from the examples: issue #1 of Codertocat/Hello-World, labeled `label` by Codertocat. Each call
 * is a new label event, as on GitHub, where every labeling moves `issue.updated_at`; deliver one payload twice for a
 * copy of one event.
 */
export function labeledIssue(label = "groundfix", body = CRASH_BODY): Record<string, any> {
  const p = webhookExample("issues", "labeled");
  p.issue.updated_at = new Date(Date.UTC(2026, 0, 1) + 1000 * labelEvents++).toISOString();
  p.label = { ...p.label, name: label };
  p.issue.title = "Checkout crashes with TypeError";
  p.issue.body = body;
  return p;
}

let comments = 0;

/** A new `/groundfix retry` comment on issue #1 by Codertocat (each call another comment, as on GitHub). */
export function retryComment(): Record<string, any> {
  const payload = webhookExample("issue_comment", "created");
  payload.comment.id += ++comments;
  payload.issue = { ...payload.issue, title: "Checkout crashes with TypeError", body: CRASH_BODY };
  payload.comment.body = "/groundfix retry";
  return payload;
}

/** The run request of a label on issue #1 of the shop (`labeledIssue`), with the status on `statusIssue`. */
export function issueRequest(statusIssue: number | null = 1): RunRequest {
  return {
    task: {
      source: "issue",
      key: `${OWNER}/${REPO}#issue-1`,
      title: "Checkout crashes with TypeError",
      body: CRASH_BODY,
      repo: { owner: OWNER, name: REPO },
      number: 1,
    },
    mode: "run",
    statusIssue,
    branchSuffix: "issue-1",
  };
}

/**
 * `pull_request.<action>` from the examples for the fake's pull request `pr`, its head `ref` at `headSha` and its base
 * `master` at `baseSha` (the body is the PR's, so a groundfix PR carries its run record).
 */
export function pullRequestWebhook(
  action: string,
  pr: { number: number; html_url: string; body: string },
  head: { ref: string; sha: string },
  baseSha: string,
): Record<string, any> {
  const payload = webhookExample("pull_request", action);
  payload.number = pr.number;
  Object.assign(payload.pull_request, { number: pr.number, html_url: pr.html_url, body: pr.body });
  payload.pull_request.head = { ...payload.pull_request.head, ...head };
  payload.pull_request.base = { ...payload.pull_request.base, ref: "master", sha: baseSha };
  return payload;
}
