import { afterEach, describe, expect, it, vi } from "vitest";
import { runAgent } from "../../../src/agent/index.js";
import { createModel, ModelSpecError } from "../../../src/agent/models/index.js";
import { buildSnapshot, config, REPO, task } from "../helpers.js";
import {
  anthropicServer,
  chatServer,
  ollamaServer,
  responsesServer,
  startServer,
  vllmServer,
  type ScriptTurn,
  type TestServer,
} from "./servers.js";

const SNIPPET = "  return `${when} ${entry.user.name}: ${entry.message}`;";
const GUARD = "  if (!entry.user) throw new Error(`log entry at ${entry.at} has no user`);";
const edit = {
  name: "suggest_addition",
  arguments: {
    path: "src/models/log.js",
    code_before: "function formatEntry(entry) {\n  const when = formatDate(entry.at);\n",
    code_after: `function formatEntry(entry) {\n${GUARD}\n  const when = formatDate(entry.at);\n`,
    rationale: "Name the entry without a user instead of failing on entry.user.name.",
  },
};
const answer = {
  name: "submit_answer",
  arguments: {
    summary: "formatEntry reads entry.user.name of an entry without a user.",
    affected_file: "src/models/log.js",
    affected_function: "formatEntry",
    root_cause_snippet: SNIPPET,
    confidence: 0.8,
  },
};

/**
 * The scripted investigation every wire format plays: grep, read (plus one call past the end of the file, which is
 * refused), then the answer and the edit in one turn — answer first, so the edit only lands if edits run first.
 */
const SCRIPT: ScriptTurn[] = [
  {
    text: "Searching for the failing read.",
    calls: [
      {
        name: "grep_codebase",
        arguments: {
          pattern: "entry.user.name",
          regex: null,
          path_glob: null,
          case_sensitive: null,
          max_results: null,
        },
      },
    ],
  },
  {
    calls: [
      { name: "get_file_contents", arguments: { path: "src/models/log.js", start_line: null, end_line: null } },
      { name: "get_file_contents", arguments: { path: "src/models/log.js", start_line: 999 } },
    ],
  },
  { text: "Found it.", calls: [answer, edit] },
];

let servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});
async function serve(server: Promise<TestServer>): Promise<TestServer> {
  const s = await server;
  servers.push(s);
  return s;
}

async function run(spec: string, env: NodeJS.ProcessEnv, snapshot?: Awaited<ReturnType<typeof buildSnapshot>>) {
  return runAgent({
    task: task(),
    snapshot: snapshot ?? (await buildSnapshot()),
    model: createModel(spec, { env }),
    config: config(),
  });
}

/** The investigation ended with the guard applied and the answer verified. */
function expectSolved(result: Awaited<ReturnType<typeof run>>) {
  expect(result.reason).toBeNull();
  expect(result.outcome).toBe("pr_ready");
  expect(result.files[0]!.content).toContain(`function formatEntry(entry) {\n${GUARD}\n`);
  expect(result.diagnosis).toMatchObject({
    affected_file: "src/models/log.js",
    affected_function: "formatEntry",
    root_cause_snippet: SNIPPET,
  });
  expect(result.trace.steps[1]!.tool_calls[1]).toMatchObject({ status: "invalid" });
}

describe("a scripted investigation over each wire format, on real HTTP", () => {
  it(
    "OpenAI Chat Completions (openai-compatible:): temperature " + "0.2, tool results in the history, usage reported",
    async () => {
      const s = await serve(chatServer(SCRIPT));
      const result = await run("openai-compatible:qwen2.5-coder", { GROUNDFIX_OPENAI_BASE_URL: `${s.url}/v1` });
      expectSolved(result);
      expect(s.received).toHaveLength(3);
      for (const r of s.received) expect(r.body).toMatchObject({ model: "qwen2.5-coder", temperature: 0.2 });
      const last = s.received[2]!.body.messages;
      expect(last[0]).toMatchObject({ role: "system" });
      expect(last).toContainEqual(expect.objectContaining({ role: "tool", tool_call_id: "call_0_0" }));
      expect(result.budget).toMatchObject({ enforced: true });
      expect(result.usage.input_tokens).toBeGreaterThan(1000);
    },
  );

  it("prints no AI SDK warning about the system message on stderr (it is ours, deliberately)", async () => {
    const s = await serve(chatServer(SCRIPT));
    const warned: unknown[][] = [];
    const spy = vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => void warned.push(args));
    try {
      expectSolved(await run("openai-compatible:qwen2.5-coder", { GROUNDFIX_OPENAI_BASE_URL: `${s.url}/v1` }));
    } finally {
      spy.mockRestore();
    }
    expect(s.received[0]!.body.messages[0]).toMatchObject({ role: "system" });
    expect(warned.map((a) => String(a[0]))).toEqual([]);
  });

  it("OpenAI Chat Completions behind OPENAI_BASE_URL with openai-chat:", async () => {
    const s = await serve(chatServer(SCRIPT));
    const result = await run("openai-chat:gpt-4o-mini", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${s.url}/v1` });
    expectSolved(result);
    expect(s.received[0]!.headers.authorization).toBe("Bearer k");
    expect(s.received[0]!.body.temperature).toBeUndefined();
    expect(result.usage.cost_usd).toBeGreaterThan(0);
  });

  it("OpenAI Responses (openai:): function_call_output items carry the tool results", async () => {
    const s = await serve(responsesServer(SCRIPT));
    const result = await run("openai:gpt-4o-mini", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${s.url}/v1` });
    expectSolved(result);
    expect(s.received[2]!.body.input).toContainEqual(
      expect.objectContaining({
        type: "function_call_output",
        call_id: "call_1_1",
        output: expect.stringMatching(/^INVALID/),
      }),
    );
  });

  it(
    "Anthropic Messages: output limit 8192, cache breakpoints on " +
      "system, tools and the latest turn, is_error, cache usage and cost",
    async () => {
      const s = await serve(anthropicServer(SCRIPT));
      const result = await run("anthropic:claude-sonnet-4-5", {
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: `${s.url}/v1`,
      });
      expectSolved(result);
      for (const { body } of s.received) {
        expect(body.max_tokens).toBe(8192);
        expect(body.system.at(-1).cache_control).toEqual({ type: "ephemeral" });
        expect(body.tools.at(-1).cache_control).toEqual({ type: "ephemeral" });
        expect(body.tools.slice(0, -1).every((t: any) => !t.cache_control)).toBe(true);
        expect(body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: "ephemeral" });
      }
      const results = s.received[2]!.body.messages.flatMap((m: any) =>
        Array.isArray(m.content) ? m.content : [],
      ).filter((b: any) => b.type === "tool_result");
      expect(results.find((b: any) => b.tool_use_id === "toolu_1_1")).toMatchObject({ is_error: true });
      expect(results.find((b: any) => b.tool_use_id === "toolu_1_0").is_error).toBeUndefined();
      expect(result.usage.cache_read_tokens).toBeGreaterThan(0);
      expect(result.usage.cache_write_tokens).toBeGreaterThan(0);
      // Cache reads count one tenth against the budget; the prompt tokens include them.
      expect(result.budget!.used).toBe(
        Math.round(result.usage.input_tokens - 0.9 * result.usage.cache_read_tokens! + result.usage.output_tokens),
      );
      const full = (result.usage.input_tokens * 3 + result.usage.output_tokens * 15) / 1e6;
      expect(result.usage.cost_usd).toBeGreaterThan(0);
      expect(result.usage.cost_usd).toBeLessThan(full);
    },
  );

  it(
    "an Ollama-style server: tool calls written as JSON text " +
      "are taken as calls, and the history it validates stays valid",
    async () => {
      const s = await serve(ollamaServer(SCRIPT.map((t) => ({ ...t, asText: true }))));
      const result = await run("openai-compatible:qwen2.5-coder", { GROUNDFIX_OPENAI_BASE_URL: `${s.url}/v1` });
      expectSolved(result);
      expect(result.trace.steps.map((st) => st.calls_from_text)).toEqual([1, 2, 2]);
      // The calls went back to the server as native calls with their results.
      expect(s.received[1]!.body.messages).toContainEqual(
        expect.objectContaining({ role: "tool", tool_call_id: "text_1_1" }),
      );
    },
  );

  it(
    "an Ollama-style server: arguments that are not valid " + "JSON are explained, and {} is kept in the history",
    async () => {
      const broken =
        '{"path": "src/models/log.js", "code_before": "function ' +
        'formatEntry(entry) {\n", "code_after": "x", "rationale": "r"}';
      const script: ScriptTurn[] = [{ calls: [{ name: "suggest_addition", arguments: broken }] }, ...SCRIPT];
      const s = await serve(ollamaServer(script));
      const result = await run("openai-compatible:qwen2.5-coder", { GROUNDFIX_OPENAI_BASE_URL: `${s.url}/v1` });
      const first = result.trace.steps[0]!.tool_calls[0]!;
      expect(first.status).toBe("invalid");
      expect(first.result).toMatch(
        new RegExp(
          String.raw`^INVALID: the arguments of suggest_addition are not a JSON object: a raw line ` +
            String.raw`break inside a string \(line 1\): inside JSON strings write line breaks as \\n`,
        ),
      );
      const replayed = s.received[1]!.body.messages.find((m: any) => m.tool_calls)!;
      expect(JSON.parse(replayed.tool_calls[0].function.arguments)).toEqual({});
      expect(result.outcome).toBe("pr_ready");
    },
  );

  it("an Ollama-style server with a 4096-token context: a cut prompt ends the run with that reason", async () => {
    const big = Array.from(
      { length: 400 },
      (_, i) => `  const value${i} = compute(entry, ${i}); // padding line for a long file`,
    ).join("\n");
    const snapshot = await buildSnapshot({ ...REPO, "src/big.js": `function big(entry) {\n${big}\n}\n` });
    const s = await serve(
      ollamaServer([{ calls: [{ name: "get_file_contents", arguments: { path: "src/big.js" } }] }, ...SCRIPT.slice(1)]),
    );
    const result = await run("openai-compatible:qwen2.5-coder", { GROUNDFIX_OPENAI_BASE_URL: `${s.url}/v1` }, snapshot);
    expect(result.outcome).toBe("failed_closed");
    expect(result.reason).toMatch(
      /^the server cut the prompt: it reported 4096 prompt tokens for a request of about \d+/,
    );
    expect(result.reason).toContain("raise the server's context length to at least 16k tokens");
    expect(s.received).toHaveLength(2);
  });

  it(
    "a vLLM-style server that refuses tool_choice auto is asked " +
      "again with tool_choice required, and plays the investigation",
    async () => {
      const s = await serve(vllmServer(SCRIPT));
      const result = await run("openai-compatible:Qwen/Qwen2.5-Coder-7B-Instruct", {
        GROUNDFIX_OPENAI_BASE_URL: `${s.url}/v1`,
      });
      expectSolved(result);
      expect(s.received.map((r) => r.body.tool_choice)).toEqual(["auto", "required", "required", "required"]);
    },
  );
});

describe("off the happy path", () => {
  const chatEnv = (s: TestServer, more: NodeJS.ProcessEnv = {}) => ({
    GROUNDFIX_OPENAI_BASE_URL: `${s.url}/v1`,
    ...more,
  });
  const ok = (index: number) => ({ json: scriptReply(index) });
  function scriptReply(n: number) {
    const turn = SCRIPT[n] ?? { text: "done" };
    return {
      id: `c${n}`,
      object: "chat.completion",
      created: 1,
      model: "m",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: turn.text ?? "",
            tool_calls: (turn.calls ?? []).map((c, i) => ({
              id: `call_${n}_${i}`,
              type: "function",
              function: { name: c.name, arguments: JSON.stringify(c.arguments) },
            })),
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 3000, completion_tokens: 40, total_tokens: 3040 },
    };
  }
  const turnOf = (body: any) => body.messages.filter((m: any) => m.role === "assistant").length;

  it("waits what Retry-After says after a 429 and carries on", async () => {
    const s = await serve(
      startServer((r, i) =>
        i === 0
          ? { status: 429, headers: { "retry-after": "1" }, json: { error: { message: "Rate limit reached" } } }
          : ok(turnOf(r.body)),
      ),
    );
    const result = await run("openai-compatible:m", chatEnv(s));
    expectSolved(result);
    expect(s.received[1]!.at - s.received[0]!.at).toBeGreaterThanOrEqual(900);
  });

  it("retries a 500 once and carries on", async () => {
    const s = await serve(
      startServer((r, i) =>
        i === 0 ? { status: 500, json: { error: { message: "upstream exploded" } } } : ok(turnOf(r.body)),
      ),
    );
    const result = await run("openai-compatible:m", chatEnv(s));
    expectSolved(result);
    expect(s.received).toHaveLength(4);
  });

  it("gives up after the retries with the URL, the status, the server's message and the attempt count", async () => {
    const s = await serve(startServer(() => ({ status: 503, json: { error: { message: "model is loading" } } })));
    const result = await run("openai-compatible:m", chatEnv(s, { GROUNDFIX_MODEL_RETRIES: "1" }));
    expect(result.outcome).toBe("failed_closed");
    expect(result.reason).toBe(
      `model error: openai-compatible:m: HTTP 503 from ${s.url}/v1/chat/completions ` +
        `(after 2 attempts): model is loading — provider error`,
    );
  });

  it("stops waiting for a server that never answers after GROUNDFIX_REQUEST_TIMEOUT_MS, without retrying", async () => {
    const s = await serve(startServer(() => ({ hang: true })));
    const result = await run("openai-compatible:m", chatEnv(s, { GROUNDFIX_REQUEST_TIMEOUT_MS: "300" }));
    expect(result.outcome).toBe("failed_closed");
    expect(result.reason).toBe(
      `model error: openai-compatible:m: no answer from ` +
        `${s.url}/v1/chat/completions within 0.3 s (GROUNDFIX_REQUEST_TIMEOUT_MS)`,
    );
    expect(s.received).toHaveLength(1);
  });

  it("ends the run at GROUNDFIX_RUN_TIMEOUT_MS even while a request is still waiting", async () => {
    const s = await serve(startServer(() => ({ hang: true })));
    const result = await run("openai-compatible:m", chatEnv(s, { GROUNDFIX_RUN_TIMEOUT_MS: "400" }));
    expect(result.outcome).toBe("failed_closed");
    expect(result.reason).toMatch(/^wall-clock limit spent: the run took more than 0 s/);
    expect(result.gates.rejections.at(-1)!.gate).toBe("budget");
  });

  it("names the URL and asks whether the server runs when nothing listens there", async () => {
    const gone = await startServer(() => ({ json: {} }));
    await gone.close();
    const result = await run("openai-compatible:m", chatEnv(gone, { GROUNDFIX_MODEL_RETRIES: "0" }));
    expect(result.reason).toMatch(
      new RegExp(
        `^model error: openai-compatible:m: request failed from ${gone.url}/v1/chat/completions: Cannot ` +
          `connect to API: .* — nothing answers there: is the server running, and is the base URL right\\?$`,
      ),
    );
  });

  it("names the URL for a malformed body", async () => {
    const s = await serve(startServer(() => ({ raw: "<html>502 Bad Gateway</html>" })));
    const result = await run("openai-compatible:m", chatEnv(s, { GROUNDFIX_MODEL_RETRIES: "0" }));
    expect(result.outcome).toBe("failed_closed");
    expect(result.reason).toContain(`${s.url}/v1/chat/completions`);
    expect(result.reason).toMatch(/Invalid JSON response/);
  });

  it("hints at Chat Completions for a 404 on /responses", async () => {
    const s = await serve(chatServer(SCRIPT));
    const result = await run("openai:llama3", { OPENAI_API_KEY: "k", OPENAI_BASE_URL: `${s.url}/v1` });
    expect(result.reason).toBe(
      `model error: openai:llama3: HTTP 404 from ${s.url}/v1/responses: Not found: /v1/responses ` +
        `— this server has no Responses API (/responses); use openai-chat:llama3 with OPENAI_BASE_URL, ` +
        `or openai-compatible:llama3 with GROUNDFIX_OPENAI_BASE_URL (Chat Completions)`,
    );
  });

  it("hints at the context length when the server says the prompt is too long", async () => {
    const s = await serve(
      startServer(() => ({
        status: 400,
        json: {
          error: { message: "This model's maximum context length is 4096 tokens. However, you requested 5210 tokens." },
        },
      })),
    );
    const result = await run("openai-compatible:m", chatEnv(s));
    expect(result.reason).toMatch(
      new RegExp(
        String.raw`HTTP 400 from .*: This model's maximum context length is 4096 tokens\. .* — the prompt ` +
          String.raw`does not fit the model's context: raise the server's context length to at least 16k tokens`,
      ),
    );
  });

  it("says to check the key on a 401, and redacts a key the server echoes", async () => {
    const s = await serve(
      startServer(() => ({
        status: 401,
        json: { error: { message: "Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD" } },
      })),
    );
    const result = await run(
      "openai-compatible:m",
      chatEnv(s, { GROUNDFIX_OPENAI_API_KEY: "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD" }),
    );
    expect(result.reason).toMatch(/HTTP 401 from .*: Incorrect API key provided: .* — check the API key$/);
    expect(result.reason).not.toContain("abcdefghijklmnopqrstuvwxyz0123456789");
  });

  it("ends after 3 turns in a row without a tool call, naming the cause", async () => {
    const s = await serve(
      chatServer([{ text: "The bug is in log.js." }, { text: "As I said, log.js." }, { text: "log.js." }, ...SCRIPT]),
    );
    const result = await run("openai-compatible:m", chatEnv(s));
    expect(result.outcome).toBe("failed_closed");
    expect(result.reason).toMatch(/^3 turns in a row without a tool call: the model answers in plain text/);
    expect(s.received).toHaveLength(3);
  });
});

describe("createModel", () => {
  it.each([
    ["openai:gpt-4o", {}, "OPENAI_API_KEY"],
    ["openai-chat:gpt-4o", {}, "OPENAI_API_KEY"],
    ["anthropic:claude-sonnet-4-5", {}, "ANTHROPIC_API_KEY"],
    ["openai-compatible:llama3", {}, "GROUNDFIX_OPENAI_BASE_URL"],
    ["openai-compatible:llama3", { GROUNDFIX_OPENAI_BASE_URL: "localhost:11434" }, "GROUNDFIX_OPENAI_BASE_URL"],
    [
      "openai-compatible:llama3",
      { GROUNDFIX_OPENAI_BASE_URL: "http://localhost:11434/v1", GROUNDFIX_TEMPERATURE: "hot" },
      "GROUNDFIX_TEMPERATURE",
    ],
    [
      "anthropic:claude-sonnet-4-5",
      { ANTHROPIC_API_KEY: "k", GROUNDFIX_MAX_OUTPUT_TOKENS: "12.5" },
      "GROUNDFIX_MAX_OUTPUT_TOKENS",
    ],
    ["openai:gpt-4o", { OPENAI_API_KEY: "k", GROUNDFIX_REQUEST_TIMEOUT_MS: "0" }, "GROUNDFIX_REQUEST_TIMEOUT_MS"],
  ] as const)("%s with %j throws ModelSpecError naming %s", (spec, env, variable) => {
    expect(() => createModel(spec, { env })).toThrow(ModelSpecError);
    expect(() => createModel(spec, { env })).toThrow(variable);
  });

  it.each(["gpt-4o", "openai:", "openai-compatible", "replay:", "local:foo"])(
    "rejects the spec %j with the specs it understands",
    (spec) => {
      expect(() => createModel(spec, { env: {} })).toThrow(ModelSpecError);
    },
  );

  it(
    "sends GROUNDFIX_OPENAI_API_KEY as a bearer token, and " +
      "GROUNDFIX_TEMPERATURE / GROUNDFIX_MAX_OUTPUT_TOKENS as set",
    async () => {
      const s = await serve(chatServer(SCRIPT));
      const model = createModel("openai-compatible:qwen", {
        env: {
          GROUNDFIX_OPENAI_BASE_URL: `${s.url}/v1`,
          GROUNDFIX_OPENAI_API_KEY: "local-secret",
          GROUNDFIX_TEMPERATURE: "0",
          GROUNDFIX_MAX_OUTPUT_TOKENS: "2048",
        },
      });
      await model.next({ messages: [{ role: "user", content: "hi" }], tools: [] });
      expect(s.received[0]!.headers.authorization).toBe("Bearer local-secret");
      expect(s.received[0]!.body).toMatchObject({ temperature: 0, max_tokens: 2048 });
    },
  );
});
