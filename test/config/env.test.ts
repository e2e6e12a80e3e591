import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import {
  checkOperatorStart,
  isLocalHost,
  loadOperatorEnv,
  operatorModelProblems,
  providerSettings,
} from "../../src/config/env.js";

const problems = (env: NodeJS.ProcessEnv) => operatorModelProblems(loadOperatorEnv(env), env);

describe("operatorModelProblems: the start-up check of the configured models", () => {
  it("accepts the default heuristic and a provider whose variables are set", () => {
    expect(problems({})).toEqual([]);
    expect(problems({ GROUNDFIX_MODEL: "anthropic:claude-sonnet-4-5", ANTHROPIC_API_KEY: "k" })).toEqual([]);
  });

  it.each([
    [
      { GROUNDFIX_MODEL: "anthropic:claude-sonnet-4-5" },
      "GROUNDFIX_MODEL: anthropic:claude-sonnet-4-5 needs the environment variable ANTHROPIC_API_KEY",
    ],
    [
      { GROUNDFIX_MODEL: "gpt-4o" },
      'GROUNDFIX_MODEL: unknown model spec "gpt-4o"; use heuristic, replay:<file> or one ' +
        "of openai:<model>, openai-chat:<model>, anthropic:<model>, openai-compatible:<model>",
    ],
    [{ GROUNDFIX_MODEL: "openai:" }, 'GROUNDFIX_MODEL: "openai:" needs a model name: openai:<model>'],
    [
      {
        GROUNDFIX_MODEL: "openai-compatible:qwen",
        GROUNDFIX_OPENAI_BASE_URL: "http://localhost:11434/v1",
        GROUNDFIX_REQUEST_TIMEOUT_MS: "soon",
      },
      'GROUNDFIX_MODEL: GROUNDFIX_REQUEST_TIMEOUT_MS="soon" is not an integer from 1 to 3600000',
    ],
    [
      { GROUNDFIX_ALLOWED_MODELS: "heuristic, openai:gpt-4o" },
      "GROUNDFIX_ALLOWED_MODELS: openai:gpt-4o needs the environment variable OPENAI_API_KEY",
    ],
    [
      { GROUNDFIX_MODEL: "openai:gpt-4o", OPENAI_API_KEY: "k", OPENAI_BASE_URL: "ftp://x" },
      "GROUNDFIX_MODEL: OPENAI_BASE_URL must be an http(s) URL, not ftp:",
    ],
  ])("names the spec and the variable: %j", (env, line) => {
    expect(problems(env)).toEqual([line]);
  });
});

describe("providerSettings", () => {
  it("gives local servers the longer time limits, a temperature of 0.2, and anthropic an output limit of 8192", () => {
    expect(
      providerSettings("openai-compatible", "qwen", { GROUNDFIX_OPENAI_BASE_URL: "http://gpu.example.com:8000/v1/" }),
    ).toMatchObject({
      baseURL: "http://gpu.example.com:8000/v1",
      local: true,
      requestTimeoutMs: 300_000,
      runTimeoutMs: 3_600_000,
      temperature: 0.2,
      maxOutputTokens: undefined,
      retries: 2,
    });
    expect(providerSettings("anthropic", "claude-sonnet-4-5", { ANTHROPIC_API_KEY: "k" })).toMatchObject({
      baseURL: "https://api.anthropic.com/v1",
      local: false,
      requestTimeoutMs: 120_000,
      runTimeoutMs: 900_000,
      temperature: undefined,
      maxOutputTokens: 8192,
    });
    expect(
      providerSettings("openai-chat", "llama", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://192.168.1.20:8080/v1" }),
    ).toMatchObject({ local: true, requestTimeoutMs: 300_000 });
  });

  it("takes the variables over the defaults", () => {
    const env = {
      ANTHROPIC_API_KEY: "k",
      GROUNDFIX_REQUEST_TIMEOUT_MS: "5000",
      GROUNDFIX_RUN_TIMEOUT_MS: "60000",
      GROUNDFIX_MODEL_RETRIES: "0",
      GROUNDFIX_TEMPERATURE: "0.7",
      GROUNDFIX_MAX_OUTPUT_TOKENS: "4096",
    };
    expect(providerSettings("anthropic", "claude-haiku-4-5", env)).toMatchObject({
      requestTimeoutMs: 5000,
      runTimeoutMs: 60_000,
      retries: 0,
      temperature: 0.7,
      maxOutputTokens: 4096,
    });
  });

  it.each([
    ["localhost", true],
    ["127.0.0.1", true],
    ["[::1]", true],
    ["10.1.2.3", true],
    ["172.20.0.5", true],
    ["172.32.0.5", false],
    ["ollama.local", true],
    ["api.openai.com", false],
    ["8.8.8.8", false],
  ])("isLocalHost(%s) is %s", (host, local) => {
    expect(isLocalHost(host)).toBe(local);
  });
});

describe("the App's start", () => {
  const index = fileURLToPath(new URL("../../src/index.ts", import.meta.url));
  /** Load the default app in a child process with `env` only, as `probot run` would, and report what it did. */
  function start(env: NodeJS.ProcessEnv) {
    const script =
      `const m = await import(${JSON.stringify(index)}); m.default({ log: { info: (o, msg) => ` +
      `console.log("INFO " + msg), warn() {}, error() {}, debug() {} }, on() {} }, {}); process.exit(0);`;
    return spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      env: { PATH: process.env.PATH, ...env },
      encoding: "utf8",
      timeout: 60_000,
    });
  }

  it("exits 1 with one line naming the variable when the configured model cannot be used", () => {
    const out = start({ GROUNDFIX_MODEL: "anthropic:claude-sonnet-4-5" });
    expect(out.status).toBe(1);
    expect(out.stderr.trim()).toBe(
      "groundfix: cannot start: GROUNDFIX_MODEL: anthropic:claude-sonnet-4-5 " +
        "needs the environment variable ANTHROPIC_API_KEY",
    );
    expect(out.stdout).not.toContain("INFO");
  });

  it("exits 1 with one line for an invalid GROUNDFIX_* value, no stack trace", () => {
    const out = start({ GROUNDFIX_CONCURRENCY: "0" });
    expect(out.status).toBe(1);
    expect(out.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^groundfix: cannot start: GROUNDFIX_CONCURRENCY: /),
    ]);
  });

  it("logs the model it uses", () => {
    const out = start({
      GROUNDFIX_MODEL: "openai-compatible:qwen2.5-coder",
      GROUNDFIX_OPENAI_BASE_URL: "http://localhost:11434/v1",
    });
    expect(out.stderr).toBe("");
    expect(out.stdout).toContain("INFO groundfix: model openai-compatible:qwen2.5-coder");
    expect(out.status).toBe(0);
  });

  it("checkOperatorStart reports the same without a process", () => {
    expect(checkOperatorStart({ GROUNDFIX_MODEL: "heuristic" })).toMatchObject({
      ok: true,
      operator: { model: "heuristic" },
    });
    expect(checkOperatorStart({ GROUNDFIX_MODEL: "nope" })).toMatchObject({ ok: false });
  });
});
