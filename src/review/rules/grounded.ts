import { splitBom } from "../../grounding/lines.js";
import type { Finding } from "../../types.js";
import { splitLines } from "../hunks.js";
import type { RuleContext } from "../types.js";

/**
 * Rule 1, grounded hunks: every context and removed line of every hunk equals the base file at the line
 * number the hunk header gives. Exact comparison first; a line that differs only by a trailing `\r` still counts as
 * equal (a transport may drop CRs), but `\ No newline at end of file` must agree with the base file's last line.
 * One `failure` per hunk, at its first mismatch (head-side line, base line named in the message). Line 1 of a file
 * that starts with a byte-order mark is compared without the mark.
 */
export function groundedHunks(ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  for (const { patch, hunks, error } of ctx.parsed) {
    if (patch.binary) continue;
    if (error !== undefined) {
      findings.push(fail(patch.path, 1, `the diff of ${patch.path} cannot be read as unified diff hunks: ${error}`));
      continue;
    }
    const basePath = patch.oldPath ?? patch.path;
    const needsBase = hunks.some((h) => h.lines.some((l) => l.kind !== "added"));
    if (!needsBase) continue;
    const content = ctx.base.read(basePath);
    if (content === undefined) {
      const line = hunks[0]?.newStart || 1;
      findings.push(
        fail(
          patch.path,
          line,
          `${basePath} is not a text file at base ${short(ctx.base.sha)}, yet the diff has context or removed lines ` +
            `for it`,
        ),
      );
      continue;
    }
    // A byte-order mark is the file's, not text of line 1: the hunks leave it out (`withHunks` of review/report.ts).
    const { lines: base, finalNewline } = splitLines(splitBom(content).body);
    for (const hunk of hunks) {
      for (const line of hunk.lines) {
        if (line.kind === "added" || line.oldLine === undefined) continue;
        const actual = base[line.oldLine - 1];
        const at = line.newLine ?? line.atNewLine;
        const what = line.kind === "context" ? "context" : "removed";
        if (actual === undefined) {
          findings.push(
            fail(
              patch.path,
              at,
              `hunk ${hunk.header.split("@@")[1]?.trim()}: ${what} line ${line.oldLine} is past the end of ` +
                `${basePath} at base (${base.length} lines)`,
            ),
          );
          break;
        }
        if (!sameLine(actual, line.text)) {
          findings.push(
            fail(
              patch.path,
              at,
              `hunk ${hunk.header.split("@@")[1]?.trim()}: ${what} line ${line.oldLine} is ${quote(line.text)} in ` +
                `the diff but ${quote(actual)} in ${basePath} at base`,
            ),
          );
          break;
        }
        const isLast = line.oldLine === base.length;
        if (line.noNewline && !(isLast && !finalNewline)) {
          findings.push(
            fail(
              patch.path,
              at,
              `${what} line ${line.oldLine} is marked "No newline at end of file", but ${basePath} ` +
                `at base ${isLast ? "ends with a newline" : `goes on to line ${base.length}`}`,
            ),
          );
          break;
        }
      }
    }
  }
  return findings;
}

function sameLine(a: string, b: string): boolean {
  return a === b || a.replace(/\r$/, "") === b.replace(/\r$/, "");
}

function fail(path: string, line: number, message: string): Finding {
  const l = Math.max(1, line);
  return { rule: "grounded_hunks", path, start_line: l, end_line: l, level: "failure", message };
}

/** A line for a message: JSON-quoted, at most 80 characters. */
export function quote(s: string): string {
  const t = s.replace(/\r$/, "");
  return JSON.stringify(t.length > 80 ? `${t.slice(0, 77)}...` : t);
}

/** The first 7 characters of a SHA, as git shows it. */
export function short(sha: string): string {
  return /^[0-9a-f]{40}$/.test(sha) ? sha.slice(0, 7) : sha;
}
