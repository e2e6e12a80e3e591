/**
 * Imitation model servers for the provider tests: real HTTP on 127.0.0.1 (node:http, port 0), one per wire format —
 * OpenAI Chat Completions, OpenAI Responses, Anthropic Messages, an Ollama-style server and a vLLM-style server —
 * each answering from a script of turns and checking the request the way the real server would.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted model turn: tool calls (arguments as an object, or raw text sent as is), and text. */
export interface ScriptTurn {
  text?: string;
  calls?: { name: string; arguments: Record<string, unknown> | string }[];
  /** Ollama-style only: write the calls as JSON text in the content instead of native tool calls. */
  asText?: boolean;
}

/** A request as the server received it. */
export interface Received {
  path: string;
  headers: IncomingMessage["headers"];
  body: any;
  at: number;
}

/** What a handler answers: a status, a JSON body (or raw text), headers; `hang` never answers. */
export type Reply =
  { status?: number; json?: unknown; raw?: string; headers?: Record<string, string> } | { hang: true };

export interface TestServer {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

/** Start a server on 127.0.0.1 whose every request is answered by `handle` (the n-th request has index n). */
export async function startServer(
  handle: (req: Received, index: number) => Reply | Promise<Reply>,
): Promise<TestServer> {
  const received: Received[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // keep the raw text
    }
    const r: Received = { path: req.url ?? "", headers: req.headers, body, at: Date.now() };
    received.push(r);
    const reply = await handle(r, received.length - 1);
    if ("hang" in reply) {
      open.add(res);
      return;
    }
    res.writeHead(reply.status ?? 200, {
      "content-type": reply.raw !== undefined ? "text/plain" : "application/json",
      ...reply.headers,
    });
    res.end(reply.raw ?? JSON.stringify(reply.json));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const argText = (a: Record<string, unknown> | string) => (typeof a === "string" ? a : JSON.stringify(a));

/** Turns of the conversation so far: assistant messages in a Chat Completions history. */
const chatTurns = (body: any) => (body.messages as any[]).filter((m) => m.role === "assistant").length;

/** A Chat Completions answer for a scripted turn. */
export function chatCompletion(turn: ScriptTurn, n: number, usage = { prompt_tokens: 3000, completion_tokens: 50 }) {
  const calls = turn.asText ? [] : (turn.calls ?? []);
  const content = turn.asText
    ? (turn.calls ?? []).map((c) => JSON.stringify({ name: c.name, arguments: c.arguments })).join("\n")
    : (turn.text ?? "");
  return {
    id: `chatcmpl-${n}`,
    object: "chat.completion",
    created: 1741476777,
    model: "test-model",
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content,
          ...(calls.length
            ? {
                tool_calls: calls.map((c, i) => ({
                  id: `call_${n}_${i}`,
                  type: "function",
                  function: { name: c.name, arguments: argText(c.arguments) },
                })),
              }
            : {}),
        },
        finish_reason: calls.length ? "tool_calls" : "stop",
      },
    ],
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  };
}

/** Characters / 4 of a Chat Completions request, tools included: how these imitations count prompt tokens. */
export function promptTokens(body: any): number {
  return Math.ceil(JSON.stringify({ messages: body.messages, tools: body.tools }).length / 4);
}

/** OpenAI Chat Completions (and any server that speaks it): answers the script by turn. */
export function chatServer(script: ScriptTurn[], check?: (body: any) => string | void): Promise<TestServer> {
  return startServer((req) => {
    if (req.path !== "/v1/chat/completions")
      return { status: 404, json: { error: { message: `Not found: ${req.path}` } } };
    const problem = check?.(req.body);
    if (problem) return { status: 400, json: { error: { message: problem, type: "invalid_request_error" } } };
    const n = chatTurns(req.body);
    return {
      json: chatCompletion(script[n] ?? { text: "done" }, n, {
        prompt_tokens: promptTokens(req.body),
        completion_tokens: 40,
      }),
    };
  });
}

/** OpenAI Responses API: `POST /v1/responses`, function_call / function_call_output items. */
export function responsesServer(script: ScriptTurn[]): Promise<TestServer> {
  return startServer((req) => {
    if (req.path !== "/v1/responses") return { status: 404, json: { error: { message: "Not found" } } };
    // One model turn: an assistant message and/or the function calls that follow it.
    let n = 0;
    let previous = false;
    for (const item of req.body.input as any[]) {
      const mine = item.type === "function_call" || item.role === "assistant";
      if (mine && !previous) n++;
      previous = mine;
    }
    const turn = script[n] ?? { text: "done" };
    const output = [
      ...(turn.text
        ? [
            {
              type: "message",
              id: `msg_${n}`,
              status: "completed",
              role: "assistant",
              content: [{ type: "output_text", text: turn.text, annotations: [] }],
            },
          ]
        : []),
      ...(turn.calls ?? []).map((c, i) => ({
        type: "function_call",
        id: `fc_${n}_${i}`,
        call_id: `call_${n}_${i}`,
        name: c.name,
        arguments: argText(c.arguments),
        status: "completed",
      })),
    ];
    const input = Math.ceil(JSON.stringify(req.body).length / 4);
    return {
      json: {
        id: `resp_${n}`,
        object: "response",
        created_at: 1741476777,
        status: "completed",
        model: "gpt-4o-mini",
        output,
        usage: {
          input_tokens: input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 40,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: input + 40,
        },
      },
    };
  });
}

/**
 * Anthropic Messages: `POST /v1/messages`, tool_use / tool_result blocks. Usage reports a prompt cache: everything
 * up to the previous request's last breakpoint is read, the rest written (cache_read / cache_creation tokens).
 */
export function anthropicServer(script: ScriptTurn[]): Promise<TestServer> {
  let previous = 0;
  return startServer((req) => {
    if (req.path !== "/v1/messages")
      return { status: 404, json: { type: "error", error: { type: "not_found_error", message: "Not found" } } };
    const n = (req.body.messages as any[]).filter((m) => m.role === "assistant").length;
    const turn = script[n] ?? { text: "done" };
    const total = Math.ceil(JSON.stringify(req.body).length / 4);
    const read = Math.min(previous, total);
    previous = total;
    return {
      json: {
        id: `msg_${n}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [
          ...(turn.text ? [{ type: "text", text: turn.text }] : []),
          ...(turn.calls ?? []).map((c, i) => ({
            type: "tool_use",
            id: `toolu_${n}_${i}`,
            name: c.name,
            input: c.arguments,
          })),
        ],
        stop_reason: turn.calls?.length ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: {
          input_tokens: 20,
          cache_read_input_tokens: read,
          cache_creation_input_tokens: total - read - 20,
          output_tokens: 40,
        },
      },
    };
  });
}

/**
 * An Ollama-style server (its OpenAI-compatible `/v1/chat/completions`): refuses a history whose tool-call arguments
 * are not a JSON object (HTTP 400, as Ollama does), keeps only the last `context` tokens of the prompt (Ollama's
 * default num_ctx 4096 drops the start) and reports what it kept, and writes tool calls as text when the turn says so.
 */
export function ollamaServer(script: ScriptTurn[], context = 4096): Promise<TestServer> {
  return startServer((req) => {
    if (req.path !== "/v1/chat/completions") return { status: 404, raw: "404 page not found" };
    for (const m of req.body.messages as any[]) {
      for (const c of m.tool_calls ?? []) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(c.function.arguments);
        } catch {
          parsed = undefined;
        }
        if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) {
          return {
            status: 400,
            json: {
              error: {
                message: `invalid tool call arguments: ${String(c.function.arguments).slice(0, 40)}`,
                type: "invalid_request_error",
              },
            },
          };
        }
      }
    }
    const n = chatTurns(req.body);
    return {
      json: chatCompletion(script[n] ?? { text: "done" }, n, {
        prompt_tokens: Math.min(context, promptTokens(req.body)),
        completion_tokens: 40,
      }),
    };
  });
}

/**
 * A vLLM-style server started without --enable-auto-tool-choice: a request with tools and `tool_choice` "auto" (or
 * none, which vLLM reads as "auto") is refused with vLLM's message; "required" is served.
 */
export function vllmServer(script: ScriptTurn[]): Promise<TestServer> {
  return startServer((req) => {
    const choice = req.body.tool_choice ?? "auto";
    if (req.body.tools?.length && choice === "auto") {
      return {
        status: 400,
        json: {
          object: "error",
          message: '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set',
          type: "BadRequestError",
          param: null,
          code: 400,
        },
      };
    }
    const n = chatTurns(req.body);
    return {
      json: chatCompletion(script[n] ?? { text: "done" }, n, {
        prompt_tokens: promptTokens(req.body),
        completion_tokens: 40,
      }),
    };
  });
}
