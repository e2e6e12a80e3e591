import { createRequire } from "node:module";
import { Language, Parser } from "web-tree-sitter";

let parser: Parser | null = null;
let loading: Promise<boolean> | null = null;

/**
 * Load the Python grammar (web-tree-sitter with the `tree-sitter-python.wasm` that the tree-sitter-python npm package
 * ships) once per process, for the syntax rule. Safe to call many times and concurrently.
 *
 * @returns true when Python files can be syntax-checked; false when the grammar could not be loaded (never throws).
 */
export function loadPythonGrammar(): Promise<boolean> {
  loading ??= (async () => {
    try {
      const require = createRequire(import.meta.url);
      await Parser.init();
      const language = await Language.load(require.resolve("tree-sitter-python/tree-sitter-python.wasm"));
      const p = new Parser();
      p.setLanguage(language);
      parser = p;
      return true;
    } catch {
      return false;
    }
  })();
  return loading;
}

/**
 * The first syntax error of a Python source, or null when it parses; `undefined` when the grammar is not loaded
 * (call {@link loadPythonGrammar} first). Lines are 1-based.
 */
export function pythonSyntaxError(source: string): { line: number; message: string } | null | undefined {
  if (!parser) return undefined;
  const tree = parser.parse(source);
  if (!tree) return undefined;
  try {
    const root = tree.rootNode;
    if (!root.hasError) return null;
    let node = root;
    for (;;) {
      if (node.isError || node.isMissing) break;
      const next = node.children.find((c) => c !== null && (c.isError || c.isMissing || c.hasError));
      if (!next) break;
      node = next;
    }
    const line = node.startPosition.row + 1;
    const message = node.isMissing ? `missing ${node.type}` : `unexpected ${JSON.stringify(node.text.split("\n")[0]?.slice(0, 40) ?? "")}`;
    return { line, message };
  } finally {
    tree.delete();
  }
}
