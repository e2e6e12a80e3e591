import { describe, expect, it } from "vitest";
import { findSecrets, isSecretPath, redactSecrets } from "../../src/grounding/secrets.js";

const samples = {
  github: "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  aws: "AKIA" + "IOSFODNN7EXAMPLE",
  openai: "sk-proj-" + "abcdefghijklmnopqrstuvwxyz012345",
  anthropic: "sk-ant-" + "api03-abcdefghijklmnopqrstuvwxyz",
  slack: "xoxb-" + "123456789012-abcdefghijkl",
};

describe("redactSecrets", () => {
  it.each(Object.entries(samples))("redacts a %s key", (_kind, key) => {
    const { text, count } = redactSecrets(`const k = "${key}";`);
    expect(text).toBe('const k = "[redacted]";');
    expect(count).toBe(1);
  });

  it("redacts a whole private key block", () => {
    const pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----";
    expect(redactSecrets(`before\n${pem}\nafter`).text).toBe("before\n[redacted]\nafter");
  });

  it.each([
    ["a password in a URL", "DATABASE_URL=postgres://admin:S3cr3tP4ss@db.internal:5432/app", "DATABASE_URL=postgres://admin:[redacted]@db.internal:5432/app"],
    ["a quoted password literal", 'const password = "hunter2hunter2";', 'const password = "[redacted]";'],
    ["an AWS secret access key", 'AWS_SECRET_ACCESS_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"', 'AWS_SECRET_ACCESS_KEY = "[redacted]"'],
    ["a JSON api key", '{ "apiKey": "abcd1234efgh5678" }', '{ "apiKey": "[redacted]" }'],
    ["a password pair in a log line", "login failed for bob password=hunter2hunter2 from 10.0.0.1", "login failed for bob password=[redacted] from 10.0.0.1"],
  ])("redacts only the value of %s", (_kind, input, expected) => {
    expect(redactSecrets(input).text).toBe(expected);
    expect(findSecrets(input)).toHaveLength(1);
  });

  it("does not treat references to secrets as secrets", () => {
    const code = [
      "const password = process.env.DB_PASSWORD;",
      'const token = "${GITHUB_TOKEN}";',
      "const apiKey = getApiKey();",
      'headers: { authorization: "Bearer " + token }',
      'const url = "https://example.com/path";',
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

describe("isSecretPath", () => {
  it.each([".env", "config/.env.production", "certs/server.pem", "id_rsa", "keys/id_ed25519.pub"])("%s is secret", (p) =>
    expect(isSecretPath(p)).toBe(true),
  );
  it.each(["src/env.ts", "README.md", "environment.yml"])("%s is not", (p) => expect(isSecretPath(p)).toBe(false));
});
