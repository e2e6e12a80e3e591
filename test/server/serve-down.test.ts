import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { testPrivateKey } from "../fixtures/github.js";
import { freePort, startRedis } from "../queue/redis-server.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

it("stops cleanly on SIGTERM after Redis went down: exit 0, one line, no stack", async () => {
  const redis = await startRedis();
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", MAIN, "serve"], {
    cwd: fileURLToPath(new URL("./", import.meta.url)),
    env: {
      PATH: process.env.PATH,
      LOG_LEVEL: "fatal",
      GROUNDFIX_REDIS_URL: redis.url,
      APP_ID: "1",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET: "s",
      HOST: "127.0.0.1",
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  const exit = new Promise((r) => child.on("exit", (code) => r(code)));
  for (let i = 0; i < 400; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/ping`).then(
        () => true,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await redis.stop();
  await new Promise((r) => setTimeout(r, 1000));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  const code = await exit;
  clearTimeout(timer);
  expect(code, out).toBe(0);
  expect(out).toBe("groundfix: Redis is unreachable; stopping without waiting for the queue's jobs\n");
}, 40_000);
