import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** Run git in `dir` (no shell) with a fixed identity; returns trimmed stdout. */
export function sh(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-C", dir, "-c", "user.name=Test", "-c", "user.email=test@example.com", ...args], {
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: dir },
  }).trim();
}

/**
 * A fresh git repository in a temp directory with `files` committed on branch `main`.
 * A file whose value is `{ content, mode: "100755" }` is committed executable.
 */
export function makeRepo(files: Record<string, string | { content: string; mode: "100755" }>): {
  dir: string;
  base: string;
} {
  const dir = mkdtempSync(join(tmpdir(), "groundfix-test-repo-"));
  sh(dir, "init", "-q", "-b", "main");
  for (const [path, spec] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, typeof spec === "string" ? spec : spec.content);
    if (typeof spec !== "string") chmodSync(full, 0o755);
  }
  sh(dir, "add", "-A");
  sh(dir, "commit", "-q", "-m", "initial");
  return { dir, base: sh(dir, "rev-parse", "HEAD") };
}
