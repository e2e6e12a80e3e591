import { createAiSdkModel, ProviderConfigError, providerModel, type ProviderName } from "./ai-sdk.js";
import { createHeuristicModel } from "./heuristic.js";
import { createReplayModel, loadTranscriptFile } from "./replay.js";
import type { Model } from "./types.js";

export type { Message, Model, ModelTurn, ToolCall, ToolSpec } from "./types.js";
export { createReplayModel, loadTranscriptFile, REPLAY_EXHAUSTED } from "./replay.js";
export { parseTranscript, type Transcript, type TranscriptTurn } from "./transcript.js";
export { createAiSdkModel, describeProviderError, providerModel, type ProviderName } from "./ai-sdk.js";

/** A model spec that cannot be turned into a model: unknown, missing env var, unreadable replay file. */
export class ModelSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelSpecError";
  }
}

/** The specs {@link createModel} understands, for help texts. */
export const MODEL_SPECS = ["heuristic", "replay:<file>", "openai:<model>", "anthropic:<model>", "openai-compatible:<model>"] as const;

const PROVIDERS: readonly ProviderName[] = ["openai", "anthropic", "openai-compatible"];

/**
 * A fresh model for one run from a spec:
 * `heuristic` (deterministic, no network) | `replay:<file>` (a DESIGN.md transcript JSON, read now) |
 * `openai:<model>` | `anthropic:<model>` | `openai-compatible:<model>` (Vercel AI SDK v5; keys/URLs from `env`).
 *
 * @param options.env where keys and base URLs are read (default `process.env`)
 * @throws ModelSpecError for an unknown spec, an empty model name, a missing key or base URL (the message names the
 *   variable), or an unreadable/invalid replay file
 */
export function createModel(spec: string, options: { env?: NodeJS.ProcessEnv } = {}): Model {
  const env = options.env ?? process.env;
  const s = spec.trim();
  if (s === "heuristic") return createHeuristicModel();
  const colon = s.indexOf(":");
  const kind = colon === -1 ? s : s.slice(0, colon);
  const rest = colon === -1 ? "" : s.slice(colon + 1);
  if (kind === "replay") {
    if (!rest) throw new ModelSpecError(`model spec "${spec}" needs a file: replay:<file>`);
    try {
      return createReplayModel(loadTranscriptFile(rest), s);
    } catch (err) {
      throw new ModelSpecError((err as Error).message);
    }
  }
  if ((PROVIDERS as readonly string[]).includes(kind)) {
    if (!rest.trim()) throw new ModelSpecError(`model spec "${spec}" needs a model name: ${kind}:<model>`);
    try {
      return createAiSdkModel(s, providerModel(kind as ProviderName, rest.trim(), env));
    } catch (err) {
      if (err instanceof ProviderConfigError) throw new ModelSpecError(err.message);
      throw err;
    }
  }
  throw new ModelSpecError(`unknown model spec "${spec}"; use one of ${MODEL_SPECS.join(", ")}`);
}
