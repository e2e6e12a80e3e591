/**
 * A test per word of a file, on the file's bytes, that no secret `scanSecrets` (src/grounding/secrets.ts) finds can
 * touch the word: meant for search_codebase's word scan (src/tools/search-index.ts), which should count a word only
 * where the served text (secrets redacted) shows it (test/tools/search-secret-count-attack.test.ts) and meets ~70,000
 * first occurrences of words in the bench's two queries, so a regular expression per word (~0.8 µs: `maybeInSecret`)
 * costs too much. Each rule below follows one entry of SECRET_PATTERNS and is a necessary condition for a match of it
 * to touch the word; together they leave 3 of those ~70,000 words to scan exactly. Not used yet: wired in, it cost
 * +18% of the two search calls' CPU (see the commit that added it), still too much.
 *
 * Bytes: each byte is one code unit of the file's raw text (src/snapshot/builder.ts `rawText`: the UTF-8 bytes of the
 * file as Latin-1; other snapshots' text with code units past 0xFF written as NUL). The patterns run on the decoded
 * text, so a byte of 0x80 or more, or NUL, may be any character there (also white space, a line terminator, or a
 * value's character): every rule treats such a byte as whichever choice can make a match, and widens each limit in
 * characters to three bytes a character.
 */

import { Buffer } from "node:buffer";

/** Byte classes (bit sets) of {@link CLASS}. */
const WORD = 1; // [A-Za-z0-9_$]: a word's characters (isWordCode in src/tools/symbol-index.ts)
const SPACE = 2; // ASCII white space
const UNKNOWN = 4; // NUL or 0x80 and above: any character of the decoded text
const B64 = 8; // [A-Za-z0-9+/=]: a private key block's lines
const GAP = 16; // [ \t"'>|,\\]: around a key block's lines (prefix, suffix, an escaped line break's backslash)
const TOKEN = 32; // [A-Za-z0-9_$./:-]: the characters of a token that has `-`, `.`, `/` or `:` in it
const AWS = 64; // [A-Za-z0-9/+=]: an AWS secret access key

const CLASS = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  let k = 0;
  if (/[A-Za-z0-9_$]/.test(ch)) k |= WORD | TOKEN;
  if (c === 32 || (c >= 9 && c <= 13)) k |= SPACE;
  if (c === 0 || c >= 0x80) k |= UNKNOWN;
  if (/[A-Za-z0-9+/=]/.test(ch)) k |= B64;
  if (/[ \t"'>|,\\]/.test(ch)) k |= GAP;
  if (/[./:-]/.test(ch)) k |= TOKEN;
  if (/[A-Za-z0-9/+=]/.test(ch)) k |= AWS;
  CLASS[c] = k;
}

/**
 * What the bytes are (see the file's docstring): the UTF-8 of an ASCII file (one byte a character, none NUL or past
 * 0x7F), the UTF-8 of any other file (at most three bytes a UTF-16 unit; U+2028/U+2029 are E2 80 A8/A9), or one byte
 * a UTF-16 unit (units past 0xFF written as NUL, which may then be any character, a line terminator too).
 */
export const ASCII_BYTES = 0;
export const UTF8_BYTES = 1;
export const UNIT_BYTES = 2;
/** The mode of the call under way ({@link mayTouchSecret} sets it) and its bytes per UTF-16 unit at most. */
let mode = ASCII_BYTES;
let scale = 1;

const QUOTE = (c: number) => c === 34 || c === 39;
/** ASCII letter `c` lower-cased (other bytes unchanged). */
const lower = (c: number) => (c >= 65 && c <= 90 ? c + 32 : c);

/** Whether `b[at ..]` holds `text` (ASCII; `fold`: ignoring case). */
function holdsAt(b: Uint8Array, n: number, at: number, text: string, fold: boolean): boolean {
  if (at < 0 || at + text.length > n) return false;
  for (let i = 0; i < text.length; i++) {
    const c = b[at + i] as number;
    if ((fold ? lower(c) : c) !== text.charCodeAt(i)) return false;
  }
  return true;
}

/** Whether `b[from, to)` holds any of `texts` (ASCII, lower-case, compared ignoring case). */
function holdsAny(b: Uint8Array, from: number, to: number, texts: readonly string[]): boolean {
  for (let i = from; i < to; i++) for (const t of texts) if (holdsAt(b, to, i, t, true)) return true;
  return false;
}

/** Skip to the left from `p` over at most `max` bytes of white space or unknown bytes; the position reached. */
function skipSpaceLeft(b: Uint8Array, p: number, max: number): number {
  for (let k = 0; k < max && p >= 0 && ((CLASS[b[p] as number] as number) & (SPACE | UNKNOWN)) !== 0; k++) p--;
  return p;
}

/** The words of a credential name (lower-case) that the assignment pattern's alternation holds (a superset). */
const CREDENTIAL_WORDS = ["pass", "pwd", "secret", "token", "key", "credential"];
/** The ends of the names of the `password=…` pair pattern. */
const PAIR_ENDS = ["pwd", "passwd", "password", "secret", "apikey", "api_key", "accesstoken", "access_token"];
/** The words a `.env` line's name holds to be a secret (a superset of the pattern's, upper-case). */
const ENV_WORDS = ["SECRET", "TOKEN", "PASS", "PWD", "KEY", "CREDENTIAL", "AUTH"];

/**
 * Whether the name ending at `q` (the byte before a `:`/`=`, after skipping white space and a quote to its left) is
 * a credential name: its run of `[A-Za-z0-9_-]` holds a word of {@link CREDENTIAL_WORDS} in its last 64 bytes.
 */
function credentialNameBefore(b: Uint8Array, q: number): boolean {
  let p = skipSpaceLeft(b, q, 16);
  if (p >= 0 && QUOTE(b[p] as number)) p--;
  const end = p + 1;
  let from = end;
  while (from > 0 && end - from < 64) {
    const c = b[from - 1] as number;
    if (((CLASS[c] as number) & WORD) === 0 && c !== 45) break;
    if (c === 36) break; // `$` is no \w
    from--;
  }
  if (from >= end || !holdsAny(b, from, end, CREDENTIAL_WORDS)) return false;
  // For the pattern's `accept`: a password-like name makes any value a secret.
  passwordName = holdsAny(b, from, end, PASSWORD_WORDS);
  return true;
}

/** Whether the name {@link credentialNameBefore} last read says password or secret. */
let passwordName = false;

/** The words of the credential assignment's `accept` that make any value a secret. */
const PASSWORD_WORDS = ["pass", "pwd", "secret"];

/**
 * Whether the quote at `p` opens a credential assignment's value: `[^"'\s]{8,256}` then a quote (8 bytes at least: a
 * character is one byte or more), the value key-like (a digit, or a letter of each case and another byte) unless the
 * name says password or secret (that is checked by {@link credentialNameBefore} through `passwordLike`).
 */
function quotedValue(b: Uint8Array, n: number, p: number): boolean {
  let q = p + 1;
  let digit = false;
  let upper = false;
  let lowerCase = false;
  let other = false;
  for (; q < n && q - p <= 256 * scale + 1; q++) {
    const c = b[q] as number;
    if (QUOTE(c) || ((CLASS[c] as number) & SPACE) !== 0) break;
    if (c >= 48 && c <= 57) digit = true;
    else if (c >= 65 && c <= 90) upper = true;
    else if (c >= 97 && c <= 122) lowerCase = true;
    else other = true;
  }
  if (q >= n || !QUOTE(b[q] as number) || q - p - 1 < 8) return false;
  keyLikeValue = digit || (upper && lowerCase && other) || holdsAny(b, p + 1, q, PASSWORD_WORDS);
  return true;
}

/** Whether the value {@link quotedValue} last read looks like a key (`keyLike` in secrets.ts) or says password. */
let keyLikeValue = false;

/** Whether the bytes before `q` (a `=`) end with one of {@link PAIR_ENDS}, ignoring case. */
function pairNameBefore(b: Uint8Array, n: number, q: number): boolean {
  for (const t of PAIR_ENDS) if (holdsAt(b, n, q - t.length, t, true)) return true;
  return false;
}

/** Whether the name before the `:`/`=` at `q` ends with `access_key`/`accesskey` (AWS), ignoring case. */
function keyBefore(b: Uint8Array, n: number, q: number): boolean {
  let p = skipSpaceLeft(b, q - 1, 16);
  if (p >= 0 && QUOTE(b[p] as number)) p--;
  if (!holdsAt(b, n, p - 2, "key", true)) return false;
  // `aws_?secret_?access_?key`
  return holdsAt(b, n, p - 8, "access", true) || holdsAt(b, n, p - 9, "access_", true);
}

/**
 * The tokens made of word characters only (GitHub `gh?_`/`github_pat_`, AWS `AKIA`/`ASIA`, Stripe, npm, Google
 * `AIza`): each begins at a word boundary (`\b`: the word's start or after a `$`) and lies inside the word.
 */
export function wordToken(b: Uint8Array, n: number, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    if (i !== s && b[i - 1] !== 36) continue;
    const c = b[i] as number;
    if (c === 103) {
      const d = b[i + 2] as number;
      if (b[i + 1] === 104 && b[i + 3] === 95 && (d === 112 || d === 111 || d === 117 || d === 115 || d === 114))
        return alnumRun(b, e, i + 4) >= 36;
      if (holdsAt(b, n, i, "github_pat_", false)) return alnumRun(b, e, i + 11) >= 22;
    } else if (c === 65) {
      if (holdsAt(b, n, i, "AKIA", false) || holdsAt(b, n, i, "ASIA", false)) return alnumRun(b, e, i + 4) >= 16;
      if (holdsAt(b, n, i, "AIza", false)) return true;
    } else if (c === 114 || c === 115) {
      if (holdsAt(b, n, i + 1, "k_live_", false) || holdsAt(b, n, i + 1, "k_test_", false)) return true;
    } else if (c === 110 && holdsAt(b, n, i, "npm_", false)) return alnumRun(b, e, i + 4) >= 36;
  }
  return false;
}

/** The number of `[A-Za-z0-9]` bytes from `at` on, before `end`. */
function alnumRun(b: Uint8Array, end: number, at: number): number {
  let i = at;
  while (i < end && ((CLASS[b[i] as number] as number) & WORD) !== 0 && b[i] !== 95 && b[i] !== 36) i++;
  return i - at;
}

/**
 * The tokens with `-`, `.`, `/` or `:` in them (OpenAI/Anthropic `sk-`, Slack `xox?-` and webhooks, Google `AIza`,
 * SendGrid `SG.`, JWT `eyJ`): a match that touches the word and is not inside it holds the byte next to it, and its
 * prefix lies in the run of token characters before the word's end (one byte past it).
 */
export function punctuatedToken(b: Uint8Array, n: number, s: number, e: number): boolean {
  let r = s;
  while (r > 0 && ((CLASS[b[r - 1] as number] as number) & TOKEN) !== 0) if (s - --r > 4096) return true;
  const to = Math.min(n, e + 1);
  for (let i = r; i < to; i++) {
    const boundary = i === 0 || ((CLASS[b[i - 1] as number] as number) & WORD) === 0 || b[i - 1] === 36;
    const c = b[i] as number;
    if (boundary && c === 115 && holdsAt(b, n, i, "sk-", false)) return true;
    if (boundary && c === 120 && holdsAt(b, n, i, "xox", false)) return true;
    if (boundary && c === 65 && holdsAt(b, n, i, "AIza", false)) return true;
    if (boundary && c === 83 && holdsAt(b, n, i, "SG.", false)) return true;
    if (boundary && c === 101 && holdsAt(b, n, i, "eyJ", false)) return true;
    if (c === 104 && holdsAt(b, n, i, "hooks.slack", false)) return true;
    if (c === 47 && holdsAt(b, n, i, "//hooks", false)) return true;
  }
  // The word is (or ends with) the webhook's `https`, which needs no boundary before it.
  return holdsAt(b, n, e - 5, "https", false) && holdsAt(b, n, e, "://hooks", false);
}

/**
 * Values after a name in the word's run: a URL's password (`scheme://user:PASS@`), a credential assignment's quoted
 * value (`password = "…"`), a `password=…` pair, an AWS secret access key (`…key = <40>`). One walk to the left over
 * the run (no white space, no quote) from the word; each value is at most 256 characters.
 */
export function valueInRun(b: Uint8Array, n: number, s: number): boolean {
  const VALUE = 256 * scale + 2;
  const URL = (128 + 1 + 256) * scale + 2;
  let url = true; // the URL password's characters [^\s/@"'<>] so far
  let pair = true; // the pair value's characters [^\s&;"',] so far
  let colon = false; // a `:` was passed
  let p = s - 1;
  for (; p >= 0 && s - p <= URL; p--) {
    const c = b[p] as number;
    if (((CLASS[c] as number) & SPACE) !== 0 || QUOTE(c)) break;
    if (c === 58) colon = true;
    if (url && (c === 47 || c === 64 || c === 60 || c === 62)) {
      // The password follows `user:` (no `:` in the user), after `scheme://`.
      if (c === 47 && colon && b[p - 1] === 47 && b[p - 2] === 58) return true;
      url = false;
    }
    if (pair && (c === 38 || c === 59 || c === 44)) pair = false;
    if (pair && c === 61 && s - p <= VALUE && pairNameBefore(b, n, p)) return true;
    if (!url && !pair && s - p > VALUE) return false;
  }
  // A quoted value: its opening quote, white space, `:`/`=`, and a credential name before them.
  if (p >= 0 && QUOTE(b[p] as number) && s - p <= VALUE) {
    const q = skipSpaceLeft(b, p - 1, 16);
    if (q >= 0 && (b[q] === 58 || b[q] === 61) && credentialNameBefore(b, q - 1) && quotedValue(b, n, p)) {
      if (keyLikeValue || passwordName) return true;
    }
  }
  // An AWS secret access key: 40 of [A-Za-z0-9/+=] after `key`, an optional quote, white space, `:`/`=`.
  let a = s - 1;
  for (; a >= 0 && s - a <= 48 && ((CLASS[b[a] as number] as number) & AWS) !== 0; a--) {
    if (b[a] === 61 && keyBefore(b, n, a)) return true;
  }
  if (a >= 0 && QUOTE(b[a] as number)) a--;
  a = skipSpaceLeft(b, a, 16);
  return a >= 0 && (b[a] === 58 || b[a] === 61) && keyBefore(b, n, a);
}

/** Whether a `.env`-style line of a secret name starts at `p`: `[ \t]{0,8}(export[ \t]+)?NAME[ \t]{0,4}=`. */
function envLineAt(b: Uint8Array, n: number, p: number): boolean {
  for (let k = 0; k < 8 && (b[p] === 32 || b[p] === 9); k++) p++;
  if (holdsAt(b, n, p, "export", false) && (b[p + 6] === 32 || b[p + 6] === 9)) {
    p += 6;
    for (let k = 0; k < 4 && (b[p] === 32 || b[p] === 9); k++) p++;
  }
  const from = p;
  const first = b[p] as number;
  if (!((first >= 65 && first <= 90) || first === 95)) return false;
  while (p < n && p - from < 140) {
    const c = b[p] as number;
    if (!((c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95)) break;
    p++;
  }
  let named = false;
  for (let i = from; i < p && !named; i++) for (const w of ENV_WORDS) if (holdsAt(b, p, i, w, false)) named = true;
  if (!named) return false;
  for (let k = 0; k < 4 && (b[p] === 32 || b[p] === 9); k++) p++;
  return b[p] === 61;
}

/**
 * The last line terminator in `b[from, to)` (`\n`, `\r`, U+2028/U+2029 of {@link UTF8_BYTES}), or -1; -2 when a NUL
 * of {@link UNIT_BYTES} (maybe a terminator) begins a `.env`-style secret line.
 */
function lastBreak(b: Uint8Array, n: number, from: number, to: number): number {
  for (let p = to - 1; p >= from; p--) {
    const c = b[p] as number;
    if (c === 10 || c === 13) return p;
    if (mode === UTF8_BYTES && (c === 0xa8 || c === 0xa9) && b[p - 1] === 0x80 && b[p - 2] === 0xe2) return p;
    if (mode === UNIT_BYTES && c === 0 && envLineAt(b, n, p + 1)) return -2;
  }
  return -1;
}

/** U+2028 and U+2029 in UTF-8. */
const LS = Buffer.from("\u2028");
const PS = Buffer.from("\u2029");

/**
 * Whether a `.env`-style secret line holds the word: its value or a copy of it in the line's comment is at most 700
 * characters from the line's start (`ENV_REACH`, secrets.ts), so the line starts at most 701 units before the word.
 * Lines start after `\n`, `\r`, U+2028 or U+2029 (`^` with the m flag); a NUL of {@link UNIT_BYTES} may be one. The
 * last 128 bytes are read one by one, the rest of the reach by native searches (a minified line is long).
 */
export function envLine(b: Uint8Array, n: number, s: number): boolean {
  const lo = Math.max(0, s - 701 * scale - 2); // the line starts at or after lo
  const mid = Math.max(lo, s - 128);
  let t = lastBreak(b, n, mid, s);
  if (t === -1 && mid > lo) {
    if (mode === UNIT_BYTES) t = lastBreak(b, n, lo, mid);
    else {
      const far = Buffer.from(b.buffer, b.byteOffset + lo, mid - lo);
      t = Math.max(far.lastIndexOf(10), far.lastIndexOf(13));
      if (mode === UTF8_BYTES) {
        const ls = far.lastIndexOf(LS);
        const ps = far.lastIndexOf(PS);
        t = Math.max(t, ls < 0 ? -1 : ls + 2, ps < 0 ? -1 : ps + 2);
      }
      if (t >= 0) t += lo;
      else t = -1;
    }
  }
  if (t === -2) return true;
  if (t >= 0) return envLineAt(b, n, t + 1);
  return lo === 0 && envLineAt(b, n, 0);
}

/**
 * Whether the `-----` ending at `p` (read leftwards: `b[p - 4 .. p]`) is part of a BEGIN or END line: followed by
 * `BEGIN ` or `END `, or after `KEY` or `BLOCK`.
 */
function marker(b: Uint8Array, p: number): boolean {
  const n = b.length;
  let q = p;
  while (q + 1 < n && b[q + 1] === 45) q++;
  let r = p - 4;
  while (r > 0 && b[r - 1] === 45) r--;
  return (
    holdsAt(b, n, q + 1, "BEGIN ", false) ||
    holdsAt(b, n, q + 1, "END ", false) ||
    holdsAt(b, n, r - 3, "KEY", false) ||
    holdsAt(b, n, r - 5, "BLOCK", false)
  );
}

/** Where the line {@link pemLine} read starts (the byte after its `\n`, or 0). */
let lineStart = 0;

const isAlpha = (c: number) => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isPrefix = (c: number) => c === 32 || c === 9 || c === 34 || c === 39 || c === 62 || c === 124; // [ \t"'>|]

/**
 * Where a key block's line can begin left of `q` (the byte before a base64 run or header name): past the bytes that
 * may begin a line (`[ \t"'>|]`), the line's start (1: sets {@link lineStart}) or the `n`/`r` of an escaped line
 * break (2), else 0.
 */
function segmentStart(b: Uint8Array, q: number): number {
  while (q >= 0 && isPrefix(b[q] as number)) q--;
  if (q < 0 || b[q] === 10) {
    lineStart = q + 1;
    return 1;
  }
  return (b[q] === 110 || b[q] === 114) && b[q - 1] === 92 ? 2 : 0;
}

/**
 * Whether a key block's header (`[A-Za-z-]{1,30}: ` then up to 200 characters of any kind) can hold the byte at `p`:
 * a `: ` before it on its line within 240 characters (counted as bytes that begin a UTF-8 character: at most one per
 * UTF-16 unit), after a header name at the start of a block line.
 * @returns as {@link pemLine}: 1 (the header begins its line: sets {@link lineStart}), 2 (maybe), 0
 */
function header(b: Uint8Array, p: number): number {
  let found = 0;
  // The candidates: `: ` pairs on the line, right to left, up to 240 units before `p` (64 bytes read one by one).
  const lo = Math.max(1, p - 240 * scale);
  let i = p + 1;
  for (; i >= lo && p - i < 64; i--) {
    if (b[i] === 10 && i <= p) return found;
    if (b[i] === 32 && b[i - 1] === 58) {
      const at = headerAt(b, i - 1);
      if (at === 2) return 2;
      if (at === 1) found = 1;
    }
  }
  if (i < lo) return found;
  // The rest natively: past the line's last break before the candidates, then each `: ` from the right.
  const rest = Buffer.from(b.buffer, b.byteOffset + lo - 1, i - lo + 2);
  const nl = rest.lastIndexOf(10);
  for (let end = rest.length; ;) {
    if (end < 2) return found;
    const k = rest.lastIndexOf(COLON_SPACE, end - 2);
    if (k < 0 || k <= nl) return found;
    const at = headerAt(b, lo - 1 + k);
    if (at === 2) return 2;
    if (at === 1) found = 1;
    end = k + 1;
  }
}

/** `: ` as bytes. */
const COLON_SPACE = Buffer.from(": ");

/** For the `:` at `q` of a `: `: whether a header's name (`[A-Za-z-]{1,30}`) ends there at a block line's start. */
function headerAt(b: Uint8Array, q: number): number {
  let r = q - 1;
  while (r >= 0 && q - 1 - r < 30 && (isAlpha(b[r] as number) || b[r] === 45)) r--;
  return r === q - 1 ? 0 : segmentStart(b, r);
}

/**
 * Whether the bytes of one line from the `\n` (or the text's start) before `to` up to `to` (exclusive), read from
 * `to` leftwards, can be a private key block's lines as its pattern reads them: base64 runs, each the line of one
 * block line, parted by the bytes around block lines and escaped line breaks (a run of {@link GAP} bytes, `+` of a
 * line's end among them, between two base64 runs holds a backslash (the bytes right of the last run end the block),
 * or the run left of it is the `n`/`r` of an
 * escaped break), or a header (see {@link header}), or the start of a header's name. `-----` (a BEGIN or END line)
 * answers "maybe", as does a line longer than 4,096 bytes. Sets {@link lineStart} when it answers 1.
 * @returns 1 when the bytes read as block lines, 2 for maybe, 0 when no block can hold them
 */
function pemLine(b: Uint8Array, to: number): number {
  let run = false; // a base64 run was read (right of the bytes being read)
  let runFrom = to; // where the base64 run being read ends
  let gap = false; // inside a run of GAP bytes left of a base64 run
  let slash = false; // that run holds a backslash
  for (let p = to - 1; ; p--) {
    if (p < 0 || b[p] === 10) {
      lineStart = p + 1;
      return 1;
    }
    if (to - p > 4096) return 2;
    const c = b[p] as number;
    const k = CLASS[c] as number;
    if (c === 45) {
      if (p >= 4 && b[p - 1] === 45 && b[p - 2] === 45 && b[p - 3] === 45 && b[p - 4] === 45 && marker(b, p)) return 2;
      // A header's name (`Proc-Type`) from the start of a block line, or a header's value.
      let q = p;
      while (q >= 0 && (isAlpha(b[q] as number) || b[q] === 45)) q--;
      const start = segmentStart(b, q);
      if (start !== 0) return start;
      return header(b, p);
    }
    if (c === 43 && (gap || !run)) {
      // `+` of a line's end, among its other bytes or the last of them
      if (!gap) slash = false;
      gap = true;
      continue;
    }
    if ((k & B64) !== 0) {
      if (gap && run && !slash && !((c === 110 || c === 114) && b[p - 1] === 92)) return header(b, p);
      if (gap || !run) runFrom = p;
      gap = false;
      run = true;
      // A line's base64 is at most 200 characters, a header's value too: a longer run is neither.
      if (runFrom - p >= 200) return 0;
      continue;
    }
    if ((k & GAP) !== 0 || c === 13) {
      if (!gap) slash = false;
      gap = true;
      if (c === 92) slash = true;
      continue;
    }
    return header(b, p);
  }
}

/**
 * Whether a private key block can hold the word or the bytes next to it. The block begins with `-----BEGIN` and
 * runs over lines of base64 or headers, broken by real or escaped line breaks: so either the word's line reads as
 * block lines from its start up to the word and so does each line above it up to a `-----` line, or a `-----` or
 * header is on the word's line before it ("maybe"), or `-----` follows the word.
 */
export function pemBlock(b: Uint8Array, n: number, s: number, e: number): boolean {
  if (b[e] === 45 && holdsAt(b, n, e, "-----", false)) return true;
  // Inside a BEGIN or END line: `-----BEGIN `, up to 40 of [A-Z0-9 ], `PRIVATE KEY BLOCK-----` (at most 80 bytes).
  for (let p = s - 1; p >= 4 && s - p <= 80 && b[p] !== 10; p--) if (holdsAt(b, n, p - 4, "-----", false)) return true;
  let found = pemLine(b, s);
  let budget = 1 << 14;
  while (found === 1) {
    if (lineStart === 0) return false; // the text's start: no BEGIN line above
    const end = lineStart - 1; // the line break ending the line above
    found = pemLine(b, end);
    budget -= end - lineStart;
    if (budget < 0) return true;
  }
  return found === 2;
}

/** `-`, `.`, `/` or `:`: a character of a token with punctuation in it. */
function punct(c: number): boolean {
  return c === 45 || c === 46 || c === 47 || c === 58;
}

/**
 * False when no secret `scanSecrets` finds in the text whose bytes `b[0, n)` are (see the file's docstring) can
 * touch the word `b[s, e)` (a maximal run of `[A-Za-z0-9_$]`): overlap it, or hold the byte just before or after it.
 * True means maybe. Sound by the rules above, one per pattern (test/grounding/secret-bytes.test.ts compares it with
 * `scanSecrets` on generated texts, ASCII and not).
 */
export function mayTouchSecret(b: Uint8Array, n: number, s: number, e: number, bytes = ASCII_BYTES): boolean {
  mode = bytes;
  scale = bytes === UTF8_BYTES ? 3 : 1;
  if (e - s >= 18 && wordToken(b, n, s, e)) return true;
  const before = s > 0 ? (b[s - 1] as number) : 32;
  const after = e < n ? (b[e] as number) : 32;
  if ((punct(before) || punct(after)) && punctuatedToken(b, n, s, e)) return true;
  return valueInRun(b, n, s) || envLine(b, n, s) || pemBlock(b, n, s, e);
}
