import { redact } from "../grounding/secrets.js";
import { createHash } from "node:crypto";

/** Longest slug taken from a title, in characters (the short hash comes on top). */
export const MAX_TITLE_SLUG = 40;

/**
 * A branch- and key-safe name for a local problem: the title lowercased, runs of anything but `[a-z0-9]` turned into
 * one `-`, cut to {@link MAX_TITLE_SLUG} characters at a word boundary when possible, then `-` and the first 7 hex
 * digits of the SHA-256 of the problem text. The hash makes two problems with the same title different branches,
 * while the same problem run again gets the same branch (so a rerun reuses it instead of stacking a second edit).
 *
 * @example slugFor("`errors` is a reserved schema pathname", body) === "errors-is-a-reserved-schema-pathname-3f2a9c1"
 */
export function slugFor(title: string, problemText: string): string {
  // A branch name is public: a token in the title must not become part of it.
  let words = redact(title)
    .replace(/\[redacted\]/g, " ")
    .normalize("NFKD")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (words.length > MAX_TITLE_SLUG) {
    const cut = words.slice(0, MAX_TITLE_SLUG + 1);
    const lastDash = cut.lastIndexOf("-");
    words = (lastDash >= 20 ? cut.slice(0, lastDash) : cut.slice(0, MAX_TITLE_SLUG)).replace(/-+$/, "");
  }
  const hash = createHash("sha256").update(problemText, "utf8").digest("hex").slice(0, 7);
  return words ? `${words}-${hash}` : `problem-${hash}`;
}
