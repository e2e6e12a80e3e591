import type { z } from "zod";
import type { ReadLog, Snapshot, ToolName, ToolResult } from "../types.js";

/** What a tool handler sees: the pinned snapshot and the run's read log (for the read-before-edit gate). */
export interface ToolContext {
  snapshot: Snapshot;
  reads: ReadLog;
}

/**
 * One tool offered to a model. `schema` validates the arguments (zod 4; `z.toJSONSchema(schema)` gives the JSON
 * Schema for a provider); `description` is written for the model. `readsCode` is true for tools that look at the
 * repository (the count floor gate counts them). `run` returns the text the model sees; call it through
 * `runTool`, which validates arguments and never throws.
 */
export interface ToolDefinition<A = any> {
  name: ToolName;
  description: string;
  schema: z.ZodType<A>;
  readsCode: boolean;
  run(args: A, ctx: ToolContext): ToolResult | Promise<ToolResult>;
}
