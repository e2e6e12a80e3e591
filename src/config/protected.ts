import { parse as parseToml } from "smol-toml";
import { compileGlob } from "../grounding/glob.js";
import { isSecretPath } from "../grounding/secrets.js";
import { PROTECTED_PARTS, PROTECTED_PATHS, type GroundfixConfig } from "./schema.js";

/** Why a path or an edit may not be written: the rule's name (as `paths.allow_protected` names it) and one sentence. */
export interface PolicyRefusal {
  rule: string;
  message: string;
}

/** Decides, for one config, which paths may be written. Built by {@link createPathPolicy}; globs compiled once. */
export interface PathPolicy {
  /** null when `path` may be written, else the first rule that refuses it. */
  refusal(path: string): PolicyRefusal | null;
}

let builtIn: { name: string; why: string; fixed: boolean; match: (path: string) => boolean }[] | undefined;

function builtInRules() {
  builtIn ??= PROTECTED_PATHS.map((r) => {
    const tests = r.globs.map((g) => compileGlob(g, { nocase: true }));
    return { name: r.name, why: r.why, fixed: r.fixed === true, match: (p: string) => tests.some((t) => t(p)) };
  });
  return builtIn;
}

/**
 * The path policy of a config, checked in this order: secret files (`isSecretPath`, always), the built-in protected
 * list ({@link PROTECTED_PATHS}, case-insensitive, without the rules named in `paths.allow_protected`; fixed rules
 * always hold), the repository's `paths.deny` globs (case-insensitive), then `paths.allow` (case-sensitive: a path
 * must match one). Globs run in linear time (src/grounding/glob.ts).
 *
 * @throws GlobError when a config glob does not compile (the config schema refuses such globs first)
 */
export function createPathPolicy(config: GroundfixConfig): PathPolicy {
  const lifted = new Set(config.paths.allow_protected);
  const rules = builtInRules().filter((r) => r.fixed || !lifted.has(r.name));
  const deny = config.paths.deny.map((g) => ({ glob: g, match: compileGlob(g, { nocase: true }) }));
  const allow = config.paths.allow.map((g) => compileGlob(g));
  return {
    refusal(path) {
      if (isSecretPath(path)) {
        return {
          rule: "secret-file",
          message: `${path} is a secret file (environment file, key or credentials); groundfix never edits it`,
        };
      }
      const rule = rules.find((r) => r.match(path));
      if (rule) {
        const lift = rule.fixed ? "" : ` (a repository can lift this rule with paths.allow_protected: [${rule.name}])`;
        return {
          rule: rule.name,
          message: `${path} is protected by the built-in rule "${rule.name}": ${rule.why}${lift}`,
        };
      }
      const denied = deny.find((d) => d.match(path));
      if (denied)
        return {
          rule: "paths.deny",
          message: `${path} matches the paths.deny glob ${JSON.stringify(denied.glob)} of the config`,
        };
      if (!allow.some((a) => a(path))) {
        return { rule: "paths.allow", message: `${path} is outside paths.allow [${config.paths.allow.join(", ")}]` };
      }
      return null;
    },
  };
}

/** Keys of package.json that run code at install, test or commit time (npm scripts and git-hook managers). */
const PACKAGE_KEYS = ["scripts", "husky", "simple-git-hooks", "lint-staged", "pre-commit", "gitHooks", "gypfile"];

/** The code-running parts of a package.json, as comparable JSON; null when the text is not a JSON object. */
function packageParts(text: string): string | null {
  try {
    const doc: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    if (doc === null || typeof doc !== "object" || Array.isArray(doc)) return null;
    return JSON.stringify(PACKAGE_KEYS.map((k) => (doc as Record<string, unknown>)[k] ?? null));
  } catch {
    return null;
  }
}

/**
 * The build parts of a pyproject.toml (PEP 517/518 `build-system`, and under `tool` every table whose key path names
 * hooks, a cmdclass or a build script: hatch build hooks, setuptools cmdclass, poetry/pdm build scripts), as
 * comparable JSON; null when the text is not TOML.
 */
function pyprojectParts(text: string): string | null {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch {
    return null;
  }
  const found: [string, unknown][] = [["build-system", doc["build-system"] ?? null]];
  const walk = (value: unknown, at: string) => {
    if (value === null || typeof value !== "object" || Array.isArray(value)) return;
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      const path = `${at}.${k}`;
      if (/hooks?$|cmdclass|build[-_]?script|^tool\.(?:poetry|pdm)\.build$/i.test(path)) found.push([path, v]);
      else walk(v, path);
    }
  };
  walk(doc.tool, "tool");
  return JSON.stringify(found);
}

const PART_READERS: Record<string, (text: string) => string | null> = {
  "package-scripts": packageParts,
  "pyproject-build": pyprojectParts,
};

/**
 * The content rules ({@link PROTECTED_PARTS}): an edit of a `package.json` may not change its `scripts` or git-hook
 * settings, and an edit of a `pyproject.toml` may not change its build system or build hooks (any folder; compared
 * after parsing both versions). A file that no longer parses after the edit is refused too, since its parts cannot
 * be checked. Rules named in `paths.allow_protected` are skipped.
 *
 * @returns null when the change leaves those parts as they were, else the refusing rule
 */
export function partRefusal(
  path: string,
  before: string,
  after: string,
  config: GroundfixConfig,
): PolicyRefusal | null {
  const base = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  for (const part of PROTECTED_PARTS) {
    if (base !== part.file || config.paths.allow_protected.includes(part.name)) continue;
    const read = PART_READERS[part.name]!;
    const now = read(after);
    if (now === null) {
      return {
        rule: part.name,
        message:
          `${path} does not parse after the edit, so the built-in ` +
          `rule "${part.name}" cannot check it: ${part.why}`,
      };
    }
    const was = read(before);
    if (was !== now) {
      return {
        rule: part.name,
        message:
          `the edit changes a protected part of ${path} (built-in rule "${part.name}": ` +
          `${part.why}; a repository can lift it with paths.allow_protected: [${part.name}])`,
      };
    }
  }
  return null;
}
