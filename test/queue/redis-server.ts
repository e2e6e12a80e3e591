/**
 * A real `redis-server` for tests: started on a free loopback port with no persistence (`--save ''`,
 * `--appendonly no`: it writes no file), stopped by the test. `stop()` then `start()` again keeps the port,
 * so a test can take Redis away mid-run and bring it back. Needs `redis-server` on PATH (`.ci/run` installs it).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { tmpdir } from "node:os";

/** A running (or stopped) test Redis. */
export interface TestRedis {
  /** `redis://127.0.0.1:<port>`. */
  url: string;
  port: number;
  /** Start (again) on the same port; resolves when it accepts connections. */
  start(): Promise<void>;
  /** SIGTERM and wait for the exit (the data is gone: nothing is persisted). */
  stop(): Promise<void>;
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.unref();
    probe.on("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

/** Start a `redis-server` on a free port; call `stop()` in `afterAll`. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", tmpdir()];
  const redis: TestRedis = {
    url: `redis://127.0.0.1:${port}`,
    port,
    start: () =>
      new Promise<void>((resolve, reject) => {
        const proc = spawn("redis-server", args, { stdio: ["ignore", "pipe", "pipe"] });
        child = proc;
        let out = "";
        const onData = (chunk: Buffer) => {
          out += chunk.toString();
          if (out.includes("Ready to accept connections")) {
            proc.stdout.off("data", onData);
            proc.stdout.resume();
            resolve();
          }
        };
        proc.stdout.on("data", onData);
        proc.stderr.resume();
        proc.on("error", (error) =>
          reject(new Error(`redis-server could not start (is it installed?): ${error.message}`)),
        );
        proc.on("exit", (code) => {
          if (!out.includes("Ready to accept connections"))
            reject(new Error(`redis-server exited ${code}: ${out.slice(-500)}`));
        });
      }),
    stop: async () => {
      const proc = child;
      child = undefined;
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
        proc.kill("SIGTERM");
        await exited;
      }
    },
  };
  await redis.start();
  return redis;
}
