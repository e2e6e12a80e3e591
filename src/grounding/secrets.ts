/**
 * Token-like strings: the shapes that providers document for their keys. Used to redact tool output and problem
 * text before a model sees them, and by the review's secrets rule on added lines.
 *
 * Shapes (each provider's published key format):
 * - GitHub: `ghp_`, `gho_`, `ghu_`, `ghs_`, `ghr_` + 36 base62; fine-grained `github_pat_` + 22 + `_` + 59.
 * - AWS: access key id `AKIA`/`ASIA` + 16 upper-case alphanumerics.
 * - OpenAI: `sk-` / `sk-proj-` + at least 20 of `[A-Za-z0-9_-]`. Anthropic: `sk-ant-` + the same.
 * - Slack: `xoxb-`, `xoxp-`, `xoxa-`, `xoxr-`, `xoxs-` + digits and dashes; webhook URLs `hooks.slack.com/services/...`.
 * - PEM private key blocks: `-----BEGIN ... PRIVATE KEY-----` through the matching END line.
 * - Generic credentials: a URL's userinfo password (`postgres://user:PASS@host`), a quoted literal of 8+ characters
 *   assigned to a credential-like name (`password`, `secret`, `token`, `api_key`, `access_key`, `credential`, …), and
 *   an unquoted `password=…` pair. Only the value is redacted, so the key name stays readable.
 */
export const SECRET_PATTERNS: readonly { name: string; pattern: RegExp }[] = [
  { name: "private key block", pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g },
  { name: "GitHub token", pattern: /\bgh[pousr]_[A-Za-z0-9]{36,255}\b/g },
  { name: "GitHub fine-grained token", pattern: /\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b/g },
  { name: "AWS access key id", pattern: /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g },
  { name: "Anthropic key", pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/g },
  { name: "OpenAI key", pattern: /\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}/g },
  { name: "Slack token", pattern: /\bxox[abprs]-[A-Za-z0-9-]{10,}/g },
  { name: "Slack webhook", pattern: /https:\/\/hooks\.slack\.com\/services\/[A-Za-z0-9/_-]+/g },
  // Credentials written into a URL (RFC 3986 userinfo): only the password part is the secret.
  { name: "password in a URL", pattern: /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s/:@"'<>]{1,128}:(?!\[redacted\]@)(?<secret>[^\s/@"'<>]{3,256})@/gi },
  // A quoted literal assigned to a credential-like name: `password = "…"`, `AWS_SECRET_ACCESS_KEY: '…'`, `"apiKey": "…"`.
  {
    name: "credential assignment",
    pattern: /(?:password|passwd|pwd|secret|token|api_?key|access_?key|private_?key|credential)[\w-]{0,40}["']?\s{0,4}[:=]\s{0,4}["'](?![$<{%]|\[redacted\])(?<secret>[^"'\s]{8,256})["']/gi,
  },
  // An unquoted `password=…` pair, as in a query string, a DSN or a log line.
  { name: "credential pair", pattern: /(?:password|passwd|pwd|secret|api_?key|access_?token)=(?![$<{%]|\[redacted\])(?<secret>[^\s&;"',]{6,256})/gi },
];

/**
 * The part of a match that is the secret: the named group `secret` when the pattern has one (the key name, quotes
 * and URL stay readable), else the whole match. Offsets are relative to the match.
 */
function secretSpan(m: RegExpMatchArray): { start: number; end: number } {
  const secret = m.groups?.secret;
  if (secret === undefined) return { start: 0, end: m[0].length };
  // The secret group is the last thing the pattern captures before an optional closing quote or `@`.
  const start = m[0].lastIndexOf(secret);
  return { start, end: start + secret.length };
}

/** What redaction replaces a secret with. */
export const REDACTED = "[redacted]";

/**
 * Replace every token-like string in `text` with `[redacted]`.
 *
 * @returns the redacted text and how many strings were replaced. Runs in time linear in `text` (the patterns have no
 *   nested quantifiers; the PEM block is lazy up to its END line).
 */
export function redactSecrets(text: string): { text: string; count: number } {
  let count = 0;
  let out = text;
  for (const { pattern } of SECRET_PATTERNS) {
    let result = "";
    let last = 0;
    for (const m of out.matchAll(pattern)) {
      const at = m.index ?? 0;
      const { start, end } = secretSpan(m);
      result += out.slice(last, at + start) + REDACTED;
      last = at + end;
      count++;
    }
    out = result + out.slice(last);
  }
  return { text: out, count };
}

/**
 * Find the token-like strings in `text` without changing it.
 *
 * @returns each secret with its kind (a name from {@link SECRET_PATTERNS}), its offset in `text` (UTF-16 units) and
 *   the secret itself (for a credential assignment or URL, only the value, not the key name).
 */
export function findSecrets(text: string): { kind: string; index: number; match: string }[] {
  const found: { kind: string; index: number; match: string }[] = [];
  for (const { name, pattern } of SECRET_PATTERNS) {
    for (const m of text.matchAll(pattern)) {
      const { start, end } = secretSpan(m);
      found.push({ kind: name, index: (m.index ?? 0) + start, match: m[0].slice(start, end) });
    }
  }
  return found.sort((a, b) => a.index - b.index);
}

/** Basenames of files that tools list but never serve: environment files, private keys, key stores. */
export function isSecretPath(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return /^\.env(\..*)?$/.test(base) || /\.(pem|key|p12|pfx|jks|keystore)$/i.test(base) || /^id_(rsa|dsa|ecdsa|ed25519)/.test(base);
}
