import { z } from "zod";
import { locateVerbatim, numberLines, verifySnippet } from "../grounding/index.js";
import { findSecrets, isSecretPath, multiLineSecretLines, redactQuoted } from "../grounding/secrets.js";
import { trimBlankLines } from "../grounding/snippet.js";
import { extractSymbols, type SymbolDef } from "../grounding/symbols.js";
import type { Citation, Snapshot } from "../types.js";
import { nearestPaths } from "./nearest.js";
import { shortSha } from "./output.js";
import { normalizeRepoPath } from "./paths.js";
import { notLoaded } from "./serve.js";

/** `text` cut to `max` characters, with `…` when cut. */
function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * True when `snippet` holds a secret itself, or any of its lines `start..end` of `content` lies in a private key block.
 */
function holdsSecret(snippet: string, content: string, start: number, end: number): boolean {
  if (findSecrets(snippet).length > 0) return true;
  const block = multiLineSecretLines(content);
  for (let line = start; line <= end; line++) if (block.has(line)) return true;
  return false;
}

/** Arguments of `submit_answer` (the tool surface: `agent/tool-specs.ts`). */
export const submitAnswerSchema = z.object({
  summary: z.string().min(1).describe("What goes wrong and where, in a few sentences."),
  affected_file: z
    .string()
    .nullable()
    .describe("Repository-relative path of the file where the problem lives, or null."),
  affected_function: z
    .string()
    .nullable()
    .describe("Name of the function or method (defined in affected_file) where the problem lives, or null."),
  root_cause_snippet: z
    .string()
    .nullable()
    .describe("Lines copied verbatim from affected_file that show the cause (no line-number prefixes), or null."),
  confidence: z.number().min(0).max(1).describe("How sure you are, 0 to 1, given the evidence you read."),
});
/**
 * Validated `submit_answer` arguments: `summary`, the claims `affected_file` / `affected_function` /
 * `root_cause_snippet` (each string or null) and `confidence` in [0, 1].
 */
export type SubmitAnswerArgs = z.infer<typeof submitAnswerSchema>;

/** Description offered to the model. */
export const SUBMIT_ANSWER_DESCRIPTION =
  "Submit the final diagnosis; an accepted answer ends the run. " +
  "Checked before acceptance: affected_file must exist, affected_function must " +
  "be defined in it (or null), root_cause_snippet must be verbatim text of it (or " +
  "null); a rejected answer says which claim failed and the real alternatives. " +
  "Call it last, once your suggest_addition was applied, with an honest confidence: it decides whether a pull " +
  "request, a comment or nothing comes of the run.";

/** The claims of an answer after checking; a field that failed its check is null. */
export interface CheckedClaims {
  affected_file: string | null;
  affected_function: string | null;
  root_cause_snippet: string | null;
  /** The verified snippet's line range. */
  citation: Citation | null;
  /** One sentence per failed claim, with the real alternatives; empty when every non-null claim holds. */
  failures: string[];
}

/**
 * Words that name no code of their own: the keywords and literals of the languages `extractSymbols` reads (JS/TS,
 * Python, Go, Java, C#, Ruby). A snippet made only of these (and punctuation) identifies no place in a file.
 */
const KEYWORDS = new Set(
  (
    "abstract and as assert async await begin boolean break byte case catch chan char class const continue debugger " +
    "def default defer del delete do double elif else elsif " +
    "end ensure enum except export extends false final finally " +
    "float for from func function global goto if implements " +
    "import in instanceof int interface is lambda let long new " +
    "nil nonlocal none not null object or override package " +
    "pass private protected public raise readonly rescue return " +
    "select self short static string struct super switch then " +
    "this throw throws true try type typeof undefined unless " +
    "until var void while with yield"
  ).split(" "),
);

/** An identifier-like token of at least 3 characters (letters, digits, `_`, `$`, not starting with a digit). */
const NAME_TOKEN = /[A-Za-z_$][\w$]{2,}/g;

/**
 * True when `snippet` can identify code: it holds at least one identifier-like token of 3+ characters that is not a
 * keyword or literal of {@link KEYWORDS} (compared case-insensitively). `}`, `return;`, `} else {`, `if (x)` or a
 * whitespace-only text do not; `return total;` does.
 */
export function isMeaningfulSnippet(snippet: string): boolean {
  for (const m of snippet.matchAll(NAME_TOKEN)) if (!KEYWORDS.has(m[0].toLowerCase())) return true;
  return false;
}

const DEFINING_KINDS = new Set<SymbolDef["kind"]>(["function", "method", "class", "variable"]);

/**
 * The claims check. Verifies against the pinned snapshot:
 * - `affected_file` is a text file (not a secret file); on failure, the nearest real paths are offered;
 * - `affected_function` is defined in that file per `extractSymbols` (`name`, or `Container.name` for methods);
 *   on failure, the functions the file does define are offered;
 * - `root_cause_snippet` identifies code ({@link isMeaningfulSnippet}: a name of 3+ characters that is not a keyword),
 *   occurs verbatim in that file (`verifySnippet`: only leading/trailing blank lines ignored) and, when
 *   `affected_function` holds and its end line is known, lies inside that function's lines (an occurrence elsewhere
 *   fails); its line range becomes the citation; on failure, the nearest real region and the cause of the difference
 *   are quoted.
 * A null claim is not checked. When the file fails, the function and snippet cannot be verified either. A snippet
 * that holds a secret, or lies on lines of a private key block, fails: a verified snippet is posted. Failure
 * messages quote the file only after redaction (`redactQuoted`).
 *
 * @returns the claims with failed fields set to null, and the failure messages (pure; never throws).
 */
export function checkClaims(answer: SubmitAnswerArgs, snapshot: Snapshot): CheckedClaims {
  const out = verifyClaims(answer, snapshot);
  const source = out.affected_file === null ? "" : (snapshot.read(out.affected_file) ?? "");
  return { ...out, failures: out.failures.map((f) => redactQuoted(f, source)) };
}

function verifyClaims(answer: SubmitAnswerArgs, snapshot: Snapshot): CheckedClaims {
  const out: CheckedClaims = {
    affected_file: null,
    affected_function: null,
    root_cause_snippet: null,
    citation: null,
    failures: [],
  };
  if (answer.affected_file === null) {
    if (answer.affected_function !== null || answer.root_cause_snippet !== null) {
      out.failures.push(
        "affected_function and root_cause_snippet need an affected_file to be checked against; name the file.",
      );
    }
    return out;
  }
  const norm = normalizeRepoPath(answer.affected_file);
  const path = norm.ok ? norm.path : answer.affected_file;
  const entry = snapshot.entry(path);
  const content = snapshot.read(path);
  if (!entry || content === undefined || isSecretPath(path)) {
    const textPaths = snapshot.paths.filter((p) => snapshot.entry(p)?.kind === "text" && !isSecretPath(p));
    const near = nearestPaths(path, textPaths, 5);
    const what = !entry
      ? (notLoaded(snapshot, path)?.replace(/\.$/, "; groundfix cannot cite it") ??
        `affected_file "${answer.affected_file}" does not exist in the repository at ${shortSha(snapshot.sha)}`)
      : isSecretPath(path)
        ? `affected_file "${path}" is a secret file, which groundfix does not cite`
        : `affected_file "${path}" is a ${entry.kind.replace("_", " ")} entry, not a text file`;
    out.failures.push(
      `${what}.${near.length ? ` Nearest real paths: ${near.join(", ")}.` : ""} ` +
        `Check the path with list_files or get_file_contents.`,
    );
    return out;
  }
  out.affected_file = path;

  const symbols = extractSymbols(path, content);
  let fnRange: { start: number; end: number } | null = null;
  if (answer.affected_function !== null) {
    const wanted = answer.affected_function
      .trim()
      .replace(/\(.*\)$/, "")
      // Ruby's `Cart#total` is `Cart.total`; a `#` that starts a name is JavaScript's private `#total`, kept.
      .replace(/(?<=[\w$])#/g, ".");
    const found = symbols.find(
      (s) =>
        DEFINING_KINDS.has(s.kind) &&
        (s.name === wanted || (s.container !== undefined && `${s.container}.${s.name}` === wanted)),
    );
    if (found) {
      out.affected_function = answer.affected_function;
      // Without a known end the function's span is unknown: the snippet is then not held to it.
      if (found.endLine !== undefined) fnRange = { start: found.line, end: found.endLine };
    } else {
      const names = [
        ...new Set(
          symbols
            .filter((s) => s.kind === "function" || s.kind === "method")
            .map((s) => (s.container ? `${s.container}.${s.name}` : s.name)),
        ),
      ];
      out.failures.push(
        `affected_function "${answer.affected_function}" is not defined in ${path}; ` +
          (names.length
            ? `it defines: ${names.slice(0, 25).join(", ")}` + (names.length > 25 ? ` … (${names.length} in all)` : "")
            : "it defines no functions groundfix can see") +
          `. Use one of these names, or null.`,
      );
    }
  }

  if (answer.root_cause_snippet !== null) {
    const check = verifySnippet(content, answer.root_cause_snippet);
    if (!isMeaningfulSnippet(answer.root_cause_snippet)) {
      out.failures.push(
        `root_cause_snippet ${JSON.stringify(clip(answer.root_cause_snippet.trim(), 60))} does not identify code: a ` +
          `cited snippet must hold at least one name of 3 or more characters that is not a keyword (such as a ` +
          `variable, function or property name), not only punctuation, keywords or short tokens. Copy the line(s) ` +
          `of ${path} that show the cause, or pass null.`,
      );
    } else if (!check.found) {
      const near = check.nearest;
      out.failures.push(
        `root_cause_snippet is not verbatim text of ${path}.` +
          (near
            ? ` The closest text is lines ${near.startLine}-${near.endLine}; it differs ` +
              `${near.cause ? `only in ${near.cause}` : "in content"}:\n` +
              `${numberLines(near.text, near.startLine)}\n`
            : " ") +
          `Copy the lines exactly as get_file_contents shows them (without the "12| " prefixes), or pass null.`,
      );
    } else if (holdsSecret(answer.root_cause_snippet, content, check.startLine, check.endLine)) {
      out.failures.push(
        `root_cause_snippet quotes a secret of ${path} (a key, token or password); groundfix never posts one. Cite ` +
          `lines next to it, or pass null.`,
      );
    } else {
      let span: { startLine: number; endLine: number } | undefined = {
        startLine: check.startLine,
        endLine: check.endLine,
      };
      if (fnRange) {
        const range = fnRange;
        const inside = (m: { startLine: number; endLine: number }) =>
          m.startLine >= range.start && m.endLine <= range.end;
        span = inside(span) ? span : locateVerbatim(content, trimBlankLines(answer.root_cause_snippet)).find(inside);
      }
      if (span) {
        out.root_cause_snippet = answer.root_cause_snippet;
        out.citation = { path, start_line: span.startLine, end_line: span.endLine };
      } else {
        out.failures.push(
          `root_cause_snippet is at lines ${check.startLine}-${check.endLine} of ${path}, outside affected_function ` +
            `"${answer.affected_function}" (lines ${fnRange!.start}-${fnRange!.end}). Cite lines of that function, ` +
            `or name the function that holds the snippet.`,
        );
      }
    }
  }
  return out;
}
