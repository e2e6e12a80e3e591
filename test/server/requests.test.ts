/**
 * The App's Octokit (`groundfixOctokit`) against a GitHub that fails: a local HTTP server on 127.0.0.1 that answers
 * 502, never answers, or a port that refuses. What an operator sees: one log line per retry, a bounded number of
 * tries, and a final error that names the installation token, not what needed it.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Probot } from "probot";
import { afterEach, describe, expect, it } from "vitest";
import { InstallationTokenError, prepareInstallationOctokit } from "../../src/host/github/installation.js";
import { describeFailure } from "../../src/host/github/octokit.js";
import { groundfixOctokit } from "../../src/server/octokit.js";
import { testPrivateKey } from "../fixtures/github.js";
import { freePort } from "../queue/redis-server.js";

const privateKey = testPrivateKey();
const closers: (() => void)[] = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

/** A fake GitHub on a free port; `seen` lists `METHOD /path` of every request it got. */
async function fakeGitHub(
  answer: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ baseUrl: string; seen: string[] }> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    answer(req, res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  closers.push(() => {
    server.closeAllConnections();
    server.close();
  });
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

/** Probot with the App's Octokit on `baseUrl` (waits shortened), and the warnings it logged. */
async function app(baseUrl: string, policy: { attemptTimeoutMs?: number } = {}) {
  const warnings: string[] = [];
  const Octokit = groundfixOctokit({ requestPolicy: { waitBaseMs: 1, ...policy } });
  const probot = new Probot({ appId: 1, privateKey, baseUrl, logLevel: "warn", Octokit });
  const octokit = await probot.auth(1234);
  // Probot's pino logger: collect what the installation client warns (`octokit.log`).
  (octokit as any).log.warn = (obj: unknown, msg?: unknown) => void warnings.push(String(msg ?? obj));
  return { octokit, warnings };
}

const tokenPath = "POST /app/installations/1234/access_tokens";

describe("GitHub requests of the App", () => {
  it("tries the token request 4 times in all, logging each retry, and names the token when it fails", async () => {
    const github = await fakeGitHub((_req, res) => res.writeHead(502).end("bad gateway"));
    const { octokit, warnings } = await app(github.baseUrl);
    const error = await octokit.request("GET /repos/{owner}/{repo}", { owner: "o", repo: "r" }).catch((e) => e);
    // Before: the retry plugin retried the token request inside each of the GET's own 4 tries: 16 token requests.
    expect(github.seen).toEqual([tokenPath, tokenPath, tokenPath, tokenPath]);
    expect(warnings).toEqual(
      [1, 2, 3].map(
        (n) =>
          `groundfix: GitHub request ${tokenPath} (the installation token of installation 1234) failed: ` +
          `HTTP 502; attempt ${n} of 4, next in ${n * n} ms`,
      ),
    );
    expect(describeFailure(error)).toBe(`GitHub server error (HTTP 502) on ${tokenPath}`);
  });

  it("says a refused connection is no answer, with its code, not a GitHub server error", async () => {
    const port = await freePort();
    const { octokit } = await app(`http://127.0.0.1:${port}`);
    const error = await prepareInstallationOctokit(octokit, 1234).catch((e) => e);
    expect(error).toBeInstanceOf(InstallationTokenError);
    expect(error.message).toBe(
      "could not get an installation token for installation 1234 (POST /app/installations/1234/access_tokens): " +
        "no answer (ECONNREFUSED) after 4 attempts",
    );
    expect(describeFailure(error.cause)).toBe(`GitHub did not answer on ${tokenPath}: no answer (ECONNREFUSED)`);
  });

  it("gives up on an attempt whose answer does not come, and tries again", async () => {
    const github = await fakeGitHub(() => {}); // accepts, reads, never answers
    const { octokit, warnings } = await app(github.baseUrl, { attemptTimeoutMs: 100 });
    const error = await prepareInstallationOctokit(octokit, 1234).catch((e) => e);
    expect(github.seen).toHaveLength(4);
    expect(warnings[0]).toContain("failed: no answer within 100 ms; attempt 1 of 4");
    expect(error.message).toContain(
      "for installation 1234 (POST /app/installations/1234/access_tokens): " +
        "no answer within 100 ms after 4 attempts",
    );
  });

  it("stops waiting when the job's signal aborts, with the signal's reason, and tries no more", async () => {
    const github = await fakeGitHub(() => {});
    const { octokit } = await app(github.baseUrl);
    const stop = new AbortController();
    const pending = prepareInstallationOctokit(octokit, 1234, stop.signal).catch((e) => e);
    while (github.seen.length === 0) await new Promise((r) => setTimeout(r, 10));
    stop.abort(new Error("the worker is stopping"));
    const error = await pending;
    expect(error).not.toBeInstanceOf(InstallationTokenError);
    expect(String(error.message)).toContain("the worker is stopping");
    expect(github.seen).toEqual([tokenPath]);
  });

  it("keeps a request's own retry count (RETRY_ONCE, NO_RETRY) and never retries a 404", async () => {
    const github = await fakeGitHub((req, res) => {
      if (req.url?.endsWith("/access_tokens")) {
        res.writeHead(201, { "content-type": "application/json" });
        return res.end(JSON.stringify({ token: "t", expires_at: new Date(Date.now() + 3_600_000).toISOString() }));
      }
      res.writeHead(req.url === "/repos/o/gone" ? 404 : 503, { "content-type": "application/json" }).end("{}");
    });
    const { octokit } = await app(github.baseUrl);
    await octokit.request("GET /repos/o/once", { request: { retries: 1 } }).catch(() => {});
    await octokit.request("GET /repos/o/never", { request: { retries: 0 } }).catch(() => {});
    await octokit.request("GET /repos/o/gone").catch(() => {});
    expect(github.seen.filter((s) => !s.endsWith("/access_tokens"))).toEqual([
      "GET /repos/o/once",
      "GET /repos/o/once",
      "GET /repos/o/never",
      "GET /repos/o/gone",
    ]);
  });
});
