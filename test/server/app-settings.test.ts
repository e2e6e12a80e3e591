import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { appSettingsProblem } from "../../src/cli/serve.js";
import { testPrivateKey } from "../fixtures/github.js";

const empty = () => mkdtempSync(join(tmpdir(), "gf-serve-"));

describe("appSettingsProblem: settings with which Probot would not run groundfix", () => {
  it("refuses APP_ID without any private key also outside production (Probot would start its setup app)", () => {
    expect(appSettingsProblem({ APP_ID: "123", WEBHOOK_SECRET: "s3cret" }, empty())).toBe(
      "PRIVATE_KEY or PRIVATE_KEY_PATH is not set (APP_ID is set, so the GitHub App's private key is needed)",
    );
  });

  it("accepts the one *.pem file of the working directory, where Probot looks last", () => {
    const cwd = empty();
    writeFileSync(join(cwd, "my-app.2026-12-01.private-key.pem"), testPrivateKey());
    expect(appSettingsProblem({ APP_ID: "123", WEBHOOK_SECRET: "s3cret" }, cwd)).toBeNull();
  });

  it("refuses a one-line PRIVATE_KEY whose BEGIN and END name different kinds of key", () => {
    const env = {
      NODE_ENV: "production",
      APP_ID: "123",
      WEBHOOK_SECRET: "s3cret",
      PRIVATE_KEY: "-----BEGIN RSA PRIVATE KEY-----MIIEowIBAAKCAQEA-----END PRIVATE KEY-----",
    };
    expect(appSettingsProblem(env, empty())).toBe("PRIVATE_KEY is not a valid PEM private key");
  });

  it("accepts a complete setting, and the setup flow (no APP_ID) outside production", () => {
    expect(appSettingsProblem({ APP_ID: "1", WEBHOOK_SECRET: "s", PRIVATE_KEY: testPrivateKey() }, empty())).toBeNull();
    expect(appSettingsProblem({}, empty())).toBeNull();
  });
});
