import type { Finding } from "../../types.js";
import type { RuleContext } from "../types.js";

/** Added bytes allowed per allowed added line: {@link sizeRule}'s byte budget is `edits.max_added_lines` times this. */
export const BYTES_PER_ADDED_LINE = 200;

/**
 * Rule 4, size: at most `edits.max_files` changed files, at most `edits.max_added_lines` added lines and at
 * most `edits.max_added_lines × BYTES_PER_ADDED_LINE` added bytes (UTF-8, line breaks included) over the whole diff,
 * so one enormous line cannot pass as "one line". Each excess is one `failure`: files at the first file past the
 * limit, lines and bytes at the added line that crossed it.
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
  const maxBytes = max_added_lines * BYTES_PER_ADDED_LINE;
  let added = 0;
  let bytes = 0;
  let crossed: { path: string; line: number } | undefined;
  let crossedBytes: { path: string; line: number } | undefined;
  for (const { patch, hunks } of ctx.parsed) {
    for (const hunk of hunks) {
      for (const line of hunk.lines) {
        if (line.kind !== "added") continue;
        added++;
        bytes += Buffer.byteLength(line.text, "utf8") + (line.noNewline ? 0 : 1);
        if (added === max_added_lines + 1) crossed = { path: patch.path, line: line.newLine ?? 1 };
        if (bytes > maxBytes && !crossedBytes) crossedBytes = { path: patch.path, line: line.newLine ?? 1 };
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
  if (crossedBytes) {
    findings.push({
      rule: "size",
      path: crossedBytes.path,
      start_line: crossedBytes.line,
      end_line: crossedBytes.line,
      level: "failure",
      message:
        `the change adds ${bytes} bytes; at most ${maxBytes} are allowed (edits.max_added_lines ` +
        `${max_added_lines} × ${BYTES_PER_ADDED_LINE} bytes; the limit is passed here)`,
    });
  }
  return findings;
}
