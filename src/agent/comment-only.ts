/**
 * Whether a run's edits change code: the one decision behind the outcome (src/agent/outcome.ts), the commit subject
 * and pull request title (src/pipeline/describe.ts) and the note shown in place of a fix, so that what a maintainer
 * reads agrees with what was decided. The comment rules themselves are src/lang/comments.ts.
 */
import { applyVerbatimEdit } from "../grounding/apply.js";
import { fileFirstLine, isCommentOnly, sameCode } from "../lang/comments.js";
import type { AppliedEdit } from "../types.js";

/** What {@link readCommentOnly} found. */
export interface CommentOnlyReading {
  /**
   * Per edit, in the order applied: true when it changes no code. Read over the whole file (`sameCode`, the file
   * before the edit against the file after it) when the base file is known and the edit applies to it again (earlier
   * edits of the same file first), else over the edit's own hunks (`isCommentOnly`).
   */
  edits: boolean[];
  /** True when the run changes no code: every edit changes none, or every file it changed holds its base's code. */
  all: boolean;
  /**
   * True when some edit reads as comment-only in its own hunks but changes code in its file (a `# note` line added
   * inside a multi-line string or here-document that opens above the lines its diff shows): such an edit is never
   * called a comment, and it opens no pull request unless a maintainer approved the run (`decideOutcome`).
   */
  hidden: boolean;
}

/**
 * Read a run's applied edits (in order; several may change one file) for code changes. `readBase` reads a file at the
 * run's base (undefined when it is not there); `contents`, when given, holds each changed file's text after the run
 * (the session's), else it is rebuilt from the base and the edits. A file's shebang at the base names the language
 * of an extension-less script for every reading of it. No edits: `all` is true, as `every` is.
 */
export function readCommentOnly(
  edits: readonly Pick<AppliedEdit, "path" | "diff" | "code_before" | "code_after">[],
  readBase?: (path: string) => string | undefined,
  contents?: ReadonlyMap<string, string>,
): CommentOnlyReading {
  const base = new Map<string, string | undefined>();
  /** Each file's text after the edits read so far; undefined once an edit does not apply to it again. */
  const now = new Map<string, string | undefined>();
  let hidden = false;
  const each = edits.map((edit) => {
    if (!base.has(edit.path)) {
      const text = readBase?.(edit.path);
      base.set(edit.path, text);
      now.set(edit.path, text);
    }
    const before = now.get(edit.path);
    const hunks = isCommentOnly(edit, fileFirstLine(base.get(edit.path)));
    if (before === undefined) return hunks;
    const applied = applyVerbatimEdit(before, edit, { allow: "modifications", path: edit.path });
    if (!applied.ok) {
      now.set(edit.path, undefined);
      return hunks;
    }
    now.set(edit.path, applied.content);
    const whole = sameCode(edit.path, before, applied.content);
    if (hunks && !whole) hidden = true;
    return whole;
  });
  const files = [...base].every(([path, text]) => {
    const after = contents?.get(path) ?? now.get(path);
    return text !== undefined && after !== undefined && sameCode(path, text, after);
  });
  return { edits: each, all: each.every(Boolean) || files, hidden };
}
