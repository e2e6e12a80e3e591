import { z } from "zod";
import type { GroundfixConfig } from "./schema.js";
import { zodIssueLines } from "./zod-issues.js";

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
  /**
   * Model spec for every run (same syntax as the CLI's `--model`): heuristic, openai:<m>, anthropic:<m>,
   * openai-compatible:<m>, replay:<file>.
   */
  GROUNDFIX_MODEL: z.string().trim().min(1).default(ALWAYS_ALLOWED_MODEL),
  /**
   * Comma-separated model specs a repository's `model:` key may pick; empty means only the operator's model and
   * `heuristic`.
   */
  GROUNDFIX_ALLOWED_MODELS: commaList,
  /**
   * Base URL of an OpenAI-compatible server (Ollama, vLLM, llama.cpp server, LM Studio) for `openai-compatible:<m>`.
   */
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
    throw new OperatorEnvError(zodIssueLines(parsed.error, { root: "" }));
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

// ───────────────────────────── model providers ─────────────────────────────

/** The providers reachable through the Vercel AI SDK v5 (`<provider>:<model>` specs). */
export const PROVIDER_NAMES = ["openai", "openai-chat", "anthropic", "openai-compatible"] as const;
/** One of {@link PROVIDER_NAMES}. */
export type ProviderName = (typeof PROVIDER_NAMES)[number];

/**
 * How one provider model is reached and bounded, from the environment. Times in milliseconds.
 * - `baseURL`: where requests go (`OPENAI_BASE_URL`, `ANTHROPIC_BASE_URL`, `GROUNDFIX_OPENAI_BASE_URL`, or the
 *   provider's public API);
 * - `local`: true for `openai-compatible:` and for any base URL on a loopback or private address; local servers get
 *   the longer default time limits (a CPU-bound model can take minutes per turn);
 * - `requestTimeoutMs`: one HTTP request (GROUNDFIX_REQUEST_TIMEOUT_MS; default 120 s, local 300 s, which is also
 *   where Node's fetch stops waiting for response headers);
 * - `runTimeoutMs`: the whole agent run (GROUNDFIX_RUN_TIMEOUT_MS; default 15 min, local 60 min);
 * - `retries`: further attempts after a 429, 5xx or dropped connection (GROUNDFIX_MODEL_RETRIES; default 2);
 * - `temperature`: GROUNDFIX_TEMPERATURE, default 0.2 for `openai-compatible:` (Ollama's own default is 1.0),
 *   otherwise the provider's default;
 * - `maxOutputTokens`: GROUNDFIX_MAX_OUTPUT_TOKENS, default 8192 for `anthropic:` (the SDK would send the model's
 *   maximum, up to 64000, which can exceed a low tier's output-rate budget), otherwise the provider's default.
 */
export interface ProviderSettings {
  provider: ProviderName;
  modelId: string;
  apiKey: string | undefined;
  baseURL: string;
  local: boolean;
  requestTimeoutMs: number;
  runTimeoutMs: number;
  retries: number;
  temperature: number | undefined;
  maxOutputTokens: number | undefined;
}

/** A provider that cannot be configured from the environment; `variable` names the missing or invalid variable. */
export class ProviderEnvError extends Error {
  constructor(
    message: string,
    readonly variable: string,
  ) {
    super(message);
    this.name = "ProviderEnvError";
  }
}

const PUBLIC_BASE_URL: Record<Exclude<ProviderName, "openai-compatible">, string> = {
  openai: "https://api.openai.com/v1",
  "openai-chat": "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com/v1",
};

/** True for a loopback, link-local or private (RFC 1918 / RFC 4193) host, or a `.local` / `.internal` name. */
export function isLocalHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, "").toLowerCase();
  if (h === "localhost" || h.endsWith(".localhost") || h.endsWith(".local") || h.endsWith(".internal") || h === "::1")
    return true;
  if (/^(fc|fd)[0-9a-f]{2}:/.test(h) || h.startsWith("fe80:")) return true;
  const m = /^(\d+)\.(\d+)\.\d+\.\d+$/.exec(h);
  if (!m) return false;
  const [a, b] = [Number(m[1]), Number(m[2])];
  return (
    a === 127 || a === 10 || (a === 192 && b === 168) || (a === 172 && b >= 16 && b <= 31) || (a === 169 && b === 254)
  );
}

function numberVar(
  env: NodeJS.ProcessEnv,
  name: string,
  min: number,
  max: number,
  integer: boolean,
): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new ProviderEnvError(
      `${name}=${JSON.stringify(raw)} is not ${integer ? "an integer" : "a number"} from ${min} to ${max}`,
      name,
    );
  }
  return value;
}

function urlVar(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ProviderEnvError(
      `${name}=${JSON.stringify(raw)} is not a URL (expected e.g. http://localhost:11434/v1)`,
      name,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new ProviderEnvError(`${name} must be an http(s) URL, not ${url.protocol}`, name);
  return raw.replace(/\/+$/, "");
}

/**
 * The settings of `<provider>:<modelId>` from `env` (see {@link ProviderSettings} for each variable and default).
 * Needs OPENAI_API_KEY for `openai:`/`openai-chat:`, ANTHROPIC_API_KEY for `anthropic:`, GROUNDFIX_OPENAI_BASE_URL
 * for `openai-compatible:` (its GROUNDFIX_OPENAI_API_KEY is optional). Reads no file and loads no SDK.
 *
 * @throws ProviderEnvError naming the missing or invalid variable
 */
export function providerSettings(provider: ProviderName, modelId: string, env: NodeJS.ProcessEnv): ProviderSettings {
  const spec = `${provider}:${modelId}`;
  const key = (name: string, required: boolean) => {
    const value = env[name]?.trim();
    if (!value && required) throw new ProviderEnvError(`${spec} needs the environment variable ${name}`, name);
    return value || undefined;
  };
  let apiKey: string | undefined;
  let baseURL: string;
  if (provider === "openai-compatible") {
    const url = urlVar(env, "GROUNDFIX_OPENAI_BASE_URL");
    if (!url)
      throw new ProviderEnvError(
        `${spec} needs the environment variable GROUNDFIX_OPENAI_BASE_URL (e.g. http://localhost:11434/v1)`,
        "GROUNDFIX_OPENAI_BASE_URL",
      );
    baseURL = url;
    apiKey = key("GROUNDFIX_OPENAI_API_KEY", false);
  } else if (provider === "anthropic") {
    apiKey = key("ANTHROPIC_API_KEY", true);
    baseURL = urlVar(env, "ANTHROPIC_BASE_URL") ?? PUBLIC_BASE_URL.anthropic;
  } else {
    apiKey = key("OPENAI_API_KEY", true);
    baseURL = urlVar(env, "OPENAI_BASE_URL") ?? PUBLIC_BASE_URL[provider];
  }
  const local = provider === "openai-compatible" || isLocalHost(new URL(baseURL).hostname);
  const requestTimeoutMs =
    numberVar(env, "GROUNDFIX_REQUEST_TIMEOUT_MS", 1, 3_600_000, true) ?? (local ? 300_000 : 120_000);
  const runTimeoutMs =
    numberVar(env, "GROUNDFIX_RUN_TIMEOUT_MS", 1, 24 * 3_600_000, true) ?? (local ? 3_600_000 : 900_000);
  const retries = numberVar(env, "GROUNDFIX_MODEL_RETRIES", 0, 5, true) ?? 2;
  const temperature =
    numberVar(env, "GROUNDFIX_TEMPERATURE", 0, 2, false) ?? (provider === "openai-compatible" ? 0.2 : undefined);
  const maxOutputTokens =
    numberVar(env, "GROUNDFIX_MAX_OUTPUT_TOKENS", 256, 128_000, true) ?? (provider === "anthropic" ? 8192 : undefined);
  return {
    provider,
    modelId,
    apiKey,
    baseURL,
    local,
    requestTimeoutMs,
    runTimeoutMs,
    retries,
    temperature,
    maxOutputTokens,
  };
}

/**
 * The provider part of a model spec: `{ provider, modelId }` for `<provider>:<model>`, null for any other spec
 * (heuristic, replay:, or an unknown prefix).
 */
export function parseProviderSpec(spec: string): { provider: ProviderName; modelId: string } | null {
  const s = spec.trim();
  const colon = s.indexOf(":");
  if (colon === -1) return null;
  const provider = s.slice(0, colon);
  if (!(PROVIDER_NAMES as readonly string[]).includes(provider)) return null;
  return { provider: provider as ProviderName, modelId: s.slice(colon + 1).trim() };
}

/**
 * Check at start-up that every model the operator configured can be used: GROUNDFIX_MODEL and each entry of
 * GROUNDFIX_ALLOWED_MODELS must be `heuristic`, `replay:<file>` or `<provider>:<model>` with the provider's variables
 * set and valid. No network, no SDK loaded.
 *
 * @returns one line per problem (empty when all is well), each naming the spec and the variable
 */
export function operatorModelProblems(operator: OperatorEnv, env: NodeJS.ProcessEnv = process.env): string[] {
  const problems: string[] = [];
  const specs = [...new Set([operator.model, ...operator.allowedModels])];
  for (const spec of specs) {
    const where = spec === operator.model ? "GROUNDFIX_MODEL" : "GROUNDFIX_ALLOWED_MODELS";
    if (spec === ALWAYS_ALLOWED_MODEL) continue;
    if (spec.startsWith("replay:")) {
      if (!spec.slice("replay:".length).trim()) problems.push(`${where}: "${spec}" needs a file: replay:<file>`);
      continue;
    }
    const parsed = parseProviderSpec(spec);
    if (!parsed) {
      problems.push(
        `${where}: unknown model spec "${spec}"; use heuristic, replay:<file> ` +
          `or one of ${PROVIDER_NAMES.map((p) => `${p}:<model>`).join(", ")}`,
      );
      continue;
    }
    if (!parsed.modelId) {
      problems.push(`${where}: "${spec}" needs a model name: ${parsed.provider}:<model>`);
      continue;
    }
    try {
      providerSettings(parsed.provider, parsed.modelId, env);
    } catch (err) {
      problems.push(`${where}: ${(err as Error).message}`);
    }
  }
  return problems;
}

/**
 * The start-up check of the App: the operator environment parsed, and every configured model usable
 * ({@link operatorModelProblems}). Never throws.
 *
 * @returns `{ ok: true, operator }`, or `{ ok: false, line }` with one line naming each bad variable, for the
 *   operator to read before the process exits
 */
export function checkOperatorStart(
  env: NodeJS.ProcessEnv = process.env,
): { ok: true; operator: OperatorEnv } | { ok: false; line: string } {
  let operator: OperatorEnv;
  try {
    operator = loadOperatorEnv(env);
  } catch (err) {
    if (err instanceof OperatorEnvError)
      return { ok: false, line: `groundfix: cannot start: ${err.issues.join("; ")}` };
    throw err;
  }
  const problems = operatorModelProblems(operator, env);
  return problems.length
    ? { ok: false, line: `groundfix: cannot start: ${problems.join("; ")}` }
    : { ok: true, operator };
}
