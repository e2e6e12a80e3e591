import { spawn } from "node:child_process";

/**
 * Thrown when a git command exits non-zero. `stderr` is git's own message (trimmed); `args` the argument array
 * (never a shell string). The message is one line: `git <subcommand> failed: <first line of stderr>`.
 */
export class GitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    const first = stderr.split("\n").find((l) => l.trim() !== "") ?? `exit code ${exitCode}`;
    super(`git ${args[0] ?? ""} failed: ${first.trim()}`);
    this.name = "GitError";
  }
}

/** Options of {@link git}: bytes for stdin, extra environment variables (merged over `process.env`). */
export interface GitOptions {
  input?: Uint8Array | string;
  env?: Record<string, string | undefined>;
}

/**
 * Config given on every git command line (`-c`, which wins over the repository's own `.git/config`): a checkout's
 * config is as untrusted as its files (a downloaded repository, a shared folder), and these keys make plumbing run
 * programs: `core.hooksPath` (`update-ref` runs the `reference-transaction` hook, `read-tree` and `update-index` the
 * `post-index-change` hook; git-scm.com/docs/githooks), `core.fsmonitor` (a command run by every command that reads
 * an index; git-scm.com/docs/git-config#Documentation/git-config.txt-corefsmonitor).
 */
export const SAFE_GIT_CONFIG: readonly string[] = ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"];

/**
 * Run `git -C <repoDir> <args…>` without a shell and return its stdout as bytes.
 * The arguments are passed as an array, so nothing in them is ever interpreted by a shell.
 * Pagers, prompts and the user's external diff tools are switched off, and so are the repository's hooks and its
 * file-system monitor ({@link SAFE_GIT_CONFIG}).
 *
 * @throws GitError when git exits non-zero; the plain spawn error when git is not installed.
 */
export function git(repoDir: string, args: readonly string[], options: GitOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn("git", [...SAFE_GIT_CONFIG, "-C", repoDir, ...args], {
      env: { ...process.env, GIT_TERMINAL_PROMPT: "0", GIT_PAGER: "cat", LC_ALL: "C", ...options.env },
      stdio: ["pipe", "pipe", "pipe"],
      shell: false,
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.on("error", reject);
    child.stdin.on("error", () => {
      /* git may exit before reading stdin (e.g. a bad revision); the exit code reports it. */
    });
    child.on("close", (code) => {
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new GitError(args, code, Buffer.concat(err).toString("utf8")));
    });
    child.stdin.end(options.input ?? "");
  });
}

/** {@link git}, with stdout decoded as UTF-8 and the final newline removed. */
export async function gitText(repoDir: string, args: readonly string[], options?: GitOptions): Promise<string> {
  return (await git(repoDir, args, options)).toString("utf8").replace(/\n$/, "");
}
