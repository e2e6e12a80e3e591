import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";

let parser: Parser | null | undefined;

/**
 * Load the Go grammar (`tree-sitter-go.wasm` from the tree-sitter-go package, through web-tree-sitter) for the eval's
 * parse check of `.go` edits, which the review's syntax rule (src/review/rules/syntax.ts) does not parse yet. Returns
 * false when the grammar cannot be loaded; never throws.
 */
export async function loadGoGrammar(): Promise<boolean> {
  if (parser !== undefined) return parser !== null;
  try {
    await Parser.init();
    const language = await Language.load(
      createRequire(import.meta.url).resolve(
        "tree-sitter-go/tree-sitter-go.wasm",
      ),
    );
    parser = new Parser();
    parser.setLanguage(language);
  } catch {
    parser = null;
  }
  return parser !== null;
}

/** Whether a Go source parses without an error node: true, false, or undefined when the grammar is not loaded. */
export function goParses(source: string): boolean | undefined {
  if (!parser) return undefined;
  const tree = parser.parse(source);
  if (!tree) return undefined;
  try {
    return !tree.rootNode.hasError;
  } finally {
    tree.delete();
  }
}
