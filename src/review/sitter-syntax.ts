import { firstErrorNode, loadGrammar, withTree, type TreeSitterLanguage } from "../lang/tree-sitter.js";

/**
 * Load the Python grammar (web-tree-sitter with the `tree-sitter-python.wasm` of the tree-sitter-python package) for
 * the syntax rule; `loadGrammar` of src/lang/tree-sitter.ts does the same for any language. Never throws.
 *
 * @returns true when Python files can be syntax-checked.
 */
export function loadPythonGrammar(): Promise<boolean> {
  return loadGrammar("python");
}

/**
 * The first syntax error of a Python or Go source, or null when it parses; `undefined` when the grammar is not loaded
 * (call `loadGrammar` first). Lines are 1-based.
 */
export function sitterSyntaxError(
  language: TreeSitterLanguage,
  source: string,
): { line: number; message: string } | null | undefined {
  return withTree(language, source, (tree) => {
    const node = firstErrorNode(tree.rootNode);
    if (!node) return null;
    const line = node.startPosition.row + 1;
    const message = node.isMissing
      ? `missing ${node.type}`
      : `unexpected ${JSON.stringify(node.text.split("\n")[0]?.slice(0, 40) ?? "")}`;
    return { line, message };
  });
}
