import { z } from "zod";
import { readTools } from "../tools/index.js";
import { SUBMIT_ANSWER_DESCRIPTION, submitAnswerSchema } from "../tools/submit-answer.js";
import { SUGGEST_ADDITION_DESCRIPTION, suggestAdditionSchema } from "../tools/suggest-addition.js";
import type { ToolSpec } from "./models/types.js";

/** JSON Schema of a zod schema, as providers take it (no `$schema` key). */
export function toParameters(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

/** The tools offered to every model, in order: the six read tools, then `suggest_addition`, then `submit_answer`. */
export function agentToolSpecs(): ToolSpec[] {
  return [
    ...readTools.map((t) => ({ name: t.name, description: t.description, parameters: toParameters(t.schema) })),
    { name: "suggest_addition", description: SUGGEST_ADDITION_DESCRIPTION, parameters: toParameters(suggestAdditionSchema) },
    { name: "submit_answer", description: SUBMIT_ANSWER_DESCRIPTION, parameters: toParameters(submitAnswerSchema) },
  ];
}
