import { z } from "zod";
import { compileGlob as compileLinearGlob, GlobError } from "../grounding/glob.js";
import type { Snapshot, SnapshotEntry } from "../types.js";
import type { ToolDefinition } from "./types.js";
import { finish, formatBytes } from "./output.js";

/** Default and largest page size of `list_files`. */
export const LIST_DEFAULT_LIMIT = 200;
export const LIST_MAX_LIMIT = 1000;

const schema = z.object({
  glob: z
    .string()
    .min(1)
    .max(1000)
    .optional()
    .describe(
      'Glob over repository paths, e.g. "src/**/*.ts" or "*.py" (a glob ' +
        'without "/" matches file names anywhere). Default: every file.',
    ),
  offset: z.number().int().min(0).optional().describe("How many matching paths to skip (for paging). Default 0."),
  limit: z
    .number()
    .int()
    .min(1)
    .max(LIST_MAX_LIMIT)
    .optional()
    .describe(`How many paths to return. Default ${LIST_DEFAULT_LIMIT}.`),
});

/**
 * Compile a model-given glob (picomatch syntax, `dot: true`; a glob without "/" matches basenames anywhere; a leading
 * "./" or "/" is dropped) into a linear-time matcher (src/grounding/glob.ts: RE2, so no glob can stall the process).
 *
 * @returns a predicate over repository paths, or the reason the glob cannot be used (one sentence)
 */
export function compileGlob(glob: string): ((path: string) => boolean) | string {
  const cleaned = glob.trim().replace(/^(\.\/|\/)+/, "");
  try {
    return compileLinearGlob(cleaned, { basename: true });
  } catch (err) {
    return err instanceof GlobError
      ? err.message
      : `the glob does not compile (${String((err as Error)?.message ?? err).split("\n")[0]})`;
  }
}

/** One listing line: the path, and for entries that are not plain text files, what they are. */
export function describeEntry(entry: SnapshotEntry | undefined, path: string): string {
  if (entry === undefined || entry.kind === "text") return path;
  if (entry.kind === "symlink") return `${path} -> ${entry.target ?? ""} [symlink]`;
  if (entry.kind === "submodule") return `${path} [submodule]`;
  return `${path} [${entry.kind.replace("_", " ")}, ${formatBytes(entry.size)}]`;
}

/**
 * The paths of `snapshot` matching `glob` (all when undefined), in snapshot order; a string says why the glob is
 * invalid.
 */
export function matchPaths(snapshot: Snapshot, glob: string | undefined): string[] | string {
  if (glob === undefined) return [...snapshot.paths];
  const match = compileGlob(glob);
  return typeof match === "string" ? match : snapshot.paths.filter((p) => match(p));
}

/**
 * `list_files({ glob?, offset?, limit? })`: the matching paths, one per line, paginated, with the total; binary,
 * too-large, symlink, submodule and LFS entries are marked.
 */
export const listFiles: ToolDefinition<z.infer<typeof schema>> = {
  name: "list_files",
  description:
    'List repository paths matching a glob (picomatch syntax: "src/**/*.js", ' +
    '"**/test_*.py", "*.go"), paginated with offset/limit, with the total number of matches. ' +
    "Non-text entries are marked [binary], [symlink], [submodule], [too large], [lfs pointer]. " +
    "Use it to find the exact path of a file you know by name or folder. To find code by its content use " +
    "grep_codebase or search_codebase instead.",
  schema,
  readsCode: true,
  run(args, ctx) {
    const matched = matchPaths(ctx.snapshot, args.glob);
    if (typeof matched === "string") {
      return finish(ctx.snapshot, {
        status: "invalid",
        text: `INVALID: cannot use glob '${args.glob ?? ""}': ${matched}. Use picomatch syntax like "src/**/*.ts".`,
      });
    }
    const offset = args.offset ?? 0;
    const limit = args.limit ?? LIST_DEFAULT_LIMIT;
    const what = args.glob === undefined ? "files" : `paths match '${args.glob}'`;
    if (matched.length === 0) {
      return finish(ctx.snapshot, {
        status: "ok",
        text:
          `0 ${what}. Try a broader glob such as "**/*${args.glob?.slice(args.glob.lastIndexOf(".")) ?? ""}" or ` +
          `describe_repo.`,
        data: { tool: "list_files", glob: args.glob ?? null, total: 0, offset, paths: [] },
      });
    }
    const page = matched.slice(offset, offset + limit);
    const lines = page.map((p) => describeEntry(ctx.snapshot.entry(p), p));
    const header =
      page.length === 0
        ? `${matched.length} ${what}; offset ${offset} is past the end (use offset < ${matched.length}).`
        : `${matched.length} ${what} (showing ${offset + 1}-${offset + page.length}):`;
    const rest = matched.length - offset - page.length;
    if (rest > 0) lines.push(`… ${rest} more not shown; call again with offset=${offset + page.length}`);
    const data = { tool: "list_files" as const, glob: args.glob ?? null, total: matched.length, offset, paths: page };
    return finish(ctx.snapshot, { status: "ok", text: [header, ...lines].join("\n"), data });
  },
};
