import { redact } from "./secrets.js";

/**
 * Characters that change how a one-line text is read without being seen: C0/C1 controls, zero-width and
 * bidirectional controls (Unicode TR9, "Trojan Source" CVE-2021-42574), tag characters, variation selectors, and the
 * line/paragraph separators U+2028/U+2029.
 */
const UNSEEN = new RegExp(
  String.raw`[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e` +
    String.raw`\u2060-\u2064\u2066-\u2069\u3164\ufe00-\ufe0f\ufeff\uffa0]|\udb40[\udc00-\udc7f\udd00-\uddef]`,
  "g",
);

/** `text` without the characters of {@link UNSEEN} (controls, zero-width and bidirectional characters, line breaks). */
export function withoutUnseen(text: string): string {
  return text.replace(UNSEEN, "");
}

/**
 * One line of untrusted text (an issue title, a model's summary) made fit for the places groundfix writes plain text
 * to: a pull request title, a commit subject, a git trailer. Secrets are redacted (src/grounding/secrets.ts) before
 * and after the cleanup, the first non-blank line is kept, unseen characters become nothing and whitespace runs one
 * space, and `@name` mentions and closing keywords (`fixes #1`) are broken with a zero-width space (U+200B, after the
 * unseen characters are gone) so posting notifies no one and closes no issue. Cut to
 * `max` characters with an ellipsis, at a word boundary when one lies in the second half.
 */
export function postedLine(text: string, max: number): string {
  const first =
    redact(text)
      .split(/\r\n|\r|\n|\u2028|\u2029/)
      .find((l) => l.trim() !== "") ?? "";
  // Redacted again once clean: a token split by a zero-width space or a control, or a `password =   "…"` pair
  // spaced wider than the pattern allows, becomes whole only here.
  const clean = redact(first.replace(UNSEEN, "").replace(/\s+/g, " ").trim());
  const cut = clean.length <= max ? clean : `${cutAtWord(clean, max - 1)}…`;
  return breakMentions(breakClosingKeywords(cut, "\u200b"), "\u200b");
}

/** `text` cut to at most `max` characters, before the last space when that keeps more than half of them. */
function cutAtWord(text: string, max: number): string {
  const head = text.slice(0, max);
  const space = head.lastIndexOf(" ", max);
  return space > max / 2 ? head.slice(0, space).trimEnd() : head;
}

/**
 * The unseen characters of {@link UNSEEN} except the tab and the line breaks `\n` and `\r`, which a Markdown text
 * keeps (a fenced block, a list).
 */
const UNSEEN_IN_MARKDOWN = new RegExp(
  UNSEEN.source.replace(String.raw`\u0000-\u001f`, String.raw`\u0000-\u0008\u000b\u000c\u000e-\u001f`),
  "g",
);

/**
 * GitHub's closing keywords (close, closes, closed, fix, fixes, fixed, resolve, resolves, resolved, any case; GitHub
 * Docs, "Linking a pull request to an issue using a keyword") when an issue reference follows: `#N`, `owner/repo#N`
 * or an issue's URL, after an optional colon. In a pull request body or a commit message they close that issue on
 * merge.
 */
const CLOSING_KEYWORD =
  /\b(close[sd]?|fix(?:e[sd])?|resolve[sd]?)(?=\s*:?\s*(?:[\w.-]+\/[\w.-]+)?#\d|\s*:?\s+https?:\/\/\S*\/issues\/\d)/gi;

/**
 * `text` with every closing keyword that an issue reference follows broken by `zwsp` (a zero-width space: U+200B in
 * plain text, `&#8203;` in Markdown), so posting it closes no issue; the text reads the same.
 */
export function breakClosingKeywords(text: string, zwsp: string): string {
  return text.replace(CLOSING_KEYWORD, (k) => `${k}${zwsp}`);
}

/**
 * `text` with every `@name` mention broken by a zero-width space, so posting it notifies no one: after any character
 * but a letter or digit (an email's `a@b.example` stays), so also a mention inside `_…_` emphasis or after a lone
 * backtick, which GitHub still reads. After a backtick (likely a code span, where an entity would show) it is the
 * character U+200B, elsewhere `zwsp`.
 */
export function breakMentions(text: string, zwsp: string): string {
  return text.replace(/(^|[^A-Za-z0-9])@(?=[A-Za-z0-9])/g, (_, before: string) =>
    before === "`" ? "`@\u200b" : `${before}@${zwsp}`,
  );
}

/**
 * Untrusted text made inert for Markdown that groundfix posts, whatever else the caller escapes: unseen characters
 * dropped (tab and line breaks kept), an HTML character reference (`&#64;`, `&lt;`) written so it shows as typed
 * (GitHub would decode `&#64;name` into a mention), `<` as `&lt;` (no HTML: no hidden comment, heading or link), each
 * bare URL GitHub would autolink (also after `_`, `*`, `~`, as
 * GitHub Flavored Markdown's extended autolinks are) shown as inline code unless it is on `keepHost` (a
 * `https://host/` prefix), closing keywords and mentions broken with `&#8203;`. Secrets are the caller's (redact
 * first).
 */
export function inertMarkdown(text: string, keepHost: string): string {
  const urls = text
    .replace(UNSEEN_IN_MARKDOWN, "")
    .replace(/&(?=#?[A-Za-z0-9]+;)/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(AUTOLINK, (url) => (url.startsWith(keepHost) ? url : `\`${url}\``));
  return breakMentions(breakClosingKeywords(urls, "&#8203;"), "&#8203;");
}

/**
 * What GitHub turns into a link on its own (GitHub Flavored Markdown's extended autolinks: `http://`, `https://`,
 * `www.`, after anything but a letter or digit), up to the first space, bracket, backtick or angle bracket.
 */
const AUTOLINK = /(?<![A-Za-z0-9])(?:https?:\/\/|ftp:\/\/|www\.)[^\s<>`()[\]]+/gi;
