import { isSecretPath } from "../grounding/secrets.js";
import type { Snapshot, ToolResult } from "../types.js";
import { nearestPaths } from "./nearest.js";
import { formatBytes, shortSha } from "./output.js";
import { folderSet, normalizeRepoPath } from "./paths.js";

/**
 * Resolve a model-given file path to servable text content, or to the answer saying why there is none:
 * `not_found` (with up to 5 nearest real paths) for a missing path, a folder, or a path leaving the repository;
 * `not_found` with the reason for binary, too-large, LFS pointer, submodule and symlink entries (a symlink names its
 * target); `rejected` for secret files (`.env*`, `*.pem`, `id_rsa*`: listed, never served).
 */
export function resolveTextFile(
  snapshot: Snapshot,
  rawPath: string,
  tool: string,
): { ok: true; path: string; content: string } | { ok: false; result: ToolResult } {
  const norm = normalizeRepoPath(rawPath);
  if (!norm.ok) return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${norm.message}` } };
  const path = norm.path;
  if (path === "") {
    return { ok: false, result: { status: "not_found", text: `NOT_FOUND: give a file path; use describe_repo or list_files to see the files` } };
  }
  const entry = snapshot.entry(path);
  if (entry === undefined) {
    if (folderSet(snapshot.paths).has(path)) {
      return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${path} is a folder, not a file; call list_files with glob "${path}/**" or describe_repo with path "${path}"` } };
    }
    const near = nearestPaths(path, snapshot.paths.filter((p) => snapshot.entry(p)?.kind === "text"));
    const hint = near.length > 0 ? ` Nearest real paths: ${near.join(", ")}. Call ${tool} with one of them.` : " Use list_files or search_codebase to find the right path.";
    return { ok: false, result: { status: "not_found", text: `NOT_FOUND: no file '${path}' at ${shortSha(snapshot.sha)}.${hint}` } };
  }
  if (isSecretPath(path)) {
    return { ok: false, result: { status: "rejected", text: `REJECTED: ${path} looks like a secrets file (env file or key); it is listed but never served. Read the code that uses it instead.` } };
  }
  const size = formatBytes(entry.size);
  switch (entry.kind) {
    case "text": {
      const content = snapshot.read(path);
      if (content !== undefined) return { ok: true, path, content };
      break;
    }
    case "binary":
      return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${path} is a binary file (${size}); its content is not served.` } };
    case "too_large":
      return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${path} is too large to serve (${size}, over the per-file cap); its content is not in the snapshot and not searchable. Look at the code that reads or generates it.` } };
    case "lfs_pointer":
      return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${path} is a Git LFS pointer; the real content is stored outside the repository and is not served.` } };
    case "submodule":
      return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${path} is a git submodule (another repository); its files are not in this snapshot.` } };
    case "symlink": {
      const target = resolveLinkTarget(path, entry.target ?? "");
      const servable = target !== null && snapshot.entry(target)?.kind === "text";
      const next = servable ? ` Call ${tool} with path "${target}".` : " Its target is not a text file of this snapshot.";
      return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${path} is a symbolic link to '${entry.target ?? ""}' (not followed).${next}` } };
    }
  }
  return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${path} has no servable text.` } };
}

/** The repository path a relative symlink target points at, or `null` when it leaves the repository or is absolute. */
export function resolveLinkTarget(linkPath: string, target: string): string | null {
  if (target.startsWith("/")) return null;
  const parts = linkPath.split("/").slice(0, -1);
  for (const seg of target.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.length === 0 ? null : parts.join("/");
}
