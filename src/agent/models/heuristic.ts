/**
 * The `heuristic` model: the default, deterministic, no-network model.
 *
 * It is a {@link Model} like any other: it learns only from the messages (the task message and the tool answers),
 * drives the same tools and passes the same gates. Each turn is recomputed from the whole conversation, so the same
 * messages always give the same turn (no randomness, no clock, no state between calls).
 *
 * What it does (details in `heuristic/plan.ts`): parses the problem for stack frames (JavaScript/TypeScript, Python,
 * Java, Go, Ruby, C#), error messages, quoted identifiers, file paths and the alert location; maps frames of an
 * installed copy of the repository's own packages (`node_modules/<own>/`, `site-packages/<own>/`,
 * `pkg/mod/<module>@v/`, gems; names from the manifests, through `describe_repo`) to the repository's files
 * (`heuristic/own.ts`), and other frames by path suffix through `list_files` (never by a file name alone; compiled
 * output such as `dist/x.js` through its source `src/x.ts`, chosen by the frame's function); reads structured tool
 * answers (`heuristic/results.ts`); checks the frame line against the function the frame names; adds, before the
 * statement of the innermost own frame and anchored on verbatim lines, an addition in proportion to the problem
 * (`heuristic/proportion.ts`): a crash that names what was missing gets a guard on the frame line's receiver that
 * throws a clear error naming the value and the ids in scope, or returns as the function's own guards do; a warning
 * about a declared name gets comments only (the finding and the fix options); anything else a comment naming the
 * finding (never an unconditional log that restates the error), which stays below the pull-request threshold; answers
 * in whole sentences with confidence from the evidence. When the file declares an identifier the problem quotes (and
 * the frame line does not name it), the declaring line is the root-cause snippet and the addition names that
 * declaration (`heuristic/wording.ts`).
 *
 * Evidence and confidence: innermost in-repo frame + read + applied edit 0.85 (0.9 when the frame's file also declares
 * an identifier quoted in the error message); alert location 0.8; identifier declaration only 0.65 with an edit, 0.6
 * without; a path named in prose 0.55; a search hit 0.45; nothing 0.3 (needs_information, with a summary of the
 * missing evidence). No edit applied: frame 0.65. A comment-only addition: at most 0.6. Each rejected answer costs 0.1.
 *
 * Limits (heuristics, not a parser):
 * - code is read line by line: statement starts come from line endings and indentation; a statement is inserted only
 *   where one can start (never in a class/struct body of JS/TS/Java/C#/Go/Kotlin, never before `else`/`case`/
 *   `except`/decorators, never at top level in Go/Java/C#/Kotlin); minified or very long lines are not anchored on;
 * - a frame whose file name is shared by several files resolves by the longest common path suffix, ties by the
 *   shortest path (confidence −0.1); frames with bare file names (Java, C# without folders) rely on package paths;
 * - an outer frame is preferred over the innermost only when its file declares an identifier quoted in the error
 *   message within 40 lines after the frame line (e.g. an in-repo library that emits a warning about a caller's field);
 * - identifiers are found by a declaration regex (`name:` / `name =` / `def|function|func|class|type name`), so a
 *   field declared another way (decorators, `attr_accessor`, struct tags) is missed; dotted names use their last part;
 * - values logged are cheap facts about parameters of the enclosing named function: ids by value, lengths, type
 *   names (Java/Kotlin/C#: ids only), never whole objects, request/response/context/secret-like names left out; a
 *   guard's receiver is read off the frame line (a name, or a dotted chain guarded part by part) and must be in scope
 *   and not bound by the statement itself (Go: a pointer parameter only); a home-made logger is called only with a
 *   method the file already calls on it;
 * - a compiled-output frame's line number is not used: the line is searched inside the function in the source;
 * - it adds lines only; it never fixes the bug itself.
 */
import type { Model, ModelTurn, ToolCall } from "./types.js";
import type { Plan } from "./heuristic/plan.js";

/**
 * Create the heuristic model (`spec: "heuristic"`). Its `next` never throws and never touches the network;
 * call ids are `h<turn>_<index>`. Its modules start loading here (while the run reads the commit), so a run with
 * another model never loads them.
 */
export function createHeuristicModel(): Model {
  const planner = import("./heuristic/plan.js");
  planner.catch(() => undefined); // a failed load is reported by the first turn
  return {
    spec: "heuristic",
    async next({ messages, tools }): Promise<ModelTurn> {
      const { planNextTurn } = await planner;
      let plan: Plan;
      try {
        plan = planNextTurn(messages, new Set(tools.map((t) => t.name)));
      } catch (error) {
        // A bug in a heuristic must not end the run as a model error: answer that the evidence could not be read.
        const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
        plan = {
          text: "The heuristic could not analyse the conversation.",
          calls: [
            {
              name: "submit_answer",
              arguments: {
                summary:
                  `The heuristic model could not analyse this problem (${why}); a stack ` +
                  `trace with repository paths or the exact error message would help.`,
                affected_file: null,
                affected_function: null,
                root_cause_snippet: null,
                confidence: 0.1,
              },
            },
          ],
        };
      }
      const turn = messages.filter((m) => m.role === "assistant").length + 1;
      const tool_calls: ToolCall[] = plan.calls.map((c, i) => ({
        id: `h${turn}_${i + 1}`,
        name: c.name,
        arguments: c.arguments,
      }));
      return { text: plan.text, tool_calls };
    },
  };
}
