import { z } from "zod";
import type { GroundfixConfig } from "./schema.js";

/** The model every installation may use, whatever the operator allows: deterministic, no network, no key. */
export const ALWAYS_ALLOWED_MODEL = "heuristic";

const commaList = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
  );

/**
 * The operator's environment (the person who runs the app, not a repository's owner). Only the `GROUNDFIX_*`
 * variables are read here; Probot reads its own (APP_ID, PRIVATE_KEY, WEBHOOK_SECRET, ...).
 */
export const operatorEnvSchema = z.object({
  /** Model spec for every run (same syntax as the CLI's `--model`): heuristic, openai:<m>, anthropic:<m>, openai-compatible:<m>, replay:<file>. */
  GROUNDFIX_MODEL: z.string().trim().min(1).default(ALWAYS_ALLOWED_MODEL),
  /** Comma-separated model specs a repository's `model:` key may pick; empty means only the operator's model and `heuristic`. */
  GROUNDFIX_ALLOWED_MODELS: commaList,
  /** Base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio) for `openai-compatible:<m>`. */
  GROUNDFIX_OPENAI_BASE_URL: z.url().optional(),
  /** Runs at once in this process (each run holds one snapshot in memory). */
  GROUNDFIX_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
});

/** The operator settings after validation. */
export interface OperatorEnv {
  model: string;
  allowedModels: string[];
  openaiBaseUrl: string | undefined;
  concurrency: number;
}

/** Thrown by {@link loadOperatorEnv}; the message lists each bad variable as `NAME: reason`. */
export class OperatorEnvError extends Error {
  constructor(readonly issues: string[]) {
    super(`invalid groundfix environment: ${issues.join("; ")}`);
    this.name = "OperatorEnvError";
  }
}

/**
 * Validate the `GROUNDFIX_*` variables of `env` (default `process.env`). Empty strings count as unset.
 * @throws OperatorEnvError when a variable is present but invalid (for example GROUNDFIX_CONCURRENCY=0)
 */
export function loadOperatorEnv(env: NodeJS.ProcessEnv = process.env): OperatorEnv {
  const picked: Record<string, string> = {};
  for (const name of Object.keys(operatorEnvSchema.shape)) {
    const value = env[name];
    if (value !== undefined && value.trim() !== "") picked[name] = value;
  }
  const parsed = operatorEnvSchema.safeParse(picked);
  if (!parsed.success) {
    throw new OperatorEnvError(parsed.error.issues.map((i) => `${i.path.map(String).join(".")}: ${i.message}`));
  }
  const data = parsed.data;
  return {
    model: data.GROUNDFIX_MODEL,
    allowedModels: data.GROUNDFIX_ALLOWED_MODELS,
    openaiBaseUrl: data.GROUNDFIX_OPENAI_BASE_URL,
    concurrency: data.GROUNDFIX_CONCURRENCY,
  };
}

/**
 * The model spec a run of this repository uses: the repository's `model:` when the operator allowed it
 * (listed in GROUNDFIX_ALLOWED_MODELS, equal to GROUNDFIX_MODEL, or `heuristic`), else the operator's model.
 * A repository never widens what the operator pays for or trusts.
 *
 * @returns `{ ok: true, spec }` or `{ ok: false, message }` with a one-line reason to post on the issue
 */
export function selectModelSpec(
  operator: OperatorEnv,
  config: Pick<GroundfixConfig, "model">,
): { ok: true; spec: string } | { ok: false; message: string } {
  const wanted = config.model?.trim();
  if (!wanted) return { ok: true, spec: operator.model };
  if (wanted === ALWAYS_ALLOWED_MODEL || wanted === operator.model || operator.allowedModels.includes(wanted)) {
    return { ok: true, spec: wanted };
  }
  const allowed = [...new Set([ALWAYS_ALLOWED_MODEL, operator.model, ...operator.allowedModels])];
  return {
    ok: false,
    message:
      `model: "${wanted}" in .github/groundfix.yml is not allowed by the operator of this app. ` +
      `Allowed: ${allowed.map((m) => `"${m}"`).join(", ")}. Remove the key or pick one of these.`,
  };
}
