import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { APICallError, generateText, jsonSchema, tool, type LanguageModel, type ModelMessage, type ToolSet } from "ai";
import { redactSecrets } from "../../grounding/secrets.js";
import type { Message, Model, ModelTurn, ToolSpec } from "./types.js";

/** The providers reachable through the Vercel AI SDK v5. */
export type ProviderName = "openai" | "anthropic" | "openai-compatible";

/** Thrown when a provider cannot be configured from the environment; `variable` is the missing env var. */
export class ProviderConfigError extends Error {
  constructor(
    message: string,
    readonly variable: string,
  ) {
    super(message);
    this.name = "ProviderConfigError";
  }
}

function need(env: NodeJS.ProcessEnv, name: string, what: string): string {
  const value = env[name];
  if (!value) throw new ProviderConfigError(`${what} needs the environment variable ${name}`, name);
  return value;
}

/**
 * The AI SDK language model for a provider and model id. Keys and URLs come from `env` only:
 * - `openai`: OPENAI_API_KEY (optional OPENAI_BASE_URL); `openai(model)` in @ai-sdk/openai v2 uses the
 *   Responses API (`POST /v1/responses`);
 * - `anthropic`: ANTHROPIC_API_KEY (optional ANTHROPIC_BASE_URL); Messages API (`POST /v1/messages`);
 * - `openai-compatible`: GROUNDFIX_OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama), optional
 *   GROUNDFIX_OPENAI_API_KEY; Chat Completions (`POST <base>/chat/completions`).
 *
 * @throws ProviderConfigError naming the missing variable
 */
export function providerModel(provider: ProviderName, modelId: string, env: NodeJS.ProcessEnv): LanguageModel {
  switch (provider) {
    case "openai": {
      const apiKey = need(env, "OPENAI_API_KEY", `openai:${modelId}`);
      return createOpenAI({ apiKey, ...(env.OPENAI_BASE_URL ? { baseURL: env.OPENAI_BASE_URL } : { baseURL: "https://api.openai.com/v1" }) })(modelId);
    }
    case "anthropic": {
      const apiKey = need(env, "ANTHROPIC_API_KEY", `anthropic:${modelId}`);
      return createAnthropic({ apiKey, baseURL: env.ANTHROPIC_BASE_URL || "https://api.anthropic.com/v1" })(modelId);
    }
    case "openai-compatible": {
      const baseURL = need(env, "GROUNDFIX_OPENAI_BASE_URL", `openai-compatible:${modelId}`);
      const apiKey = env.GROUNDFIX_OPENAI_API_KEY;
      return createOpenAICompatible({ name: "openai-compatible", baseURL, ...(apiKey ? { apiKey } : {}) }).chatModel(modelId);
    }
  }
}

/** Map the loop's conversation to AI SDK messages (system messages go to the `system` parameter). */
export function toModelMessages(messages: readonly Message[]): { system: string | undefined; messages: ModelMessage[] } {
  const system: string[] = [];
  const out: ModelMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
        system.push(m.content);
        break;
      case "user":
        out.push({ role: "user", content: m.content });
        break;
      case "assistant": {
        const parts: Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string> = [];
        if (m.content) parts.push({ type: "text", text: m.content });
        for (const c of m.tool_calls) parts.push({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.arguments ?? {} });
        if (parts.length === 0) parts.push({ type: "text", text: "(no output)" });
        out.push({ role: "assistant", content: parts });
        break;
      }
      case "tool": {
        const part = { type: "tool-result" as const, toolCallId: m.tool_call_id, toolName: m.name, output: { type: "text" as const, value: m.content } };
        const last = out[out.length - 1];
        if (last && last.role === "tool") last.content.push(part);
        else out.push({ role: "tool", content: [part] });
        break;
      }
    }
  }
  return { system: system.length ? system.join("\n\n") : undefined, messages: out };
}

/** AI SDK tools without `execute`: the SDK returns the calls and the loop runs them through the gates. */
export function toToolSet(tools: readonly ToolSpec[]): ToolSet {
  return Object.fromEntries(tools.map((t) => [t.name, tool({ description: t.description, inputSchema: jsonSchema(t.parameters as never) })]));
}

/** One readable line for a provider failure: HTTP status and the provider's message, secrets redacted. */
export function describeProviderError(err: unknown, spec: string): string {
  let text: string;
  if (APICallError.isInstance(err)) {
    const status = err.statusCode !== undefined ? `HTTP ${err.statusCode}` : "request failed";
    const hint =
      err.statusCode === 401 || err.statusCode === 403
        ? " (check the API key)"
        : err.statusCode === 429
          ? " (rate limited or out of quota)"
          : err.statusCode !== undefined && err.statusCode >= 500
            ? " (provider error)"
            : "";
    text = `${spec}: ${status}${hint}: ${err.message}`;
  } else {
    text = `${spec}: ${err instanceof Error ? err.message : String(err)}`;
  }
  const first = (text.split("\n").find((l) => l.trim()) ?? text).trim();
  return redactSecrets(first.length > 300 ? `${first.slice(0, 299)}…` : first).text;
}

/**
 * A {@link Model} backed by an AI SDK provider: one `generateText` call per turn (one step, tools without
 * `execute`, `maxRetries: 0` so a failing provider fails the run at once). Errors are rethrown as an Error
 * whose message is one line (see {@link describeProviderError}).
 */
export function createAiSdkModel(spec: string, model: LanguageModel): Model {
  return {
    spec,
    async next({ messages, tools }): Promise<ModelTurn> {
      const mapped = toModelMessages(messages);
      let result;
      try {
        result = await generateText({
          model,
          ...(mapped.system ? { system: mapped.system } : {}),
          messages: mapped.messages,
          tools: toToolSet(tools),
          maxRetries: 0,
        });
      } catch (err) {
        throw new Error(describeProviderError(err, spec));
      }
      const usage =
        result.usage.inputTokens !== undefined || result.usage.outputTokens !== undefined
          ? { input_tokens: result.usage.inputTokens ?? 0, output_tokens: result.usage.outputTokens ?? 0 }
          : undefined;
      return {
        text: result.text,
        tool_calls: result.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, arguments: c.input })),
        ...(usage ? { usage } : {}),
      };
    },
  };
}
