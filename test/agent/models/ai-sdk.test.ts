import nock from "nock";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { runAgent } from "../../../src/agent/index.js";
import { createModel, ModelSpecError } from "../../../src/agent/models/index.js";
import type { Message, ToolSpec } from "../../../src/agent/models/types.js";
import { buildSnapshot, config, task } from "../helpers.js";

const tools: ToolSpec[] = [
  {
    name: "grep_codebase",
    description: "Find text.",
    parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"], additionalProperties: false },
  },
];
const conversation: Message[] = [
  { role: "system", content: "You are groundfix." },
  { role: "user", content: "Problem title: crash" },
  { role: "assistant", content: "Searching.", tool_calls: [{ id: "call_1", name: "grep_codebase", arguments: { pattern: "user.name" } }] },
  { role: "tool", tool_call_id: "call_1", name: "grep_codebase", content: "src/models/log.js:6: return user.name" },
];

/** One provider's documented wire format: where it is, what a tool call, plain text and an error look like. */
interface Wire {
  spec: string;
  env: NodeJS.ProcessEnv;
  origin: string;
  path: string;
  toolCall: Record<string, any>;
  text: Record<string, any>;
  error: (status: number, message: string) => Record<string, any>;
  /** Assert the request carried the tools and the tool result of `conversation`. */
  checkRequest: (body: any) => void;
}

const wires: Wire[] = [
  {
    // @ai-sdk/openai v2: openai(model) is the Responses API (POST /v1/responses).
    spec: "openai:gpt-4o-mini",
    env: { OPENAI_API_KEY: "test-key" },
    origin: "https://api.openai.com",
    path: "/v1/responses",
    toolCall: {
      id: "resp_1",
      object: "response",
      created_at: 1741476777,
      status: "completed",
      model: "gpt-4o-mini-2024-07-18",
      output: [
        { type: "function_call", id: "fc_1", call_id: "call_2", name: "grep_codebase", arguments: '{"pattern":"formatEntry"}', status: "completed" },
      ],
      usage: { input_tokens: 120, input_tokens_details: { cached_tokens: 0 }, output_tokens: 15, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 135 },
    },
    text: {
      id: "resp_2",
      object: "response",
      created_at: 1741476778,
      status: "completed",
      model: "gpt-4o-mini-2024-07-18",
      output: [{ type: "message", id: "msg_1", status: "completed", role: "assistant", content: [{ type: "output_text", text: "The bug is in log.js.", annotations: [] }] }],
      usage: { input_tokens: 100, output_tokens: 7, total_tokens: 107 },
    },
    error: (status, message) => ({ error: { message, type: "invalid_request_error", param: null, code: status === 401 ? "invalid_api_key" : null } }),
    checkRequest(body) {
      expect(body.model).toBe("gpt-4o-mini");
      expect(body.tools[0]).toMatchObject({ type: "function", name: "grep_codebase", parameters: { required: ["pattern"] } });
      expect(body.input).toContainEqual(expect.objectContaining({ type: "function_call", call_id: "call_1", name: "grep_codebase" }));
      expect(body.input).toContainEqual(expect.objectContaining({ type: "function_call_output", call_id: "call_1", output: "src/models/log.js:6: return user.name" }));
    },
  },
  {
    spec: "anthropic:claude-sonnet-4-5",
    env: { ANTHROPIC_API_KEY: "test-key" },
    origin: "https://api.anthropic.com",
    path: "/v1/messages",
    toolCall: {
      id: "msg_1",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [
        { type: "text", text: "Let me search." },
        { type: "tool_use", id: "toolu_1", name: "grep_codebase", input: { pattern: "formatEntry" } },
      ],
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 120, output_tokens: 15 },
    },
    text: {
      id: "msg_2",
      type: "message",
      role: "assistant",
      model: "claude-sonnet-4-5",
      content: [{ type: "text", text: "The bug is in log.js." }],
      stop_reason: "end_turn",
      stop_sequence: null,
      usage: { input_tokens: 100, output_tokens: 7 },
    },
    error: (status, message) => ({
      type: "error",
      error: { type: status === 401 ? "authentication_error" : status === 429 ? "rate_limit_error" : "api_error", message },
    }),
    checkRequest(body) {
      expect(body.model).toBe("claude-sonnet-4-5");
      expect(body.system).toEqual([expect.objectContaining({ type: "text", text: "You are groundfix." })]);
      expect(body.tools[0]).toMatchObject({ name: "grep_codebase", input_schema: { required: ["pattern"] } });
      const blocks = body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content : []));
      expect(blocks).toContainEqual(expect.objectContaining({ type: "tool_use", id: "call_1", name: "grep_codebase" }));
      expect(blocks).toContainEqual(expect.objectContaining({ type: "tool_result", tool_use_id: "call_1" }));
    },
  },
  {
    spec: "openai-compatible:qwen2.5-coder",
    env: { GROUNDFIX_OPENAI_BASE_URL: "http://localhost:11434/v1" },
    origin: "http://localhost:11434",
    path: "/v1/chat/completions",
    toolCall: {
      id: "chatcmpl-1",
      object: "chat.completion",
      created: 1741476777,
      model: "qwen2.5-coder",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "",
            tool_calls: [{ id: "call_2", type: "function", function: { name: "grep_codebase", arguments: '{"pattern":"formatEntry"}' } }],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 120, completion_tokens: 15, total_tokens: 135 },
    },
    text: {
      id: "chatcmpl-2",
      object: "chat.completion",
      created: 1741476778,
      model: "qwen2.5-coder",
      choices: [{ index: 0, message: { role: "assistant", content: "The bug is in log.js." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 },
    },
    error: (_status, message) => ({ error: { message, type: "server_error" } }),
    checkRequest(body) {
      expect(body.model).toBe("qwen2.5-coder");
      expect(body.messages[0]).toEqual({ role: "system", content: "You are groundfix." });
      expect(body.tools[0]).toMatchObject({ type: "function", function: { name: "grep_codebase" } });
      expect(body.messages).toContainEqual(
        expect.objectContaining({ role: "assistant", tool_calls: [expect.objectContaining({ id: "call_1", function: expect.objectContaining({ name: "grep_codebase" }) })] }),
      );
      expect(body.messages).toContainEqual({ role: "tool", tool_call_id: "call_1", content: "src/models/log.js:6: return user.name" });
    },
  },
];

beforeAll(() => nock.disableNetConnect());
afterEach(() => nock.cleanAll());
afterAll(() => nock.enableNetConnect());

describe.each(wires)("$spec over its documented wire format", (wire) => {
  it("returns a tool call with its id, parsed arguments and reported usage, after sending the tools and tool results", async () => {
    let body: any;
    const scope = nock(wire.origin)
      .post(wire.path, (b) => ((body = b), true))
      .reply(200, wire.toolCall);
    const turn = await createModel(wire.spec, { env: wire.env }).next({ messages: conversation, tools });
    expect(scope.isDone()).toBe(true);
    wire.checkRequest(body);
    expect(turn.tool_calls).toEqual([{ id: expect.any(String), name: "grep_codebase", arguments: { pattern: "formatEntry" } }]);
    expect(turn.usage).toEqual({ input_tokens: 120, output_tokens: 15 });
  });

  it("returns plain text as a turn without tool calls", async () => {
    nock(wire.origin).post(wire.path).reply(200, wire.text);
    const turn = await createModel(wire.spec, { env: wire.env }).next({ messages: conversation.slice(0, 2), tools });
    expect(turn).toEqual({ text: "The bug is in log.js.", tool_calls: [], usage: { input_tokens: 100, output_tokens: 7 } });
  });

  it.each([
    [401, "Incorrect API key provided", /HTTP 401 \(check the API key\): Incorrect API key provided$/],
    [429, "Rate limit reached for requests", /HTTP 429 \(rate limited or out of quota\): Rate limit reached for requests$/],
    [500, "The server had an error while processing your request", /HTTP 500 \(provider error\): The server had an error/],
  ])("fails the run closed on HTTP %i with a readable one-line reason, without retrying", async (status, message, reason) => {
    const scope = nock(wire.origin).post(wire.path).once().reply(status, wire.error(status, message));
    const result = await runAgent({ task: task(), snapshot: await buildSnapshot(), model: createModel(wire.spec, { env: wire.env }), config: config() });
    expect(scope.isDone()).toBe(true);
    expect(result.outcome).toBe("failed_closed");
    expect(result.reason).toMatch(new RegExp(`^model error: ${wire.spec.replace(/[.]/g, "\\.")}: `));
    expect(result.reason).toMatch(reason);
    expect(result.reason).not.toContain("\n");
  });
});

describe("createModel", () => {
  it.each([
    ["openai:gpt-4o", {}, "OPENAI_API_KEY"],
    ["anthropic:claude-sonnet-4-5", {}, "ANTHROPIC_API_KEY"],
    ["openai-compatible:llama3", {}, "GROUNDFIX_OPENAI_BASE_URL"],
  ])("%s without its environment throws ModelSpecError naming %s", (spec, env, variable) => {
    expect(() => createModel(spec, { env })).toThrow(ModelSpecError);
    expect(() => createModel(spec, { env })).toThrow(variable);
  });

  it.each(["gpt-4o", "openai:", "replay:", "local:foo"])("rejects the spec %j with the specs it understands", (spec) => {
    expect(() => createModel(spec, { env: {} })).toThrow(ModelSpecError);
  });

  it("sends the optional GROUNDFIX_OPENAI_API_KEY to an openai-compatible server as a bearer token", async () => {
    const scope = nock("http://vllm.internal:8000", { reqheaders: { authorization: "Bearer local-secret" } })
      .post("/v1/chat/completions")
      .reply(200, wires[2]!.text);
    const model = createModel("openai-compatible:qwen", { env: { GROUNDFIX_OPENAI_BASE_URL: "http://vllm.internal:8000/v1", GROUNDFIX_OPENAI_API_KEY: "local-secret" } });
    await model.next({ messages: conversation.slice(0, 2), tools });
    expect(scope.isDone()).toBe(true);
  });
});
