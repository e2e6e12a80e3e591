import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Run git (in `gitDir` when given) and return its stdout (trimmed unless `raw`).
 *
 * @throws Error with the first line of git's stderr on a non-zero exit.
 */
export function git(
  args: readonly string[],
  options: {
    cwd?: string;
    input?: string;
    raw?: boolean;
    gitDir?: string;
    env?: NodeJS.ProcessEnv;
  } = {},
): string {
  try {
    const out = execFileSync("git", options.gitDir ? ["--git-dir", options.gitDir, ...args] : args, {
      cwd: options.cwd,
      env: options.env ? { ...process.env, ...options.env } : undefined,
      input: options.input,
      encoding: "utf8",
      stdio: ["pipe", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
    return options.raw ? out : out.trim();
  } catch (err) {
    const stderr = String((err as { stderr?: string }).stderr ?? "")
      .trim()
      .split("\n")[0];
    throw new Error(`git ${args.slice(0, 3).join(" ")}: ${stderr || (err as Error).message}`);
  }
}

/** True when `dir` is a git directory (bare) or a work tree whose `.git` is one. */
function isGitDir(dir: string): boolean {
  return existsSync(join(dir, "HEAD")) && existsSync(join(dir, "objects"));
}

/**
 * The git directory of `owner/name` under a folder of mirrors: `<mirrors>/<owner>+<name>` as the `fetch` tool
 * leaves it (`…/repo` bare, or `…/repo/.git`), or `<mirrors>/<owner>/<name>(.git)`. Undefined when none exists.
 */
export function mirrorGitDir(mirrors: string, repository: string): string | undefined {
  const [owner = "", name = ""] = repository.split("/");
  const roots = [join(mirrors, `${owner}+${name}`), join(mirrors, owner, name), join(mirrors, owner, `${name}.git`)];
  for (const root of roots) {
    for (const dir of [join(root, "repo", ".git"), join(root, "repo"), join(root, ".git"), root]) {
      if (isGitDir(dir)) return dir;
    }
  }
  return undefined;
}

/** The commit `dir` (a checkout) has at HEAD, or undefined when it is not a git checkout. */
export function headOf(dir: string): string | undefined {
  try {
    return git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], {
      cwd: dir,
    });
  } catch {
    return undefined;
  }
}
