import { z } from "zod";
import { READ_TOOL_NAMES } from "../types.js";

/**
 * Paths that groundfix never edits, whatever a repository's config says on top: workflows (the app never asks
 * for the `workflows` permission, so GitHub would refuse the push), lockfiles, environment files and keys.
 */
export const DEFAULT_DENY = [
  ".github/workflows/**",
  "**/package-lock.json",
  "**/yarn.lock",
  "**/pnpm-lock.yaml",
  "**/Gemfile.lock",
  "**/poetry.lock",
  "**/Cargo.lock",
  "**/go.sum",
  "**/.env",
  "**/.env.*",
  "**/*.pem",
  "**/*.key",
  "**/id_rsa*",
] as const;

/** The tools that count as reading code for the tool-name gate (DESIGN.md "Gates", issue 4 gate 1). */
export const DEFAULT_REQUIRED_TOOLS = ["get_file_contents", "grep_codebase", "search_codebase"] as const;

const toolName = z.enum(READ_TOOL_NAMES);

const ruleName = z.enum(["grounded_hunks", "edit_policy", "paths", "size", "syntax", "imports", "secrets", "evidence"]);

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
        /** Globs (picomatch) of the files that may be edited. */
        allow: z.array(z.string().min(1)).default(["**"]),
        /** Globs that may never be edited; added to the built-in deny list. */
        deny: z.array(z.string().min(1)).default([]),
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
          .refine(isRefPrefix, "must be a valid git branch prefix (git check-ref-format: no '..', '//', or part starting with '.' or ending in '.lock')")
          .default("groundfix/"),
      })
      .strict()
      .prefault({}),
    review: z
      .object({
        /** Rules whose failures make the check run fail; others are reported as warnings. */
        fail_on: z.array(ruleName).default(["grounded_hunks", "edit_policy", "paths", "size", "syntax", "imports", "secrets", "evidence"]),
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
  const issues = result.error.issues.map((issue) => {
    const key = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      const names = issue.keys.map((k) => (key ? `${key}.${k}` : k));
      return `${names.join(", ")}: unknown key${names.length > 1 ? "s" : ""}`;
    }
    return `${key || "(top level)"}: ${issue.message}`;
  });
  throw new ConfigError(issues, source);
}

/** The config with every default, as used when a repository has no `.github/groundfix.yml`. */
export function defaultConfig(): GroundfixConfig {
  return parseConfig({});
}

/** The deny globs in force: the built-in list plus the repository's own. */
export function denyGlobs(config: GroundfixConfig): string[] {
  return [...DEFAULT_DENY, ...config.paths.deny];
}
