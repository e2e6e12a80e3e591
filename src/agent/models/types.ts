/**
 * The model interface of the clarity agent. Every model — the deterministic heuristic, a replayed transcript,
 * or a Vercel AI SDK provider — is driven one turn at a time by `runAgent` (src/agent/index.ts).
 */
import type { ToolData } from "../../tools/results.js";

/**
 * One tool call made by the model in a turn. `id` is unique within the run; `arguments` is the parsed JSON object,
 * or the raw text when the model sent arguments that are not valid JSON (the loop answers with what is wrong and
 * keeps `{}` in the history, since servers such as Ollama refuse a history whose arguments are not an object).
 */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/**
 * One message of the conversation, in OpenAI-chat shape:
 * `system` (the rules), `user` (the task and nudges), `assistant` (model text after hygiene + its tool calls),
 * `tool` (the result text the model sees for the call with `tool_call_id`, and the structured answer it was rendered
 * from when the tool has one: see src/tools/results.ts).
 */
export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; tool_calls: ToolCall[] }
  | { role: "tool"; tool_call_id: string; name: string; content: string; is_error?: boolean; data?: ToolData };

/**
 * Tokens of one turn as the provider reported them. `input_tokens` is the whole prompt, cached parts included;
 * `cache_read_tokens` of it were read from the provider's prompt cache and `cache_write_tokens` written to it
 * (Anthropic reports these apart from its `input_tokens`; they are added back here).
 */
export interface TurnUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens?: number;
  cache_write_tokens?: number;
}

/** What a model returns for one turn. `usage` is in tokens, when the provider reports it. */
export interface ModelTurn {
  text: string;
  tool_calls: ToolCall[];
  usage?: TurnUsage;
}

/**
 * A tool offered to the model; `parameters` is a JSON Schema object (draft 2020-12 subset, as z.toJSONSchema emits).
 */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * A model. `spec` is the string it was created from (e.g. "heuristic", "openai:gpt-4o-mini").
 * `next` returns the model's next turn for the whole conversation so far; it may throw (provider/HTTP error,
 * exhausted replay), which `runAgent` turns into `failed_closed` with the error's one-line message. `signal` aborts
 * when the run's wall-clock limit is reached. `runTimeoutMs` is the wall-clock limit this model asks for (provider
 * models: GROUNDFIX_RUN_TIMEOUT_MS or its default); without it the loop's default applies. `pricing`, when
 * known, prices the reported tokens (see {@link Pricing}).
 */
export interface Model {
  readonly spec: string;
  readonly runTimeoutMs?: number;
  readonly pricing?: Pricing;
  next(input: { messages: Message[]; tools: ToolSpec[]; signal?: AbortSignal }): Promise<ModelTurn>;
}

/** USD per million tokens; cache reads and writes as multiples of the input price. */
export interface Pricing {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}
