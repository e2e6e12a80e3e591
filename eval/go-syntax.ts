import { loadGrammar } from "../src/lang/tree-sitter.js";

/**
 * Load the Go grammar (`tree-sitter-go.wasm` from the tree-sitter-go package), which the review's syntax rule uses for
 * `.go` files, through src/lang/tree-sitter.ts, the one place web-tree-sitter is initialised (a second
 * `Parser.init()` resets the wasm runtime under the grammars already loaded). Returns false when the grammar cannot
 * be loaded; never throws.
 */
export function loadGoGrammar(): Promise<boolean> {
  return loadGrammar("go");
}
