import { createAnthropic } from "@ai-sdk/anthropic";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import {
  APICallError,
  generateText,
  InvalidToolInputError,
  jsonSchema,
  RetryError,
  tool,
  type LanguageModel,
  type ModelMessage,
  type ToolSet,
} from "ai";
import type { ProviderSettings } from "../../config/env.js";
import { redactSecrets } from "../../grounding/secrets.js";
import { pricingFor } from "./pricing.js";
import type { Message, Model, ModelTurn, ToolCall, ToolSpec, TurnUsage } from "./types.js";

/** Anthropic's prompt-cache marker (a 5-minute ephemeral cache breakpoint), as AI SDK provider options. */
const CACHE = { anthropic: { cacheControl: { type: "ephemeral" } } } as const;

/** Where the last request of a model went, for error messages. */
interface RequestLog {
  url: string | undefined;
}

/**
 * A `fetch` that gives each HTTP request its own time limit (`AbortSignal.timeout`), on top of the caller's signal.
 * The AI SDK's retries call it once per attempt, so every attempt gets the full limit.
 */
function timedFetch(timeoutMs: number, log: RequestLog): typeof fetch {
  return (input, init) => {
    log.url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const limit = AbortSignal.timeout(timeoutMs);
    return globalThis.fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, limit]) : limit });
  };
}

/**
 * The AI SDK language model for resolved provider settings (see `providerSettings` in src/config/env.ts):
 * - `openai`: the Responses API (`POST <base>/responses`), what `openai(model)` uses in @ai-sdk/openai v2;
 * - `openai-chat`: the same key and base URL over Chat Completions (`POST <base>/chat/completions`), for servers
 *   behind OPENAI_BASE_URL that have no `/responses` (llama.cpp server, older Ollama and vLLM);
 * - `anthropic`: the Messages API (`POST <base>/messages`);
 * - `openai-compatible`: Chat Completions at GROUNDFIX_OPENAI_BASE_URL, usage requested in the answer.
 */
export function providerModel(settings: ProviderSettings, log: RequestLog = { url: undefined }): LanguageModel {
  const { apiKey, baseURL, modelId } = settings;
  const fetch = timedFetch(settings.requestTimeoutMs, log);
  switch (settings.provider) {
    case "openai":
      return createOpenAI({ apiKey, baseURL, fetch })(modelId);
    case "openai-chat":
      return createOpenAI({ apiKey, baseURL, fetch }).chat(modelId);
    case "anthropic":
      return createAnthropic({ apiKey, baseURL, fetch })(modelId);
    case "openai-compatible":
      return createOpenAICompatible({
        name: "openai-compatible",
        baseURL,
        ...(apiKey ? { apiKey } : {}),
        fetch,
        includeUsage: true,
      }).chatModel(modelId);
  }
}

/**
 * Map the loop's conversation to AI SDK messages. System messages stay messages (so they can carry provider
 * options); a tool result marked `is_error` becomes an `error-text` output (Anthropic: `is_error: true`). With
 * `cache` (Anthropic), the system message and the last message carry a cache breakpoint, so each turn reads the
 * stable prefix and the previous turns from the prompt cache and writes only the newest turn.
 */
export function toModelMessages(messages: readonly Message[], options: { cache?: boolean } = {}): ModelMessage[] {
  const out: ModelMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
        out.push({ role: "system", content: m.content, ...(options.cache ? { providerOptions: CACHE } : {}) });
        break;
      case "user":
        out.push({ role: "user", content: m.content });
        break;
      case "assistant": {
        const parts: Exclude<Extract<ModelMessage, { role: "assistant" }>["content"], string> = [];
        if (m.content) parts.push({ type: "text", text: m.content });
        for (const c of m.tool_calls)
          parts.push({
            type: "tool-call",
            toolCallId: c.id,
            toolName: c.name,
            input: isObject(c.arguments) ? c.arguments : {},
          });
        if (parts.length === 0) parts.push({ type: "text", text: "(no output)" });
        out.push({ role: "assistant", content: parts });
        break;
      }
      case "tool": {
        const output = { type: m.is_error ? ("error-text" as const) : ("text" as const), value: m.content };
        const part = { type: "tool-result" as const, toolCallId: m.tool_call_id, toolName: m.name, output };
        const last = out[out.length - 1];
        if (last && last.role === "tool") last.content.push(part);
        else out.push({ role: "tool", content: [part] });
        break;
      }
    }
  }
  const last = out[out.length - 1];
  if (options.cache && last && last.role !== "system") last.providerOptions = CACHE;
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** AI SDK tools without `execute`: the SDK returns the calls and the loop runs them through the gates. */
export function toToolSet(tools: readonly ToolSpec[], options: { cache?: boolean } = {}): ToolSet {
  return Object.fromEntries(
    tools.map((t, i) => [
      t.name,
      tool({
        description: t.description,
        inputSchema: jsonSchema(t.parameters as never),
        ...(options.cache && i === tools.length - 1 ? { providerOptions: CACHE } : {}),
      }),
    ]),
  );
}

/** Words of a server's error body that name a known cause, and the hint for it. */
const BODY_HINTS: [RegExp, string][] = [
  [
    new RegExp(
      String.raw`context[ _-]?(length|window|size)|maximum context|too many tokens|` +
        String.raw`prompt is too long|exceeds? the (model'?s? )?(context|maximum)|num_ctx`,
      "i",
    ),
    "the prompt does not fit the model's context: raise the server's context length to at least 16k tokens " +
      "(Ollama: OLLAMA_CONTEXT_LENGTH=16384 or num_ctx; vLLM: --max-model-len; llama.cpp: -c 16384)",
  ],
  [
    /tool[ _-]?choice|enable-auto-tool-choice|tool-call-parser/i,
    "the server refuses tool calls: start vLLM with --enable-auto-tool-choice --tool-call-parser <parser for the " +
      "model> (groundfix needs native tool calls)",
  ],
  [
    /does not support tools|tools? (are|is) not supported/i,
    "this model has no native tool calls; pick one that has (for example qwen2.5-coder, llama3.1)",
  ],
];

function statusHint(status: number, url: string | undefined, spec: string): string | undefined {
  if (status === 401 || status === 403) return "check the API key";
  if (status === 404 && url?.replace(/\/+$/, "").endsWith("/responses")) {
    const model = spec.slice(spec.indexOf(":") + 1);
    return (
      `this server has no Responses API (/responses); use openai-chat:${model} with OPENAI_BASE_URL, ` +
      `or openai-compatible:${model} with GROUNDFIX_OPENAI_BASE_URL (Chat Completions)`
    );
  }
  if (status === 404) return "check the base URL and the model name";
  if (status === 429) return "rate limited or out of quota";
  if (status >= 500) return "provider error";
  return undefined;
}

/**
 * One readable line for a provider failure: the spec, the HTTP status, the URL, the first 200 characters of the
 * server's message (its JSON `error.message` when the SDK parsed one, else the raw body) and a hint where the cause is
 * known — 401/403 (key), 404 on `/responses` (use Chat Completions), 429, 5xx, no server at the address, a context
 * too small, a server that refuses tool calls. A request that timed out names the limit and its variable; after
 * retries, the attempt count. Secrets are redacted; never more than 400 characters.
 */
export function describeProviderError(
  err: unknown,
  spec: string,
  context: { url?: string; timeoutMs?: number } = {},
): string {
  let attempts = 1;
  let cause = err;
  if (RetryError.isInstance(err)) {
    attempts = err.errors.length;
    cause = err.lastError;
  }
  const after = attempts > 1 ? ` (after ${attempts} attempts)` : "";
  let text: string;
  if (APICallError.isInstance(cause)) {
    const url = cause.url || context.url;
    const body = (cause.responseBody ?? "").replace(/\s+/g, " ").trim();
    const generic =
      !cause.message ||
      new RegExp(
        String.raw`^(Bad Request|Not Found|Unauthorized|Forbidden|Internal Server Error|` +
          String.raw`Too Many Requests|Service Unavailable|Bad Gateway)$`,
        "i",
      ).test(cause.message);
    const message = (generic && body ? body : cause.message).replace(/\s+/g, " ").trim();
    const short = message.length > 200 ? `${message.slice(0, 199)}…` : message;
    const hints = [
      cause.statusCode !== undefined ? statusHint(cause.statusCode, url, spec) : undefined,
      cause.statusCode === undefined &&
      /Cannot connect|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|fetch failed/i.test(
        `${cause.message} ${String((cause.cause as Error)?.message ?? "")}`,
      )
        ? "nothing answers there: is the server running, and is the base URL right?"
        : undefined,
      ...BODY_HINTS.filter(([re]) => re.test(`${cause.message} ${body}`)).map(([, h]) => h),
    ].filter(Boolean);
    const status = cause.statusCode !== undefined ? `HTTP ${cause.statusCode}` : "request failed";
    text = `${spec}: ${status} from ${url}${after}: ${short}${hints.length ? ` — ${hints.join("; ")}` : ""}`;
  } else if (isTimeout(cause)) {
    const limit = context.timeoutMs !== undefined ? ` within ${seconds(context.timeoutMs)}` : "";
    text = `${spec}: no answer from ${context.url ?? "the server"}${limit} (GROUNDFIX_REQUEST_TIMEOUT_MS)${after}`;
  } else if (InvalidToolInputError.isInstance(cause)) {
    text = `${spec}: ${cause.message}`;
  } else {
    text =
      `${spec}: ${cause instanceof Error ? cause.message : String(cause)}` +
      `${context.url ? ` (${context.url})` : ""}${after}`;
  }
  const first = (text.split("\n").find((l) => l.trim()) ?? text).trim();
  return redactSecrets(first.length > 400 ? `${first.slice(0, 399)}…` : first).text;
}

/** `ms` as seconds for a message: one decimal under 10 s. */
function seconds(ms: number): string {
  return `${ms < 10_000 ? Math.round(ms / 100) / 10 : Math.round(ms / 1000)} s`;
}

/** vLLM started without --enable-auto-tool-choice refuses `tool_choice: "auto"` (its default when tools are sent). */
function refusesAutoToolChoice(err: unknown): boolean {
  const e = RetryError.isInstance(err) ? err.lastError : err;
  return (
    APICallError.isInstance(e) &&
    e.statusCode === 400 &&
    /auto.{0,20}tool[ _-]?choice|enable-auto-tool-choice/i.test(`${e.message} ${e.responseBody ?? ""}`)
  );
}

function isTimeout(err: unknown): boolean {
  if (!(err instanceof Error) && !(err instanceof DOMException)) return false;
  const e = err as Error & { cause?: unknown };
  return (
    e.name === "TimeoutError" ||
    /Headers Timeout|UND_ERR_HEADERS_TIMEOUT|UND_ERR_BODY_TIMEOUT/.test(
      `${e.message} ${String((e.cause as Error)?.message ?? "")}`,
    )
  );
}

/** The turn's usage with the cached prompt parts counted in `input_tokens` (Anthropic reports them apart). */
function turnUsage(
  provider: ProviderSettings["provider"],
  result: Awaited<ReturnType<typeof generateText>>,
): TurnUsage | undefined {
  const u = result.usage;
  if (u.inputTokens === undefined && u.outputTokens === undefined) return undefined;
  const read = u.cachedInputTokens ?? 0;
  if (provider === "anthropic") {
    const meta = result.providerMetadata?.anthropic as { cacheCreationInputTokens?: number | null } | undefined;
    const write = meta?.cacheCreationInputTokens ?? 0;
    return {
      input_tokens: (u.inputTokens ?? 0) + read + write,
      output_tokens: u.outputTokens ?? 0,
      cache_read_tokens: read,
      cache_write_tokens: write,
    };
  }
  return {
    input_tokens: u.inputTokens ?? 0,
    output_tokens: u.outputTokens ?? 0,
    ...(read ? { cache_read_tokens: read } : {}),
  };
}

/**
 * A {@link Model} backed by an AI SDK provider: one `generateText` call per turn (one step, tools without `execute`).
 * Bounded: each HTTP request has `requestTimeoutMs`; a 429, 5xx or dropped connection is retried `retries` times by
 * the SDK with exponential backoff from 2 s, waiting what `retry-after-ms` / `Retry-After` says when that is under
 * 60 s; the loop's `signal` (the run's wall-clock limit) aborts everything. Anthropic requests carry the output
 * limit and prompt-cache breakpoints; `temperature` is sent when set. A server that refuses the implicit
 * `tool_choice: "auto"` (vLLM without --enable-auto-tool-choice) is asked again, and from then on, with
 * `tool_choice: "required"`. A call whose arguments were not valid JSON
 * comes back with the raw text as `arguments` (the loop says what is wrong). Errors are rethrown as an Error whose
 * message is one line (see {@link describeProviderError}).
 */
export function createAiSdkModel(spec: string, settings: ProviderSettings, model?: LanguageModel): Model {
  const log: RequestLog = { url: undefined };
  const language = model ?? providerModel(settings, log);
  const cache = settings.provider === "anthropic";
  const pricing = pricingFor(settings.provider, settings.modelId);
  let toolChoice: "required" | undefined;
  return {
    spec,
    runTimeoutMs: settings.runTimeoutMs,
    ...(pricing ? { pricing } : {}),
    async next({ messages, tools, signal }): Promise<ModelTurn> {
      const request = () =>
        generateText({
          model: language,
          messages: toModelMessages(messages, { cache }),
          // Our system message is deliberate (it carries the Anthropic cache breakpoint, which the `system` option
          // cannot); without this the SDK prints a prompt-injection warning on stderr at every turn.
          allowSystemInMessages: true,
          tools: toToolSet(tools, { cache }),
          maxRetries: settings.retries,
          ...(toolChoice ? { toolChoice } : {}),
          ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
          ...(settings.maxOutputTokens !== undefined ? { maxOutputTokens: settings.maxOutputTokens } : {}),
          ...(signal ? { abortSignal: signal } : {}),
        });
      let result;
      try {
        try {
          result = await request();
        } catch (err) {
          // Every turn must call a tool anyway, and vLLM serves "required" through guided decoding without the flag.
          if (toolChoice || !refusesAutoToolChoice(err)) throw err;
          toolChoice = "required";
          result = await request();
        }
      } catch (err) {
        if (signal?.aborted)
          throw new Error(`${spec}: stopped at the run's wall-clock limit (GROUNDFIX_RUN_TIMEOUT_MS)`);
        throw new Error(describeProviderError(err, spec, { url: log.url, timeoutMs: settings.requestTimeoutMs }));
      }
      const usage = turnUsage(settings.provider, result);
      const calls: ToolCall[] = result.toolCalls.map((c) => {
        const bad = "invalid" in c && c.invalid === true && InvalidToolInputError.isInstance(c.error);
        return {
          id: c.toolCallId,
          name: c.toolName,
          arguments: bad ? (c.error as InvalidToolInputError).toolInput : c.input,
        };
      });
      return { text: result.text, tool_calls: calls, ...(usage ? { usage } : {}) };
    },
  };
}
