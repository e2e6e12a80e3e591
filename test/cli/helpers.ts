import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));
export const BIN = join(ROOT, "dist", "cli", "main.js");
export const EXAMPLES = join(ROOT, "examples");

/** git in `dir` with a fixed identity, no shell; trimmed stdout. */
export function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    encoding: "utf8",
  }).trim();
}

/**
 * A crash in examples/demo-service that the heuristic fixes with a guard (`result.created` read without a check in
 * services/audit.js), confidence 0.85: a pull request at the default thresholds. (The demo issue's answer is a
 * comment, which is never one.)
 */
export const GUARD_ISSUE =
  "Import crashes\n\n```\nTypeError: Cannot read properties of undefined (reading 'length')\n" +
  "    at recordImport (/app/services/audit.js:10:35)\n    at runImport (/app/index.js:12:3)\n```\n";

/** A temp git repository holding a copy of examples/demo-service in one commit on `main`. */
export function demoRepo(): { dir: string; base: string } {
  const dir = mkdtempSync(join(tmpdir(), "groundfix-cli-"));
  cpSync(join(EXAMPLES, "demo-service"), dir, { recursive: true });
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "initial");
  return { dir, base: git(dir, "rev-parse", "HEAD") };
}

/** Spawn the built CLI (`node dist/cli/main.js ARGS`) with stdin `input`; stdout/stderr are pipes (not a TTY). */
export function cli(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}) {
  if (!existsSync(BIN))
    throw new Error(`${BIN} is missing: the vitest global setup builds it (npx tsc -p tsconfig.build.json)`);
  const r = spawnSync(process.execPath, [BIN, ...args], {
    encoding: "utf8",
    input: options.input ?? "",
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, GROUNDFIX_MODEL: "", GROUNDFIX_DEBUG: "", NO_COLOR: "", ...options.env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
