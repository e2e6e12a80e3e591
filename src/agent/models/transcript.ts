import { z } from "zod";
import { zodIssueLines } from "../../config/zod-issues.js";

/**
 * A recorded run, one entry per model call, in order (docs/ARCHITECTURE.md, "Outcomes, gates, models"):
 * `{"turns": [{"text": "optional prose", "tool_calls": [{"name": "grep_codebase", "arguments": {"pattern":
 * "errors"}}]}]}`.
 * `usage` (tokens the model reported) is an optional addition, so a replay reproduces token-budget outcomes.
 */
export interface Transcript {
  turns: TranscriptTurn[];
}
/**
 * One recorded model call: its optional prose, the tool calls it made in order (`arguments` as the model sent
 * them, checked only when the tool runs) and, when recorded, the tokens the provider reported for that call.
 */
export interface TranscriptTurn {
  text?: string;
  tool_calls: { name: string; arguments: unknown }[];
  usage?: { input_tokens: number; output_tokens: number };
}

/** zod schema of {@link Transcript}; unknown keys are errors so a typo in a fixture is reported. */
export const transcriptSchema = z
  .object({
    turns: z.array(
      z
        .object({
          text: z.string().optional(),
          tool_calls: z.array(z.object({ name: z.string().min(1), arguments: z.unknown() }).strict()).default([]),
          usage: z
            .object({ input_tokens: z.number().int().min(0), output_tokens: z.number().int().min(0) })
            .strict()
            .optional(),
        })
        .strict(),
    ),
  })
  .strict();

/**
 * Validate a parsed transcript.
 * @throws Error with one line per problem, `turns.2.tool_calls.0.name: …`
 */
export function parseTranscript(raw: unknown): Transcript {
  const result = transcriptSchema.safeParse(raw);
  if (result.success) return result.data as Transcript;
  const issues = zodIssueLines(result.error);
  throw new Error(`invalid transcript: ${issues.join("; ")}`);
}
