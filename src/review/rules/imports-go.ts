import { posix } from "node:path";
import { withTree } from "../../lang/tree-sitter.js";
import type { Finding, Snapshot } from "../../types.js";
import type { RuleContext } from "../types.js";
import { addedLineNumbers, importFailure, newDependencyMessage } from "./util.js";

/**
 * The import paths of a Go source with their 1-based lines (tree-sitter-go); undefined when the grammar is not loaded.
 */
export function goImports(source: string): { path: string; line: number }[] | undefined {
  return withTree("go", source, (tree) => {
    const out: { path: string; line: number }[] = [];
    for (const decl of tree.rootNode.namedChildren) {
      if (decl?.type !== "import_declaration") continue;
      const specs = decl.descendantsOfType("import_spec");
      for (const spec of specs) {
        const lit = spec?.childForFieldName("path");
        if (!lit) continue;
        out.push({ path: lit.text.slice(1, -1), line: lit.startPosition.row + 1 });
      }
    }
    return out;
  });
}

/** What a go.mod declares: its `module` path and the module paths of its `require` directives. */
export interface GoMod {
  dir: string;
  module: string | undefined;
  requires: Set<string>;
}

/** Parse the `module` and `require` directives of a go.mod (single-line and block forms; `// indirect` kept). */
export function parseGoMod(dir: string, text: string): GoMod {
  const requires = new Set<string>();
  let module: string | undefined;
  let inRequire = false;
  for (const raw of text.split("\n")) {
    const row = raw.replace(/\/\/.*$/, "").trim();
    if (inRequire) {
      if (row === ")") inRequire = false;
      else if (row) requires.add(row.split(/\s+/)[0]!.replace(/^"|"$/g, ""));
      continue;
    }
    let m = /^module\s+"?([^\s"]+)"?$/.exec(row);
    if (m) module = m[1];
    else if (/^require\s*\($/.test(row)) inRequire = true;
    else if ((m = /^require\s+"?([^\s"]+)"?\s+\S+$/.exec(row))) requires.add(m[1]!);
  }
  return { dir, module, requires };
}

/** The nearest go.mod from `fileDir` up, parsed; undefined when there is none. */
function nearestGoMod(snapshot: Snapshot, fileDir: string): GoMod | undefined {
  let dir = fileDir === "." ? "" : fileDir;
  for (;;) {
    const text = snapshot.read(dir ? `${dir}/go.mod` : "go.mod");
    if (text !== undefined) return parseGoMod(dir, text);
    if (dir === "") return undefined;
    const up = posix.dirname(dir);
    dir = up === "." ? "" : up;
  }
}

/** True when folder `dir` of the snapshot holds a .go file directly (a Go package). */
function isPackage(snapshot: Snapshot, dir: string): boolean {
  const prefix = dir ? `${dir}/` : "";
  return snapshot.paths.some((p) => p.startsWith(prefix) && p.endsWith(".go") && !p.slice(prefix.length).includes("/"));
}

/** The longest required module path that `spec` lies in (`github.com/a/b/c` in `github.com/a/b`). */
function requiredModule(mod: GoMod | undefined, spec: string): string | undefined {
  let best: string | undefined;
  for (const r of mod?.requires ?? [])
    if ((spec === r || spec.startsWith(`${r}/`)) && (!best || r.length > best.length)) best = r;
  return best;
}

/**
 * The Go half of rule 6: an import path on an added line of a `.go` file that the base version did not import must
 * be a standard library package (no dot in its first element, as the go command decides), `C` (cgo), a package of
 * this module (under the nearest go.mod's `module` path, a folder with a .go file at head), a vendored package
 * (`vendor/<path>`), or lie in a module the go.mod `require`s already at base. A module that only the same change
 * requires fails as a new dependency for a human to vet. A `notice` says when the Go grammar is not loaded.
 */
export function goImportsRule(ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  let unchecked: string | undefined;
  for (const { patch, hunks } of ctx.parsed) {
    if (patch.status === "removed" || patch.binary || !/\.go$/i.test(patch.path)) continue;
    const text = ctx.head.read(patch.path);
    if (text === undefined) continue;
    const imports = goImports(text);
    if (imports === undefined) {
      unchecked ??= patch.path;
      continue;
    }
    const added = addedLineNumbers(hunks);
    const baseText = patch.status === "added" ? undefined : ctx.base.read(patch.oldPath ?? patch.path);
    const before = new Set((baseText === undefined ? [] : (goImports(baseText) ?? [])).map((i) => i.path));
    const fileDir = posix.dirname(patch.path);
    const mod = nearestGoMod(ctx.head, fileDir);
    for (const { path: spec, line } of imports) {
      if (!added.has(line) || before.has(spec)) continue;
      const fail = importFailure(findings, patch.path, line);
      const first = spec.split("/")[0]!;
      if (spec === "C" || (!first.includes(".") && spec !== "")) continue;
      if (mod?.module && (spec === mod.module || spec.startsWith(`${mod.module}/`))) {
        const dir = posix.join(mod.dir, spec.slice(mod.module.length + 1)).replace(/^\.$/, "");
        if (!isPackage(ctx.head, dir))
          fail(
            `import "${spec}" is in this module (${mod.module}) but ${dir || "the module root"} holds no .go file at ` +
              `head`,
          );
        continue;
      }
      if (isPackage(ctx.head, posix.join(mod?.dir ?? "", "vendor", spec))) continue;
      const required = requiredModule(mod, spec);
      if (required === undefined) {
        fail(
          `import "${spec}": no module in ${mod ? posix.join(mod.dir, "go.mod") : "any go.mod"} provides it (not the ` +
            `standard library, this module or a require)`,
        );
      } else if (!requiredModule(nearestGoMod(ctx.base, fileDir), spec)) {
        fail(newDependencyMessage(spec, `the module "${required}"`, "required"));
      }
    }
  }
  if (unchecked !== undefined) {
    findings.push({
      rule: "imports",
      path: unchecked,
      start_line: 1,
      end_line: 1,
      level: "notice",
      message: "the imports of .go files were not checked: the Go grammar is not loaded",
    });
  }
  return findings;
}
