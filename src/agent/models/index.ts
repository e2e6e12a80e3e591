import {
  parseProviderSpec,
  PROVIDER_NAMES,
  ProviderEnvError,
  providerSettings,
  type ProviderSettings,
} from "../../config/env.js";
import { pricingFor } from "./pricing.js";
import { createHeuristicModel } from "./heuristic.js";
import { createReplayModel, loadTranscriptFile } from "./replay.js";
import type { Model, ModelTurn } from "./types.js";

export type { Message, Model, ModelTurn, Pricing, ToolCall, ToolSpec, TurnUsage } from "./types.js";
export { createReplayModel, loadTranscriptFile, REPLAY_EXHAUSTED } from "./replay.js";
export { parseTranscript, type Transcript, type TranscriptTurn } from "./transcript.js";
export type { ProviderName } from "../../config/env.js";

/** A model spec that cannot be turned into a model: unknown, missing env var, unreadable replay file. */
export class ModelSpecError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ModelSpecError";
  }
}

/** The specs {@link createModel} understands, for help texts. */
export const MODEL_SPECS = ["heuristic", "replay:<file>", ...PROVIDER_NAMES.map((p) => `${p}:<model>`)] as const;

/**
 * A provider model whose AI SDK code (`ai`, `@ai-sdk/*`, a few hundred modules) is imported on the first turn, not
 * when groundfix starts: a heuristic or replay run never loads it. The settings were checked already, so the only
 * failure left for `next` is the provider's.
 */
function lazyProviderModel(spec: string, settings: ProviderSettings): Model {
  let loaded: Promise<Model> | undefined;
  const pricing = pricingFor(settings.provider, settings.modelId);
  return {
    spec,
    runTimeoutMs: settings.runTimeoutMs,
    ...(pricing ? { pricing } : {}),
    async next(input): Promise<ModelTurn> {
      loaded ??= import("./ai-sdk.js").then((m) => m.createAiSdkModel(spec, settings));
      const model = await loaded;
      return model.next(input);
    },
  };
}

/**
 * A fresh model for one run from a spec:
 * `heuristic` (deterministic, no network) | `replay:<file>` (a transcript JSON, `transcript.ts`, read now) |
 * `openai:<model>` (Responses API) | `openai-chat:<model>` (Chat Completions at OPENAI_BASE_URL) |
 * `anthropic:<model>` | `openai-compatible:<model>` (Vercel AI SDK v5; keys, URLs and limits from `env`, see
 * `providerSettings` in src/config/env.ts; the SDK itself is loaded on the first turn).
 *
 * @param options.env where keys, base URLs and limits are read (default `process.env`)
 * @throws ModelSpecError for an unknown spec, an empty model name, a missing key or base URL or an invalid limit
 *   (the message names the variable), or an unreadable/invalid replay file
 */
export function createModel(spec: string, options: { env?: NodeJS.ProcessEnv } = {}): Model {
  const env = options.env ?? process.env;
  const s = spec.trim();
  if (s === "heuristic") return createHeuristicModel();
  if (s === "replay" || s.startsWith("replay:")) {
    const rest = s.slice("replay:".length);
    if (!rest) throw new ModelSpecError(`model spec "${spec}" needs a file: replay:<file>`);
    try {
      return createReplayModel(loadTranscriptFile(rest), s);
    } catch (err) {
      throw new ModelSpecError((err as Error).message);
    }
  }
  const provider = parseProviderSpec((PROVIDER_NAMES as readonly string[]).includes(s) ? `${s}:` : s);
  if (provider) {
    if (!provider.modelId)
      throw new ModelSpecError(`model spec "${spec}" needs a model name: ${provider.provider}:<model>`);
    try {
      return lazyProviderModel(s, providerSettings(provider.provider, provider.modelId, env));
    } catch (err) {
      if (err instanceof ProviderEnvError) throw new ModelSpecError(err.message);
      throw err;
    }
  }
  throw new ModelSpecError(`unknown model spec "${spec}"; use one of ${MODEL_SPECS.join(", ")}`);
}
