/**
 * The conversation as the heuristic model sees it: its own earlier tool calls paired with the answers the loop
 * returned. The model keeps no state between turns; every decision is recomputed from these messages, so the same
 * messages always give the same turn.
 */
import type { ToolData } from "../../../tools/results.js";
import type { Message, ToolCall } from "../types.js";

/** One earlier tool call of this model and the answer it got (null when no answer came back). */
export interface Step {
  call: ToolCall;
  result: string | null;
  /** The structured answer the tool rendered `result` from (src/tools/results.ts), or null when it has none. */
  data: ToolData | null;
  /** 1-based index of the assistant turn that made the call. */
  turn: number;
}

/** A canonical key for a call: name plus arguments with sorted keys, so equal calls compare equal. */
export function callKey(name: string, args: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === "object") {
      return Object.fromEntries(
        Object.entries(v as Record<string, unknown>)
          .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
          .map(([k, x]) => [k, sort(x)]),
      );
    }
    return v;
  };
  return `${name} ${JSON.stringify(sort(args))}`;
}

/** The model's earlier calls with their answers, in order; `turns` is the number of assistant turns so far. */
export function readHistory(messages: readonly Message[]): { steps: Step[]; turns: number } {
  const steps: Step[] = [];
  const byId = new Map<string, Step>();
  let turns = 0;
  for (const m of messages) {
    if (m.role === "assistant") {
      turns++;
      for (const call of m.tool_calls) {
        const step: Step = { call, result: null, data: null, turn: turns };
        steps.push(step);
        byId.set(call.id, step);
      }
    } else if (m.role === "tool") {
      const step =
        byId.get(m.tool_call_id) ?? [...steps].reverse().find((s) => s.result === null && s.call.name === m.name);
      if (step) {
        step.result = m.content;
        step.data = m.data ?? null;
      }
    }
  }
  return { steps, turns };
}

/**
 * The answer to the latest call equal to `name(args)`: a string, null (called, no answer), or undefined (never called).
 */
export function resultOf(steps: readonly Step[], name: string, args: unknown): string | null | undefined {
  const key = callKey(name, args);
  let out: string | null | undefined;
  for (const s of steps) if (callKey(s.call.name, s.call.arguments) === key) out = s.result;
  return out;
}

/**
 * The structured answer of the latest call equal to `name(args)` when it is tool `tool`'s data, else null (not
 * called, no answer, or an answer without data such as an invalid call).
 */
export function dataOf<T extends ToolData["tool"]>(
  steps: readonly Step[],
  name: string,
  args: unknown,
  tool: T,
): Extract<ToolData, { tool: T }> | null {
  const key = callKey(name, args);
  let out: ToolData | null = null;
  for (const s of steps) if (callKey(s.call.name, s.call.arguments) === key) out = s.data;
  return out?.tool === tool ? (out as Extract<ToolData, { tool: T }>) : null;
}
