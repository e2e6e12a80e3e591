import { loadGrammar, withTree } from "../src/lang/tree-sitter.js";

/**
 * Load the Go grammar (`tree-sitter-go.wasm` from the tree-sitter-go package) through src/lang/tree-sitter.ts, the one
 * place web-tree-sitter is initialised (a second `Parser.init()` resets the wasm runtime under the grammars already
 * loaded). Returns false when the grammar cannot be loaded; never throws.
 */
export function loadGoGrammar(): Promise<boolean> {
  return loadGrammar("go");
}

/** Whether a Go source parses without an error node: true, false, or undefined when the grammar is not loaded. */
export function goParses(source: string): boolean | undefined {
  return withTree("go", source, (tree) => !tree.rootNode.hasError);
}
