import { createRequire } from "node:module";
import { ConfigError, defaultConfig, parseConfig, type GroundfixConfig } from "./schema.js";

/** The YAML parser, loaded the first time a config file is parsed (most repositories have none). */
let yaml: typeof import("yaml") | undefined;
function parseYaml(text: string): unknown {
  yaml ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yaml.parse(text);
}

/** The file name Probot looks up under `.github/` (repository first, then the owner's `.github` repository). */
export const CONFIG_FILE = "groundfix.yml";
/** Where a repository keeps its groundfix config, on every host. */
export const CONFIG_PATH = ".github/groundfix.yml";

/**
 * The names a user might give the config that groundfix does not read (only {@link CONFIG_PATH} is read, as Probot
 * reads `.github/<file>`): another extension, the repository root, a leading dot.
 */
export const MISPLACED_CONFIG_PATHS = [
  ".github/groundfix.yaml",
  ".github/.groundfix.yml",
  ".github/.groundfix.yaml",
  ".groundfix.yml",
  ".groundfix.yaml",
  "groundfix.yml",
  "groundfix.yaml",
] as const;

/**
 * One note per file of `paths` (a snapshot's sorted path list) that looks like a groundfix config at a name groundfix
 * does not read ({@link MISPLACED_CONFIG_PATHS}), e.g. `found .groundfix.yml, which is not read: groundfix reads only
 * .github/groundfix.yml (move it there)`. Empty when there is none.
 */
export function misplacedConfigNotes(paths: readonly string[]): string[] {
  const present = new Set(paths);
  return MISPLACED_CONFIG_PATHS.filter((p) => present.has(p)).map(
    (p) => `found ${p}, which is not read: groundfix reads only ${CONFIG_PATH} (move it there)`,
  );
}

/** The one message for a config file whose YAML does not parse: `(file): invalid YAML: <the parser's first line>`. */
function invalidYaml(error: unknown): string {
  // The yaml package ends its first line with ":" before a code frame; without the frame the colon dangles.
  return (
    `(file): invalid YAML: ` +
    `${firstLine(error instanceof Error ? error.message : String(error)).replace(/:\s*$/, "")}`
  );
}

/**
 * The config in the text of `.github/groundfix.yml` (as committed at a commit), validated with the zod schema; no
 * file (`undefined`) means every default.
 * @throws ConfigError (one line per bad key) when the YAML does not parse or a key is invalid.
 */
export function configFromText(text: string | undefined): GroundfixConfig {
  if (text === undefined) return parseConfig({}, CONFIG_PATH);
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigError([invalidYaml(error)], CONFIG_PATH);
  }
  return parseConfig(raw, CONFIG_PATH);
}

/** The part of a Probot context `loadRepoConfig` uses (`context.config`), so tests can pass a stub. */
export interface ConfigContext {
  config<T>(fileName: string, defaults?: T): Promise<T | null>;
}

/**
 * A {@link ConfigError} from a repository's config, plus the trigger keys that were still valid on their own
 * (`fallback`: defaults overlaid with the valid `trigger_label`, `trigger_permission` and `allowed_bots`), so a
 * handler can still decide whether an event was meant for groundfix and report the error where the user looks.
 * `labels`: every label name that could have been meant as the trigger — `fallback.trigger_label`, plus the scalar
 * value of each top-level key that looks like a label key (`trigger_labl: autofix`, `trigger_label: 123`,
 * `triggerLabel: fix`), so a typo in the trigger key itself is still reported when that label is applied.
 */
export class RepoConfigError extends ConfigError {
  constructor(
    issues: string[],
    readonly fallback: GroundfixConfig,
    readonly labels: string[] = [fallback.trigger_label],
  ) {
    super(issues, CONFIG_PATH);
    this.name = "RepoConfigError";
  }
}

/**
 * Read `.github/groundfix.yml` through `context.config` (Probot: default branch of the repository, then the
 * owner's `.github` repository, `_extends` supported) and validate it with the zod schema; no file means defaults.
 *
 * @throws RepoConfigError when the YAML does not parse (the parser's reason, with line and column) or a key is
 *   invalid (`dotted.key: reason`, as {@link parseConfig} words it); other errors (GitHub 5xx, ...) propagate.
 */
export async function loadRepoConfig(context: ConfigContext): Promise<GroundfixConfig> {
  let raw: unknown;
  try {
    raw = await context.config<Record<string, unknown>>(CONFIG_FILE);
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause;
    if (!/could not be parsed|YAML/i.test(String((error as Error).message))) throw error;
    throw new RepoConfigError([invalidYaml(cause instanceof Error ? cause : error)], defaultConfig());
  }
  try {
    return parseConfig(raw, CONFIG_PATH);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    const fallback = triggerFallback(raw);
    throw new RepoConfigError(error.issues, fallback, [fallback.trigger_label, ...labelsNamed(raw)]);
  }
}

/**
 * The scalar values (string, number, boolean; as text, trimmed, non-empty) of the top-level keys of `raw` whose
 * name, lower-cased with everything but letters dropped, contains `lab`, `lbl` or `lable` (a misspelt or
 * mistyped `trigger_label`).
 */
function labelsNamed(raw: unknown): string[] {
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) return [];
  const labels: string[] = [];
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (!/lab|lbl/.test(key.toLowerCase().replace(/[^a-z]/g, ""))) continue;
    if (!["string", "number", "boolean"].includes(typeof value)) continue;
    const label = String(value).trim();
    if (label) labels.push(label);
  }
  return labels;
}

/** Defaults overlaid with whichever trigger keys of `raw` are valid on their own. */
function triggerFallback(raw: unknown): GroundfixConfig {
  const base = defaultConfig();
  if (!raw || typeof raw !== "object") return base;
  const source = raw as Record<string, unknown>;
  for (const key of ["trigger_label", "trigger_permission", "allowed_bots"] as const) {
    if (!(key in source)) continue;
    try {
      Object.assign(base, { [key]: parseConfig({ [key]: source[key] })[key] });
    } catch {
      // keep the default for this key
    }
  }
  return base;
}

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").trim();
}
