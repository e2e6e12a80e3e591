import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = new URL("../../../", import.meta.url);
const read = (name: string) => readFileSync(new URL(name, root), "utf8");

describe("app.yml, the GitHub App manifest", () => {
  const manifest = parse(read("app.yml"));

  it("subscribes to every event groundfix handles", () => {
    expect([...manifest.default_events].sort()).toEqual(
      [
        "check_run",
        "check_suite",
        "code_scanning_alert",
        "issue_comment",
        "issues",
        "pull_request",
        "repository_dispatch",
      ].sort(),
    );
  });

  it("asks for the least permissions, never workflows or administration", () => {
    expect(manifest.default_permissions).toEqual({
      contents: "write",
      pull_requests: "write",
      issues: "write",
      checks: "write",
      metadata: "read",
      security_events: "read",
    });
    expect(manifest.hook_attributes).toBeUndefined(); // Probot's setup fills the webhook URL in
  });
});

describe(".env.example", () => {
  it("documents every variable the app and Probot read", () => {
    const text = read(".env.example");
    for (const name of [
      "APP_ID",
      "PRIVATE_KEY",
      "PRIVATE_KEY_PATH",
      "WEBHOOK_SECRET",
      "WEBHOOK_PROXY_URL",
      "PORT",
      "HOST",
      "LOG_LEVEL",
      "GROUNDFIX_MODEL",
      "GROUNDFIX_ALLOWED_MODELS",
      "GROUNDFIX_OPENAI_BASE_URL",
      "GROUNDFIX_OPENAI_API_KEY",
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "GROUNDFIX_CONCURRENCY",
    ]) {
      expect(text).toMatch(new RegExp(`^#? ?${name}=`, "m"));
    }
  });

  it("documents every GROUNDFIX_* variable the source reads (a new one cannot go undocumented)", () => {
    const text = read(".env.example");
    const sources = ["src/config/env.ts", "src/agent/models/ai-sdk.ts", "src/agent/models/index.ts"]
      .map(read)
      .join("\n");
    const names = new Set(sources.match(/\bGROUNDFIX_[A-Z][A-Z_]*[A-Z]\b/g) ?? []);
    expect(names.size).toBeGreaterThan(3);
    for (const name of names) expect(text, name).toMatch(new RegExp(`^#? ?${name}=`, "m"));
  });
});

describe("Dockerfile", () => {
  it("builds in one stage and runs the built app as a non-root user with production dependencies only", () => {
    const text = read("Dockerfile");
    expect(text).toMatch(/^FROM node:20-slim AS build/m);
    expect(text).toContain("RUN npm ci --omit=dev");
    expect(text).toContain("COPY --from=build /app/dist ./dist");
    expect(text).toMatch(/^USER node$/m);
    expect(text).toContain('CMD ["node", "dist/cli/main.js", "serve"]');
  });
});
