/**
 * A review job (`reviewOnEvent`, src/host/github/review-handler.ts) against a GitHub that stops answering: a local
 * HTTP server on 127.0.0.1 (no network), the App's Octokit (`groundfixOctokit`, as `groundfix serve` runs every
 * job, with a time limit of 300 ms per attempt here). What a reader sees: the job ends, and the head's
 * `groundfix/review` check run is concluded `failure`, naming the request that stopped, never left in progress.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { reviewEventOf } from "../../src/events/review-trigger.js";
import { prepareInstallationOctokit } from "../../src/host/github/installation.js";
import { reviewOnEvent } from "../../src/host/github/review-handler.js";
import { createReviewClaims } from "../../src/host/github/review-claims.js";
import { groundfixOctokit } from "../../src/server/octokit.js";
import { clearSnapshotCache } from "../../src/snapshot/index.js";
import { testPrivateKey, webhookExample } from "../fixtures/github.js";

const privateKey = testPrivateKey();
const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

const BASE = "a".repeat(40);
const HEAD = "b".repeat(40);
const COMPARE = {
  merge_base_commit: { sha: BASE },
  ahead_by: 1,
  commits: [],
  files: [{ filename: "a.js", status: "modified", changes: 2, patch: "@@ -1 +1 @@\n-a\n+b" }],
};

/** How the fake stops: `answer` handles the request it stops on (true), else the usual answers are given. */
type Stop = (req: IncomingMessage, res: ServerResponse) => boolean;

/** A GitHub on 127.0.0.1 that answers a review's requests, except where `stop` takes one; PATCH bodies are kept. */
async function fakeGitHub(stop: Stop) {
  const seen: string[] = [];
  const patches: any[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      seen.push(`${req.method} ${req.url!.split("?")[0]}`);
      const json = (status: number, value: unknown) =>
        res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(value));
      if (stop(req, res)) return;
      const url = req.url!;
      if (url.endsWith("/access_tokens"))
        return json(201, { token: "t", expires_at: new Date(Date.now() + 3_600_000).toISOString() });
      if (req.method === "POST" && url.endsWith("/check-runs")) return json(201, { id: 5 });
      if (req.method === "PATCH") return (patches.push(JSON.parse(body)), json(200, {}));
      if (url.includes("/pulls")) return json(200, []);
      if (url.includes("/compare/")) return json(200, COMPARE);
      json(404, { message: "Not Found" });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, patches };
}

/** An installation client of the App's Octokit on `baseUrl`: 2 attempts, 300 ms per pause of an answer. */
async function appOctokit(baseUrl: string) {
  const Octokit = groundfixOctokit({ requestPolicy: { waitBaseMs: 1, attempts: 2, attemptTimeoutMs: 300 } });
  const probot = new Probot({ appId: 1, privateKey, baseUrl, logLevel: "fatal", Octokit });
  return prepareInstallationOctokit((await probot.auth(1234)) as never, 1234);
}

/** The review job of `pull_request.synchronize` on `groundfix/issue-1` at HEAD, through the App's Octokit. */
async function reviewJob(baseUrl: string) {
  clearSnapshotCache();
  const octokit = await appOctokit(baseUrl);
  const payload = webhookExample("pull_request", "synchronize");
  payload.pull_request.head = { ...payload.pull_request.head, ref: "groundfix/issue-1", sha: HEAD };
  payload.pull_request.base = { ...payload.pull_request.base, sha: BASE };
  const quiet = { info() {}, warn() {}, error() {} };
  return reviewOnEvent({
    octokit,
    log: quiet,
    event: reviewEventOf("pull_request", payload)!,
    config: async () => ({ config: defaultConfig() }),
    claimReview: createReviewClaims(),
    botLogin: "groundfix[bot]",
  });
}

const isCompare = (req: IncomingMessage) => req.url!.includes("/compare/");
const isTarball = (req: IncomingMessage) => req.url!.includes("/tarball/");

describe("a review job when GitHub stops answering", () => {
  it.each<[string, Stop, string]>([
    ["a request that is never answered (the compare)", (req) => isCompare(req), "no answer within 300 ms"],
    [
      "an answer whose body stops after its headers (the compare's JSON)",
      (req, res) => isCompare(req) && (res.writeHead(200, { "content-type": "application/json" }).write("{"), true),
      "the answer stopped: nothing more came within 300 ms",
    ],
    [
      "a tarball whose body stops after its first bytes",
      (req, res) =>
        isTarball(req) && (res.writeHead(200, { "content-type": "application/x-gzip" }).write("\x1f"), true),
      `GitHub's answer to GET /repos/Codertocat/Hello-World/tarball/${BASE} stopped: nothing more came within 300 ms`,
    ],
  ])(
    "%s: the job ends and the check run fails, saying what stopped",
    async (_, stop, why) => {
      const github = await fakeGitHub(stop);
      const out = await reviewJob(github.baseUrl);
      expect(out).toMatchObject({
        status: "reviewed",
        report: { conclusion: "failure", title: "Review could not run" },
      });
      expect(github.patches).toHaveLength(1);
      expect(github.patches[0]).toMatchObject({ status: "completed", conclusion: "failure" });
      expect(github.patches[0].output.summary).toContain(why);
    },
    10_000,
  );

  /** An answer that takes about 1 s in all, 20 bytes every 50 ms: never a pause near the 300 ms limit. */
  const trickle = (text: string, type: string) => (res: ServerResponse) => {
    res.writeHead(200, { "content-type": type });
    let i = 0;
    const next = () => (i < text.length ? (res.write(text.slice(i, (i += 20))), setTimeout(next, 50)) : res.end());
    next();
  };

  it("an answer that keeps coming is read whole however long it takes, streamed or not", async () => {
    const text = JSON.stringify({ ...COMPARE, padding: "x".repeat(300) });
    const github = await fakeGitHub((req, res) => {
      if (!req.url!.includes("/slow")) return false;
      trickle(text, req.url!.includes("tarball") ? "application/x-gzip" : "application/json")(res);
      return true;
    });
    const octokit = await appOctokit(github.baseUrl);
    const started = Date.now();
    const { data } = await octokit.request("GET /repos/o/r/slow");
    expect(data).toEqual(JSON.parse(text));
    const streamed = await octokit.request("GET /repos/o/r/slow/tarball", {
      request: { parseSuccessResponseBody: false },
    });
    const bytes = await new Response(streamed.data as unknown as ReadableStream).text();
    expect(bytes).toBe(text);
    expect(Date.now() - started).toBeGreaterThan(1_000); // each took longer than the limit in all
    expect(github.seen.filter((s) => s.includes("/slow"))).toHaveLength(2); // and no attempt was given up
  }, 10_000);
});
