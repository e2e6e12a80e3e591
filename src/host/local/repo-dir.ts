import { lstat, readlink, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { gitText, type GitError } from "./git.js";

/**
 * Why git cannot work in `repoDir` (after `git rev-parse --show-toplevel` failed there with `error`, and the folder
 * is not a bare repository), as one line naming the path, what it is and what to do:
 * - the path does not exist, or a part of it is a file (`/a/file/x`), or it is a symbolic link to nothing;
 * - it is a file, not a folder (with the checkout holding it, when it is in one);
 * - it cannot be read (permission);
 * - git refuses it as owned by another user (git's "dubious ownership", with git's own `safe.directory` remedy);
 * - it is the `.git` folder of a checkout, or inside it (with the checkout's folder);
 * - else it is a folder that is neither a git repository nor inside one.
 */
export async function notRepositoryReason(repoDir: string, error: GitError): Promise<string> {
  const abs = resolve(repoDir);
  const link = await lstat(abs).catch((e: NodeJS.ErrnoException) => e);
  if (link instanceof Error) {
    if (link.code === "EACCES") return `cannot read ${repoDir} (permission denied)`;
    // The nearest part of the path that exists: a file there is the cause, else the path is missing.
    let part = dirname(abs);
    let found = await stat(part).catch(() => null);
    while (found === null && dirname(part) !== part) found = await stat((part = dirname(part))).catch(() => null);
    if (found !== null && !found.isDirectory()) return `${repoDir} does not exist: ${part} is a file, not a folder`;
    return `${repoDir} does not exist (give the folder of a git checkout)`;
  }
  const target = await stat(abs).catch(() => null);
  if (target === null) {
    const to = await readlink(abs).catch(() => "?");
    return `${repoDir} is a symbolic link to ${to}, which does not exist (give the folder of a git checkout)`;
  }
  if (!target.isDirectory()) {
    const top = await gitText(dirname(abs), ["rev-parse", "--show-toplevel"]).catch(() => null);
    const hint = top !== null ? `the checkout it is in: --repo ${top}` : "the folder of a git checkout";
    return `${repoDir} is a file, not a folder (give ${hint})`;
  }
  if (/dubious ownership/.test(error.stderr)) {
    return (
      `git refuses to work in ${repoDir}: it is owned by another user (git's "dubious ownership"); if you trust it, ` +
      `run git config --global --add safe.directory ${abs}`
    );
  }
  if (/permission denied/i.test(error.stderr)) return `cannot read ${repoDir} (permission denied)`;
  const inside = await gitText(abs, ["rev-parse", "--is-inside-git-dir"]).catch(() => "");
  if (inside === "true") {
    const gitDir = await gitText(abs, ["rev-parse", "--absolute-git-dir"]).catch(() => null);
    const checkout = gitDir !== null && /\/\.git$/.test(gitDir) ? `: --repo ${dirname(gitDir)}` : "";
    return `${repoDir} is inside a repository's .git folder, not a checkout (give the checkout's folder${checkout})`;
  }
  const what = "give the folder of a git checkout, or run git init there";
  return `${repoDir} is not a git repository, nor inside one (${what})`;
}
