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

/**
 * One line of untrusted text (an issue title, a model's summary) made fit for the places groundfix writes plain text
 * to: a pull request title, a commit subject, a git trailer. Secrets are redacted (src/grounding/secrets.ts) before
 * and after the cleanup, the first non-blank line is kept, unseen characters become nothing and whitespace runs one
 * space, and `@name` mentions are broken with a zero-width space (U+200B, after the unseen characters are gone) so
 * posting notifies no one. Cut to
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
  return cut.replace(/(^|[^\w`])@(?=[A-Za-z0-9])/g, "$1@\u200b");
}

/** `text` cut to at most `max` characters, before the last space when that keeps more than half of them. */
function cutAtWord(text: string, max: number): string {
  const head = text.slice(0, max);
  const space = head.lastIndexOf(" ", max);
  return space > max / 2 ? head.slice(0, space).trimEnd() : head;
}
