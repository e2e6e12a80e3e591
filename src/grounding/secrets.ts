import { isSpace, splitLines } from "./lines.js";
import { mapStrings } from "./map-strings.js";

/**
 * Secrets: the one pattern set behind every redaction (tool results, gate messages, diffs, posted text, traces,
 * problem text) and behind the review's secrets rule, so what the review catches is exactly what is redacted.
 *
 * Shapes (each provider's published key format):
 * - GitHub: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` + 36 base62; fine-grained `github_pat_` + 22 + `_` + 59.
 * - AWS: access key id `AKIA`/`ASIA` + 16 upper-case alphanumerics; a secret access key (40 of `[A-Za-z0-9/+=]`)
 *   assigned to a name that says `aws_secret_access_key` (any case, quoted or not).
 * - Stripe: `sk_live_`, `sk_test_`, `rk_live_`, `rk_test_` + 10 or more alphanumerics (publishable `pk_` keys are not
 *   secret).
 * - OpenAI: `sk-` / `sk-proj-` + at least 20 of `[A-Za-z0-9_-]`. Anthropic: `sk-ant-` + the same.
 * - Slack: `xoxa-`, `xoxb-`, `xoxp-`, `xoxr-`, `xoxs-` + 10 or more; webhook URLs `hooks.slack.com/services/...`.
 * - Google API key: `AIza` + 35 of `[A-Za-z0-9_-]`. SendGrid: `SG.` + 22 + `.` + 43. npm: `npm_` + 36 alphanumerics.
 * - JWT (RFC 7519 compact serialisation): `eyJ` + base64url header, `.`, payload, `.`, signature.
 * - PEM / OpenSSH / PGP private key blocks: `-----BEGIN … PRIVATE KEY-----` through the matching END line (or the end
 *   of the text); every line of the block is redacted and the line count is kept, so numbered windows stay right.
 * - Generic credentials: a URL's userinfo password (`postgres://user:PASS@host`), a quoted literal of 8+ characters
 *   assigned to a credential-like name (`password`, `secret`, `token`, `api_key`, `access_key`, `credential`, …), an
 *   unquoted `password=…` pair, and a `.env`-style `NAME=value` line whose name says secret, token, password or key.
 *   Only the value is redacted, so the key name stays readable.
 *
 * Every pattern is free of nested quantifiers, so scanning is linear in the text.
 */
export interface SecretPattern {
  name: string;
  pattern: RegExp;
  /** Extra test on the secret part (the named group `secret`, else the whole match): false drops the match. */
  accept?: (secret: string, match: string) => boolean;
  /**
   * The match may hold copies of the secret after it (a `.env` line's trailing comment): each copy is a secret too,
   * as far as ENV_REACH from the match's start (see `scanSecrets`).
   */
  copiesInMatch?: boolean;
}

/**
 * A value that names where a secret comes from instead of holding one: `$VAR`, `${VAR}`, `<token>`, `{{ x }}`, `%s`.
 */
const REFERENCE = String.raw`(?![$<{%]|\[redacted\])`;

/** True when `value` looks like a key rather than a word: it holds a digit, or a mix of cases and symbols. */
function keyLike(value: string): boolean {
  return /\d/.test(value) || (/[a-z]/.test(value) && /[A-Z]/.test(value) && /[^A-Za-z]/.test(value));
}

/**
 * A private key block: its BEGIN line, then lines of base64 or `Name: value` headers (`Proc-Type`, `DEK-Info`), blank
 * lines allowed, broken by real line breaks or by `\n` escapes inside a string literal, also written as an array of
 * quoted lines (`"-----BEGIN … KEY-----",` then `"MIIE…",`, indented up to 40 columns), then its END line when there
 * is one. A bare BEGIN line (prose about keys) holds no key and is not matched.
 */
const PEM_BEGIN = String.raw`-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`;
const PEM_END = String.raw`-----END [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----`;
const PEM_BREAK = String.raw`(?:(?:\\r)?\\n|\r?\n)`;
/** What may close a line of a key block written as an array of string literals (`"-----BEGIN … KEY-----",`). */
const PEM_LINE_END = String.raw`[ \t"',+]{0,4}`;
/**
 * One line of a key block: base64, or a `Name: value` header. The header is tried first: tried second, a header's
 * name matched as base64 up to its `-` ("…-----\nProc"), the block ended there, and its accept test (16 base64
 * characters) failed, so an encrypted PEM key (`Proc-Type:`, `DEK-Info:`) or a PGP key block with a `Version:` line
 * was not redacted at all (test/tools/search-secret-filter-attack.test.ts). A header's value stops at a `\`, so it
 * does not run over a `\n` escape to the end of a string-literal block's line (as `mayBeInKeyBlock` cuts lines).
 */
const PEM_LINE = String.raw`[ \t"'>|]{0,40}(?:[A-Za-z-]{1,30}: [^\r\n\\]{0,200}|[A-Za-z0-9+/=]{1,200})${PEM_LINE_END}`;

/**
 * The one set of secret patterns: what {@link redact} replaces in every text that leaves the snapshot and what the
 * review's secrets rule fails. Each has a `name` (said in messages, never the match), a global `pattern`, and an
 * optional `accept` that a match must pass (e.g. a key block must hold key material, not only its BEGIN line).
 */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    name: "private key block",
    pattern: new RegExp(
      `${PEM_BEGIN}${PEM_LINE_END}(?:${PEM_BREAK}(?:${PEM_LINE})?)*(?:${PEM_BREAK}?[ \\t"']{0,40}${PEM_END})?`,
      "g",
    ),
    accept: (block) => /[A-Za-z0-9+/]{16}/.test(block.slice(block.indexOf("-----", 5) + 5)),
  },
  { name: "GitHub token", pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g },
  { name: "GitHub fine-grained token", pattern: /\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b/g },
  { name: "AWS access key id", pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  {
    name: "AWS secret access key",
    pattern: /aws_?secret_?access_?key["']?\s{0,4}[:=]\s{0,4}["']?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/dgi,
  },
  { name: "Stripe key", pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{10,247}\b/g },
  { name: "Anthropic key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: "OpenAI key", pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g },
  { name: "Slack token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { name: "Slack webhook", pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g },
  { name: "Google API key", pattern: /\bAIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g },
  { name: "SendGrid key", pattern: /\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g },
  { name: "npm token", pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { name: "JWT", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
  // Credentials written into a URL (RFC 3986 userinfo): only the password part is the secret.
  {
    name: "password in a URL",
    pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s/:@"'<>]{1,128}:(?!\[redacted\]@)(?<secret>[^\s/@"'<>]{3,256})@/dgi,
  },
  // A quoted literal assigned to a credential-like name: `password = "…"`, `AWS_SECRET_ACCESS_KEY: '…'`, `"apiKey":
  // "…"`.
  {
    name: "credential assignment",
    pattern: new RegExp(
      String.raw`(?:password|passwd|pwd|secret|token|api_?key|access_?key|private_?key|credential)` +
        String.raw`[\w-]{0,40}["']?\s{0,4}[:=]\s{0,4}["']${REFERENCE}(?<secret>[^"'\s]{8,256})["']`,
      "dgi",
    ),
    // `credentials: 'same-origin'` is a setting; a password may be any word, a token or key looks like one.
    accept: (secret, match) => /pass|pwd|secret/i.test(match) || keyLike(secret),
  },
  // An unquoted `password=…` pair, as in a query string, a DSN or a log line.
  {
    name: "credential pair",
    pattern: new RegExp(
      String.raw`(?:password|passwd|pwd|secret|api_?key|access_?token)=${REFERENCE}(?<secret>[^\s&;"',]{6,256})`,
      "dgi",
    ),
  },
  // A `.env` / shell line `NAME=value` (optionally `export NAME=value`) whose name says it holds a secret.
  {
    name: "secret env variable",
    pattern: new RegExp(
      String.raw`^[ \t]{0,8}(?:export[ \t]{1,4})?(?=[A-Z_])[A-Z0-9_]{0,60}` +
        String.raw`(?:SECRET|TOKEN|PASSWORD|PASSWD|PWD|KEY|CREDENTIALS?|AUTH)` +
        String.raw`[A-Z0-9_]{0,60}[ \t]{0,4}=[ \t]{0,4}["']?` +
        String.raw`${REFERENCE}(?<secret>[A-Za-z0-9_\-+/=:@!*~^]{8,512})["']?[ \t]*(?:#.*)?\r?$`,
      "dgm",
    ),
    accept: keyLike,
    copiesInMatch: true,
  },
];

/** What redaction replaces a secret with (each line of a multi-line secret becomes one). */
export const REDACTED = "[redacted]";

/**
 * `name` of a {@link SECRET_PATTERNS} entry with its indefinite article, as a message says it: "an AWS access key
 * id", "an npm token", "a GitHub token" (by the first letter's sound: a vowel letter, or "npm" read en-pee-em).
 */
export function withArticle(name: string): string {
  return `${/^(?:[aeiou]|npm\b)/i.test(name) ? "an" : "a"} ${name}`;
}

/** One secret found in a text: its kind (a name of {@link SECRET_PATTERNS}) and its span in UTF-16 units. */
export interface SecretSpan {
  kind: string;
  start: number;
  end: number;
}

/** Cheap test that a text can hold a secret at all; most files of a repository fail it and are never scanned. */
const MAYBE_SECRET = new RegExp(
  String.raw`PRIVATE KEY|gh[pousr]_|github_pat_|AKIA|ASIA|[rs]k_(?:live|test)_|sk-|xox[abprs]-|` +
    String.raw`hooks\.slack|AIza|SG\.|npm_|eyJ|:\/\/[^\s/]*:|pass|pwd|secret|token|key|credential|auth`,
  "i",
);

/** {@link MAYBE_SECRET} for a pass over many texts at once (see {@link mayHoldSecret}). */
const MAYBE_SECRET_ALL = new RegExp(MAYBE_SECRET.source, "gi");

/**
 * The triggers of {@link MAYBE_SECRET} that a secret's own shape holds (a key block's header, a token's prefix): the
 * patterns of the others — a credential's name (`password`, `token`, `key`, …), a URL's `://user:`, a Slack webhook's
 * `https://` — match only a text holding `:` or `=` (each pattern of {@link SECRET_PATTERNS} says so: `[:=]`, `=`,
 * `://`). So a text without `:` and `=` that lacks these holds no secret.
 */
const SECRET_SHAPE = new RegExp(
  String.raw`PRIVATE KEY|gh[pousr]_|github_pat_|AKIA|ASIA|[rs]k_(?:live|test)_|sk-|xox[abprs]-|AIza|SG\.|npm_|eyJ`,
  "i",
);

/**
 * The indexes (ascending) of the texts of `texts` that may hold a secret: every text that {@link redact} would
 * change is among them, and `redact` returns each of the others unchanged. A text is listed when it passes the cheap
 * pre-test of {@link scanSecrets} and, unless it holds `:` or `=`, also {@link SECRET_SHAPE} (symbol names such as
 * `getCancellationToken` pass the pre-test for their `token` but hold no `:` or `=`: redacting each, thousands in a
 * large repository, costs more than the rest of their file's symbol work). One pass of the pre-test over the texts
 * joined by line breaks instead of one call per text (a file defines thousands of names): no match of the pre-test
 * holds a line break (its one pattern with a class, `:\/\/[^\s/]*:`, excludes white space), so each match lies
 * inside one text, and the pass, which resumes after each match, finds one inside every text that holds one.
 */
export function mayHoldSecret(texts: readonly string[]): number[] {
  const out: number[] = [];
  const joined = texts.join("\n");
  // Offsets where each text starts in `joined`, to name the text a match is in.
  const starts = new Int32Array(texts.length + 1);
  for (let i = 0; i < texts.length; i++) starts[i + 1] = (starts[i] as number) + (texts[i] as string).length + 1;
  let text = 0;
  let last = -1; // the last text looked at
  MAYBE_SECRET_ALL.lastIndex = 0;
  for (let m = MAYBE_SECRET_ALL.exec(joined); m !== null; m = MAYBE_SECRET_ALL.exec(joined)) {
    while ((starts[text + 1] as number) <= m.index) text++;
    if (text === last) continue;
    last = text;
    const t = texts[text] as string;
    if (t.includes(":") || t.includes("=") || SECRET_SHAPE.test(t)) out.push(text);
  }
  return out;
}

/**
 * Every secret in `text`, as spans sorted by start; overlapping spans of several patterns are merged (the first
 * pattern's kind is kept), so redaction and the review's findings always agree. Linear in `text`.
 */
export function scanSecrets(text: string): SecretSpan[] {
  if (!MAYBE_SECRET.test(text)) return [];
  const spans: SecretSpan[] = [];
  for (const { name, pattern, accept, copiesInMatch } of SECRET_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const at = m.index ?? 0;
      const secret = m.groups?.secret;
      // Where the group matched (the `d` flag): not a search for its text, which a `.env` line's trailing comment may
      // repeat (`API_TOKEN=v # v` would have hidden the comment's copy and shown the value).
      const start = secret === undefined ? at : (m.indices?.groups?.secret?.[0] as number);
      const value = secret ?? m[0];
      if (value.length === 0 || (accept !== undefined && !accept(value, m[0]))) continue;
      spans.push({ kind: name, start, end: start + value.length });
      if (copiesInMatch !== true || secret === undefined) continue;
      // Copies of the value in the line's trailing comment are the secret too, as far as ENV_REACH from the line's
      // start (the reach maybeInSecret looks back for a `.env` line's name; a copy further on is not redacted).
      for (let copy = m[0].indexOf(secret, start - at + value.length); copy !== -1;) {
        if (copy + value.length > ENV_REACH) break;
        spans.push({ kind: name, start: at + copy, end: at + copy + value.length });
        copy = m[0].indexOf(secret, copy + value.length);
      }
    }
  }
  spans.sort((a, b) => a.start - b.start || b.end - a.end);
  const merged: SecretSpan[] = [];
  for (const s of spans) {
    const last = merged[merged.length - 1];
    if (last !== undefined && s.start < last.end) last.end = Math.max(last.end, s.end);
    else merged.push({ ...s });
  }
  return merged;
}

/**
 * How far before a secret's value the name that makes it one can begin: a credential assignment's name (10), 40 more
 * name characters, a quote, white space, `:`/`=`, white space, a quote (61 in all); an AWS secret access key's less.
 */
const NAME_REACH = 64;
/**
 * How far from its line's start a `.env`-style line's value can reach: indent and `export` (18), the name (131), `=`
 * with white space and a quote (10), the value (512): 671 in all.
 */
const ENV_REACH = 700;
/** Longest run without white space {@link maybeInSecret} looks at; a longer one is "maybe". */
const MAX_RUN = 4096;

/** ASCII white space (space, tab, line feed, vertical tab, form feed, carriage return): never inside a secret. */
function isAsciiSpace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13);
}

/**
 * False when no secret {@link scanSecrets} finds in `text` can overlap `[start, end)`, for a text without a private
 * key block (`PRIVATE KEY`; such a block is a secret of any number of lines): a cheap test per occurrence of a word.
 * Every other secret is a run without white space, and its match holds a trigger of the pre-test `MAYBE_SECRET`
 * inside that run (a token's prefix, a URL's `://user:`, a `password=` pair), or in the name assigned to it, which
 * begins at most NAME_REACH characters before the value (a credential assignment, an AWS secret access key), or
 * from the start of its line when the value is at most ENV_REACH characters from it (a `.env` line). So the pre-test
 * over the run around `[start, end)`, widened by those reaches, failing means no secret there. True means maybe
 * (scan to know); also for a run longer than MAX_RUN.
 */
export function maybeInSecret(text: string, start: number, end: number): boolean {
  let from = start;
  while (from > 0 && !isAsciiSpace(text.charCodeAt(from - 1))) if (start - --from > MAX_RUN) return true;
  let to = end;
  while (to < text.length && !isAsciiSpace(text.charCodeAt(to))) if (++to - end > MAX_RUN) return true;
  let regionFrom = Math.max(0, from - NAME_REACH);
  // The start of the line (after any line terminator, as `^` with the m flag), when it is near.
  for (let i = start; start - i <= ENV_REACH; i--) {
    const before = i === 0 ? -1 : text.charCodeAt(i - 1);
    if (i === 0 || before === 10 || before === 13 || before === 0x2028 || before === 0x2029) {
      regionFrom = Math.min(regionFrom, i);
      break;
    }
  }
  return MAYBE_SECRET.test(text.slice(regionFrom, to));
}

/** The replacement of one secret: one {@link REDACTED} per line it spans, with its line breaks kept. */
function replacement(secret: string): string {
  return secret.includes("\n")
    ? secret
        .split(/(\r?\n)/)
        .map((part, i) => (i % 2 === 1 || part === "" ? part : REDACTED))
        .join("")
    : REDACTED;
}

/**
 * Replace every secret in `text` ({@link scanSecrets}) with `[redacted]`. A multi-line secret (a private key block)
 * becomes one `[redacted]` per line, so the text keeps its line count and numbered windows keep their numbers.
 *
 * @returns the redacted text and how many secrets were replaced. Idempotent; linear in `text`.
 */
export function redactSecrets(text: string): { text: string; count: number } {
  const spans = scanSecrets(text);
  if (spans.length === 0) return { text, count: 0 };
  let out = "";
  let last = 0;
  for (const s of spans) {
    out += text.slice(last, s.start) + replacement(text.slice(s.start, s.end));
    last = s.end;
  }
  return { text: out + text.slice(last), count: spans.length };
}

/** {@link redactSecrets}'s text only: the form every call site that sends text out of the snapshot uses. */
export function redact(text: string): string {
  return redactSecrets(text).text;
}

/**
 * True when no match of a {@link SECRET_PATTERNS} entry can hold the line break at `nl` (`text[nl]` is "\n"), for a
 * text without a private key block. Only two patterns can match a line break at all, the AWS secret access key and
 * the credential assignment, and only inside their `\s{0,4}` before or after the `:`/`=`: so a break whose run of
 * white space is next to neither a `:` nor an `=` is never inside a match.
 */
function breakIsOutsideSecrets(text: string, nl: number): boolean {
  let a = nl;
  while (a > 0 && isSpace(text.charCodeAt(a - 1))) a--;
  let b = nl + 1;
  while (b < text.length && isSpace(text.charCodeAt(b))) b++;
  const before = a > 0 ? text.charCodeAt(a - 1) : -1;
  const after = b < text.length ? text.charCodeAt(b) : -1;
  return before !== 58 && before !== 61 && after !== 58 && after !== 61; // ":" and "="
}

/**
 * The range `[from, to)` of `text` around `[start, end)` (`start <= end`, no line break inside) that
 * {@link scanSecrets} can scan on its own: it begins at the text's start or after a line break no secret can hold
 * (see `breakIsOutsideSecrets`) and ends at the text's end or at such a line break, so the secrets found in
 * `text.slice(from, to)`, shifted by `from`, are exactly the whole text's secrets inside the range — the same
 * argument as {@link redactLines}. For a text without a private key block only (a key block may span any number of
 * lines); offsets in UTF-16 units.
 */
export function secretFreeRange(text: string, start: number, end: number): { from: number; to: number } {
  let from = start === 0 ? 0 : text.lastIndexOf("\n", start - 1) + 1;
  while (from > 0 && !breakIsOutsideSecrets(text, from - 1))
    from = from >= 2 ? text.lastIndexOf("\n", from - 2) + 1 : 0;
  const lineEnd = (at: number) => {
    const nl = text.indexOf("\n", at);
    return nl === -1 ? text.length : nl;
  };
  let to = lineEnd(end);
  while (to < text.length && !breakIsOutsideSecrets(text, to)) to = lineEnd(to + 1);
  return { from, to };
}

/**
 * Lines of {@link redact}`(text)` without redacting the whole text: for each of `lineNumbers` (1-based), that line as
 * `splitLines` cuts it (no line break, a "\r" before "\n" dropped; "" past the last line), in the order given.
 *
 * Each run of wanted lines is redacted together with the lines around it up to line breaks no secret can hold (see
 * `breakIsOutsideSecrets`); every pattern matches from such a break exactly as in the whole text, so each line is
 * the same as the whole text's redaction gives. A text with a private key block (a secret of any number of lines) is
 * redacted whole. Cost: the wanted lines and their neighbours, plus one `indexOf` walk over the line breaks before
 * the last wanted line.
 */
export function redactLines(text: string, lineNumbers: readonly number[]): string[] {
  if (lineNumbers.length === 0) return [];
  if (text.includes("PRIVATE KEY")) {
    const all = splitLines(redact(text));
    return lineNumbers.map((n) => all[n - 1] ?? "");
  }
  const wanted = [...new Set(lineNumbers)].filter((n) => Number.isInteger(n) && n >= 1).sort((x, y) => x - y);
  const found = new Map<number, string>();
  const lineEnd = (start: number) => {
    const nl = text.indexOf("\n", start);
    return nl === -1 ? text.length : nl;
  };
  let line = 1;
  let start = 0; // offset of line `line`
  let i = 0; // the next wanted line not yet found
  while (i < wanted.length) {
    for (; line < (wanted[i] as number) && start < text.length; line++) start = lineEnd(start) + 1;
    if (start >= text.length) break; // past the last line
    // The window: back to a break no secret holds, forward over the wanted lines that follow, to such a break.
    let from = start;
    let fromLine = line;
    while (from > 0 && !breakIsOutsideSecrets(text, from - 1)) {
      from = from >= 2 ? text.lastIndexOf("\n", from - 2) + 1 : 0;
      fromLine--;
    }
    let to = lineEnd(start);
    let toLine = line;
    for (let j = i; ;) {
      while (j + 1 < wanted.length && (wanted[j + 1] as number) <= toLine) j++;
      if (to >= text.length) break;
      if (wanted[j + 1] !== toLine + 1 && breakIsOutsideSecrets(text, to)) break;
      to = lineEnd(to + 1);
      toLine++;
    }
    const lines = redact(text.slice(from, to)).split("\n");
    for (; i < wanted.length && (wanted[i] as number) <= toLine; i++) {
      const got = lines[(wanted[i] as number) - fromLine] ?? "";
      found.set(wanted[i] as number, got.endsWith("\r") ? got.slice(0, -1) : got);
    }
    line = toLine + 1;
    start = to + 1;
  }
  return lineNumbers.map((n) => found.get(n) ?? "");
}

/**
 * Redact a message that quotes lines of `source` (a nearest-region text, a diff's context, a snippet): the secrets
 * {@link redact} finds in the message itself, and also every line of a secret of `source` that the message quotes
 * without its context, such as a line from the middle of a private key block whose BEGIN line was not quoted.
 *
 * @param source the whole file the message quotes from
 */
export function redactQuoted(text: string, source: string): string {
  let out = text;
  for (const s of scanSecrets(source)) {
    for (const line of source.slice(s.start, s.end).split(/\r?\n/)) {
      const part = line.trim();
      if (part.length >= 8 && out.includes(part)) out = out.split(part).join(REDACTED);
    }
  }
  return redact(out);
}

/**
 * A copy of `value` with {@link redact} applied to every string in it (plain objects and arrays, walked; other values
 * kept). For traces, transcripts and JSON reports that leave the process.
 */
export function redactDeep<T>(value: T): T {
  return mapStrings(value, redact);
}

/**
 * Find the secrets in `text` without changing it (the review's secrets rule).
 *
 * @returns each secret with its kind (a name from {@link SECRET_PATTERNS}), its offset in `text` (UTF-16 units) and
 *   the secret itself (for a credential assignment or URL, only the value, not the key name).
 */
export function findSecrets(text: string): { kind: string; index: number; match: string }[] {
  return scanSecrets(text).map((s) => ({ kind: s.kind, index: s.start, match: text.slice(s.start, s.end) }));
}

/**
 * The 1-based line numbers of `text` that lie inside a secret spanning several lines (a private key block), or an
 * empty set. A line of such a block holds no marker of its own, so a caller that looks at one line at a time (the
 * review's added lines) asks this of the whole file.
 */
export function multiLineSecretLines(text: string): Set<number> {
  const lines = new Set<number>();
  let line = 1;
  let pos = 0;
  for (const s of scanSecrets(text)) {
    if (!text.slice(s.start, s.end).includes("\n")) continue;
    for (; pos < s.start; pos++) if (text.charCodeAt(pos) === 10) line++;
    const first = line;
    for (; pos < s.end; pos++) if (text.charCodeAt(pos) === 10) line++;
    for (let l = first; l <= line; l++) lines.add(l);
  }
  return lines;
}

/** Names of {@link isSecretPath}, one constant each (a literal in the function is a new object per call). */
const ENV_FILE = /^\.env(?:\..*)?$/;
const KEY_FILE = /\.(?:pem|key|p12|pfx|jks|keystore)$/;
const SSH_KEY = /^id_(?:rsa|dsa|ecdsa|ed25519)/;
const SECRET_NAMES = new Set([".git-credentials", ".netrc", "_netrc", ".pgpass", ".htpasswd", "credentials"]);
const SECRETS_FILE = /^(?:secrets?|credentials)\.[^/]+$/;
/** Source-code extensions: a `secrets.ts` or `credentials.py` is code that handles secrets and stays readable. */
const CODE_EXTENSION = /\.(?:[cm]?[jt]sx?|py|go|rb|java|kt|rs|cs|php|swift|scala|c|cc|cpp|h|hpp|ex|exs|sh|md|rst)$/i;

/**
 * True for files that hold secrets by their nature; tools list them but never serve, search or cite them, and
 * groundfix never edits them. Matched on the basename, case-insensitively: `.env`, `.env.*`, `.envrc`, `*.pem`,
 * `*.key`, `*.p12`, `*.pfx`, `*.jks`, `*.keystore`, `id_rsa*` / `id_dsa*` / `id_ecdsa*` / `id_ed25519*`, `credentials`
 * (AWS, gcloud), `.git-credentials`, `.netrc`, `.pgpass`, `.htpasswd`, and `secrets.*` / `credentials.*` other than
 * source code (`secrets.yml`, `secrets.json`; not `secrets.ts`).
 */
export function isSecretPath(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  if (ENV_FILE.test(base) || base === ".envrc") return true;
  if (KEY_FILE.test(base)) return true;
  if (SSH_KEY.test(base)) return true;
  if (SECRET_NAMES.has(base)) return true;
  return SECRETS_FILE.test(base) && !CODE_EXTENSION.test(base);
}
