import type { Finding } from "../../types.js";
import type { RuleContext } from "../types.js";

/**
 * Rule 4, size: at most `edits.max_files` changed files and at most `edits.max_added_lines` added lines over
 * the whole diff. Each excess is one `failure`: files at the first file past the limit, lines at the added line that
 * crossed it.
 */
export function sizeRule(ctx: RuleContext): Finding[] {
  const { max_files, max_added_lines } = ctx.config.edits;
  const findings: Finding[] = [];
  const files = ctx.parsed.length;
  if (files > max_files) {
    const p = ctx.parsed[max_files]!.patch.path;
    findings.push({
      rule: "size",
      path: p,
      start_line: 1,
      end_line: 1,
      level: "failure",
      message: `the change touches ${files} files; edits.max_files is ${max_files} (${p} is file ${max_files + 1})`,
    });
  }
  let added = 0;
  let crossed: { path: string; line: number } | undefined;
  for (const { patch, hunks } of ctx.parsed) {
    for (const hunk of hunks) {
      for (const line of hunk.lines) {
        if (line.kind !== "added") continue;
        added++;
        if (added === max_added_lines + 1) crossed = { path: patch.path, line: line.newLine ?? 1 };
      }
    }
  }
  if (crossed) {
    findings.push({
      rule: "size",
      path: crossed.path,
      start_line: crossed.line,
      end_line: crossed.line,
      level: "failure",
      message: `the change adds ${added} lines; edits.max_added_lines is ${max_added_lines} (the limit is passed here)`,
    });
  }
  return findings;
}
