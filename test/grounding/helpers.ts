import { addedLineNumbers } from "../../src/grounding/additive.js";
import { structureLanguage, structureProblems } from "../../src/grounding/structure.js";

/**
 * Insert `lines` after line `at` (0 = top) of `before`, as suggest_addition would, and compare the parses with
 * `structureProblems` (the language from `path`'s extension); undefined when the grammar is not loaded.
 */
export function add(path: string, before: string, at: number, lines: string) {
  const rows = before.split("\n");
  const offset = rows.slice(0, at).reduce((n, r) => n + r.length + 1, 0);
  const after = before.slice(0, offset) + lines + before.slice(offset);
  return structureProblems(structureLanguage(path)!, before, after, addedLineNumbers(before, offset, 0, lines));
}
