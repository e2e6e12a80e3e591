import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startRedis, type TestRedis } from "../queue/redis-server.js";

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

function replica(baseUrl: string, tag: string): Promise<void> {
  const child = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(new URL("./throttle-child.ts", import.meta.url))],
    {
      env: { ...process.env, TEST_REDIS_URL: redis.url, TEST_BASE_URL: baseUrl, TEST_TAG: tag },
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) =>
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`exit ${code}`)))),
  );
}

describe("groundfixOctokit with Redis", () => {
  it("two processes writing for one installation share its limiter: one write a second in all", async () => {
    const arrivals: { ref: string; at: number }[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (c) => (body += c));
      req.on("end", () => {
        arrivals.push({ ref: JSON.parse(body).ref, at: Date.now() });
        res.writeHead(201, { "content-type": "application/json" }).end("{}");
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      await Promise.all([replica(baseUrl, "p1"), replica(baseUrl, "p2")]);
    } finally {
      server.close();
    }
    expect(arrivals.map((a) => a.ref).sort()).toEqual(["p1-a", "p1-b", "p2-a", "p2-b"]);
    // Bottleneck's minTime is 1000 ms per limiter, timed at scheduling: shared, the four writes are scheduled 1000 ms
    // apart (3000 ms from the first to the last); unshared, each process sends its two writes 1000 ms apart and both
    // start at once (about 1000 ms in all). The span, not each gap, is asserted: on a loaded machine one request can
    // arrive hundreds of ms after it was scheduled, which shortens the gap after it (a gap of 421 ms was seen).
    const span = arrivals[arrivals.length - 1]!.at - arrivals[0]!.at;
    expect(span).toBeGreaterThanOrEqual(2000);
  });
});
