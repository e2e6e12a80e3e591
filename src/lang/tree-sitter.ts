import { createRequire } from "node:module";
import type { Node, Parser as TSParser, Tree } from "web-tree-sitter";

/** The languages groundfix parses with tree-sitter, each with the npm package that ships its wasm grammar. */
export type TreeSitterLanguage = "python" | "go";

const GRAMMAR: Record<TreeSitterLanguage, string> = {
  python: "tree-sitter-python/tree-sitter-python.wasm",
  go: "tree-sitter-go/tree-sitter-go.wasm",
};

let init: Promise<typeof import("web-tree-sitter")> | undefined;

/** web-tree-sitter, imported and initialised once: a second `Parser.init()` would reset the wasm runtime. */
function runtime(): Promise<typeof import("web-tree-sitter")> {
  init ??= import("web-tree-sitter").then(async (mod) => {
    await mod.Parser.init();
    return mod;
  });
  return init;
}

const parsers = new Map<TreeSitterLanguage, TSParser>();
const loading = new Map<TreeSitterLanguage, Promise<boolean>>();

/**
 * Load the tree-sitter grammar of `language` once per process: `web-tree-sitter` itself is imported only here, on
 * the first call (a run that never meets a Python or Go file never loads it), then the `.wasm` grammar the
 * tree-sitter-python / tree-sitter-go npm package ships. Safe to call many times and concurrently.
 *
 * @returns true when {@link treeSitterParser} can parse `language`; false when the grammar could not be loaded
 *   (never throws).
 */
export function loadGrammar(language: TreeSitterLanguage): Promise<boolean> {
  let p = loading.get(language);
  if (!p) {
    p = (async () => {
      try {
        const { Parser, Language } = await runtime();
        const grammar = await Language.load(createRequire(import.meta.url).resolve(GRAMMAR[language]));
        const parser = new Parser();
        parser.setLanguage(grammar);
        parsers.set(language, parser);
        return true;
      } catch {
        return false;
      }
    })();
    loading.set(language, p);
  }
  return p;
}

/** Load every grammar of {@link TreeSitterLanguage}; true when all loaded. */
export async function loadGrammars(): Promise<boolean> {
  const all = await Promise.all((Object.keys(GRAMMAR) as TreeSitterLanguage[]).map(loadGrammar));
  return all.every(Boolean);
}

/** The parser of `language` once {@link loadGrammar} has loaded it, else undefined. Synchronous. */
export function treeSitterParser(language: TreeSitterLanguage): TSParser | undefined {
  return parsers.get(language);
}

/**
 * Parse `source` with the loaded grammar of `language` and hand the tree to `use`, deleting the tree afterwards
 * (tree-sitter trees live in wasm memory). `undefined` when the grammar is not loaded or the parse gave up.
 */
export function withTree<T>(language: TreeSitterLanguage, source: string, use: (tree: Tree) => T): T | undefined {
  const parser = parsers.get(language);
  const tree = parser?.parse(source);
  if (!tree) return undefined;
  try {
    return use(tree);
  } finally {
    tree.delete();
  }
}

/** The first error or missing node under `root` (depth first), or null when the tree has none. */
export function firstErrorNode(root: Node): Node | null {
  if (!root.hasError) return null;
  let node = root;
  for (;;) {
    if (node.isError || node.isMissing) return node;
    const next = node.children.find((c) => c !== null && (c.isError || c.isMissing || c.hasError));
    if (!next) return node;
    node = next;
  }
}
