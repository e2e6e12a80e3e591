import { loadRepoConfig, RepoConfigError, type ConfigContext } from "../config/load.js";
import { defaultConfig, type GroundfixConfig } from "../config/schema.js";

/**
 * The repository config as a handler sees it: `config` to decide with; `error` when `.github/groundfix.yml` is
 * invalid (`config` is then `error.fallback`: defaults plus the still-valid trigger keys); `unreadable` when GitHub
 * failed to answer (5xx/429, …; `config` is then the defaults, good only for deciding that nothing runs).
 */
export interface ConfigLookup {
  config: GroundfixConfig;
  error?: RepoConfigError;
  unreadable?: unknown;
}

/** Logger subset used here (Probot's pino logger fits). */
interface WarnLog {
  warn(obj: object, msg?: string): void;
}

/**
 * Read the repository config once for a webhook ({@link loadRepoConfig}) and never throw: an invalid file and a
 * failed read come back as {@link ConfigLookup} fields (the read failure is logged with the delivery id), so the
 * caller reports them where the user looks instead of answering the webhook with a 500.
 * @param notAboutConfig - errors that are not the config's to report (the installation token could not be had):
 *   they are rethrown, as `toError` makes them, neither logged nor decided with the defaults
 */
export async function lookupConfig(
  context: ConfigContext & { id: string; log: WarnLog },
  notAboutConfig?: { is(error: unknown): boolean; toError(error: unknown): unknown },
): Promise<ConfigLookup> {
  try {
    return { config: await loadRepoConfig(context) };
  } catch (error) {
    if (error instanceof RepoConfigError) return { config: error.fallback, error };
    if (notAboutConfig?.is(error)) throw notAboutConfig.toError(error);
    context.log.warn(
      { id: context.id, err: error },
      "groundfix: could not read .github/groundfix.yml; deciding with the defaults",
    );
    return { config: defaultConfig(), unreadable: error };
  }
}
