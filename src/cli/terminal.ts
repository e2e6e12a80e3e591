import { mapStrings } from "../grounding/map-strings.js";

/**
 * Untrusted text on a terminal. Issue text, model output, file content in diffs, commit subjects and repository
 * config can hold ANSI/OSC escape sequences (colour, cursor moves, window titles, hyperlinks, clipboard writes)
 * and other control characters. The human-readable output shows them escaped, never raw; `--json` needs nothing
 * (JSON.stringify escapes U+0000–U+001F itself).
 */

/**
 * The characters shown escaped: C0 controls except tab and newline (so ESC, BEL, CR, backspace), DEL, C1 controls
 * (U+0080–U+009F, e.g. the 8-bit CSI U+009B), and the bidirectional controls that reorder what a reader sees
 * ("Trojan Source", CVE-2021-42574: U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069).
 */
const UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` with every {@link UNSAFE} character written as an escape: `\x1b` for ESC (code points up to U+00FF as
 * `\xHH`), `\u202e` for the others. Newlines and tabs stay. Idempotent (the escapes are plain ASCII).
 * @example escapeControls("red \x1b[31m") === "red \\x1b[31m"
 */
export function escapeControls(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
  });
}

/**
 * A copy of `value` with {@link escapeControls} applied to every string in it (plain objects and arrays, walked
 * deeply; other values as they are). Render from this copy so that no field can be forgotten.
 */
export function terminalSafe<T>(value: T): T {
  return mapStrings(value, escapeControls);
}

/**
 * True when `text` shows nothing: only whitespace (`\p{White_Space}`), format characters (`\p{Cf}`: zero-width
 * space/joiners, word joiner, byte order mark, soft hyphen, bidirectional controls) and control characters.
 */
export function isBlankText(text: string): boolean {
  return /^[\p{White_Space}\p{Cf}\p{Cc}]*$/u.test(text);
}
