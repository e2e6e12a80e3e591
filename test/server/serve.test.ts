import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testPrivateKey } from "../fixtures/github.js";
import { freePort, startRedis, type TestRedis } from "../queue/redis-server.js";

const MAIN = fileURLToPath(new URL("../../src/cli/main.ts", import.meta.url));

let redis: TestRedis;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis.stop();
});

/** `groundfix serve …` from the sources, in an empty working directory (no .env). */
function groundfix(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; output: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    cwd: fileURLToPath(new URL("./", import.meta.url)),
    env: { PATH: process.env.PATH, LOG_LEVEL: "fatal", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout!.on("data", (c: Buffer) => (out += c));
  child.stderr!.on("data", (c: Buffer) => (out += c));
  return { child, output: () => out, exit: new Promise((r) => child.on("exit", (code) => r(code))) };
}

async function get(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const res = await fetch(url);
    return { status: res.status, body: await res.text() };
  } catch {
    return undefined;
  }
}

describe("groundfix serve", () => {
  it("exits 2 (an environment it cannot work in), one line, when GROUNDFIX_REDIS_URL points at no Redis", async () => {
    const run = groundfix(["serve"], { GROUNDFIX_REDIS_URL: "redis://:pw@127.0.0.1:1" });
    expect(await run.exit).toBe(2);
    expect(run.output()).toBe(
      "groundfix: cannot reach Redis at redis://:***@127.0.0.1:1 (GROUNDFIX_REDIS_URL): ECONNREFUSED\n",
    );
  });

  it("refuses a split role without GROUNDFIX_REDIS_URL, and an unknown role, with exit 2 and one line", async () => {
    const worker = groundfix(["worker"], {});
    expect(await worker.exit).toBe(2);
    expect(worker.output()).toBe(
      "groundfix: worker needs GROUNDFIX_REDIS_URL (redis://host:port): web and worker processes share " +
        "jobs through Redis\n",
    );
    const web = groundfix(["serve", "--role", "web"], {});
    expect(await web.exit).toBe(2);
    expect(web.output()).toMatch(/^groundfix: serve --role web needs GROUNDFIX_REDIS_URL /);
    const bogus = groundfix(["serve", "--role", "both"], {});
    expect(await bogus.exit).toBe(2);
    expect(bogus.output()).toBe('groundfix: serve: --role must be all, web or worker (got "both")\n');
  });

  it(
    "refuses settings that cannot work (App, webhook secret, " +
      "operator model) with exit 2 and one line naming the variable",
    async () => {
      const cases: [NodeJS.ProcessEnv, unknown][] = [
        [
          { NODE_ENV: "production", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET: "s" },
          "groundfix: cannot start: APP_ID is not set (NODE_ENV=production needs the GitHub App's id)\n",
        ],
        [
          { APP_ID: "1", PRIVATE_KEY: "notakey", WEBHOOK_SECRET: "s" },
          "groundfix: cannot start: PRIVATE_KEY is not a valid PEM private key\n",
        ],
        [
          {
            APP_ID: "1",
            PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----\nnotbase64\n-----END RSA PRIVATE KEY-----\n",
            WEBHOOK_SECRET: "s",
          },
          "groundfix: cannot start: PRIVATE_KEY is not a valid PEM private key\n",
        ],
        [
          { APP_ID: "1", PRIVATE_KEY_PATH: "/no/such/key.pem", WEBHOOK_SECRET: "s" },
          "groundfix: cannot start: PRIVATE_KEY_PATH /no/such/key.pem does not exist\n",
        ],
        // Without a secret Probot verifies deliveries against its public fallback "development": forged webhooks pass.
        [
          { NODE_ENV: "production", APP_ID: "1", PRIVATE_KEY: testPrivateKey() },
          "groundfix: cannot start: WEBHOOK_SECRET is not set (without it forged " +
            "webhooks would be accepted; use the App's webhook secret)\n",
        ],
        [
          { APP_ID: "1", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET: " development " },
          'groundfix: cannot start: WEBHOOK_SECRET is "development", Probot\'s public default; ' +
            "use the App's own webhook secret\n",
        ],
        [
          { APP_ID: "abc", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET: "s" },
          'groundfix: cannot start: APP_ID must be the GitHub App\'s numeric id (got "abc")\n',
        ],
        [
          { NODE_ENV: "production", APP_ID: "1", WEBHOOK_SECRET: "s" },
          "groundfix: cannot start: PRIVATE_KEY or PRIVATE_KEY_PATH is not set " +
            "(NODE_ENV=production needs the GitHub App's private key)\n",
        ],
        [
          { APP_ID: "1", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET: "s", GROUNDFIX_MODEL: "bogus" },
          expect.stringMatching(/^groundfix: cannot start: GROUNDFIX_MODEL: .*bogus.*\n$/),
        ],
      ];
      for (const [env, line] of cases) {
        const run = groundfix(["serve"], env);
        expect(await run.exit, run.output()).toBe(2);
        expect(run.output()).toEqual(line);
      }
    },
  );

  it("says which port is taken, with exit 2 and one line, instead of Probot's stack", async () => {
    const port = await freePort();
    const taken = createServer().listen(port, "127.0.0.1");
    await new Promise((r) => taken.once("listening", r));
    try {
      const run = groundfix(["serve"], {
        APP_ID: "1",
        PRIVATE_KEY: testPrivateKey(),
        WEBHOOK_SECRET: "s",
        HOST: "127.0.0.1",
        PORT: String(port),
      });
      expect(await run.exit).toBe(2);
      expect(run.output()).toBe(`groundfix: cannot start: port ${port} is already in use (PORT)\n`);
    } finally {
      taken.close();
    }
  });

  it("refuses a PORT that is not a port number with exit 2 and one line, instead of listening on 3000", async () => {
    const app = { APP_ID: "1", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET: "s", HOST: "127.0.0.1" };
    for (const port of ["abc", "0", "65536", "80x", "-1", "3000.5"]) {
      const run = groundfix(["serve"], { ...app, PORT: port });
      expect(await run.exit, port).toBe(2);
      expect(run.output()).toBe(
        `groundfix: cannot start: PORT must be a port number 1-65535 (got ${JSON.stringify(port)})\n`,
      );
    }
  });

  it("serves GET /ping and GET /ready, which follows Redis's reachability", async () => {
    const port = await freePort();
    const run = groundfix(["serve", "--role", "web"], {
      GROUNDFIX_REDIS_URL: redis.url,
      APP_ID: "1",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET: "s",
      HOST: "127.0.0.1",
      PORT: String(port),
    });
    try {
      let ready: Awaited<ReturnType<typeof get>>;
      for (let i = 0; i < 1200 && !(ready = await get(`http://127.0.0.1:${port}/ready`)); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(ready!, run.output()).toEqual({ status: 200, body: '{"ready":true,"queue":"redis","detail":"ok"}' });
      expect(await get(`http://127.0.0.1:${port}/ping`)).toEqual({ status: 200, body: "PONG" });
      await redis.stop();
      const down = await get(`http://127.0.0.1:${port}/ready`);
      expect(down?.status).toBe(503);
      expect(JSON.parse(down!.body)).toMatchObject({ ready: false, queue: "redis" });
      await redis.start();
    } finally {
      run.child.kill("SIGTERM");
      await run.exit;
    }
  });
});
