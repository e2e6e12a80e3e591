import { partRefusal } from "../config/protected.js";
import type { GroundfixConfig } from "../config/schema.js";
import { applyVerbatimEdit, locateVerbatim } from "../grounding/index.js";
import { redactQuoted } from "../grounding/secrets.js";
import type { Host, HostFile } from "../host/types.js";
import { additionRefusal, prepareSuggestAddition } from "../tools/suggest-addition.js";
import type { AppliedEdit, ChangedFile } from "../types.js";

/** Where the base moved: `from` the commit the run investigated, `to` the head of `ref` read before committing. */
export interface BaseMove {
  from: string;
  to: string;
  /** The branch (or ref) whose head was read again. */
  ref: string;
}

/**
 * The run's edits applied again on a new head ({@link reapplyEdits}):
 * - `moved`: every edit applied, each `code_before` found there exactly once: `edits` (lines of the new head),
 *   `files` (what the commit writes) and `baseFiles` (those files as the new head has them);
 * - `already_fixed`: every edit's `code_after` is already on the new head (`present`: where), nothing to deliver;
 * - `outdated`: an edit no longer applies on the new head (`path`, `edit` its 1-based number, `why` one sentence).
 */
export type Reapplied =
  | { kind: "moved"; edits: AppliedEdit[]; files: ChangedFile[]; baseFiles: ChangedFile[] }
  | { kind: "already_fixed"; present: { path: string; edit: number; startLine: number; endLine: number }[] }
  | { kind: "outdated"; path: string; edit: number; why: string };

/**
 * What the head of the base branch said right before committing ({@link freshBase}): `unmoved` (still the
 * investigated commit: deliver as investigated), or where it moved and what {@link Reapplied} gave on it.
 */
export type FreshBase = { kind: "unmoved" } | (Reapplied & BaseMove);

/**
 * Read the head of `base.ref` again (`host.resolveBase`; on GitHub one `GET branches/{branch}`) and, when it moved
 * off `base.sha`, apply the run's edits again on it ({@link reapplyEdits}) from the edited files only
 * (`host.readFile`, one read per edited file; nothing else of the new head is read). A run pinned to a full SHA
 * never moves (the host answers it without a call).
 * @throws what the host throws while reading (the run then ends as an error; nothing was written).
 */
export async function freshBase(
  host: Pick<Host, "resolveBase" | "readFile">,
  input: { base: { sha: string; ref: string }; edits: readonly AppliedEdit[]; files: readonly ChangedFile[] },
  config: GroundfixConfig,
): Promise<FreshBase> {
  const head = await host.resolveBase(input.base.ref);
  if (head.sha === input.base.sha) return { kind: "unmoved" };
  const move: BaseMove = { from: input.base.sha, to: head.sha, ref: input.base.ref };
  const read = await Promise.all(input.files.map((f) => host.readFile(head.sha, f.path)));
  for (const f of input.files) await prepareSuggestAddition({ path: f.path });
  const atHead = new Map(input.files.map((f, i) => [f.path, read[i] ?? null]));
  return { ...reapplyEdits(input.edits, input.files, atHead, config), ...move };
}

/**
 * Apply `edits` again, in the order the run applied them, on the files as the new head has them (`atHead`, null for
 * a path that is no regular text file there): the same rule as `suggest_addition` (`applyVerbatimEdit` with
 * `edits.allow`: `code_before` verbatim, exactly once, in the file as earlier edits left it; then, as there, the
 * protected parts of manifests (`partRefusal`) and what the addition does to the code around it (`additionRefusal`:
 * hidden characters, the structure rule), so lines harmless on the base that would take over a loop or shadow a
 * name on the new head are `outdated`, never delivered). Every edit applied →
 * `moved`, with each edit's lines and unified diff recomputed on the new head (the diff's context redacted like the
 * tool's, `redactQuoted`) and each file's mode from the new head when the host knows it, else from `files`. Every
 * edit's `code_after` already there → `already_fixed`. Anything else — an anchor gone, found twice, a file deleted,
 * or only some edits already there — → `outdated` at the first edit that does not apply. Pure; never throws.
 */
export function reapplyEdits(
  edits: readonly AppliedEdit[],
  files: readonly ChangedFile[],
  atHead: ReadonlyMap<string, HostFile | null>,
  config: GroundfixConfig,
): Reapplied {
  const contents = new Map<string, string>();
  const out: AppliedEdit[] = [];
  const present: { path: string; edit: number; startLine: number; endLine: number }[] = [];
  let notApplied: { path: string; edit: number; why: string } | undefined;
  for (const [i, edit] of edits.entries()) {
    const file = atHead.get(edit.path) ?? null;
    if (file === null)
      return { kind: "outdated", path: edit.path, edit: i + 1, why: "the file is no longer a text file there" };
    const current = contents.get(edit.path) ?? file.content;
    const applied = applyVerbatimEdit(current, edit, { allow: config.edits.allow, path: edit.path });
    // The rest of suggest_addition's rule on the new head: a protected part of a manifest, and what the addition
    // does to the code around it there (the same lines can be harmless on the base and take over a loop here).
    const refusal = applied.ok
      ? (partRefusal(edit.path, current, applied.content, config)?.message ??
        additionRefusal(edit.path, current, applied, config))
      : null;
    if (refusal !== null) {
      notApplied = { path: edit.path, edit: i + 1, why: `applied there it would change existing code (${refusal})` };
      break;
    }
    if (applied.ok) {
      const inBase = locateVerbatim(file.content, edit.code_before);
      const baseSpan = inBase.length === 1 ? inBase[0] : undefined;
      const { baseStartLine: _s, baseEndLine: _e, ...rest } = edit;
      out.push({
        ...rest,
        startLine: applied.startLine,
        endLine: applied.endLine,
        ...(baseSpan ? { baseStartLine: baseSpan.startLine, baseEndLine: baseSpan.endLine } : {}),
        kind: applied.kind,
        diff: redactQuoted(applied.diff, current),
      });
      contents.set(edit.path, applied.content);
      continue;
    }
    if (applied.present) {
      present.push({ path: edit.path, edit: i + 1, ...applied.present });
      continue;
    }
    notApplied ??= { path: edit.path, edit: i + 1, why: whyNot(applied) };
    break;
  }
  if (!notApplied && present.length === edits.length && edits.length > 0) return { kind: "already_fixed", present };
  if (notApplied) return { kind: "outdated", ...notApplied };
  if (present.length > 0) {
    const first = present[0]!;
    return {
      kind: "outdated",
      path: first.path,
      edit: first.edit,
      why:
        `only part of the fix is there (edit ${first.edit} is already at ` +
        `lines ${first.startLine}-${first.endLine}, the others are not)`,
    };
  }
  const modeOf = (path: string) => atHead.get(path)?.mode ?? files.find((f) => f.path === path)?.mode ?? "100644";
  const touched = files.filter((f) => contents.has(f.path));
  return {
    kind: "moved",
    edits: out,
    files: touched.map((f) => ({ path: f.path, content: contents.get(f.path)!, mode: modeOf(f.path) })),
    baseFiles: touched.map((f) => ({ path: f.path, content: atHead.get(f.path)!.content, mode: modeOf(f.path) })),
  };
}

/** Why `applyVerbatimEdit` refused an edit on the new head, as one sentence for the status. */
function whyNot(applied: { reason: string; occurrences?: number[] }): string {
  switch (applied.reason) {
    case "ambiguous":
      return (
        `its code_before now occurs ${applied.occurrences?.length ?? "several"} times (lines ` +
        `${applied.occurrences?.join(", ") ?? "?"}), so it is no longer anchored on one place`
      );
    case "not_additive":
      return "applied there it would remove or alter existing lines";
    case "binary":
      return "the file is binary there";
    default:
      return "its code_before is no longer in the file verbatim";
  }
}
