import { createPathPolicy, partRefusal } from "../../config/protected.js";
import type { Finding } from "../../types.js";
import type { RuleContext } from "../types.js";

/**
 * Rule 3, paths. `failure` for a file the config's path policy refuses (`createPathPolicy`: secret files, the
 * built-in protected list matched case-insensitively, `paths.deny`, `paths.allow`; for a rename both names are
 * checked), a change to a code-running part of a manifest (`partRefusal`: `package.json` scripts, `pyproject.toml`
 * build hooks), a binary file, a change of git file mode (from the patch's modes, else from the base and head
 * snapshot entries: GitHub's compare API has no modes), or a file that is at head a symlink or submodule. Each
 * message names the refusing rule.
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
    const before = patch.oldMode ?? (patch.status === "added" ? undefined : ctx.base.entry(patch.oldPath ?? patch.path)?.mode);
    const after = patch.newMode ?? (patch.status === "removed" ? undefined : ctx.head.entry(patch.path)?.mode);
    if (before !== undefined && after !== undefined && before !== after) {
      push(patch.path, `changes the file mode of ${patch.path} from ${before} to ${after}`);
    }
    const kind = patch.status === "removed" ? undefined : ctx.head.entry(patch.path)?.kind;
    if (kind === "symlink" || kind === "submodule") push(patch.path, `${patch.path} is a ${kind} at head; only regular files may change`);
  }
  return findings;
}
