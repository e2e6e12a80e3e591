import { resolveLinkTarget } from "../../../tools/serve.js";

/** Longest link target quoted in a sentence, in characters (a target is the repository's text). */
const MAX_TARGET = 120;

/**
 * What a `get_file_contents` answer for `path` says when `path` is a symbolic link (the tool never follows one:
 * `resolveTextFile`, tools/serve.ts), or null when the answer is not about a link at `path`:
 * - `follow`: the repository path the link leads to, when the tool names it as a text file of the snapshot and it is
 *   where {@link resolveLinkTarget} puts the target (a relative target that stays inside the repository); the caller
 *   reads that file with the tool, so nothing outside the snapshot is ever read;
 * - `why`: one sentence for the answer when the link is not followed (or its target could not be read either): where
 *   it points (the target JSON-quoted, clipped), and that a link out of the repository is not followed.
 */
export function linkOf(path: string, result: string): { follow: string | null; why: string } | null {
  const head = `NOT_FOUND: ${path} is a symbolic link to '`;
  if (!result.startsWith(head)) return null;
  const rest = result.slice(head.length);
  const named = /^(.*)' \(not followed\)\. Call get_file_contents with path "(.*)"\.$/s.exec(rest);
  const none = /^(.*)' \(not followed\)\. Its target is not a text file of this snapshot\.$/s.exec(rest);
  const target = named?.[1] ?? none?.[1];
  if (target === undefined) return null;
  const shown = JSON.stringify(target.length > MAX_TARGET ? `${target.slice(0, MAX_TARGET - 1)}…` : target);
  const inside = resolveLinkTarget(path, target);
  const link = `${path} is a symbolic link to ${shown}`;
  if (inside === null) {
    const where = target.startsWith("/") ? "an absolute path" : "a path that leads out of the repository";
    return { follow: null, why: `${link}, ${where}: groundfix does not follow links out of the repository.` };
  }
  if (named !== null && named[2] === inside) {
    return { follow: inside, why: `${link} (${inside}), which could not be read either.` };
  }
  return { follow: null, why: `${link} (${inside}), which is not a text file of this repository; not followed.` };
}
