import type { GroundfixConfig } from "../config/schema.js";
import type { GateName, ToolResult, ToolStatus } from "../types.js";

/** One completed tool call, as the answer gates see it. */
export interface CallRecord {
  name: string;
  status: ToolStatus;
  /** The tool reads the repository (`ToolDefinition.readsCode`); only these count for the floor. */
  readsCode: boolean;
  /** The call answered `ok` but showed no code: a `grep_codebase` with 0 matches or a `search_codebase` that listed
   * no file. It counts for the floor, never for the tool-name gate (nothing was read). */
  empty?: boolean;
}

/**
 * True when `result` is a read that found nothing in the repository: a `grep_codebase` answering 0 matches, or a
 * `search_codebase` that listed no file (also when it named symbols only: it shows no code either way); see
 * `CallRecord.empty`.
 */
export function showedNoCode(result: ToolResult): boolean {
  if (result.status !== "ok") return false;
  if (result.data?.tool === "grep_codebase") return result.data.total === 0;
  if (result.data?.tool === "search_codebase") return result.data.files.length === 0;
  return false;
}

/**
 * How the rejection names an empty read of `tool`: `grep_codebase with 0 matches`, `search_codebase that listed no
 * file`.
 */
function emptyRead(tool: string): string {
  return tool === "search_codebase" ? `${tool} that listed no file` : `${tool} with 0 matches`;
}

/**
 * The tool-name and count-floor gates, checked when `submit_answer` is called.
 *
 * 1. tool_name: at least one call to a tool of `config.agent.required_tools` answered `ok` (NOT_FOUND, invalid
 *    and rejected calls do not count, nor a `grep_codebase` that answered 0 matches or a `search_codebase` that listed
 *    no file: they read no code). An empty set
 *    disables the gate.
 * 2. count_floor: at least `config.agent.min_tool_calls` calls of code-reading tools answered (`ok` or `not_found`)
 *    before the answer.
 *
 * When both are unmet the tool-name gate is named: reading code is what matters.
 *
 * An answer that claims no code (no affected file, function or snippet: the model says it needs information) may
 * follow a search or grep that found nothing: it looked, and it cites nothing it did not see.
 *
 * @param calls the calls made so far in the run, in order, excluding `submit_answer`
 * @param claimsCode whether the answer names an affected file, function or snippet (default true)
 * @returns null when the answer may go on to the claims check, else the gate and the message the model sees
 */
export function answerGate(
  calls: readonly CallRecord[],
  config: GroundfixConfig,
  claimsCode = true,
): { gate: GateName; message: string } | null {
  const required = config.agent.required_tools as readonly string[];
  const answered = calls.filter((c) => c.readsCode && (c.status === "ok" || c.status === "not_found"));
  const called = [...new Set(calls.map((c) => c.name))];
  const readOk =
    required.length === 0 ||
    calls.some((c) => c.status === "ok" && (!c.empty || !claimsCode) && required.includes(c.name));
  const floor = config.agent.min_tool_calls;
  const floorOk = answered.length >= floor;
  if (!readOk) {
    const list = `[${required.join(", ")}]`;
    let why: string;
    if (called.length === 0) why = "you have not called any tool yet";
    else {
      const triedRequired = called.filter((n) => required.includes(n));
      const emptyOnly = triedRequired.filter((n) => calls.some((c) => c.name === n && c.status === "ok" && c.empty));
      why = triedRequired.length
        ? `you have called [${called.join(", ")}], but ${triedRequired.join(", ")} never ` +
          `answered successfully (a NOT_FOUND or rejected call does not ` +
          `count${emptyOnly.length ? `, nor a ${emptyOnly.map(emptyRead).join(" or ")}: it showed no code` : ""})`
        : `you have called [${called.join(", ")}], which include none of them`;
    }
    const floorNote = floorOk ? "" : ` You also need at least ${floor} tool call(s); you have made ${answered.length}.`;
    return {
      gate: "tool_name",
      message:
        `REJECTED: you must call at least one of ${list} before answering; ` +
        `${why}.${floorNote} Read the code, then call submit_answer again.`,
    };
  }
  if (!floorOk) {
    return {
      gate: "count_floor",
      message:
        `REJECTED: you must make at least ${floor} tool call(s) before answering; you have ` +
        `made ${answered.length}. Read more of the code, then call submit_answer again.`,
    };
  }
  return null;
}
