import { z } from "zod";
import { readTools } from "../tools/index.js";
import { SUBMIT_ANSWER_DESCRIPTION, submitAnswerSchema } from "../tools/submit-answer.js";
import { SUGGEST_ADDITION_DESCRIPTION, suggestAdditionSchema } from "../tools/suggest-addition.js";
import type { ToolSpec } from "./models/types.js";

type Json = Record<string, unknown>;

/**
 * One property made portable: bounds moved into the description (`minimum`, `maximum`, `minLength`, `maxLength` are
 * refused by Anthropic's strict tool use, and zod's `maximum: 9007199254740991` for a bare integer says nothing),
 * and, when `optional`, `null` added to its type so it can be listed in `required`.
 */
function portable(property: Json, optional: boolean): Json {
  const { minimum, maximum, minLength, maxLength, ...rest } = property;
  void minLength;
  void maxLength;
  const bounds = [
    typeof minimum === "number" ? `at least ${minimum}` : null,
    typeof maximum === "number" && maximum < Number.MAX_SAFE_INTEGER ? `at most ${maximum}` : null,
  ].filter(Boolean);
  const out: Json = { ...rest };
  const notes = [
    typeof rest.description === "string" ? rest.description : "",
    bounds.length ? `Allowed: ${bounds.join(", ")}.` : "",
  ];
  if (optional) {
    const type = rest.type;
    out.type = Array.isArray(type) ? (type.includes("null") ? type : [...type, "null"]) : [type, "null"];
    notes.push("Send null for the default.");
  }
  const description = notes.filter(Boolean).join(" ");
  if (description) out.description = description;
  return out;
}

/**
 * JSON Schema of a zod object schema as every provider's strict mode takes it (OpenAI structured outputs,
 * Anthropic strict tool use): no `$schema`, `additionalProperties: false`, every property in `required` — an
 * optional one typed `T | null`, meaning "the default" (the loop drops such nulls before validating) — and no
 * numeric or length bounds (they move into the description; the zod schema still enforces them).
 */
export function toParameters(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input" }) as Json;
  delete json.$schema;
  const properties = (json.properties ?? {}) as Record<string, Json>;
  const required = new Set((json.required as string[] | undefined) ?? []);
  const names = Object.keys(properties);
  return {
    type: "object",
    properties: Object.fromEntries(names.map((name) => [name, portable(properties[name]!, !required.has(name))])),
    required: names,
    additionalProperties: false,
  };
}

/** The tools offered to every model, in order: the six read tools, then `suggest_addition`, then `submit_answer`. */
export function agentToolSpecs(): ToolSpec[] {
  return [
    ...readTools.map((t) => ({ name: t.name, description: t.description, parameters: toParameters(t.schema) })),
    {
      name: "suggest_addition",
      description: SUGGEST_ADDITION_DESCRIPTION,
      parameters: toParameters(suggestAdditionSchema),
    },
    { name: "submit_answer", description: SUBMIT_ANSWER_DESCRIPTION, parameters: toParameters(submitAnswerSchema) },
  ];
}
