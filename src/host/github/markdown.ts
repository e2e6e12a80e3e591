import { inertMarkdown, postedLine } from "../../grounding/posted.js";
import { githubWebUrl } from "../../grounding/permalink.js";
import { redact } from "../../grounding/secrets.js";

/** GitHub's limit for an issue comment or pull request body (characters); a longer body is refused with 422. */
export const GITHUB_BODY_LIMIT = 65_536;

/**
 * Text that came from a model, an issue or an alert, made safe to embed in Markdown that groundfix posts: secrets
 * are redacted (src/grounding/secrets.ts), `[` and `]` are backslash-escaped (no link, no image: a "verified" badge
 * or a "log in to approve" link from the model's host would look like groundfix's own), then `inertMarkdown`
 * (src/grounding/posted.ts): unseen and bidirectional characters dropped, `<` as `&lt;` (no HTML, so no hidden comment
 * can forge a status marker or a run record), character references shown as typed, each bare URL shown as inline
 * code unless it is on the GitHub host the app talks to (`githubWebUrl`: a pull request's own address stays a link),
 * closing keywords (`fixes #1`) and `@name` mentions broken with a zero-width space (`&#8203;`), so posting never
 * closes an issue or notifies anyone. Other Markdown (emphasis, lists, code) stays.
 */
export function escapeUntrusted(text: string): string {
  return inertMarkdown(redact(text).replace(/[[\]]/g, "\\$&"), `${githubWebUrl()}/`);
}

/**
 * One line of untrusted text for inline Markdown (a title in bold): `postedLine` (secrets redacted, unseen characters
 * dropped, mentions broken), then every character Markdown could read as formatting or a link backslash-escaped and
 * `<` written as `&lt;`, so the line renders as the literal text it is.
 */
export function escapeInline(text: string, max: number): string {
  return postedLine(text, max)
    .replace(/([\\`*_[\]()#~|!>{}])/g, "\\$1")
    .replace(/</g, "&lt;");
}

/** The first non-empty line of `text`, trimmed and cut to `max` characters with an ellipsis. */
export function oneLine(text: string, max: number): string {
  const first = (text.split(/\r?\n/).find((l) => l.trim() !== "") ?? "").trim();
  return first.length <= max ? first : `${first.slice(0, max - 1)}…`;
}

/**
 * A fenced code block that `content` cannot close early: the fence is one backtick longer than the longest
 * backtick run inside (CommonMark fenced code blocks). `info` is the language tag, e.g. `diff`.
 */
export function fenced(content: string, info = ""): string {
  const longest = Math.max(0, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${content.replace(/\n$/, "")}\n${fence}`;
}

/** A collapsed `<details>` section (GitHub renders the Markdown inside when it is separated by blank lines). */
export function details(summary: string, body: string): string {
  return `<details><summary>${summary}</summary>\n\n${body}\n\n</details>`;
}

/**
 * Cut `text` to at most `limit` characters, ending with a visible note when anything was cut.
 * Used last, after the trace and diffs were already shrunk; never splits a surrogate pair.
 */
export function capText(text: string, limit: number, note = "\n\n_… cut to fit GitHub's size limit._"): string {
  if (text.length <= limit) return text;
  let end = Math.max(0, limit - note.length);
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end -= 1;
  return text.slice(0, end) + note;
}
