/**
 * One "replica" for the shared-limiter test: two writes for installation 7 through {@link groundfixOctokit} on the
 * Redis at TEST_REDIS_URL, to the fake GitHub at TEST_BASE_URL; prints `done` when both were answered.
 */
import { connectRedis } from "../../src/queue/redis.js";
import { groundfixOctokit } from "../../src/server/octokit.js";

// The client `groundfix serve` passes (lazyConnect, no offline queue): Bottleneck's duplicate of it once never
// connected, so every request waited for the limiter forever.
const redis = await connectRedis(process.env.TEST_REDIS_URL!);
const Octokit = groundfixOctokit({ redis });
const octokit = new Octokit({ auth: { token: "t", installationId: 7 }, baseUrl: process.env.TEST_BASE_URL });
const tag = process.env.TEST_TAG!;
await Promise.all(["a", "b"].map((n) => octokit.request("POST /repos/o/r/git/refs", { ref: `${tag}-${n}`, sha: "0" })));
process.stdout.write("done\n");
redis.disconnect();
process.exit(0);
