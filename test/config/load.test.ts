import { describe, expect, it } from "vitest";
import { loadOperatorEnv, OperatorEnvError, selectModelSpec } from "../../src/config/env.js";
import { loadRepoConfig, RepoConfigError } from "../../src/config/load.js";

const ctx = (value: unknown) => ({ config: async () => value as any });

describe("loadRepoConfig", () => {
  it("fills defaults when there is no file", async () => {
    const cfg = await loadRepoConfig(ctx(null));
    expect(cfg.trigger_label).toBe("groundfix");
    expect(cfg.thresholds.pull_request).toBe(0.7);
  });

  it("quotes the bad key and keeps the valid trigger keys as a fallback", async () => {
    const err = await loadRepoConfig(ctx({ trigger_label: "fixme", thresholds: { pull_request: 2 } })).catch((e) => e);
    expect(err).toBeInstanceOf(RepoConfigError);
    expect(err.issues).toEqual([expect.stringMatching(/^thresholds\.pull_request: /)]);
    expect(err.fallback.trigger_label).toBe("fixme");
  });

  it("turns a YAML parse error into a RepoConfigError with the parser's reason", async () => {
    const yamlError = new Error(
      "[@probot/octokit-plugin-config] Configuration could not be parsed from x (invalid YAML)",
      {
        cause: new Error("Nested mappings are not allowed in compact mappings at line 1, column 8:\n\nmore"),
      },
    );
    const err = await loadRepoConfig({
      config: async () => {
        throw yamlError;
      },
    }).catch((e) => e);
    expect(err).toBeInstanceOf(RepoConfigError);
    expect(err.issues).toEqual([
      "(file): invalid YAML: Nested mappings are not allowed in compact mappings at line 1, column 8",
    ]);
  });

  it("lets GitHub errors through", async () => {
    const boom = Object.assign(new Error("Server Error"), { status: 502 });
    await expect(
      loadRepoConfig({
        config: async () => {
          throw boom;
        },
      }),
    ).rejects.toBe(boom);
  });
});

describe("operator env", () => {
  it("has defaults and parses lists", () => {
    expect(loadOperatorEnv({})).toEqual({
      model: "heuristic",
      allowedModels: [],
      openaiBaseUrl: undefined,
      concurrency: 2,
    });
    expect(
      loadOperatorEnv({
        GROUNDFIX_MODEL: "openai:gpt-4o-mini",
        GROUNDFIX_ALLOWED_MODELS: " anthropic:claude-x, ,openai:gpt-4o ",
        GROUNDFIX_CONCURRENCY: "4",
      }),
    ).toEqual({
      model: "openai:gpt-4o-mini",
      allowedModels: ["anthropic:claude-x", "openai:gpt-4o"],
      openaiBaseUrl: undefined,
      concurrency: 4,
    });
  });

  it("rejects bad values by name", () => {
    expect(() => loadOperatorEnv({ GROUNDFIX_CONCURRENCY: "0" })).toThrow(OperatorEnvError);
    expect(() => loadOperatorEnv({ GROUNDFIX_OPENAI_BASE_URL: "not a url" })).toThrow(/GROUNDFIX_OPENAI_BASE_URL/);
  });

  it("lets a repository pick only a model the operator allowed", () => {
    const op = loadOperatorEnv({
      GROUNDFIX_MODEL: "openai:gpt-4o-mini",
      GROUNDFIX_ALLOWED_MODELS: "anthropic:claude-x",
    });
    expect(selectModelSpec(op, {})).toEqual({ ok: true, spec: "openai:gpt-4o-mini" });
    expect(selectModelSpec(op, { model: "heuristic" })).toEqual({ ok: true, spec: "heuristic" });
    expect(selectModelSpec(op, { model: "anthropic:claude-x" })).toEqual({ ok: true, spec: "anthropic:claude-x" });
    const refused = selectModelSpec(op, { model: "openai:o3" });
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.message).toContain('model: "openai:o3"');
  });
});
