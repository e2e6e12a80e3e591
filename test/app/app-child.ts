/**
 * One app process for the Redis app tests: Probot (GitHub at TEST_BASE_URL, the test's bridge to its fake) with
 * groundfix on the Redis queue TEST_REDIS_URL/TEST_PREFIX (1 s worker lock), serving webhooks on TEST_PORT.
 * Prints `listening` when it accepts deliveries.
 */
import { createServer } from "node:http";
import { createNodeMiddleware, Probot } from "probot";
import { createApp } from "../../src/index.js";
import { createRedisQueue } from "../../src/queue/redis.js";
import { TestOctokit } from "../fixtures/github.js";

const queue = await createRedisQueue({
  url: process.env.TEST_REDIS_URL!,
  prefix: process.env.TEST_PREFIX!,
  lockDurationMs: 1_000,
});
const probot = new Probot({
  appId: 1,
  privateKey: process.env.TEST_PRIVATE_KEY!,
  secret: "s",
  logLevel: "fatal",
  baseUrl: process.env.TEST_BASE_URL!,
  Octokit: TestOctokit,
});
const middleware = await createNodeMiddleware(createApp({ queue, env: {} }), { probot });
createServer((req, res) => void middleware(req, res)).listen(Number(process.env.TEST_PORT), "127.0.0.1", () => {
  process.stdout.write("listening\n");
});
