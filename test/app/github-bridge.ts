/**
 * Serve the in-process GitHub fake (nock, `test/fixtures/github-fake.ts`) over real HTTP on 127.0.0.1, so app
 * processes started by a test (their Probot `baseUrl` pointed here) read and write the same fake state as the test.
 * Each request is forwarded to `https://api.github.com<path>` inside this process, where nock answers it.
 * `hold(match)` keeps matching requests unanswered (a worker stuck mid-call, to be killed); `drop()` then closes them
 * without forwarding (the killed worker's call never reaches the fake).
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** A running bridge. */
export interface GitHubBridge {
  /** `http://127.0.0.1:<port>`: the `baseUrl` for Probot in another process. */
  url: string;
  /** `METHOD /path` of every request received, in order. */
  seen: string[];
  /** Leave requests whose `METHOD /path` matches unanswered until `drop()`. */
  hold(match: RegExp): void;
  /** Stop holding; the held requests are answered 502 without reaching the fake. */
  drop(): void;
  close(): Promise<void>;
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Start the bridge; the fake must be created (nock active) before requests arrive. */
export async function startGitHubBridge(): Promise<GitHubBridge> {
  let held: RegExp | undefined;
  let waiting: (() => void)[] = [];
  const seen: string[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const line = `${req.method} ${req.url}`;
      seen.push(line);
      const body = await bodyOf(req);
      if (held?.test(line)) {
        await new Promise<void>((resolve) => waiting.push(resolve));
        return void res.writeHead(502).end();
      }
      const headers: Record<string, string> = {};
      for (const name of ["content-type", "authorization", "accept"]) {
        const value = req.headers[name];
        if (typeof value === "string") headers[name] = value;
      }
      const answer = await fetch(`https://api.github.com${req.url}`, {
        method: req.method,
        headers,
        body: req.method === "GET" || req.method === "HEAD" ? undefined : body,
      });
      const out = Buffer.from(await answer.arrayBuffer());
      res.writeHead(answer.status, { "content-type": answer.headers.get("content-type") ?? "application/json" });
      res.end(out);
    })().catch((error: unknown) => {
      res.writeHead(502).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    hold(match) {
      held = match;
    },
    drop() {
      held = undefined;
      const stuck = waiting;
      waiting = [];
      for (const go of stuck) go();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
