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
];

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
    out = out.replace(pattern, () => {
      count++;
      return REDACTED;
    });
  }
  return { text: out, count };
}

/**
 * Find the token-like strings in `text` without changing it.
 *
 * @returns each match with its kind (a name from {@link SECRET_PATTERNS}) and its offset in `text` (UTF-16 units).
 */
export function findSecrets(text: string): { kind: string; index: number; match: string }[] {
  const found: { kind: string; index: number; match: string }[] = [];
  for (const { name, pattern } of SECRET_PATTERNS) {
    for (const m of text.matchAll(pattern)) found.push({ kind: name, index: m.index ?? 0, match: m[0] });
  }
  return found.sort((a, b) => a.index - b.index);
}

/** Basenames of files that tools list but never serve: environment files, private keys, key stores. */
export function isSecretPath(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  return /^\.env(\..*)?$/.test(base) || /\.(pem|key|p12|pfx|jks|keystore)$/i.test(base) || /^id_(rsa|dsa|ecdsa|ed25519)/.test(base);
}
