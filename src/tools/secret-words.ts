import { scanSecrets } from "../grounding/secrets.js";

/**
 * Which words of a file search_codebase and verify_symbol_in_repo may count: only those its served text shows,
 * secrets redacted. The word scan (`scanWords`, search-index.ts) reads the raw text, so without this a word that
 * only occurs inside a secret (a password's value, a token) would count in "Files (k of N matching)", in a file's
 * rank and in whether a query word is present (so in what it is expanded to), and in verify_symbol_in_repo's similar
 * names: a model, or an issue's text steering it, could guess a secret's parts word by word and watch the counts
 * change (test/tools/search-secret-count-attack.test.ts, search-secret-oracle-attack.test.ts,
 * search-secret-path-attack.test.ts).
 *
 * How `scanWords` uses it: after a file's scan, each word it took (its first occurrence) gets a cheap test
 * ({@link anyWordMayTouchSecret}: {@link mayBeInKeyBlock}, {@link mayTouchSecret}); a file where one passes is
 * scanned for its secrets exactly ({@link secretSpans}) and its words taken again from a copy with every secret
 * blanked ({@link blankSecrets}). The tests are checked against `scanSecrets` on generated texts
 * (test/tools/secret-words.test.ts).
 */

/** Byte classes of {@link KIND}. */
const SPACE = 1; // ASCII white space: never inside a secret other than a key block
const ASSIGN = 2; // `=` or `:`: before the value of a credential, a `.env` line, a URL's password
const PUNCT = 4; // `_`, `-`, `.`: in the prefix of every token shape but AWS's and Google's
const CAPITAL_A = 8; // `A`: AKIA, ASIA, AIza
const TOKEN = 16; // `[A-Za-z0-9_$./:-]`: the characters of every token shape (a Slack webhook's URL included)

/** Value classes of {@link VALUE}: the characters each named value's pattern takes (white space never). */
const QUOTED = 1; // [^"'\s]: a credential assignment's quoted value
const PAIR = 2; // [^\s&;"',]: a `password=` pair's value (its name and `=` too)
const URL_PASSWORD = 4; // [^\s/@"'<>]: a URL's password (its user and `:` too)
const ENV = 8; // [A-Za-z0-9_\-+/=:@!*~^]: a `.env` value (its name and `=` too)
const AWS_VALUE = 16; // [A-Za-z0-9/+=]: an AWS secret access key

const VALUE = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  if (c === 32 || (c >= 9 && c <= 13)) continue;
  let k = 0;
  if (!/["']/.test(ch)) k |= QUOTED;
  if (!/[&;"',]/.test(ch)) k |= PAIR;
  if (!/[/@"'<>]/.test(ch)) k |= URL_PASSWORD;
  if (/[A-Za-z0-9_\-+/=:@!*~^]/.test(ch)) k |= ENV;
  if (/[A-Za-z0-9/+=]/.test(ch)) k |= AWS_VALUE;
  VALUE[c] = k;
}

const KIND = new Uint8Array(256);
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  let k = 0;
  if (c === 32 || (c >= 9 && c <= 13)) k = SPACE;
  if (c === 61 || c === 58) k |= ASSIGN;
  if (c === 95 || c === 45 || c === 46) k |= PUNCT;
  if (c === 65) k |= CAPITAL_A;
  if (/[A-Za-z0-9_$./:-]/.test(ch)) k |= TOKEN;
  KIND[c] = k;
}

/**
 * The start of each token shape of SECRET_PATTERNS (src/grounding/secrets.ts), the Slack webhook's URL included: its
 * prefix and the first characters the pattern requires after it, all ASCII, so the same in the raw bytes as in the
 * decoded text. A token is a run without white space that holds its start.
 */
const TOKEN_START = new RegExp(
  String.raw`\bgh[pousr]_[A-Za-z0-9]{36}|\bgithub_pat_|\b(?:AKIA|ASIA)[A-Z0-9]{16}|` +
    String.raw`\b[rs]k_(?:live|test)_[A-Za-z0-9]{10}|` +
    String.raw`\bsk-[A-Za-z0-9_-]{20}|\bxox[abprs]-[A-Za-z0-9-]{10}|hooks\.slack\.com\/services\/|` +
    String.raw`\bAIza[A-Za-z0-9_-]{35}|\bSG\.[A-Za-z0-9_-]{22}\.|\bnpm_[A-Za-z0-9]{36}|\beyJ[A-Za-z0-9_-]{8,}\.eyJ`,
);

/**
 * A credential assignment up to its value's opening quote (the pattern's name, `[:=]` and white space), loosened for
 * raw bytes: `\s` may be a character of up to three bytes of 0x80 and above (U+3000), or NUL (a unit past 0xFF).
 */
const CREDENTIAL_NAME = new RegExp(
  String.raw`(?:password|passwd|pwd|secret|token|api_?key|access_?key|private_?key|credential)[\w-]{0,40}["']?` +
    String.raw`[\s\0\x80-\xff]{0,12}[:=][\s\0\x80-\xff]{0,12}$`,
  "i",
);
/** The names of a `password=` pair and of an AWS secret access key. */
const PAIR_NAME = /(?:password|passwd|pwd|secret|api_?key|access_?token)=/i;
const AWS_NAME = /aws_?secret_?access_?key/i;

/**
 * A `.env` line's start up to its `=` (case matters, as in the pattern): after a line terminator (also U+2028/U+2029
 * as raw UTF-8 bytes, or a NUL that stands for one) or at the start of the text looked at.
 */
const ENV_LINE = new RegExp(
  String.raw`(?:^|[\n\r\0\u2028\u2029]|\xe2\x80[\xa8\xa9])[ \t]{0,8}(?:export[ \t]{1,4})?[A-Z0-9_]{0,60}` +
    String.raw`(?:SECRET|TOKEN|PASSWORD|PASSWD|PWD|KEY|CREDENTIALS?|AUTH)[A-Z0-9_]{0,60}[ \t]{0,4}=`,
);

/**
 * How far left of a word, in bytes, {@link mayTouchSecret}'s walk must go over text of one byte a character (no byte
 * of 0x80 and above or NUL on the way) while no `.env` value's run (ASCII, up to 512 characters after its name) is
 * still open: a credential's quoted value is its whole run of QUOTED, at most 256 characters; a URL's user, `:` and
 * password its whole run of URL_PASSWORD, at most 128 + 1 + 256 = 385; a `password=` pair's name and `=` lie at most
 * 256 + 13 before the word, an AWS secret access key at most 41. Runs still open there are longer than any of those.
 */
const ASCII_REACH = 390;

/**
 * Where the run of each value class through a word starts (QUOTED, PAIR, URL_PASSWORD, ENV, AWS_VALUE in that
 * order), as {@link mayTouchSecret}'s walk left finds them for {@link namedValue}: one array, reused by every call.
 */
const runStart = new Int32Array(5);

/** Longest run of token characters looked at; a word in a longer one may touch a token. */
const MAX_RUN = 4096;
/**
 * Bytes {@link mayTouchSecret} has walked past TOKEN_REACH (through runs of the long token shapes' characters) for
 * the words of one {@link anyWordMayTouchSecret} call, and how many it may walk: past `budget` a word is "maybe", so
 * the file is scanned for its secrets once and its state is known. Each word of a run of up to MAX_RUN such
 * characters (`ab00001.ab00002.…`, 4,000 long) walked the run both ways, every pass: ~46 ms for a 44 KB file of
 * 5,000 such words against ~1 ms with spaces between them, and the file never got a state.
 */
const longWalk = { walked: 0, budget: Infinity };

/**
 * Whether the last {@link anyWordMayTouchSecret} call said "maybe" because its words spent {@link longWalk}'s budget:
 * then the file is scanned whole (testing its words one by one would walk the same runs again).
 */
export function walkSpent(): boolean {
  return longWalk.walked > longWalk.budget;
}
/**
 * How far from a word, in bytes, its run of token characters is looked at: past the longest token of a shape of
 * bounded length (a GitHub or Stripe token, 259 characters), and past the characters a shape's start requires.
 */
const TOKEN_REACH = 320;
/** Per byte, 1 for `[A-Za-z0-9_./-]`: the characters of the token shapes of any length (not `$`, not `:`). */
const LONG_TOKEN = new Uint8Array(256);
for (let c = 0; c < 256; c++) LONG_TOKEN[c] = /[A-Za-z0-9_./-]/.test(String.fromCharCode(c)) ? 1 : 0;
/**
 * How far before a word, in bytes, a value given a name that touches it can begin: a credential's 256 characters or
 * a `.env` value's 512, three bytes a character at most (768); a URL's user and password, 385 characters, go past it.
 */
const VALUE_REACH = 800;
/**
 * How far before its value a credential's name can begin, in bytes: the name (10), 40 more name characters, a quote,
 * up to 12 bytes of white space, `:`/`=`, 12 more, a quote (77); a `.env` line's start: indent and `export` (18), the
 * name (131), `=` with white space and a quote (10), all ASCII (159).
 */
const NAME_REACH = 160;
/** How far from its line's start a copy of a `.env` line's value in its comment can be (ENV_REACH, secrets.ts). */
const ENV_REACH = 700;

/**
 * False when no secret that `scanSecrets` finds in the served text of a file can overlap or touch (end where it
 * begins, or begin where it ends) the word `[start, end)`, for a file without a private key block: `bytes` are the
 * file's raw text one byte per code unit (`latin1Bytes`, word-scan.ts; a byte of 0x80 and above or NUL may be any
 * character of the decoded text), `length` long, and `content` that text; copies of a `.env` line's value in its
 * comment aside ({@link inEnvComment}, which {@link anyWordMayTouchSecret} asks too).
 *
 * Every such secret is a run without white space (each pattern's value excludes it) next to the word or around it.
 * A token lies in the word's run of token characters, which then holds its start ({@link TOKEN_START}: with `_`, `-`
 * or `.`, or one of the three that start with `A`). A value given a name (a credential, a `.env` line, a URL's
 * password) lies within VALUE_REACH of the word, and a `:`/`=` comes before it in the word's run or just before that
 * run (after at most four characters of white space), with the name that makes it a secret ({@link NAMED_VALUE} or
 * {@link ENV_LINE}) within NAME_REACH before. Most words of code are in short runs without `:`, `=`, `_`, `-`, `.`
 * or `A` and cost a few byte reads; in a long line without white space (minified code) the walk left stops at
 * ASCII_REACH, and a URL's password is looked for only where an `@` ends the run. True means maybe (scan to know).
 */
function mayTouchSecret(content: string, bytes: Uint8Array, length: number, start: number, end: number): boolean {
  // The word's run of token characters: TOKEN_REACH each way, further left only through the characters of the
  // shapes of any length (an OpenAI, Anthropic or Slack token, a JWT, a Slack webhook's path).
  let tokens = 0;
  let from = start;
  for (; from > 0 && start - from < TOKEN_REACH; from--) {
    const k = KIND[bytes[from - 1] as number] as number;
    if ((k & TOKEN) === 0) break;
    tokens |= k;
  }
  if (start - from >= TOKEN_REACH) {
    const at = from;
    for (; from > 0 && LONG_TOKEN[bytes[from - 1] as number] === 1; from--) if (start - from > MAX_RUN) return true;
    if ((longWalk.walked += at - from) > longWalk.budget) return true;
  }
  let to = start;
  for (; to < length && to - end < TOKEN_REACH; to++) {
    const k = KIND[bytes[to] as number] as number;
    if ((k & TOKEN) === 0) break;
    tokens |= k;
  }
  // Further right too: a JWT's start (`eyJ…{8,}.eyJ`) holds its header, of any length (an `x5c` chain), so a word
  // early in a long header sees the `.eyJ` only past TOKEN_REACH.
  if (to - end >= TOKEN_REACH) {
    const at = to;
    for (; to < length && LONG_TOKEN[bytes[to] as number] === 1; to++) if (to - end > MAX_RUN) return true;
    if ((longWalk.walked += to - at) > longWalk.budget) return true;
  }
  if ((tokens & (PUNCT | CAPITAL_A)) !== 0 && TOKEN_START.test(content.slice(from, to))) return true;
  // One walk left from the word to the white space before it (VALUE_REACH at most): the kinds of its bytes (is a
  // `:`/`=` among them?) and where each value class's run through the word starts (see namedValue).
  let kinds = tokens;
  let live = QUOTED | PAIR | URL_PASSWORD | ENV | AWS_VALUE;
  let wide = false; // a byte of 0x80 and above or NUL met: characters may be longer than a byte from here on
  let i = start;
  for (; i > 0 && start - i < VALUE_REACH; i--) {
    const c = bytes[i - 1] as number;
    if (start - i >= ASCII_REACH && !wide && (live & ENV) === 0) {
      // Past every bounded value that can still hold the word (see ASCII_REACH): no credential's quoted value and no
      // URL's user and password is this long, and the names looked for lie within the walk. Whatever is further
      // left may hold a `:`/`=`: the names are looked for.
      if ((live & QUOTED) !== 0) runStart[0] = -1;
      if ((live & URL_PASSWORD) !== 0) runStart[2] = -1;
      live &= ~(QUOTED | URL_PASSWORD);
      kinds |= ASSIGN;
      break;
    }
    if (c >= 0x80 || c === 0) wide = true;
    if (live !== 0) {
      const k = VALUE[c] as number;
      const gone = live & ~k;
      if (gone !== 0) {
        if ((gone & QUOTED) !== 0) runStart[0] = i;
        if ((gone & PAIR) !== 0) runStart[1] = i;
        if ((gone & URL_PASSWORD) !== 0) runStart[2] = i;
        if ((gone & ENV) !== 0) runStart[3] = i;
        if ((gone & AWS_VALUE) !== 0) runStart[4] = i;
        live &= k;
      }
    }
    const k = KIND[c] as number;
    // Every value class excludes white space, so all runs have started here.
    if (k === SPACE) break;
    kinds |= k;
    // Every run has started and a `:`/`=` is known: the rest of the walk could tell nothing more (in minified code,
    // where white space is far, the walk so ends at the nearest quote instead of ASCII_REACH).
    if (live === 0 && (kinds & ASSIGN) !== 0) break;
  }
  // A token run longer than the walk (a long token's characters only) starts further left: it is the run.
  from = Math.min(from, i);
  // The byte before the white space before the run (at most four characters of up to three bytes each).
  let p = from - 1;
  for (let n = 0; p >= 0 && n < 16; p--, n++) {
    const c = bytes[p] as number;
    if (KIND[c] !== SPACE && c !== 0 && c < 0x80) break;
  }
  if (p >= 0 && ((KIND[bytes[p] as number] as number) & ASSIGN) !== 0) kinds |= ASSIGN;
  if ((kinds & ASSIGN) !== 0 && namedValue(content, bytes, start, end, live, i)) return true;
  return false;
}

/**
 * Whether a value given a name (a credential assignment, a `password=` pair, a URL's password, a `.env` line, an AWS
 * secret access key) may overlap or touch the word `[start, end)`. Each such value is a run of its pattern's class
 * ({@link VALUE}) that holds the word (the characters around a value end it before any word character, but an AWS
 * key's and a `.env` value's `$`), so it starts where that class's run through the word starts, at most
 * VALUE_REACH before: there the pattern's name must come (just before, or inside the run for those whose class takes
 * the name too). Those starts come from {@link mayTouchSecret}'s walk: {@link runStart} for each class that ended
 * before `i`, where the walk stopped, and `i` for those still `live` there.
 */
function namedValue(content: string, bytes: Uint8Array, start: number, end: number, live: number, i: number): boolean {
  let quoted = (live & QUOTED) !== 0 ? i : (runStart[0] as number);
  let pair = (live & PAIR) !== 0 ? i : (runStart[1] as number);
  let url = (live & URL_PASSWORD) !== 0 ? i : (runStart[2] as number);
  let env = (live & ENV) !== 0 ? i : (runStart[3] as number);
  let aws = (live & AWS_VALUE) !== 0 ? i : (runStart[4] as number);
  // A URL's password ends at an `@`, which ends the word's run of its class (see atSignAhead).
  const urlPossible = atSignAhead(bytes, end, content.length);
  // A URL's user and password may be longer (up to 385 characters); a run that reaches the text's start stops there.
  if (urlPossible && (live & URL_PASSWORD) !== 0 && i > 0) return true;
  // A credential's value follows a quote, after its name and `[:=]`.
  const q = quoted > 0 ? bytes[quoted - 1] : 0;
  if (
    (q === 34 || q === 39) &&
    assignsBefore(bytes, quoted - 1) &&
    CREDENTIAL_NAME.test(content.slice(Math.max(0, quoted - 1 - NAME_REACH), quoted - 1))
  )
    return true;
  // A pair's name and `=` are in its run.
  if (holdsByte(bytes, pair, end, 61) && PAIR_NAME.test(content.slice(pair, end))) return true;
  // A URL's password run holds its user and `:`, and follows `://`.
  if (urlPossible && url >= 3 && bytes[url - 1] === 47 && bytes[url - 2] === 47 && bytes[url - 3] === 58) return true;
  // An AWS key (40 characters) starts at most 41 before the word, its name at most 48 before the key.
  const awsFrom = Math.max(0, Math.max(aws, start - 41) - 60);
  if (holdsAws(bytes, awsFrom, end) && AWS_NAME.test(content.slice(awsFrom, end))) return true;
  // A `.env` value: its line starts at most NAME_REACH before its run, with an upper-case name and `=` just before
  // the value or in its run (`NAME=value`).
  return (
    envRunMayStart(bytes, env) &&
    (holdsByte(bytes, env, start, 61) || equalsBefore(bytes, env)) &&
    lineStartNear(bytes, env) &&
    ENV_LINE.test(content.slice(Math.max(0, env - NAME_REACH), end))
  );
}

/*
 * Byte tests that spare {@link namedValue} a regular expression where it cannot match (each is a necessary
 * condition of its pattern, so the answers are the same): about 23,000 words a pass of the bench's queries reach
 * namedValue, each asking three or four regular expressions on slices of up to 170 characters.
 */

/** Whether `bytes[from, to)` holds the byte `b` (PAIR_NAME ends with `=`: no `=`, no match). */
function holdsByte(bytes: Uint8Array, from: number, to: number, b: number): boolean {
  for (let i = from; i < to; i++) if (bytes[i] === b) return true;
  return false;
}

/**
 * Whether the text before offset `at` of `bytes` ends as CREDENTIAL_NAME must: `:` or `=`, then at most 12 bytes of
 * white space, NUL or 0x80 and above (its `[\s\0\x80-\xff]`: every `\s` of the text is one of those bytes).
 */
function assignsBefore(bytes: Uint8Array, at: number): boolean {
  let p = at - 1;
  for (let n = 0; p >= 0 && n < 12; p--, n++) {
    const c = bytes[p] as number;
    if (!(c === 32 || (c >= 9 && c <= 13) || c === 0 || c >= 0x80)) break;
  }
  return p >= 0 && (bytes[p] === 58 || bytes[p] === 61);
}

/** Whether `bytes[from, to)` holds "aws" in any case (AWS_NAME starts so). */
function holdsAws(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i + 2 < to; i++)
    if ((bytes[i]! | 0x20) === 97 && (bytes[i + 1]! | 0x20) === 119 && (bytes[i + 2]! | 0x20) === 115) return true;
  return false;
}

/**
 * Whether a `.env` line's `=` may come just before the run of ENV that starts at `at` (`NAME[ \t]{0,4}=[ \t]{0,4}["']?`
 * then the value, SECRET_PATTERNS in secrets.ts): an optional quote, at most four spaces or tabs, then `=`.
 */
function equalsBefore(bytes: Uint8Array, at: number): boolean {
  let p = at - 1;
  if (p >= 0 && (bytes[p] === 34 || bytes[p] === 39)) p--;
  for (let n = 0; p >= 0 && n < 4 && (bytes[p] === 32 || bytes[p] === 9); n++) p--;
  return p >= 0 && bytes[p] === 61;
}

/** Per byte, 1 for what may come just before the run of ENV through a `.env` value (see {@link envRunMayStart}). */
const BEFORE_ENV_RUN = new Uint8Array(256);
for (const c of [9, 32, 34, 39, 10, 13, 0, 0xa8, 0xa9]) BEFORE_ENV_RUN[c] = 1;

/**
 * Whether the run of ENV that starts at `at` of `bytes` may hold a `.env` line's value: that line is
 * `[ \t]{0,8}(export[ \t]+)?NAME[ \t]{0,4}=[ \t]{0,4}["']?VALUE` (SECRET_PATTERNS, secrets.ts), whose NAME, `=` and
 * VALUE are all of ENV, so the run through the value starts after white space, a quote or the line's break (LF, CR,
 * the NUL of a unit past 0xFF, the last byte of U+2028/U+2029), or at the text's start. Any other byte before it (a
 * `.`, a `(`, a `;`: most runs of code) means no `.env` value there.
 */
function envRunMayStart(bytes: Uint8Array, at: number): boolean {
  return at === 0 || BEFORE_ENV_RUN[bytes[at - 1] as number] === 1;
}

/**
 * Whether a line may start within NAME_REACH bytes before offset `at` of `bytes` (the start of a `.env` value's
 * run, which holds no line terminator): the text's start is that near, or a byte of a line terminator is in reach (LF,
 * CR, the NUL that stands for a unit past 0xFF, the 0xE2 that starts U+2028/U+2029 in UTF-8), or is the byte just
 * before the reach. Otherwise {@link ENV_LINE} could match its slice only at the slice's own start, no line's start.
 */
function lineStartNear(bytes: Uint8Array, at: number): boolean {
  const from = at - NAME_REACH;
  if (from <= 0) return true;
  for (let i = from - 1; i < at; i++) {
    const c = bytes[i] as number;
    if (c === 10 || c === 13 || c === 0 || c === 0xe2) return true;
  }
  return false;
}

/** How far past a word, in bytes, the `@` after a URL's password that overlaps it can be (256 characters, 3 bytes). */
const AT_REACH = 3 * 256 + 4;

/**
 * Whether a URL's password (`scheme://user:password@`, its class `[^\s/@"'<>]`) may overlap a word that ends at
 * `end` of `bytes` (`length` long): the password is a run of its class that holds the word's characters (all of
 * them in the class) and ends just before an `@`, which is not, so the word's run of the class ends at that `@`,
 * within AT_REACH bytes. A byte of 0x80 and above or NUL (any character of the decoded text) is taken as one of the
 * class. No word can touch such a password without overlapping it: a `:` comes before it and the `@` after.
 */
function atSignAhead(bytes: Uint8Array, end: number, length: number): boolean {
  const stop = Math.min(length, end + AT_REACH);
  for (let i = end; i < stop; i++) {
    const c = bytes[i] as number;
    if (c === 64) return true;
    if (c !== 0 && c < 0x80 && ((VALUE[c] as number) & URL_PASSWORD) === 0) return false;
  }
  return false;
}

/** How far before a word, in bytes, its line can start for a copy of a `.env` value there: ENV_REACH, 3 bytes each. */
const COMMENT_REACH = 3 * ENV_REACH;

/**
 * Where {@link inEnvComment} has read a text up to, for the words of one call of {@link anyWordMayTouchSecret}, which
 * come in the order of their offsets: `at` the offset read up to, `line` the start of the last line that starts
 * before it (-1 when none is known within COMMENT_REACH), `hash` whether a `#` lies between the two.
 */
const lineCursor = { at: 0, line: 0, hash: false };

/** Start {@link lineCursor} again at the text's start. */
function resetLineCursor(): void {
  lineCursor.at = 0;
  lineCursor.line = 0;
  lineCursor.hash = false;
}

/**
 * Bytes before a word from which {@link inEnvComment} asks native searches (`indexOf` on a slice, memchr-fast)
 * whether a line starts there instead of reading them one by one: in minified code (lines of 900 KB) each word read
 * the bytes back to the last word's, ~9 MB for the bench's two queries, 20-45 ms of the secret filter's 90-130 ms.
 * Shorter stretches (code's lines) are read: a search costs a call.
 */
const LONG_STRETCH = 128;

/**
 * True when no line starts in `(stop, start]` of `content` as {@link inEnvComment}'s walk takes line starts: after an
 * LF, a CR or a real U+2028/U+2029 in `[stop, start)`, or after U+2028/U+2029 as raw UTF-8 bytes (E2 80 A8/A9) whose
 * last byte is there. False when one may (the caller then walks the bytes).
 */
function noLineStartIn(content: string, stop: number, start: number): boolean {
  // From two bytes before `stop` (where the E2 80 of a separator ending in the stretch begins): a terminator found
  // there before `stop` only sends the caller to its byte walk, which gives the exact answer.
  const stretch = content.slice(Math.max(0, stop - 2), start);
  if (stretch.includes("\n") || stretch.includes("\r")) return false;
  // A real U+2028/U+2029, in a text of units past 0xFF (its byte a NUL): no search cost in a one-byte string.
  if (stretch.includes("\u2028") || stretch.includes("\u2029")) return false;
  return !stretch.includes("\xe2\x80\xa8") && !stretch.includes("\xe2\x80\xa9");
}

/**
 * Whether the word of `bytes` (as for {@link mayTouchSecret}) that starts at `start` may touch a copy of a `.env`
 * line's value in the line's comment: a `#` before it on its line (a copy follows the comment's first `#`, which no
 * word or value holds), and the line's start, within ENV_REACH characters (three bytes each) before it (scanSecrets
 * redacts no copy further from it), a `.env` line's name and `=`. The bytes before the word are read back to its
 * line's start, but not past the offset of the last word of the call ({@link lineCursor}, which knows the line
 * there), so a long line of many words is read about once.
 */
function inEnvComment(content: string, bytes: Uint8Array, start: number): boolean {
  const cursor = lineCursor;
  if (start < cursor.at) resetLineCursor();
  // Back to the line's start, not past COMMENT_REACH nor past the last word's offset, where the cursor knows it.
  const stop = Math.max(cursor.at, start - COMMENT_REACH);
  let line = -1;
  let hash = false;
  let i = start;
  if (start - stop > LONG_STRETCH && noLineStartIn(content, stop, start)) {
    // What the walk below finds then: no line start, read back to `stop` (a `#` there counts on a known line only).
    i = stop;
    if ((i === cursor.at && cursor.line !== -1) || i === 0) hash = content.slice(stop, start).includes("#");
  }
  for (; i > stop; i--) {
    const c = bytes[i - 1] as number;
    // A line starts after LF, CR or U+2028/U+2029 (E2 80 A8/A9 in UTF-8, or the character itself where a unit past
    // 0xFF is a NUL byte: the text tells which), as for the m flag's `^`; the comment's `.*` stops there too. (Any
    // other NUL is not taken: the `#` may lie before it.)
    if (
      c === 10 ||
      c === 13 ||
      (c === 0 && (content.charCodeAt(i - 1) | 1) === 0x2029) ||
      ((c === 0xa8 || c === 0xa9) && i >= 3 && bytes[i - 2] === 0x80 && bytes[i - 3] === 0xe2)
    ) {
      line = i;
      break;
    }
    if (c === 35) hash = true;
  }
  if (line === -1 && i === cursor.at) {
    line = cursor.line;
    hash ||= cursor.hash;
  } else if (line === -1 && i === 0) line = 0;
  cursor.at = start;
  cursor.line = line;
  cursor.hash = hash;
  if (line === -1 || start - line > COMMENT_REACH || !hash) return false;
  // From the line's terminator (three bytes for U+2028/U+2029), which ENV_LINE takes as a line's start.
  return ENV_LINE.test(content.slice(Math.max(0, line - 3), start));
}

/** Longest line of a key block, bytes: prefix (40), a header's name, `: ` and value (232 characters, 3 bytes each). */
const KEY_LINE_MAX = 40 + 32 + 3 * 200 + 4;
/** How far back {@link mayBeInKeyBlock} walks a block's lines at most; past it, the file is looked at whole. */
const KEY_BLOCK_REACH = 1 << 16;
/** Result of {@link mayBeInKeyBlock}: no, maybe, or look at the whole file. */
const NO_BLOCK = 0;
const MAYBE_BLOCK = 1;
const FILE_BLOCK = 2;

const B64 = new Uint8Array(256); // [A-Za-z0-9+/=]
const LINE_START = new Uint8Array(256); // [ \t"'>|]
const LINE_END = new Uint8Array(256); // [ \t"',+]
const HEADER = new Uint8Array(256); // [A-Za-z-]
for (let c = 0; c < 256; c++) {
  const ch = String.fromCharCode(c);
  B64[c] = /[A-Za-z0-9+/=]/.test(ch) ? 1 : 0;
  LINE_START[c] = /[ \t"'>|]/.test(ch) ? 1 : 0;
  LINE_END[c] = /[ \t"',+]/.test(ch) ? 1 : 0;
  HEADER[c] = /[A-Za-z-]/.test(ch) ? 1 : 0;
}

/**
 * The start of the line of a key block that holds offset `at` of `bytes`: after the line break before it, a real one
 * (LF, CR) or one written as an escape in a string (`\n`, `\r`), as the block pattern's PEM_BREAK takes them; -1
 * when there is none within KEY_LINE_MAX bytes (and `at` is not in the text's first line).
 */
function lineStart(bytes: Uint8Array, at: number): number {
  for (let i = at; i > 0; i--) {
    const c = bytes[i - 1] as number;
    if (c === 10 || c === 13 || ((c === 110 || c === 114) && i >= 2 && bytes[i - 2] === 92)) return i;
    if (at - i >= KEY_LINE_MAX) return -1;
  }
  return 0;
}

/**
 * Whether `bytes[from, to)` reads as the start of a line of a key block up to `to` (PEM_LINE, secrets.ts): the
 * prefix, then base64 and what may end the line (a word at `to` may continue or touch it), or a header's name and
 * `: ` (a word at `to` may be in its value); `whole`: the line ends at `to`, and may also be empty.
 */
function keyLine(bytes: Uint8Array, from: number, to: number, whole: boolean): boolean {
  let i = from;
  while (i < to && LINE_START[bytes[i] as number] === 1) i++;
  const body = i;
  while (i < to && B64[bytes[i] as number] === 1) i++;
  const base64 = i > body;
  while (i < to && LINE_END[bytes[i] as number] === 1) i++;
  if (i === to) return whole ? base64 || from === to : true;
  i = body;
  while (i < to && HEADER[bytes[i] as number] === 1) i++;
  return i > body && i + 1 < to && bytes[i] === 58 && bytes[i + 1] === 32;
}

/** Whether `bytes[.., to)` ends a key block's BEGIN line: `-----` and what may end a line (PEM_LINE_END). */
function endsBeginLine(content: string, bytes: Uint8Array, from: number, to: number): boolean {
  let j = to;
  for (let n = 0; j > from && n < 4 && LINE_END[bytes[j - 1] as number] === 1; n++) j--;
  if (j - from < 16) return false;
  for (let k = 1; k <= 5; k++) if (bytes[j - k] !== 45) return false;
  return content.slice(j - 28, j).includes("PRIVATE KEY");
}

/**
 * Whether the word `[start, end)` of `bytes` (raw text, as for {@link mayTouchSecret}) may overlap or touch a private
 * key block (the first entry of SECRET_PATTERNS, secrets.ts): its BEGIN or END line ("PRIVATE KEY" within 64 bytes
 * of an upper-case word or of a word next to a `-`), or one of its lines, which the word's line then starts as a
 * block's line does, and every line before it up to a BEGIN line reads as one (or is empty). FILE_BLOCK when that
 * walk goes past KEY_BLOCK_REACH. Lines of code fail at once or after a line: a block's lines are base64 or
 * `Name: value` headers, with quotes or a `>`/`|` before them.
 */
function mayBeInKeyBlock(content: string, bytes: Uint8Array, start: number, end: number): number {
  let upper = true;
  for (let i = start; i < end && upper; i++) {
    const c = bytes[i] as number;
    upper = (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
  }
  let before = start;
  for (let n = 0; before > 0 && n < 4 && LINE_END[bytes[before - 1] as number] === 1; n++) before--;
  if (
    (upper || bytes[end] === 45 || (before > 0 && bytes[before - 1] === 45)) &&
    content.slice(Math.max(0, start - 64), end + 64).includes("PRIVATE KEY")
  )
    return MAYBE_BLOCK;
  let from: number;
  // A word can begin with the letter of an escaped line break (`\nMIIE…`): its line begins after that letter.
  if (start > 0 && bytes[start - 1] === 92 && (bytes[start] === 110 || bytes[start] === 114)) from = start + 1;
  else {
    from = lineStart(bytes, start);
    if (from === -1 || !keyLine(bytes, from, start, false)) return NO_BLOCK;
  }
  while (from > 0) {
    if (start - from > KEY_BLOCK_REACH) return FILE_BLOCK;
    // The line before ends before the break: LF, CR or CRLF, or `\n`, `\r` or `\r\n` written as escapes.
    let to = from - 1;
    if (bytes[to] === 110 || bytes[to] === 114) {
      to--;
      if (bytes[from - 1] === 110 && to >= 2 && bytes[to - 1] === 114 && bytes[to - 2] === 92) to -= 2;
    } else if (bytes[to] === 10 && to > 0 && bytes[to - 1] === 13) to--;
    const line = lineStart(bytes, to);
    if (line === -1 || !keyLine(bytes, line, to, true))
      return endsBeginLine(content, bytes, Math.max(0, line), to) ? MAYBE_BLOCK : NO_BLOCK;
    from = line;
  }
  return NO_BLOCK;
}

/**
 * Whether any word of one file's scan entries may overlap or touch a secret of its served text: `entries[from, to)`
 * are (file, id, end, bits) quadruples (`fileWords`, word-scan.ts), `end` just past the word's first occurrence in
 * the raw text `content` (`bytes` its Latin-1, as for {@link mayTouchSecret}), `lengthOf(id)` the word's length.
 * Only the first occurrence is looked at: a word whose first occurrence no secret touches is shown there. `keyText`:
 * whether `content` holds "PRIVATE KEY", without which it has no key block (every block's BEGIN line holds it) and
 * {@link mayBeInKeyBlock} is not asked (a search for `#` per file, to skip {@link inEnvComment}, cost more than the
 * walks it saved: 42-56 ms against 37 ms for the bench's 68,888 words). False means every word is shown; true means
 * maybe (take the file's {@link secretSpans}).
 */
export function anyWordMayTouchSecret(
  content: string,
  bytes: Uint8Array,
  entries: Int32Array,
  from: number,
  to: number,
  lengthOf: (id: number) => number,
  keyText: boolean,
): boolean {
  resetLineCursor();
  longWalk.walked = 0;
  longWalk.budget = 2 * content.length + 65536;
  for (let k = from; k < to; k += 4) {
    const end = entries[k + 2] as number;
    const start = end - lengthOf(entries[k + 1] as number);
    if (keyText && mayBeInKeyBlock(content, bytes, start, end) !== NO_BLOCK) return true;
    if (mayTouchSecret(content, bytes, content.length, start, end)) return true;
    if (inEnvComment(content, bytes, start)) return true;
  }
  return false;
}

/**
 * The secrets of a file's served text (`scanSecrets` of its decoded text, as redaction finds them) in offsets of its
 * raw text: the same offsets when `decoded` is undefined (the raw text is the text), else UTF-8 byte offsets of
 * `decoded` (the raw text is its UTF-8 bytes as Latin-1, src/snapshot/builder.ts `rawText`).
 */
export function secretSpans(raw: string, decoded: string | undefined): { start: number; end: number }[] {
  if (decoded === undefined) return scanSecrets(raw);
  const spans = scanSecrets(decoded);
  let unit = 0;
  let byte = 0;
  const toByte = (to: number) => {
    byte += Buffer.byteLength(decoded.slice(unit, to), "utf8");
    unit = to;
    return byte;
  };
  return spans.map((s) => ({ start: toByte(s.start), end: toByte(s.end) }));
}

/**
 * `raw` with every span of `spans` (sorted, disjoint), widened over the word characters (`isWord`) next to it, made
 * spaces: its words are the words of the text that no secret overlaps or touches, at the same offsets.
 */
export function blankSecrets(
  raw: string,
  spans: readonly { start: number; end: number }[],
  isWord: (code: number) => boolean,
): string {
  let out = "";
  let last = 0;
  for (const s of spans) {
    let a = Math.max(s.start, last);
    let b = Math.max(s.end, a);
    while (a > last && isWord(raw.charCodeAt(a - 1))) a--;
    while (b < raw.length && isWord(raw.charCodeAt(b))) b++;
    out += raw.slice(last, a) + " ".repeat(b - a);
    last = b;
  }
  return out + raw.slice(last);
}
