import { postedLine } from "../../grounding/posted.js";
import { githubWebUrl } from "../../grounding/permalink.js";
import { redact } from "../../grounding/secrets.js";

/** GitHub's limit for an issue comment or pull request body (characters); a longer body is refused with 422. */
export const GITHUB_BODY_LIMIT = 65_536;

/**
 * What GitHub turns into a link on its own (GitHub Flavored Markdown's extended autolinks: `http://`, `https://`,
 * `www.`), up to the first space, bracket, backtick or angle bracket.
 */
const AUTOLINK = /\b(?:https?:\/\/|www\.)[^\s<>`()[\]]+/gi;

/**
 * Text that came from a model, an issue or an alert, made safe to embed in Markdown that groundfix posts: secrets
 * are redacted (src/grounding/secrets.ts), `<` becomes `&lt;` (no HTML, so no hidden comment can forge a status
 * marker or a run record), `[` and `]` are backslash-escaped and each bare URL is shown as inline code (no link,
 * no image: a "verified" badge or a "log in to approve" link from the model's host would look like groundfix's
 * own) unless it is on the GitHub host the app talks to (`githubWebUrl`: a pull request's own address stays a
 * link), and `@name` mentions are broken with a zero-width space (`&#8203;`), so posting never notifies anyone.
 * Other Markdown (emphasis, lists, code) stays.
 */
export function escapeUntrusted(text: string): string {
  return redact(text)
    .replace(/</g, "&lt;")
    .replace(/[[\]]/g, "\\$&")
    .replace(AUTOLINK, (url) => (url.startsWith(`${githubWebUrl()}/`) ? url : `\`${url}\``))
    .replace(/(^|[^\w`])@(?=[A-Za-z0-9])/g, "$1@&#8203;");
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
