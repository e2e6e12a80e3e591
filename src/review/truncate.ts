/**
 * GitHub's cap on a check run's `output.summary` and `output.text`: 65,535 characters each (GitHub docs, "Create a
 * check run").
 */
export const SUMMARY_MAX_CHARS = 65_535;

/**
 * Cut `text` to at most `max` UTF-16 code units (never more than GitHub's character count), at a line break when one
 * is near, and end it with a visible note saying how much was left out. Text within the cap is returned unchanged.
 */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  const note = (n: number) =>
    `\n\n… truncated: ${n.toLocaleString("en-US")} more characters not shown (GitHub caps check run output at 65,535 ` +
    `characters).`;
  const room = max - note(text.length).length;
  let cut = Math.max(0, room);
  const nl = text.lastIndexOf("\n", cut);
  if (nl > cut - 2000 && nl > 0) cut = nl;
  // Do not split a surrogate pair.
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--;
  return text.slice(0, cut) + note(text.length - cut);
}
