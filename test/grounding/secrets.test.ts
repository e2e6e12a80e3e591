import { describe, expect, it } from "vitest";
import {
  maybeInSecret,
  redact,
  findSecrets,
  isSecretPath,
  multiLineSecretLines,
  redactDeep,
  redactSecrets,
} from "../../src/grounding/secrets.js";

const samples = {
  github: "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  aws: "AKIA" + "IOSFODNN7EXAMPLE",
  openai: "sk-proj-" + "abcdefghijklmnopqrstuvwxyz012345",
  anthropic: "sk-ant-" + "api03-abcdefghijklmnopqrstuvwxyz",
  slack: "xoxb-" + "123456789012-abcdefghijkl",
  "GitHub OAuth": "gho_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  "GitHub user-to-server": "ghu_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  "GitHub server-to-server": "ghs_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  "GitHub refresh": "ghr_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  "GitHub fine-grained":
    "github_pat_" + "11ABCDEFG0123456789abc_" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456",
  "AWS session": "ASIA" + "IOSFODNN7EXAMPLE",
  "Stripe live": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
  "Stripe restricted": "rk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
  "Stripe test": "sk_test_" + "4eC39HqLyjWDarjtT1zdp7dc",
  "Slack user": "xoxp-" + "123456789012-abcdefghijkl",
  Google: "AIza" + "SyD-abcdefghijklmnopqrstuvwxyz01234",
  SendGrid: "SG." + "abcdefghijklmnopqrstuv" + "." + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQ",
  npm: "npm_" + "abcdefghijklmnopqrstuvwxyzABCDEFGHIJ",
  JWT: "eyJhbGciOiJIUzI1NiJ9" + ".eyJzdWIiOiIxMjM0NTY3ODkwIn0" + ".dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
};

describe("redactSecrets", () => {
  it.each(Object.entries(samples))("redacts a %s key", (_kind, key) => {
    const { text, count } = redactSecrets(`const k = "${key}";`);
    expect(text).toBe('const k = "[redacted]";');
    expect(count).toBe(1);
  });

  it("redacts every line of a private key block and keeps the line count", () => {
    const pem =
      "-----BEGIN RSA PRIVATE " +
      "KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\nabc4/+Qw==\n-----END RSA PRIVATE KEY-----";
    expect(redactSecrets(`before\n${pem}\nafter`)).toEqual({
      text: "before\n[redacted]\n[redacted]\n[redacted]\n[redacted]\nafter",
      count: 1,
    });
  });

  it("leaves a bare BEGIN line alone (prose about keys) but redacts a key in a string literal with \\n escapes", () => {
    const prose =
      'throw new Error("the key holds only the line -----BEGIN RSA PRIVATE KEY-----; see the docs");\nnext();';
    expect(redactSecrets(prose).count).toBe(0);
    const inline =
      'const key = "-----BEGIN RSA PRIVATE ' +
      'KEY-----\\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\\n-----END RSA PRIVATE KEY-----";';
    expect(redactSecrets(inline).text).toBe('const key = "[redacted]";');
  });

  it("redacts a key block written as an array of quoted lines, however deeply indented", () => {
    const indent = " ".repeat(16);
    const text = [
      "const fixtures = {",
      "  key: [",
      `${indent}"-----BEGIN RSA PRIVATE KEY-----",`,
      `${indent}"MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo",`,
      `${indent}"abc4/+QwMIIEowIBAAKCAQEAu1SU1Lf==",`,
      `${indent}"-----END RSA PRIVATE KEY-----",`,
      '  ].join("\\n"),',
      "};",
    ].join("\n");
    const out = redactSecrets(text).text;
    expect(out).not.toMatch(/MIIE|abc4|BEGIN RSA/);
    expect(out.split("\n")).toHaveLength(8);
    expect(out.split("\n").slice(0, 2)).toEqual(["const fixtures = {", "  key: ["]);
    expect(out.split("\n").slice(6)).toEqual(['  ].join("\\n"),', "};"]);
  });

  it("redacts an unterminated private key block to the end of the text, CRLF kept", () => {
    const text = "x\r\n-----BEGIN OPENSSH PRIVATE KEY-----\r\nb3BlbnNzaC1rZXktdjEAAAAA\r\n\r\nAAAA\r\n";
    expect(redactSecrets(text).text).toBe("x\r\n[redacted]\r\n[redacted]\r\n\r\n[redacted]\r\n");
    expect(multiLineSecretLines(text)).toEqual(new Set([2, 3, 4, 5, 6]));
  });

  it.each([
    [
      "a password in a URL",
      "DATABASE_URL=postgres://admin:S3cr3tP4ss@db.internal:5432/app",
      "DATABASE_URL=postgres://admin:[redacted]@db.internal:5432/app",
    ],
    ["a quoted password literal", 'const password = "hunter2hunter2";', 'const password = "[redacted]";'],
    [
      "an AWS secret access key",
      'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"',
      'AWS_SECRET_ACCESS_KEY = "[redacted]"',
    ],
    ["a JSON api key", '{ "apiKey": "abcd1234efgh5678" }', '{ "apiKey": "[redacted]" }'],
    [
      "a password pair in a log line",
      "login failed for bob password=hunter2hunter2 from 10.0.0.1",
      "login failed for bob password=[redacted] from 10.0.0.1",
    ],
    [
      "an unquoted AWS secret key",
      "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "aws_secret_access_key = [redacted]",
    ],
    [
      "an env-style AWS secret key",
      "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
      "AWS_SECRET_ACCESS_KEY=[redacted]",
    ],
    ["a secret= pair", "https://x.test/cb?secret=Zm9vYmFyYmF6&x=1", "https://x.test/cb?secret=[redacted]&x=1"],
    [
      "an env line naming a token",
      "export DEPLOY_TOKEN=a8f5f167f44f4964e6c998dee827110c",
      "export DEPLOY_TOKEN=[redacted]",
    ],
    [
      "an env line naming a key",
      "  STRIPE_SIGNING_KEY='whsec_1234567890abcdef'  # prod",
      "  STRIPE_SIGNING_KEY='[redacted]'  # prod",
    ],
  ])("redacts only the value of %s", (_kind, input, expected) => {
    expect(redactSecrets(input).text).toBe(expected);
    expect(findSecrets(input)).toHaveLength(1);
  });

  it("redacts a .env line's value where it is, and its copies in the line's comment", () => {
    // Before, the span was found by searching the match for the value's text: the comment's copy was hidden and the
    // value itself shown.
    expect(redact("API_TOKEN=Abc123SecretXyz # Abc123SecretXyz")).toBe("API_TOKEN=[redacted] # [redacted]");
    expect(redact("export DB_PASSWORD=hunter2hunter2 # was hunter2hunter2, then hunter2hunter2\n")).toBe(
      "export DB_PASSWORD=[redacted] # was [redacted], then [redacted]\n",
    );
    // A word of the comment's copy is "maybe in a secret" for the cheap per-occurrence test too.
    const line = "API_TOKEN=Abc123SecretXyz # Abc123SecretXyz";
    const copy = line.lastIndexOf("Abc123SecretXyz");
    expect(maybeInSecret(line, copy, copy + 6)).toBe(true);
  });

  it("does not treat references to secrets as secrets", () => {
    const code = [
      "const password = process.env.DB_PASSWORD;",
      'const token = "${GITHUB_TOKEN}";',
      "const apiKey = getApiKey();",
      'headers: { authorization: "Bearer " + token }',
      'const url = "https://example.com/path";',
      "API_KEY=${API_KEY}",
      "SORT_KEY=created_at_desc",
      "TOKEN_TTL=3600",
      "pk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    ].join("\n");
    expect(findSecrets(code)).toEqual([]);
  });

  it("is idempotent: redacting twice changes nothing more", () => {
    const once = redactSecrets('password = "hunter2hunter2" and postgres://a:bcdef@h').text;
    expect(redactSecrets(once)).toEqual({ text: once, count: 0 });
  });

  it("leaves ordinary code alone", () => {
    const code = "const skip = task.id; // sk-short\nexport function ghp() {}";
    expect(redactSecrets(code)).toEqual({ text: code, count: 0 });
    expect(findSecrets(code)).toEqual([]);
  });
});

describe("findSecrets and redactSecrets agree", () => {
  it("reports one finding per redacted span, also where two patterns overlap", () => {
    const text =
      'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" and ghp_' +
      "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    const found = findSecrets(text);
    const { text: out, count } = redactSecrets(text);
    expect(count).toBe(found.length);
    expect(found.map((f) => f.kind)).toEqual(["AWS secret access key", "GitHub token"]);
    for (const f of found) expect(out).not.toContain(f.match);
  });

  it("redactDeep redacts every string of a JSON document and keeps its shape", () => {
    const doc = {
      turns: [{ text: "x", tool_calls: [{ name: "t", arguments: { s: samples.github, n: 3, b: null } }] }],
    };
    expect(redactDeep(doc)).toEqual({
      turns: [{ text: "x", tool_calls: [{ name: "t", arguments: { s: "[redacted]", n: 3, b: null } }] }],
    });
  });

  it("scans a long adversarial text in linear time (no backtracking blow-up)", () => {
    const text = "password=".repeat(20_000) + "a".repeat(100_000) + "-----BEGIN PRIVATE KEY-----".repeat(2000);
    expect(redactSecrets(text).count).toBeGreaterThan(0);
  });
});

describe("isSecretPath", () => {
  it.each([
    ".env",
    "config/.env.production",
    ".envrc",
    "certs/server.pem",
    "certs/SERVER.PEM",
    "tls/site.key",
    "store/cert.p12",
    "id_rsa",
    "keys/id_ed25519.pub",
    ".aws/credentials",
    "config/secrets.yml",
    "deploy/Secrets.JSON",
    ".git-credentials",
    ".netrc",
  ])("%s is secret", (p) => expect(isSecretPath(p)).toBe(true));
  it.each([
    "src/env.ts",
    "README.md",
    "environment.yml",
    "src/grounding/secrets.ts",
    "app/credentials.py",
    "keyboard.js",
  ])("%s is not", (p) => expect(isSecretPath(p)).toBe(false));
});
