import { posix } from "node:path";
import type { Finding, Snapshot } from "../../types.js";
import { PYTHON_IMPORT_ALIASES, PYTHON_STDLIB } from "../python-stdlib.js";
import type { RuleContext } from "../types.js";
import { existsAt, importFailure, newDependencyMessage } from "./util.js";

/**
 * A module an import statement names: `level` leading dots (0 = absolute), `module` the dotted rest, `names` for `from
 * … import`.
 */
interface PyImport {
  level: number;
  module: string;
  names: string[];
}

/** The modules one line of Python imports (`import a.b as c, d` / `from .x import y, z`); [] for any other line. */
export function pythonImportsOfLine(line: string): PyImport[] {
  const code = line.replace(/#.*$/, "").trim();
  let m = /^import\s+(.+)$/.exec(code);
  if (m) {
    return m[1]!
      .split(",")
      .map((part) =>
        part
          .trim()
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter((mod) => /^[A-Za-z_][\w.]*$/.test(mod))
      .map((module) => ({ level: 0, module, names: [] }));
  }
  m = /^from\s+(\.*)([\w.]*)\s+import\s+(.+)$/.exec(code);
  if (m && (m[1] || m[2])) {
    const names = m[3]!
      .replace(/[()\\]/g, "")
      .split(",")
      .map((n) =>
        n
          .trim()
          .split(/\s+as\s+/)[0]!
          .trim(),
      )
      .filter((n) => /^[A-Za-z_]\w*$/.test(n));
    return [{ level: m[1]!.length, module: m[2]!, names }];
  }
  return [];
}

/** PEP 503 normalisation with `_`: `Foo.Bar-baz` → `foo_bar_baz`. */
function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.]+/g, "_");
}

/**
 * Distribution names declared by requirements*.txt, pyproject.toml, setup.py, setup.cfg and Pipfile anywhere at head.
 */
function declaredDistributions(head: Snapshot): Set<string> {
  const names = new Set<string>();
  for (const path of head.paths) {
    const base = posix.basename(path);
    const isReq =
      /^requirements.*\.(txt|in)$/i.test(base) || (/(^|\/)requirements\//.test(path) && base.endsWith(".txt"));
    const isMeta = ["pyproject.toml", "setup.py", "setup.cfg", "Pipfile", "environment.yml"].includes(base);
    if (!isReq && !isMeta) continue;
    const text = head.read(path);
    if (text === undefined) continue;
    if (isReq) {
      for (const row of text.split("\n")) {
        const m = /^\s*([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(row.replace(/#.*$/, ""));
        if (m && !row.trim().startsWith("-")) names.add(normalize(m[1]!));
      }
      continue;
    }
    // Quoted requirement strings: "requests>=2", 'pyyaml[extra]~=6', "numpy; python_version>'3'".
    for (const m of text.matchAll(/["']([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;@ (][^"']*)?["']/g))
      names.add(normalize(m[1]!));
    // TOML / Pipfile / setup.cfg keys and list items: `requests = "^2"`, `  requests>=2`, `- numpy`.
    let section = "";
    for (const row of text.split("\n")) {
      const header = /^\s*\[([^\]]+)\]/.exec(row);
      if (header) {
        section = header[1]!.toLowerCase();
        continue;
      }
      if (!/depend|packages|requires|options/.test(section) && base !== "environment.yml") continue;
      const m = /^\s*(?:-\s*)?([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:=|>|<|~|!|\[|$)/.exec(row.replace(/#.*$/, ""));
      if (m) names.add(normalize(m[1]!));
    }
  }
  return names;
}

/**
 * True when a top-level module name is a first-party module or package at head (any source root): a file `top.py`,
 * `top.pyi` or an extension `top.*.so`/`.pyd`, or a folder `top/` that holds a Python file directly (a package, also
 * a namespace package). A folder of that name without Python files in it (`docs/requests/`) is not a package.
 */
function inRepo(head: Snapshot, top: string): boolean {
  return head.paths.some((p) => {
    const parts = p.split("/");
    const file = parts[parts.length - 1]!;
    if (file === `${top}.py` || file === `${top}.pyi` || (file.startsWith(`${top}.`) && /\.(so|pyd)$/.test(file)))
      return true;
    return parts.length >= 2 && parts[parts.length - 2] === top && /\.pyi?$/.test(file);
  });
}

/** Resolve a relative import (`from ..a.b import c`) of the file `path` at head. */
function resolvesRelative(head: Snapshot, path: string, imp: PyImport): boolean {
  let dir = posix.dirname(path);
  for (let k = 1; k < imp.level; k++) dir = posix.dirname(dir);
  if (dir.startsWith("..")) return false;
  const prefix = dir === "." ? "" : `${dir}/`;
  const folderExists = (d: string) => head.paths.some((p) => p.startsWith(d));
  if (imp.module === "") return folderExists(prefix) || prefix === "";
  const target = prefix + imp.module.replace(/\./g, "/");
  return existsAt(head, `${target}.py`) || existsAt(head, `${target}.pyi`) || folderExists(`${target}/`);
}

/**
 * The Python half of rule 6: a new import on an added line of a `.py` file that the base version did not have must be
 * a relative import resolving to a module or package at head, a module of the standard library, a first-party module
 * or package of the repository, or provided by a distribution declared at base (requirements*.txt, pyproject.toml,
 * setup.py/cfg, Pipfile; import names like `yaml` for PyYAML are known). That some other file imports it is not
 * enough (it may be an undeclared, vendored or typo-squatted name). A distribution that only the same change declares
 * fails too: a new dependency is for a human to vet, not for the review to wave through.
 */
export function pythonImportsRule(ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  let declared: Set<string> | undefined;
  let declaredAtBase: Set<string> | undefined;
  for (const { patch, hunks } of ctx.parsed) {
    if (patch.status === "removed" || patch.binary || !/\.pyi?$/.test(patch.path)) continue;
    const baseText = patch.status === "added" ? "" : (ctx.base.read(patch.oldPath ?? patch.path) ?? "");
    const before = new Set(
      baseText
        .split("\n")
        .flatMap(pythonImportsOfLine)
        .map((i) => `${i.level}:${i.module}`),
    );
    for (const hunk of hunks) {
      for (const line of hunk.lines) {
        if (line.kind !== "added") continue;
        for (const imp of pythonImportsOfLine(line.text)) {
          if (before.has(`${imp.level}:${imp.module}`)) continue;
          const at = line.newLine ?? 1;
          const shown = ".".repeat(imp.level) + imp.module;
          const fail = importFailure(findings, patch.path, at);
          if (imp.level > 0) {
            if (!resolvesRelative(ctx.head, patch.path, imp))
              fail(`import "${shown}" resolves to no module or package at head`);
            continue;
          }
          const top = imp.module.split(".")[0]!;
          if (PYTHON_STDLIB.has(top) || inRepo(ctx.head, top)) continue;
          declared ??= declaredDistributions(ctx.head);
          declaredAtBase ??= declaredDistributions(ctx.base);
          const provider = [...declared].find((d) => provides(d, top));
          if (provider !== undefined && declaredAtBase.has(provider)) continue;
          if (provider !== undefined) {
            fail(newDependencyMessage(shown, `the distribution "${provider}"`));
            continue;
          }
          fail(
            `import "${shown}": "${top}" is not in the standard library, the repository, or the declared requirements`,
          );
        }
      }
    }
  }
  return findings;
}

/** True when the (normalised) distribution `dist` provides the top-level module `top`. */
function provides(dist: string, top: string): boolean {
  return (
    dist === normalize(top) ||
    (PYTHON_IMPORT_ALIASES[dist] ?? []).includes(top) ||
    dist.replace(/^python_/, "") === normalize(top)
  );
}
