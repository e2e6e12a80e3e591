import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/**
 * Run one agent run in a fresh process whose module resolver reports every module it resolves from the AI SDK
 * (`ai`, `@ai-sdk/*`), and return those lines and the outcome.
 */
function runIn(spec: string): { sdk: string[]; outcome: string | undefined } {
  const hook =
    `export async function resolve(s, c, n) { const r = await n(s, c); if ` +
    `(/node_modules\\/(ai|@ai-sdk\\/[^/]+)\\//.test(r.url)) console.log("SDK " + s); return r; }`;
  const script = [
    `import { register } from "node:module";`,
    `register("data:text/javascript," + encodeURIComponent(${JSON.stringify(hook)}));`,
    `const { runAgent, createModel } = await import(${JSON.stringify(`${root}src/agent/index.ts`)});`,
    `const { buildSnapshot, config, task } = await import(${JSON.stringify(`${root}test/agent/helpers.ts`)});`,
    `const model = createModel(${JSON.stringify(spec)}, { env: { ` +
      `GROUNDFIX_OPENAI_BASE_URL: "http://127.0.0.1:9/v1", GROUNDFIX_MODEL_RETRIES: "0" } });`,
    `const r = await runAgent({ task: task(), snapshot: await buildSnapshot(), model, config: config() });`,
    `console.log("OUTCOME " + r.outcome);`,
  ].join("\n");
  const out = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
    timeout: 60_000,
  });
  const lines = out.stdout.split("\n");
  return {
    sdk: lines.filter((l) => l.startsWith("SDK ")),
    outcome: lines.find((l) => l.startsWith("OUTCOME "))?.slice(8),
  };
}

describe("the AI SDK is loaded only for provider models", () => {
  it("a heuristic run resolves no module of ai or @ai-sdk/*", () => {
    expect(runIn("heuristic")).toEqual({ sdk: [], outcome: "pr_ready" });
  });

  it("a provider model loads it on its first turn (here against a closed port)", () => {
    const run = runIn("openai-compatible:m");
    expect(run.outcome).toBe("failed_closed");
    expect(run.sdk).toContain("SDK ai");
  });
});
