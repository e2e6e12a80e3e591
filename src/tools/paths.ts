/**
 * Normalise a path argument from a model into a repository-relative path: backslashes become `/`, leading `./` and
 * `/` are dropped, `.` segments and repeated or trailing slashes are removed. Never touches the file system.
 *
 * @returns `{ ok: true, path }` (`path` is "" for the repository root), or `{ ok: false, message }` for a path that
 *   leaves the repository (`..`) or holds control characters; the message says how to call it right.
 */
export function normalizeRepoPath(raw: string): { ok: true; path: string } | { ok: false; message: string } {
  const trimmed = raw.trim().replace(/\\/g, "/");
  if (/[\u0000-\u001f]/.test(trimmed)) {
    return {
      ok: false,
      message: `path ${JSON.stringify(raw)} holds control characters; give a repository-relative path like src/app.ts`,
    };
  }
  const segments = trimmed.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.includes("..")) {
    return {
      ok: false,
      message: `path '${raw}' leaves the repository; paths are repository-relative without '..', like src/app.ts`,
    };
  }
  return { ok: true, path: segments.join("/") };
}

/** True when `path` is `folder` itself or lies below it ("" is the root and holds everything). */
export function isUnder(path: string, folder: string): boolean {
  return folder === "" || path === folder || path.startsWith(folder + "/");
}

/** The folders of a snapshot: every proper prefix of every path ("" excluded). */
export function folderSet(paths: readonly string[]): Set<string> {
  const folders = new Set<string>();
  for (const p of paths) {
    let i = p.indexOf("/");
    while (i !== -1) {
      folders.add(p.slice(0, i));
      i = p.indexOf("/", i + 1);
    }
  }
  return folders;
}
