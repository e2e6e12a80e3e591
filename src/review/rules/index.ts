import type { RuleName } from "../../types.js";
import type { Rule } from "../types.js";
import { groundedHunks } from "./grounded.js";
import { editPolicy } from "./policy.js";
import { pathsRule } from "./paths.js";
import { sizeRule } from "./size.js";
import { secretsRule } from "./secrets.js";
import { syntaxRule } from "./syntax.js";
import { importsRule } from "./imports.js";
import { evidenceRule } from "./evidence.js";

/** The review rules in the order they run and appear in the summary, with a short label and what each checks. */
export const RULES: readonly { name: RuleName; label: string; checks: string; run: Rule }[] = [
  {
    name: "grounded_hunks",
    label: "Grounded hunks",
    checks: "context and removed lines equal the base file",
    run: groundedHunks,
  },
  {
    name: "edit_policy",
    label: "Edit policy",
    checks:
      "only additions that leave existing code parsing and running as before (unless edits.allow is modifications); " +
      "no hidden characters",
    run: editPolicy,
  },
  {
    name: "paths",
    label: "Paths",
    checks: "deny/allow globs, binary files, file modes, gitlinks and submodule URLs, files too large to check",
    run: pathsRule,
  },
  { name: "size", label: "Size", checks: "edits.max_files, edits.max_added_lines and added bytes", run: sizeRule },
  {
    name: "syntax",
    label: "Syntax",
    checks: "TS/JS, JSON, YAML, Python and Go files that parsed at base parse at head",
    run: syntaxRule,
  },
  {
    name: "imports",
    label: "Imports",
    checks: "new imports (JS/TS, Python, Go) resolve to a file, a package declared at base or the stdlib",
    run: importsRule,
  },
  { name: "secrets", label: "Secrets", checks: "no token-like strings in added lines", run: secretsRule },
  {
    name: "evidence",
    label: "Evidence",
    checks: "the head is the base with the run record's edits replayed, and the record names a commit the app made",
    run: evidenceRule,
  },
];
