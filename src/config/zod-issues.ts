import type { z } from "zod";

/**
 * The one formatter of zod validation issues: one line per issue, `<prefix><dotted.path>: <zod's message>`, with
 * `root` in place of an empty path. With `namedKeys`, an unknown key is named as its own dotted path
 * (`edits.max_file: unknown key`), the way a config file's author looks for it. `max` keeps the first issues only.
 */
export function zodIssueLines(
  error: z.ZodError,
  options: { root?: string; prefix?: string; namedKeys?: boolean; max?: number } = {},
): string[] {
  const { root = "(top level)", prefix = "", namedKeys = false } = options;
  return error.issues.slice(0, options.max ?? error.issues.length).map((issue) => {
    const key = issue.path.map(String).join(".");
    if (namedKeys && issue.code === "unrecognized_keys") {
      const names = issue.keys.map((k) => `${prefix}${key ? `${key}.${k}` : k}`);
      return `${names.join(", ")}: unknown key${names.length > 1 ? "s" : ""}`;
    }
    return `${prefix}${key || root}: ${issue.message}`;
  });
}
