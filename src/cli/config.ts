import { parse as parseYaml } from "yaml";
import { ConfigError, parseConfig, type GroundfixConfig } from "../config/schema.js";
import type { Snapshot } from "../types.js";

/** Where a repository keeps its groundfix config (the same file the GitHub App reads). */
export const LOCAL_CONFIG_PATH = ".github/groundfix.yml";

/**
 * The config of a local run: `.github/groundfix.yml` as committed at the snapshot's commit, validated with the
 * shared zod schema; no file means every default.
 * @throws ConfigError (one line per bad key) when the YAML does not parse or a key is invalid.
 */
export function configFromSnapshot(snapshot: Snapshot): GroundfixConfig {
  const text = snapshot.read(LOCAL_CONFIG_PATH);
  if (text === undefined) return parseConfig({}, LOCAL_CONFIG_PATH);
  let raw: unknown;
  try {
    raw = parseYaml(text);
  } catch (error) {
    throw new ConfigError([`(file): invalid YAML: ${String((error as Error).message).split("\n")[0]}`], LOCAL_CONFIG_PATH);
  }
  return parseConfig(raw, LOCAL_CONFIG_PATH);
}
