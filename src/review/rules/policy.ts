import { BOM, splitBom } from "../../grounding/lines.js";
import { additionProblems } from "../../grounding/lexical.js";
import { addedTextProblems } from "../../grounding/structure.js";
import type { Finding } from "../../types.js";
import type { ParsedPatch, RuleContext } from "../types.js";
import { quote } from "./grounded.js";

/**
 * Rule 2, edit policy. In every mode, an added line that holds a hidden line break (lone CR, U+0085,
 * U+2028, U+2029) or a bidirectional control / invisible character fails (`addedTextProblems` of
 * src/grounding/structure.ts). With `edits.allow: additions` (the default) a change may only add lines: each run of
 * consecutive removed lines is one `failure` naming its first line; deleting, renaming or adding a file fails; and an
 * addition must leave existing code parsing and running as before (`additionProblems` of src/grounding/lexical.ts,
 * the rule `suggest_addition` applies: TypeScript's parser for JS/TS and Node scripts, tree-sitter for Python and Go,
 * the lexical rule in other files — an added `return`, an opened comment, string or here-document, a wrapping
 * `if (false)` or `#if 0`, an empty loop fail).
 * A Python or Go file whose grammar is not loaded gets one `notice` that its structure was not checked.
 * A byte-order mark the head adds at the start of a file fails in every mode (an invisible character), one it removes
 * fails with `edits.allow: additions`; a mark both sides have is no text of line 1 (the hunks leave it out).
 * With `edits.allow: modifications` only the hidden-character and added-mark checks run.
 */
export function editPolicy(ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  const push = (path: string, start: number, end: number, message: string, level: Finding["level"] = "failure") =>
    findings.push({
      rule: "edit_policy",
      path,
      start_line: Math.max(1, start),
      end_line: Math.max(1, start, end),
      level,
      message,
    });
  for (const parsed of ctx.parsed) {
    const { patch, hunks } = parsed;
    const added = hunks.flatMap((h) =>
      h.lines.filter((l) => l.kind === "added").map((l) => ({ line: l.newLine ?? 1, text: l.text })),
    );
    for (const p of addedTextProblems(added)) push(patch.path, p.line, p.line, p.message);
    const mark = bomChange(ctx, parsed);
    if (mark === "added") {
      push(
        patch.path,
        1,
        1,
        `adds a byte-order mark (U+FEFF) at the start of ${patch.path}, which the base file does not have: an ` +
          `invisible character that changes the file's first bytes`,
      );
    } else if (mark === "removed" && ctx.config.edits.allow === "additions") {
      push(
        patch.path,
        1,
        1,
        `removes the byte-order mark (U+FEFF) at the start of ${patch.path}; edits.allow is "additions", so only ` +
          `added lines are allowed`,
      );
    }
  }
  if (ctx.config.edits.allow !== "additions") return findings;
  let unchecked: string | undefined;
  for (const parsed of ctx.parsed) {
    const { patch, hunks } = parsed;
    if (patch.status === "removed") {
      push(patch.path, 1, 1, `deletes ${patch.path}; edits.allow is "additions", so only added lines are allowed`);
      continue;
    }
    if (patch.status === "added") {
      push(
        patch.path,
        1,
        1,
        `adds the new file ${patch.path}; edits.allow is "additions", so only lines added to existing files are ` +
          `allowed`,
      );
      continue;
    }
    if (patch.status === "renamed" && patch.oldPath) {
      push(
        patch.path,
        1,
        1,
        `renames ${patch.oldPath} to ${patch.path}; edits.allow is "additions", so only added lines are allowed`,
      );
    }
    let removed = false;
    for (const hunk of hunks) {
      let k = 0;
      while (k < hunk.lines.length) {
        const line = hunk.lines[k]!;
        if (line.kind !== "removed") {
          k++;
          continue;
        }
        removed = true;
        let j = k;
        while (j + 1 < hunk.lines.length && hunk.lines[j + 1]!.kind === "removed") j++;
        const count = j - k + 1;
        const from = line.oldLine ?? 0;
        const lines = count === 1 ? `line ${from}` : `lines ${from}-${from + count - 1}`;
        push(
          patch.path,
          line.atNewLine,
          line.atNewLine,
          `removes ${count === 1 ? "1 line" : `${count} lines`} of the base ` +
            `file (${lines}: ${count === 1 ? "" : "first "}${quote(line.text)}); ` +
            `edits.allow is "additions", so only added lines are allowed`,
        );
        k = j + 1;
      }
    }
    if (!removed && structureUnchecked(ctx, parsed, push)) unchecked ??= patch.path;
  }
  if (unchecked !== undefined) {
    push(
      unchecked,
      1,
      1,
      "the structure of .py and .go additions was not checked: the tree-sitter grammar is not loaded",
      "notice",
    );
  }
  return findings;
}

/** The addition rule on one added-lines-only patch (`additionProblems`); true when its grammar is not loaded. */
function structureUnchecked(
  ctx: RuleContext,
  { patch, hunks, error }: ParsedPatch,
  push: (path: string, start: number, end: number, message: string) => void,
): boolean {
  if (patch.binary || error !== undefined) return false;
  const before = ctx.base.read(patch.oldPath ?? patch.path);
  const after = ctx.head.read(patch.path);
  if (before === undefined || after === undefined) return false;
  const added = hunks.flatMap((h) => h.lines.filter((l) => l.kind === "added").map((l) => l.newLine ?? 0));
  // As the hunks were made (`withHunks` of review/report.ts): each side without its byte-order mark (a mark added or
  // removed is `bomChange`'s finding).
  const problems = additionProblems(patch.path, splitBom(before).body, splitBom(after).body, added);
  if (problems === undefined) return true;
  const first = problems[0];
  if (first)
    push(
      patch.path,
      first.line,
      first.line,
      `${first.message}; edits.allow is "additions", so existing code must keep parsing and running as before`,
    );
  return false;
}

/**
 * Whether a changed text file gained or lost the byte-order mark at its start (U+FEFF at offset 0 of the head but not
 * the base, or the other way round), read from the two snapshots; null when both sides agree, for added, removed and
 * binary files, or when a side cannot be read. The diff's hunks leave a mark out (`withHunks` of review/report.ts),
 * so this is where a change of it is seen.
 */
function bomChange(ctx: RuleContext, { patch }: ParsedPatch): "added" | "removed" | null {
  if (patch.binary || patch.status === "added" || patch.status === "removed") return null;
  const before = ctx.base.read(patch.oldPath ?? patch.path);
  const after = ctx.head.read(patch.path);
  if (before === undefined || after === undefined) return null;
  const had = before.startsWith(BOM);
  const has = after.startsWith(BOM);
  return had === has ? null : has ? "added" : "removed";
}
