import type * as TS from "typescript";
import { parseAllDocuments } from "yaml";
import { lineAt as lineOf } from "../../grounding/lines.js";
import type { Finding } from "../../types.js";
import { structureLanguage, type StructureLanguage } from "../../grounding/structure.js";
import { languageOfExtension } from "../../lang/languages.js";
import { typescript } from "../../lang/typescript.js";
import { splitLines } from "../hunks.js";
import { sitterSyntaxError } from "../sitter-syntax.js";
import type { RuleContext } from "../types.js";

type Language = StructureLanguage | "json" | "jsonc" | "yaml";
interface SyntaxError {
  line: number;
  message: string;
}

/**
 * The language the syntax rule parses a path as: the code languages of the structure rule
 * (`grounding/structure.ts` `structureLanguage`, from the one extension table in `lang/languages.ts`), plus JSON —
 * with comments for tsconfig/jsconfig, `.vscode/` and devcontainer files — and YAML; undefined for files it does not
 * check.
 */
export function syntaxLanguage(path: string): Language | undefined {
  const code = structureLanguage(path);
  if (code) return code;
  const base = path.slice(path.lastIndexOf("/") + 1).toLowerCase();
  const ext = base.includes(".") ? base.slice(base.lastIndexOf(".") + 1) : "";
  switch (languageOfExtension(ext)) {
    case "JSON":
      return ext === "jsonc" ||
        /^(tsconfig|jsconfig)(\..*)?\.json$/.test(base) ||
        path.startsWith(".vscode/") ||
        base === "devcontainer.json"
        ? "jsonc"
        : "json";
    case "YAML":
      return "yaml";
    default:
      return undefined;
  }
}

function tsSyntax(path: string, text: string, lang: "ts" | "tsx" | "js" | "jsx"): SyntaxError | null {
  const ts = typescript();
  const kind = { ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX }[lang];
  const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, false, kind);
  // parseDiagnostics is the parser's own list (not in the public typings); transpileModule reports the same errors.
  let diags = (sf as unknown as { parseDiagnostics?: readonly TS.Diagnostic[] }).parseDiagnostics;
  if (diags === undefined) {
    diags =
      ts.transpileModule(text, {
        fileName: path,
        reportDiagnostics: true,
        compilerOptions: { jsx: ts.JsxEmit.Preserve },
      }).diagnostics ?? [];
  }
  const first = [...diags].sort((a, b) => (a.start ?? 0) - (b.start ?? 0))[0];
  if (!first) return null;
  return { line: lineOf(text, first.start ?? 0), message: ts.flattenDiagnosticMessageText(first.messageText, " ") };
}

function jsonSyntax(path: string, text: string, lang: "json" | "jsonc"): SyntaxError | null {
  const body = text.startsWith("\uFEFF") ? text.slice(1) : text;
  try {
    JSON.parse(body);
    return null;
  } catch (err) {
    if (lang === "jsonc") {
      const ts = typescript();
      const sf = ts.parseJsonText(path, body);
      const diag = (sf as unknown as { parseDiagnostics?: readonly TS.Diagnostic[] }).parseDiagnostics?.[0];
      if (!diag) return null;
      return { line: lineOf(body, diag.start ?? 0), message: ts.flattenDiagnosticMessageText(diag.messageText, " ") };
    }
    const message = err instanceof Error ? err.message : String(err);
    const pos = /position (\d+)/.exec(message);
    const line = pos ? lineOf(body, Number(pos[1])) : /end of JSON input/.test(message) ? lineOf(body, body.length) : 1;
    return { line, message };
  }
}

function yamlSyntax(text: string): SyntaxError | null {
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    const err = doc.errors[0];
    if (err)
      return {
        line: err.linePos?.[0]?.line ?? lineOf(text, err.pos[0]),
        message: err.message.split("\n")[0] ?? err.code,
      };
  }
  return null;
}

/** The first syntax error of `text` parsed as `lang`, null when it parses, undefined when it cannot be checked now. */
export function syntaxError(path: string, text: string, lang: Language): SyntaxError | null | undefined {
  switch (lang) {
    case "ts":
    case "tsx":
    case "js":
    case "jsx":
      return tsSyntax(path, text, lang);
    case "json":
    case "jsonc":
      return jsonSyntax(path, text, lang);
    case "yaml":
      return yamlSyntax(text);
    case "python":
    case "go":
      return sitterSyntaxError(lang, text);
  }
}

/**
 * Rule 5, syntax: a changed file that parsed at base must parse at head; a new file must parse. TypeScript
 * and JavaScript (by extension: .ts .mts .cts .tsx .js .mjs .cjs .jsx) through the TypeScript compiler's parser, JSON
 * (JSON.parse after a BOM; tsconfig/jsconfig/.vscode files as JSON with comments), YAML (the `yaml` package, every
 * document of the stream), Python and Go (tree-sitter, when `loadGrammar` of src/lang/tree-sitter.ts has loaded the
 * grammar; otherwise one `notice` per language that its files were not checked). One `failure` per file at its first
 * error.
 */
export function syntaxRule(ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  const skipped = new Map<"python" | "go", string>();
  for (const { patch } of ctx.parsed) {
    if (patch.status === "removed" || patch.binary) continue;
    const lang = syntaxLanguage(patch.path);
    if (!lang) continue;
    const after = ctx.head.read(patch.path);
    if (after === undefined) continue;
    const headErr = syntaxError(patch.path, after, lang);
    if (headErr === undefined) {
      if ((lang === "python" || lang === "go") && !skipped.has(lang)) skipped.set(lang, patch.path);
      continue;
    }
    if (headErr === null) continue;
    const before = patch.status === "added" ? undefined : ctx.base.read(patch.oldPath ?? patch.path);
    if (before !== undefined && syntaxError(patch.path, before, lang)) continue; // did not parse at base either
    const line = Math.max(1, Math.min(headErr.line, splitLines(after).lines.length)); // an error at EOF: the last line
    findings.push({
      rule: "syntax",
      path: patch.path,
      start_line: line,
      end_line: line,
      level: "failure",
      message:
        `${patch.path} ${before === undefined ? "" : "parsed at base but "}does not parse at head (${lang}): ` +
        `line ${line}: ${headErr.message}`,
    });
  }
  for (const [lang, path] of skipped) {
    const [ext, name] = lang === "python" ? [".py", "Python"] : [".go", "Go"];
    findings.push({
      rule: "syntax",
      path,
      start_line: 1,
      end_line: 1,
      level: "notice",
      message: `the syntax of ${ext} files was not checked: the ${name} grammar is not loaded`,
    });
  }
  return findings;
}
