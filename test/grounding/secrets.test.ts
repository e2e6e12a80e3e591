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
