import { readFileSync } from "node:fs";
import { z } from "zod";

const sha = z.string().regex(/^[0-9a-f]{40}$/, "a full 40-hex commit id");

/** Where one path printed in the report's trace lives in the repository at the base commit (null: not in it). */
const TracePath = z.strictObject({
  trace: z.string().min(1),
  repo: z.string().min(1).nullable(),
  note: z.string().optional(),
});

/**
 * One evaluation case: a real, closed, public bug report and the commit that fixed it.
 *
 * - `base` is the fix commit's first parent (the code the reporter's bug lives in); `fix` the fixing commit.
 * - `issue` is the report as the reporter wrote it (chatter trimmed, nothing added); `source` its URL.
 * - `changed.files` are the source files the fix changed (tests, changelogs and docs of the same commit are in
 *   `changed.other`); `changed.functions` the functions or methods whose bodies the fix changed, by their plain name
 *   (`checkPath`, `file`, `Route.dispatch` is written `dispatch`); an empty list when the fix is outside any function.
 * - `kind` tags how the trace relates to the fix (`top-frame`, `frames-down`, `installed-copy`, `build-output`,
 *   `monorepo`, `no-trace`, `message-only`).
 * - `trace_paths` maps each distinct file path of the report's frames to the repository path (null when the frame is
 *   the reporter's own code, a dependency or the runtime).
 */
export const EvalCase = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and dashes"),
  language: z.enum(["javascript", "typescript", "python", "go", "java", "kotlin", "ruby", "csharp"]),
  repository: z.string().regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, "owner/name"),
  source: z.url(),
  fix_source: z.string().min(1),
  base: sha,
  fix: sha,
  kind: z
    .array(
      z.enum([
        "top-frame",
        "frames-down",
        "installed-copy",
        "build-output",
        "monorepo",
        "no-trace",
        "message-only",
        "checkout-path",
      ]),
    )
    .min(1),
  issue: z.strictObject({ title: z.string().min(1), body: z.string() }),
  changed: z.strictObject({
    files: z.array(z.string().min(1)).min(1),
    functions: z.array(z.string().min(1)),
    other: z.array(z.string().min(1)).default([]),
  }),
  trace_paths: z.array(TracePath),
  note: z.string().optional(),
});
export type EvalCase = z.infer<typeof EvalCase>;

/**
 * Read and validate the case list (a JSON array of {@link EvalCase}).
 *
 * @throws Error naming the file and the first invalid field (zod's path), or a duplicate id.
 */
export function loadCases(path: string): EvalCase[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`${path}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const parsed = z.array(EvalCase).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${path}: ${issue ? `${issue.path.join(".")}: ${issue.message}` : "invalid"}`);
  }
  const seen = new Set<string>();
  for (const c of parsed.data) {
    if (seen.has(c.id)) throw new Error(`${path}: duplicate case id ${c.id}`);
    seen.add(c.id);
  }
  return parsed.data;
}
