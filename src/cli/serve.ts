import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { UsageError } from "./errors.js";

/**
 * `groundfix serve`: run `probot run <dist/index.js>` as a child process with this process's stdio and
 * environment, forward SIGINT/SIGTERM to it, and resolve with its exit code.
 * @throws UsageError when the built app entry (dist/index.js) does not exist (run `npm run build`).
 */
export function serve(): Promise<number> {
  const appEntry = fileURLToPath(new URL("../index.js", import.meta.url));
  if (!existsSync(appEntry)) throw new UsageError(`the app is not built (${appEntry} is missing): run "npm run build" first`);
  const probotMain = fileURLToPath(import.meta.resolve("probot"));
  const probotBin = join(dirname(probotMain), "..", "bin", "probot.js");
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [probotBin, "run", appEntry], { stdio: "inherit", shell: false });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on("SIGINT", forward);
    process.on("SIGTERM", forward);
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      process.off("SIGINT", forward);
      process.off("SIGTERM", forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}
