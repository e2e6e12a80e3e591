import { createPathPolicy, partRefusal } from "../../config/protected.js";
import type { Finding, Snapshot } from "../../types.js";
import type { RuleContext } from "../types.js";
import { short } from "./grounded.js";

const GITLINK = "160000";

/** Why a path of a snapshot has no content to check (over the per-file or a total cap), or undefined. */
function uncheckable(snapshot: Snapshot, path: string): string | undefined {
  if (snapshot.entry(path)?.kind === "too_large")
    return `it is over the snapshot's per-file size cap at ${short(snapshot.sha)}`;
  const left = snapshot.stats.leftOut.find((l) => l.path === path);
  return left ? `it was left out of the snapshot at ${short(snapshot.sha)} (${left.reason})` : undefined;
}

/** True when the diff of a .gitmodules file adds or removes a `url`, `path` or `[submodule …]` line. */
function submoduleLines(ctx: RuleContext, path: string): boolean {
  const parsed = ctx.parsed.find((p) => p.patch.path === path);
  return (parsed?.hunks ?? []).some((h) =>
    h.lines.some((l) => l.kind !== "context" && /^\s*(url|path|branch)\s*=|^\s*\[submodule\b/i.test(l.text)),
  );
}

/**
 * Rule 3, paths. `failure` for a file the config's path policy refuses (`createPathPolicy`: secret files, the
 * built-in protected list matched case-insensitively, `paths.deny`, `paths.allow`; for a rename both names are
 * checked), a change to a code-running part of a manifest (`partRefusal`: `package.json` scripts, `pyproject.toml`
 * build hooks), a binary file, a change of git file mode (from the patch's modes, else from the base and head
 * snapshot entries: GitHub's compare API has no modes), a file that is at head a symlink or submodule, a gitlink on
 * either side (mode 160000, also without a .gitmodules entry), a file the review cannot read on either side because
 * it is over the snapshot's caps (fail closed), and a .gitmodules change to a submodule's url, path or branch
 * (whatever the config allows). Each message names the refusing rule.
 */
export function pathsRule(ctx: RuleContext): Finding[] {
  const policy = createPathPolicy(ctx.config);
  const findings: Finding[] = [];
  const push = (path: string, message: string) =>
    findings.push({ rule: "paths", path, start_line: 1, end_line: 1, level: "failure", message });
  for (const { patch } of ctx.parsed) {
    const names = patch.oldPath && patch.oldPath !== patch.path ? [patch.path, patch.oldPath] : [patch.path];
    for (const name of names) {
      const refusal = policy.refusal(name);
      if (refusal) push(patch.path, `${refusal.message}; groundfix never changes it`);
    }
    if (patch.status !== "removed") {
      const after = ctx.head.read(patch.path);
      const before = ctx.base.read(patch.oldPath ?? patch.path);
      if (after !== undefined) {
        const part = partRefusal(patch.path, before ?? "", after, ctx.config);
        if (part) push(patch.path, part.message);
      }
    }
    if (patch.binary) push(patch.path, `${patch.path} is a binary file; only text changes are reviewable`);
    const before =
      patch.oldMode ?? (patch.status === "added" ? undefined : ctx.base.entry(patch.oldPath ?? patch.path)?.mode);
    const after = patch.newMode ?? (patch.status === "removed" ? undefined : ctx.head.entry(patch.path)?.mode);
    if (before !== undefined && after !== undefined && before !== after) {
      push(patch.path, `changes the file mode of ${patch.path} from ${before} to ${after}`);
    }
    const kind = patch.status === "removed" ? undefined : ctx.head.entry(patch.path)?.kind;
    const baseKind = patch.status === "added" ? undefined : ctx.base.entry(patch.oldPath ?? patch.path)?.kind;
    if (kind === "symlink" || kind === "submodule")
      push(patch.path, `${patch.path} is a ${kind} at head; only regular files may change`);
    else if (baseKind === "submodule" || before === GITLINK || after === GITLINK) {
      push(patch.path, `${patch.path} is a gitlink (a submodule commit, mode 160000); groundfix never changes one`);
    }
    const tooLarge = [
      patch.status === "removed" ? undefined : uncheckable(ctx.head, patch.path),
      patch.status === "added" ? undefined : uncheckable(ctx.base, patch.oldPath ?? patch.path),
    ].find((r) => r !== undefined);
    if (tooLarge)
      push(patch.path, `${patch.path} cannot be checked: ${tooLarge}; a change the review cannot read fails`);
    if (/(^|\/)\.gitmodules$/i.test(patch.path) && submoduleLines(ctx, patch.path)) {
      push(
        patch.path,
        `changes the submodule list or a submodule URL in ${patch.path}; groundfix never changes where code is ` +
          `fetched from`,
      );
    }
  }
  return findings;
}
