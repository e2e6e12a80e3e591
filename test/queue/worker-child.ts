/**
 * A worker process for the queue tests: takes jobs from the Redis queue named by TEST_REDIS_URL/TEST_PREFIX,
 * prints `started <key> <attempt>` for each and then hangs, so the test can SIGKILL it mid-run.
 */
import { createRedisQueue } from "../../src/queue/redis.js";

const queue = await createRedisQueue({
  url: process.env.TEST_REDIS_URL!,
  prefix: process.env.TEST_PREFIX!,
  lockDurationMs: 1_000,
});
queue.process(async (job, attempt) => {
  process.stdout.write(`started ${job.key} ${attempt.number}\n`);
  await new Promise(() => {});
});
process.stdout.write("ready\n");
