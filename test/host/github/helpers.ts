import { gzipSync } from "node:zlib";
import nock from "nock";
import { ProbotOctokit } from "probot";
import tar from "tar-stream";
import { TestOctokit } from "../../fixtures/github.js";
import type { RunResult } from "../../../src/agent/index.js";
import { createGitHubHost, type GitHubHost } from "../../../src/host/github/host.js";
import type { Octokit } from "../../../src/host/github/octokit.js";
import type { PacerTimers } from "../../../src/host/github/progress.js";
import { clearSnapshotCache, gitBlobSha } from "../../../src/snapshot/index.js";
import type { AppliedEdit, Task } from "../../../src/types.js";

export const API = "https://api.github.com";
export const OWNER = "acme";
export const REPO = "shop";
export const BASE_SHA = "a".repeat(40);
export const HEAD_SHA = "b".repeat(40);

/**
 * An Octokit as Probot builds it, with retry and throttling off (each test mocks exactly the calls one module
 * makes); `plugins: true` turns both on, configured as the app tests run them (`TestOctokit`).
 */
export function testOctokit(options: { plugins?: boolean } = {}): Octokit {
  const Octo = options.plugins
    ? TestOctokit
    : ProbotOctokit.defaults((o: object) => ({ ...o, retry: { enabled: false }, throttle: { enabled: false } }));
  return new Octo({ auth: { token: "test-token" } }) as Octokit;
}

/** The files each {@link tarball} was made of, by its bytes: {@link serveTarball} lists them as the commit's tree. */
const tarballFiles = new WeakMap<Buffer, Record<string, string | { content: string; mode: number }>>();

/** A gzipped tarball shaped like GitHub's: everything under `acme-shop-<sha7>/`. */
export async function tarball(
  sha: string,
  files: Record<string, string | { content: string; mode: number }>,
): Promise<Buffer> {
  const bytes = await packTarball(sha, files);
  tarballFiles.set(bytes, files);
  return bytes;
}

async function packTarball(
  sha: string,
  files: Record<string, string | { content: string; mode: number }>,
): Promise<Buffer> {
  const pack = tar.pack();
  const top = `${OWNER}-${REPO}-${sha.slice(0, 7)}`;
  pack.entry({ name: `${top}/`, type: "directory" });
  for (const [path, f] of Object.entries(files)) {
    const { content, mode } = typeof f === "string" ? { content: f, mode: 0o644 } : f;
    pack.entry({ name: `${top}/${path}`, mode }, content);
  }
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return gzipSync(Buffer.concat(chunks));
}

/**
 * Serve a tarball the way GitHub does: 302 from the API to codeload, then the bytes; and the commit's recursive tree
 * listing (`GET git/trees/{sha}?recursive=1`), which the host asks for alongside: the files the tarball was made of
 * ({@link tarball}), as committed.
 */
export function serveTarball(sha: string, bytes: Buffer): void {
  const files = tarballFiles.get(bytes) ?? {};
  const tree = Object.entries(files).map(([path, f]) => {
    const { content, mode } = typeof f === "string" ? { content: f, mode: 0o644 } : f;
    const blob = Buffer.from(content);
    const gitMode = (mode & 0o111) !== 0 ? "100755" : "100644";
    return { path, mode: gitMode, type: "blob", sha: gitBlobSha(blob), size: blob.length };
  });
  nock(API).get(`/repos/${OWNER}/${REPO}/git/trees/${sha}`).query(true).reply(200, { sha, truncated: false, tree });
  nock(API)
    .get(`/repos/${OWNER}/${REPO}/tarball/${sha}`)
    .reply(302, "", { location: `https://codeload.github.com/${OWNER}/${REPO}/legacy.tar.gz/${sha}` });
  nock("https://codeload.github.com")
    .get(`/${OWNER}/${REPO}/legacy.tar.gz/${sha}`)
    .reply(200, bytes, { "content-type": "application/x-gzip" });
}

export const BASE_FILES = {
  "src/orders.js":
    "function total(items) {\n  return items.reduce((s, i) => s + i.price, 0);\n}\nmodule.exports = { total };\n",
  "bin/run.sh": { content: "#!/bin/sh\necho run\n", mode: 0o755 },
  "README.md": "# shop\n",
};

export const EDIT: AppliedEdit = {
  path: "src/orders.js",
  code_before: "function total(items) {\n",
  code_after: 'function total(items) {\n  if (!Array.isArray(items)) throw new TypeError("items must be an array");\n',
  rationale: "Guard the input so the crash names its cause (see @octocat's report).",
  startLine: 1,
  endLine: 1,
  baseStartLine: 1,
  baseEndLine: 1,
  kind: "addition",
  diff:
    "--- a/src/orders.js\n+++ b/src/orders.js\n@@ -1,3 +1,4 @@\n function " +
    'total(items) {\n+  if (!Array.isArray(items)) throw new TypeError("items ' +
    'must be an array");\n   return items.reduce((s, i) => s + i.price, 0);\n }\n',
};

export const EDITED_ORDERS =
  'function total(items) {\n  if (!Array.isArray(items)) throw new TypeError("items must be an ' +
  'array");\n  return items.reduce((s, i) => s + i.price, 0);\n}\nmodule.exports = { total };\n';

export const COMPARE_PATCH =
  "@@ -1,3 +1,4 @@\n function total(items) {\n+  if (!Array.isArray(items)) throw new " +
  'TypeError("items must be an array");\n   return items.reduce((s, i) => s + i.price, 0);\n }';

export function task(overrides: Partial<Task> = {}): Task {
  return {
    source: "issue",
    key: `${OWNER}/${REPO}#issue-12`,
    title: "total() crashes on undefined",
    body: "TypeError: Cannot read properties of undefined (reading 'reduce')",
    repo: { owner: OWNER, name: REPO },
    baseSha: BASE_SHA,
    number: 12,
    ...overrides,
  };
}

export function runResult(overrides: Partial<RunResult> = {}): RunResult {
  return {
    outcome: "pr_ready",
    reason: null,
    diagnosis: {
      summary: "total() reduces over `items` without checking it is an array.",
      affected_file: "src/orders.js",
      affected_function: "total",
      root_cause_snippet: "  return items.reduce((s, i) => s + i.price, 0);",
      confidence: 0.82,
      citations: [{ path: "src/orders.js", start_line: 2, end_line: 2 }],
    },
    edits: [EDIT],
    files: [{ path: "src/orders.js", content: EDITED_ORDERS, mode: "100644" }],
    gates: {
      rejections: [],
      observations_stripped: 0,
      input_removed: { html_comments: 0, invisible_chars: 0, secrets: 0 },
    },
    usage: { model_calls: 3, tool_calls: 4, input_tokens: 1200, output_tokens: 300 },
    trace: {
      model: "heuristic",
      started_at: "2026-01-01T00:00:00.000Z",
      steps: [
        {
          step: 1,
          text: "",
          observations_stripped: 0,
          tool_calls: [
            {
              id: "c1",
              name: "get_file_contents",
              arguments: { path: "src/orders.js" },
              status: "ok",
              result: "   1| function total(items) {",
              result_chars: 30,
              ms: 1,
            },
          ],
          model_ms: 1,
        },
      ],
      input_removed: { html_comments: 0, invisible_chars: 0, secrets: 0 },
      observations_stripped: 0,
      outcome: "pr_ready",
      reason: null,
      total_ms: 5,
    },
    transcript: { turns: [] },
    ...overrides,
  };
}

/**
 * A commit of a compare answer as GitHub lists the app's own: the `Groundfix-Run: run-1` trailer, the bot
 * `groundfix[bot]` as author and committer, verified.
 */
export function ownCommit(sha: string, subject = "groundfix: an earlier run") {
  const bot = "groundfix[bot]";
  return {
    sha,
    commit: { author: { name: bot }, message: `${subject}\n\nGroundfix-Run: run-1`, verification: { verified: true } },
    author: { login: bot },
    committer: { login: bot },
  };
}

/** Record every REST request the Octokit makes, as `METHOD /route` (the codeload redirect is not a REST call). */
export function recordCalls(octokit: Octokit): string[] {
  const calls: string[] = [];
  octokit.hook.before("request", (options) => {
    calls.push(`${options.method} ${String(options.url)}`);
  });
  return calls;
}

/** A GitHub host on acme/shop for `octokit`, logging nowhere, with `options` (config, status issue, …). */
export function githubHost(
  octokit: Octokit,
  options: Partial<Parameters<typeof createGitHubHost>[0]> = {},
): GitHubHost {
  const log = { info() {}, warn() {}, error() {} };
  return createGitHubHost({ octokit, repo: { owner: OWNER, name: REPO }, log, ...options });
}

/**
 * Between tests: forget the process-wide snapshot cache, drop nock's interceptors, and
 * return the interceptors that were never called (a test expects none).
 */
export function resetGitHubFakes(): string[] {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  clearSnapshotCache();
  return pending;
}

/** A clock the test moves by hand: `advance(ms)` runs every timer due by then, in order. */
export function manualClock(): PacerTimers & { advance(ms: number): void; pending(): number } {
  let now = 0;
  let next = 0;
  const timers = new Map<number, { at: number; run: () => void }>();
  return {
    setTimeout(run, ms) {
      const id = next++;
      timers.set(id, { at: now + ms, run });
      return id;
    },
    clearTimeout(handle) {
      timers.delete(handle as number);
    },
    advance(ms) {
      now += ms;
      for (const [id, t] of [...timers].sort((a, b) => a[1].at - b[1].at)) {
        if (t.at > now) continue;
        timers.delete(id);
        t.run();
      }
    },
    pending: () => timers.size,
  };
}
