/**
 * The read-only tool surface (`agent/tool-specs.ts` describes them to the model): six tools over a snapshot, in
 * READ_TOOL_NAMES order, and `runTool`, which validates arguments with zod and never throws.
 */
import type { ToolResult } from "../types.js";
import { describeRepo } from "./describe-repo.js";
import { getFileContents } from "./get-file-contents.js";
import { grepCodebase } from "./grep.js";
import { listFiles } from "./list-files.js";
import { searchCodebase } from "./search.js";
import type { ToolContext, ToolDefinition } from "./types.js";
import { verifySymbolInRepo } from "./verify-symbol.js";
import { finish } from "./output.js";
import { zodIssueLines } from "../config/zod-issues.js";

export type { ToolContext, ToolDefinition } from "./types.js";
export { createReadLog } from "./read-log.js";
export { normalizeRepoPath } from "./paths.js";
export { describeRepo, getFileContents, grepCodebase, listFiles, searchCodebase, verifySymbolInRepo };
export { MAX_WINDOW_LINES } from "./get-file-contents.js";

/** The six read tools, in READ_TOOL_NAMES order. */
export const readTools: readonly ToolDefinition[] = Object.freeze([
  describeRepo,
  listFiles,
  getFileContents,
  grepCodebase,
  searchCodebase,
  verifySymbolInRepo,
]);

/** One line naming the arguments of a tool, from its zod object schema: `path: string, start_line?: number`. */
function signature(def: ToolDefinition): string {
  const shape = (
    def.schema as unknown as {
      shape?: Record<
        string,
        {
          safeParse(v: unknown): { success: boolean };
          type?: string;
          def?: { type?: string; innerType?: { def?: { type?: string } } };
        }
      >;
    }
  ).shape;
  if (shape === undefined) return "";
  return Object.entries(shape)
    .map(([key, s]) => {
      const optional = s.safeParse(undefined).success;
      const type = s.def?.type === "optional" ? s.def.innerType?.def?.type : s.def?.type;
      return `${key}${optional ? "?" : ""}: ${type ?? "value"}`;
    })
    .join(", ");
}

/**
 * Run a tool call: validate `rawArgs` with the tool's zod schema, then run it. Never throws: bad arguments give
 * status "invalid" and one line saying what was wrong and how to call the tool; an unexpected failure gives
 * status "invalid" with a one-line reason (no stack trace). Every answer has secrets redacted.
 */
export async function runTool(def: ToolDefinition, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
  const args = rawArgs === undefined || rawArgs === null ? {} : rawArgs;
  const parsed = def.schema.safeParse(args);
  if (!parsed.success) {
    const problems = zodIssueLines(parsed.error, { root: "arguments", max: 3 }).join("; ");
    return { status: "invalid", text: `INVALID: ${problems}. Call ${def.name} with { ${signature(def)} }.` };
  }
  try {
    return await def.run(parsed.data, ctx);
  } catch (err) {
    const reason = String((err as Error)?.message ?? err).split("\n")[0];
    return finish(ctx.snapshot, {
      status: "invalid",
      text: `INVALID: ${def.name} failed (${reason}). Check the arguments and call it again.`,
    });
  }
}
