/**
 * The model interface of the clarity agent. Every model — the deterministic heuristic, a replayed transcript,
 * or a Vercel AI SDK provider — is driven one turn at a time by `runAgent` (src/agent/index.ts).
 */

/** One tool call made by the model in a turn. `id` is unique within the run; `arguments` is the parsed JSON object. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

/**
 * One message of the conversation, in OpenAI-chat shape:
 * `system` (the rules), `user` (the task and nudges), `assistant` (model text after hygiene + its tool calls),
 * `tool` (the result text the model sees for the call with `tool_call_id`).
 */
export type Message =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; tool_calls: ToolCall[] }
  | { role: "tool"; tool_call_id: string; name: string; content: string };

/** What a model returns for one turn. `usage` is in tokens, when the provider reports it. */
export interface ModelTurn {
  text: string;
  tool_calls: ToolCall[];
  usage?: { input_tokens: number; output_tokens: number };
}

/** A tool offered to the model; `parameters` is a JSON Schema object (draft 2020-12 subset, as z.toJSONSchema emits). */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/**
 * A model. `spec` is the string it was created from (e.g. "heuristic", "openai:gpt-4o-mini").
 * `next` returns the model's next turn for the whole conversation so far; it may throw (provider/HTTP error,
 * exhausted replay), which `runAgent` turns into `failed_closed` with the error's one-line message.
 */
export interface Model {
  readonly spec: string;
  next(input: { messages: Message[]; tools: ToolSpec[] }): Promise<ModelTurn>;
}
