/**
 * The one rule for comment lines, for every reader of code line by line: the heuristic model (where a statement goes,
 * the code part of a line), commit subjects and the comment-only check of a run's edits (src/pipeline/describe.ts,
 * src/agent/outcome.ts), and the eval's scores. Languages are the names of src/lang/languages.ts.
 */
import { parsePatch } from "diff";
import { languageOfBasename, languageOfExtension } from "./languages.js";

/** Languages whose line comments start with `#` (Python, Ruby, shell, YAML, …). */
const HASH = new Set([
  "Python",
  "Ruby",
  "Shell",
  "Perl",
  "R",
  "Elixir",
  "Crystal",
  "PowerShell",
  "YAML",
  "TOML",
  "Dockerfile",
  "Makefile",
]);

/** Languages with no comment syntax a line can be read by: prose and data. */
const NO_COMMENTS = new Set(["Markdown", "Text", "reStructuredText"]);

/** The language of a repository path: by basename (`Dockerfile`, `Gemfile`), else by extension; undefined if none. */
export function languageOfPath(path: string): string | undefined {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const dot = base.lastIndexOf(".");
  return languageOfBasename(base) ?? (dot > 0 ? languageOfExtension(base.slice(dot + 1)) : undefined);
}

/**
 * True when `line` (no line break) is a comment and nothing else, in `language` (a name of src/lang/languages.ts; any
 * other name, or undefined, reads as the C family):
 * - `#` languages ({@link HASH}): the line starts with `#`; Ruby's `=begin` / `=end` lines too.
 * - the C family (JavaScript, TypeScript, Go, Java, Kotlin, C#, C, …): the line starts with `//`; or it is a block
 *   comment's line — `/* … *\/` (or an unclosed `/*`), a continuation ` * …` (`*` then a space, a tab or nothing)
 *   or the closing `*\/` — with nothing but white space or a `//` comment after its `*\/`. So `/* x *\/ run();` and
 *   Go's or C's `*p = v` are code.
 * - Markdown, Text, reStructuredText: never.
 * A blank line is not a comment (see {@link isInertLine}).
 */
export function isCommentLine(line: string, language: string | undefined): boolean {
  const t = line.trim();
  if (t === "" || (language !== undefined && NO_COMMENTS.has(language))) return false;
  if (language !== undefined && HASH.has(language)) {
    return t.startsWith("#") || (language === "Ruby" && /^=(?:begin|end)(?:\s|$)/.test(t));
  }
  if (t.startsWith("//")) return true;
  let rest: string;
  if (t.startsWith("/*")) rest = t.slice(2);
  else if (t.startsWith("*/")) rest = t;
  else if (t === "*" || t.startsWith("* ") || t.startsWith("*\t")) rest = t.slice(1);
  else return false;
  const close = rest.indexOf("*/");
  if (close === -1) return true;
  const after = rest.slice(close + 2).trim();
  return after === "" || after.startsWith("//") || isCommentLine(after, language);
}

/**
 * True when `line` does nothing when the program runs, in the file at `path`: blank, a comment
 * ({@link isCommentLine}), or in Python a line that is only a string literal (a docstring line: `"""…`, `'''…`,
 * `"text"`).
 */
export function isInertLine(path: string, line: string): boolean {
  const t = line.trim();
  if (t === "") return true;
  const language = languageOfPath(path);
  if (isCommentLine(t, language)) return true;
  return language === "Python" && (/^[rRbBuU]?("""|''')/.test(t) || /^[rRbBuU]?("[^"]*"|'[^']*')$/.test(t));
}

/**
 * The lines of a run of consecutive lines of the file at `path` (in order) that do nothing when the program runs:
 * each {@link isInertLine}, and also the lines inside a block comment that opens on an earlier line of the run
 * (`/*` … `*\/` in the C family, Ruby's `=begin` … `=end`, a Python string literal in `"""` or `'''` that spans
 * lines), whatever they hold. Returns one boolean per line.
 */
export function inertLines(path: string, lines: readonly string[]): boolean[] {
  const language = languageOfPath(path);
  const hash = language !== undefined && HASH.has(language);
  /** What closes the block the current line is inside: `*\/`, `=end`, `"""`, `'''`, or "" outside one. */
  let closer = "";
  return lines.map((line) => {
    const t = line.trim();
    if (closer !== "") {
      const at = closer === "=end" ? (/^=end(?:\s|$)/.test(t) ? 0 : -1) : t.indexOf(closer);
      if (at === -1) return true;
      const after = t.slice(at + closer.length).trim();
      closer = "";
      return after === "" || isInertLine(path, after);
    }
    if (!isInertLine(path, line)) return false;
    if (language === "Ruby" && /^=begin(?:\s|$)/.test(t)) closer = "=end";
    else if (language === "Python") {
      const quote = /^[rRbBuU]?("""|''')/.exec(t)?.[1];
      if (quote !== undefined && !t.slice(t.indexOf(quote) + 3).includes(quote)) closer = quote;
    } else if (!hash && leavesBlockOpen(t)) closer = "*/";
    return true;
  });
}

/** Whether a C-family comment line (trimmed) ends inside a block comment: `/* …` or ` * …` with no `*\/` after. */
function leavesBlockOpen(t: string): boolean {
  if (t.startsWith("/*")) return !t.includes("*/", 2);
  return t.startsWith("*") && !t.startsWith("*/") && !t.includes("*/");
}

/** The added (`+`) and removed (`-`) lines of a unified diff, without their marker, across its files and hunks. */
export function changedLines(diff: string): { added: string[]; removed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  for (const file of parsePatch(diff)) {
    for (const hunk of file.hunks) {
      for (const l of hunk.lines) {
        if (l.startsWith("+")) added.push(l.slice(1));
        else if (l.startsWith("-")) removed.push(l.slice(1));
      }
    }
  }
  return { added, removed };
}

/**
 * True when an edit (its `path` and unified `diff`) changes nothing the program does: every line it adds and every
 * line it removes is inert ({@link inertLines}, each side read as a run of lines). An edit that comments code out
 * removes code, so it is not comment-only.
 */
export function isCommentOnly(edit: { path: string; diff: string }): boolean {
  const { added, removed } = changedLines(edit.diff);
  return inertLines(edit.path, added).every(Boolean) && inertLines(edit.path, removed).every(Boolean);
}
