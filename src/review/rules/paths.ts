import picomatch from "picomatch";
import { denyGlobs } from "../../config/schema.js";
import type { Finding } from "../../types.js";
import type { RuleContext } from "../types.js";

/**
 * Rule 3, paths (issue 6). `failure` for a file that matches a deny glob (built-in list plus `paths.deny`, picomatch
 * with `dot: true`; for a rename both names are checked), lies outside every `paths.allow` glob, is binary, changes its
 * git file mode (from the patch's modes, else from the base and head snapshot entries: GitHub's compare API has no
 * modes), or is at head a symlink or submodule.
 */
export function pathsRule(ctx: RuleContext): Finding[] {
  const deny = picomatch(denyGlobs(ctx.config), { dot: true });
  const allow = picomatch(ctx.config.paths.allow, { dot: true });
  const findings: Finding[] = [];
  const push = (path: string, message: string) =>
    findings.push({ rule: "paths", path, start_line: 1, end_line: 1, level: "failure", message });
  for (const { patch } of ctx.parsed) {
    const names = patch.oldPath && patch.oldPath !== patch.path ? [patch.path, patch.oldPath] : [patch.path];
    for (const name of names) {
      if (deny(name)) {
        const glob = denyGlobs(ctx.config).find((g) => picomatch.isMatch(name, g, { dot: true }));
        push(patch.path, `${name} matches the deny glob ${JSON.stringify(glob)}; groundfix never changes it`);
      } else if (!allow(name)) {
        push(patch.path, `${name} is outside paths.allow (${ctx.config.paths.allow.map((g) => JSON.stringify(g)).join(", ")})`);
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
