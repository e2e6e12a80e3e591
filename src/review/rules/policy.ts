import type { Finding } from "../../types.js";
import type { RuleContext } from "../types.js";
import { quote } from "./grounded.js";

/**
 * Rule 2, edit policy (issue 6): with `edits.allow: additions` (the default) a change may only add lines. Each run of
 * consecutive removed lines is one `failure` naming its first line; deleting or renaming a file fails too.
 * With `edits.allow: modifications` the rule finds nothing.
 */
export function editPolicy(ctx: RuleContext): Finding[] {
  if (ctx.config.edits.allow !== "additions") return [];
  const findings: Finding[] = [];
  const push = (path: string, start: number, end: number, message: string) =>
    findings.push({ rule: "edit_policy", path, start_line: Math.max(1, start), end_line: Math.max(1, start, end), level: "failure", message });
  for (const { patch, hunks } of ctx.parsed) {
    if (patch.status === "removed") {
      push(patch.path, 1, 1, `deletes ${patch.path}; edits.allow is "additions", so only added lines are allowed`);
      continue;
    }
    if (patch.status === "renamed" && patch.oldPath) {
      push(patch.path, 1, 1, `renames ${patch.oldPath} to ${patch.path}; edits.allow is "additions", so only added lines are allowed`);
    }
    for (const hunk of hunks) {
      let k = 0;
      while (k < hunk.lines.length) {
        const line = hunk.lines[k]!;
        if (line.kind !== "removed") {
          k++;
          continue;
        }
        let j = k;
        while (j + 1 < hunk.lines.length && hunk.lines[j + 1]!.kind === "removed") j++;
        const count = j - k + 1;
        const from = line.oldLine ?? 0;
        const lines = count === 1 ? `line ${from}` : `lines ${from}-${from + count - 1}`;
        push(
          patch.path,
          line.atNewLine,
          line.atNewLine,
          `removes ${count === 1 ? "1 line" : `${count} lines`} of the base file (${lines}: ${count === 1 ? "" : "first "}${quote(line.text)}); edits.allow is "additions", so only added lines are allowed`,
        );
        k = j + 1;
      }
    }
  }
  return findings;
}
