import { z } from "zod";
import { compileGlob, GlobError } from "../grounding/glob.js";
import { READ_TOOL_NAMES } from "../types.js";
import { zodIssueLines } from "./zod-issues.js";

/**
 * One rule of the built-in protected list: files that execute outside the program (CI, hooks, builds, installs) or
 * widen what groundfix may do. Globs are matched case-insensitively against repository paths (src/config/protected.ts).
 * A rule with `fixed: true` holds whatever the config says; any other may be lifted by naming it in
 * `paths.allow_protected`.
 */
export interface ProtectedRule {
  /** Stable name, quoted in refusals and accepted by `paths.allow_protected`. */
  name: string;
  /** Why files of this rule are never written by default (completes "groundfix never edits it: …"). */
  why: string;
  globs: readonly string[];
  fixed?: true;
}

/**
 * The built-in protected list, in the order a refusal names the first matching rule. The secret-file rule is the
 * shape test `isSecretPath` (src/grounding/secrets.ts), not a glob list, and is always fixed. Content rules for the
 * code-running parts of manifests (`package.json` `scripts`, `pyproject.toml` build hooks) are in
 * {@link PROTECTED_PARTS}.
 */
export const PROTECTED_PATHS: readonly ProtectedRule[] = [
  {
    name: "groundfix-config",
    why: "it is groundfix's own configuration, and a run may never widen what groundfix may do",
    globs: [".github/groundfix.yml", ".github/groundfix.yaml"],
    fixed: true,
  },
  {
    name: "git",
    why: "it changes how git stores, checks out or filters files (attributes, submodules, git internals)",
    globs: ["**/.git/**", "**/.git", "**/.gitattributes", "**/.gitmodules"],
    fixed: true,
  },
  {
    name: "github",
    why:
      "files under .github and an action's action.yml run in GitHub Actions or decide reviews (workflows, " +
      "actions, CODEOWNERS, dependabot)",
    globs: [".github/**", "**/action.yml", "**/action.yaml"],
  },
  {
    name: "ci",
    why: "it is a CI pipeline definition and runs on the CI system",
    globs: [
      "**/.gitlab-ci.yml",
      ".gitlab/**",
      ".circleci/**",
      "**/azure-pipelines.yml",
      "**/azure-pipelines.yaml",
      "**/Jenkinsfile",
      "**/Jenkinsfile.*",
      "**/.travis.yml",
      "**/.drone.yml",
      "**/bitbucket-pipelines.yml",
      ".buildkite/**",
      "**/appveyor.yml",
      "**/.appveyor.yml",
      "**/cloudbuild.yaml",
      "**/cloudbuild.yml",
      "**/buildspec.yml",
      "**/.woodpecker.yml",
      ".woodpecker/**",
      ".tekton/**",
    ],
  },
  {
    name: "hooks",
    why: "it defines git hooks, which run on developers' machines",
    globs: [
      ".husky/**",
      ".githooks/**",
      ".git-hooks/**",
      ".hooks/**",
      ".lefthook/**",
      "**/lefthook.yml",
      "**/lefthook.yaml",
      "**/.lefthook.yml",
      "**/.pre-commit-config.yaml",
      "**/.pre-commit-hooks.yaml",
      "**/.simple-git-hooks.*",
      "**/.lintstagedrc",
      "**/.lintstagedrc.*",
      "**/lint-staged.config.*",
    ],
  },
  {
    name: "dev-environment",
    why: "it runs on developers' machines or in their dev containers (lifecycle commands, editor tasks)",
    globs: [".devcontainer/**", "**/.devcontainer.json", "**/.vscode/tasks.json"],
  },
  {
    name: "package-manager-config",
    why: "it configures a package manager (registries, tokens, install-time code)",
    globs: [
      "**/.npmrc",
      "**/.yarnrc",
      "**/.yarnrc.yml",
      ".yarn/**",
      "**/.pnpmfile.cjs",
      "**/.pypirc",
      "**/pip.conf",
      "**/bunfig.toml",
    ],
  },
  {
    name: "env",
    why: "it sets the environment of shells and processes",
    globs: ["**/.envrc", "**/.env", "**/.env.*"],
    fixed: true,
  },
  {
    name: "lockfile",
    why: "it is a lockfile, written by the package manager and resolved at install time",
    globs: [
      "**/package-lock.json",
      "**/npm-shrinkwrap.json",
      "**/yarn.lock",
      "**/pnpm-lock.yaml",
      "**/bun.lock",
      "**/bun.lockb",
      "**/Gemfile.lock",
      "**/poetry.lock",
      "**/Pipfile.lock",
      "**/pdm.lock",
      "**/uv.lock",
      "**/Cargo.lock",
      "**/go.sum",
      "**/composer.lock",
      "**/mix.lock",
      "**/packages.lock.json",
      "**/Podfile.lock",
      "**/pubspec.lock",
      "**/flake.lock",
    ],
  },
  {
    name: "container",
    why: "it is a container build file and runs at image build time",
    globs: ["**/Dockerfile", "**/Dockerfile.*", "**/*.Dockerfile", "**/Containerfile", "**/Containerfile.*"],
  },
  {
    name: "build-script",
    why: "it is a build or install script and runs at build or install time",
    globs: [
      "**/Makefile",
      "**/GNUmakefile",
      "**/*.mk",
      "**/setup.py",
      "**/build.rs",
      // Ruby: Bundler and RubyGems evaluate these as Ruby code at install and build time
      "**/Gemfile",
      "**/*.gemspec",
      "**/Rakefile",
      // JVM: Gradle scripts are code; Maven runs the plugins pom.xml names; the wrappers download and run a build tool
      "**/build.gradle",
      "**/build.gradle.kts",
      "**/settings.gradle",
      "**/settings.gradle.kts",
      "**/gradlew",
      "**/gradlew.bat",
      "**/gradle/wrapper/**",
      "**/pom.xml",
      "**/.mvn/**",
      "**/mvnw",
      "**/mvnw.cmd",
    ],
  },
];

/**
 * Code-running parts of manifests: an edit of the file is allowed, but not one that changes these parts (the keys are
 * compared parsed, before and after). A rule name here may be lifted by `paths.allow_protected` like a path rule.
 */
export const PROTECTED_PARTS: readonly { name: string; file: string; why: string }[] = [
  {
    name: "package-scripts",
    file: "package.json",
    why: "scripts and git-hook settings of package.json run at install, test or commit time",
  },
  {
    name: "pyproject-build",
    file: "pyproject.toml",
    why: "the build system and build hooks of pyproject.toml run at install time",
  },
];

/** Every rule name `paths.allow_protected` may lift. */
export const LIFTABLE_RULES = [
  ...PROTECTED_PATHS.filter((r) => r.fixed !== true).map((r) => r.name),
  ...PROTECTED_PARTS.map((r) => r.name),
] as const;

/** The tools that count as reading code for the tool-name gate (docs/ARCHITECTURE.md, "Outcomes, gates, models"). */
export const DEFAULT_REQUIRED_TOOLS = ["get_file_contents", "grep_codebase", "search_codebase"] as const;

const toolName = z.enum(READ_TOOL_NAMES);

const ruleName = z.enum(["grounded_hunks", "edit_policy", "paths", "size", "syntax", "imports", "secrets", "evidence"]);

/** A glob of the config: compiled once here so a bad one is a config error naming the key, not a failed run. */
const glob = z
  .string()
  .min(1)
  .superRefine((value, ctx) => {
    try {
      compileGlob(value);
    } catch (err) {
      ctx.addIssue({
        code: "custom",
        message:
          `${JSON.stringify(value)} is not a usable glob: ` + `${err instanceof GlobError ? err.message : String(err)}`,
      });
    }
  });

const permission = z.enum(["read", "triage", "write", "maintain", "admin"]);

/**
 * True when `prefix` (already limited to `[A-Za-z0-9._/-]` and ending in `/`) can start a branch name under the rules
 * of `git check-ref-format`: no `..`, no empty part (`//` or a leading `/`), no part that starts with `.` or ends with
 * `.lock`.
 */
function isRefPrefix(prefix: string): boolean {
  if (prefix.includes("..")) return false;
  const parts = prefix.slice(0, -1).split("/");
  return parts.every((p) => p.length > 0 && !p.startsWith(".") && !p.endsWith(".lock"));
}

/**
 * The schema of `.github/groundfix.yml`. Every key has a default, so an empty file (or none) is valid.
 * Unknown keys are errors (`strict`), so a typo is reported instead of silently ignored.
 */
export const configSchema = z
  .object({
    /** Label that starts a run on an issue. */
    trigger_label: z.string().min(1).default("groundfix"),
    /** Least repository permission a sender needs to trigger a run or a command (GitHub's permission levels). */
    trigger_permission: permission.default("write"),
    /** Exact bot logins (for example `my-bot[bot]`) allowed to trigger; bots are never trusted by name suffix. */
    allowed_bots: z.array(z.string().min(1)).default([]),
    alerts: z
      .object({
        /** Run on `code_scanning_alert` (created, appeared_in_branch, reopened). */
        code_scanning: z.boolean().default(false),
        /** `repository_dispatch` event type that carries a monitoring alert. */
        dispatch_event_type: z.string().min(1).default("groundfix-alert"),
      })
      .strict()
      .prefault({}),
    paths: z
      .object({
        /** Globs (picomatch syntax, matched in linear time) of the files that may be edited. */
        allow: z.array(glob).default(["**"]),
        /** Globs that may never be edited (matched case-insensitively); added to the built-in protected list. */
        deny: z.array(glob).default([]),
        /** Built-in protected rules this repository lifts (by name); the default lifts none. */
        allow_protected: z
          .array(
            z.string().refine((name) => (LIFTABLE_RULES as readonly string[]).includes(name), {
              message: `must name a built-in rule that can be lifted: ${LIFTABLE_RULES.join(", ")}`,
            }),
          )
          .default([]),
      })
      .strict()
      .prefault({}),
    edits: z
      .object({
        /** `additions`: an edit may only add lines; `modifications`: it may also change or remove them. */
        allow: z.enum(["additions", "modifications"]).default("additions"),
        max_files: z.number().int().min(1).max(50).default(5),
        max_added_lines: z.number().int().min(1).max(2000).default(80),
      })
      .strict()
      .prefault({}),
    agent: z
      .object({
        /** Model turns at most. */
        max_steps: z.number().int().min(1).max(200).default(30),
        /** `submit_answer` calls at most; then the claims that are still unverifiable are dropped. */
        max_answer_attempts: z.number().int().min(1).max(10).default(3),
        /** Tools of which at least one must have succeeded before an answer is accepted; empty disables the gate. */
        required_tools: z.array(toolName).default([...DEFAULT_REQUIRED_TOOLS]),
        /** Tool calls at least before an answer is accepted. */
        min_tool_calls: z.number().int().min(0).max(50).default(1),
        /** Total tokens at most, when the model reports usage. */
        max_tokens: z.number().int().min(1000).optional(),
        /** Confidence cap applied when a claim stays unverifiable after the last attempt. */
        unverified_confidence_cap: z.number().min(0).max(1).default(0.3),
      })
      .strict()
      .prefault({}),
    thresholds: z
      .object({
        /** Below this confidence: `needs_information` (Sentry Seer's public tier: 0.40). */
        comment: z.number().min(0).max(1).default(0.4),
        /** At or above this confidence with an applied edit: `pr_ready` (Sentry Seer's public tier: 0.70). */
        pull_request: z.number().min(0).max(1).default(0.7),
      })
      .strict()
      .prefault({}),
    pull_request: z
      .object({
        draft: z.boolean().default(true),
        /** Keyword that links the pull request to its issue. */
        link_keyword: z.enum(["Refs", "Closes", "Fixes"]).default("Refs"),
        /** Branch prefix; branches are `<prefix>issue-N` or `<prefix>alert-N`. */
        branch_prefix: z
          .string()
          .regex(/^[A-Za-z0-9._\/-]+\/$/, "must be a git ref prefix ending in '/', like 'groundfix/'")
          .refine(
            isRefPrefix,
            "must be a valid git branch prefix (git check-ref-format: no '..', '//', or part starting with '.' or " +
              "ending in '.lock')",
          )
          .default("groundfix/"),
      })
      .strict()
      .prefault({}),
    review: z
      .object({
        /** Rules whose failures make the check run fail; others are reported as warnings. */
        fail_on: z
          .array(ruleName)
          .default(["grounded_hunks", "edit_policy", "paths", "size", "syntax", "imports", "secrets", "evidence"]),
      })
      .strict()
      .prefault({}),
    /** A model spec; used only when the operator allowed it (GROUNDFIX_ALLOWED_MODELS). */
    model: z.string().min(1).optional(),
  })
  .strict()
  .superRefine((cfg, ctx) => {
    if (cfg.thresholds.comment > cfg.thresholds.pull_request) {
      ctx.addIssue({
        code: "custom",
        path: ["thresholds", "comment"],
        message: `must not be above thresholds.pull_request (${cfg.thresholds.pull_request})`,
      });
    }
  });

/** A validated repository config with every default filled in. */
export type GroundfixConfig = z.infer<typeof configSchema>;

/** Thrown by {@link parseConfig}; `issues` are one line each, `key: reason`, ready to quote to a user. */
export class ConfigError extends Error {
  constructor(
    readonly issues: string[],
    readonly source: string,
  ) {
    super(`invalid ${source}: ${issues.join("; ")}`);
    this.name = "ConfigError";
  }
}

/**
 * Validate a parsed config object (YAML already parsed; `null`/`undefined` means no file) and fill in defaults.
 *
 * @param raw the parsed content of `.github/groundfix.yml`
 * @param source how to name the file in errors
 * @throws ConfigError listing each bad key as `dotted.key: reason` (unknown keys included)
 */
export function parseConfig(raw: unknown, source = ".github/groundfix.yml"): GroundfixConfig {
  const result = configSchema.safeParse(raw ?? {});
  if (result.success) return result.data;
  throw new ConfigError(zodIssueLines(result.error, { namedKeys: true, knownKeys: keysOfDefaults }), source);
}

let defaults: GroundfixConfig | undefined;

/** The keys the config object at `path` accepts, read from the defaults (every key has one); `[]` off the map. */
function keysOfDefaults(path: readonly PropertyKey[]): string[] {
  defaults ??= defaultConfig();
  let node: unknown = defaults;
  for (const step of path)
    node = node && typeof node === "object" ? (node as Record<PropertyKey, unknown>)[step] : undefined;
  return node && typeof node === "object" && !Array.isArray(node) ? Object.keys(node) : [];
}

/** The config with every default, as used when a repository has no `.github/groundfix.yml`. */
export function defaultConfig(): GroundfixConfig {
  return parseConfig({});
}

/** The protected path rules in force: the built-in list without the rules the repository lifted. */
export function protectedRules(config: GroundfixConfig): ProtectedRule[] {
  return PROTECTED_PATHS.filter((r) => r.fixed === true || !config.paths.allow_protected.includes(r.name));
}
