/**
 * The `heuristic` model (issue 4, "Models"): the default, deterministic, no-network model.
 *
 * It is a {@link Model} like any other: it learns only from the messages (the task message and the tool answers),
 * drives the same tools and passes the same gates. Each turn is recomputed from the whole conversation, so the same
 * messages always give the same turn (no randomness, no clock, no state between calls).
 *
 * What it does (details in `heuristic/plan.ts`): parses the problem for stack frames (JavaScript/TypeScript, Python,
 * Java, Go, Ruby, C#), error messages, quoted identifiers, file paths and the alert location; resolves frames to real
 * files by path suffix through `list_files`; reads the file with `get_file_contents`; adds a comment and a log line
 * (the file's logger, else the language's stderr print; the anchor's indentation) before the statement of the
 * innermost in-repo frame, anchored on verbatim lines; answers with confidence from the evidence.
 *
 * Limits: line-based reading of code (no parser) — it inserts only where a statement can start and skips class
 * bodies of languages that forbid statements there; frames whose file name is shared by several files are resolved
 * by the longest common path suffix, ties by the shortest path; identifiers are matched by a declaration regex
 * (`name:` / `name =` / `def name`), so a field declared another way is missed; it never modifies existing lines.
 */
import type { Model, ModelTurn, ToolCall } from "./types.js";
import { planNextTurn } from "./heuristic/plan.js";

/**
 * Create the heuristic model (`spec: "heuristic"`). Its `next` never throws and never touches the network;
 * call ids are `h<turn>_<index>`.
 */
export function createHeuristicModel(): Model {
  return {
    spec: "heuristic",
    async next({ messages, tools }): Promise<ModelTurn> {
      const plan = planNextTurn(messages, new Set(tools.map((t) => t.name)));
      const turn = messages.filter((m) => m.role === "assistant").length + 1;
      const tool_calls: ToolCall[] = plan.calls.map((c, i) => ({ id: `h${turn}_${i + 1}`, name: c.name, arguments: c.arguments }));
      return { text: plan.text, tool_calls };
    },
  };
}
