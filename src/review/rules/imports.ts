import { builtinModules } from "node:module";
import { posix } from "node:path";
import { typescript } from "../../lang/typescript.js";
import type { Finding, Snapshot } from "../../types.js";
import type { RuleContext } from "../types.js";
import { pythonImportsRule } from "./imports-python.js";
import { existsAt } from "./util.js";

const JS_FILE = /\.(?:[cm]?[jt]sx?)$/i;
const EXTENSIONS = [".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts", ".json"];
/** NodeNext: an import written with the output extension resolves to the source file (`./a.js` → `./a.ts`). */
const OUTPUT_TO_SOURCE: Record<string, string[]> = { ".js": [".ts", ".tsx"], ".jsx": [".tsx"], ".mjs": [".mts"], ".cjs": [".cts"] };
const DEP_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const;

/** Module specifiers of a JS/TS source with their 1-based lines: static imports, `export … from`, `import()`, `require()`. */
export function jsImports(path: string, text: string): { spec: string; line: number }[] {
  const starts: number[] = [0];
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) === 10) starts.push(k + 1);
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
  return typescript().preProcessFile(text, true, true).importedFiles.map((f) => ({ spec: f.fileName, line: lineOf(f.pos) }));
}

function isDirectory(snapshot: Snapshot, dir: string): boolean {
  const prefix = `${dir}/`;
  return snapshot.paths.some((p) => p.startsWith(prefix));
}

/** Resolve a repository-relative module path the way TypeScript/Node would find a file for it; true when one exists. */
function resolvesToFile(head: Snapshot, target: string): boolean {
  if (existsAt(head, target) && !isDirectory(head, target)) return true;
  const ext = posix.extname(target);
  for (const source of OUTPUT_TO_SOURCE[ext] ?? []) if (existsAt(head, target.slice(0, -ext.length) + source)) return true;
  for (const e of EXTENSIONS) if (existsAt(head, target + e) || existsAt(head, `${target}/index${e}`)) return true;
  return existsAt(head, `${target}/package.json`);
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
export function packageName(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? spec);
}

function parseJson(text: string | undefined): Record<string, unknown> | undefined {
  if (text === undefined) return undefined;
  try {
    const v: unknown = JSON.parse(text.replace(/^\uFEFF/, ""));
    return v && typeof v === "object" ? (v as Record<string, unknown>) : undefined;
  } catch {
    const parsed = typescript().parseConfigFileTextToJson("x.json", text);
    return parsed.config && typeof parsed.config === "object" ? (parsed.config as Record<string, unknown>) : undefined;
  }
}

/** Folders from `dir` up to the repository root ("" is the root). */
function ancestors(dir: string): string[] {
  const out: string[] = [];
  let d = dir === "." ? "" : dir;
  for (;;) {
    out.push(d);
    if (d === "") return out;
    const up = posix.dirname(d);
    d = up === "." ? "" : up;
  }
}

/** True when a tsconfig/jsconfig from the file's folder up maps `spec` through `paths` or `baseUrl`. */
function aliased(head: Snapshot, fileDir: string, spec: string): boolean {
  for (const dir of ancestors(fileDir)) {
    for (const name of ["tsconfig.json", "jsconfig.json"]) {
      const cfg = parseJson(head.read(dir ? `${dir}/${name}` : name));
      const opts = cfg?.compilerOptions as { paths?: Record<string, unknown>; baseUrl?: string } | undefined;
      if (!opts) continue;
      for (const key of Object.keys(opts.paths ?? {})) {
        const star = key.indexOf("*");
        if (star < 0 ? spec === key : spec.startsWith(key.slice(0, star)) && spec.endsWith(key.slice(star + 1))) return true;
      }
      if (typeof opts.baseUrl === "string" && resolvesToFile(head, posix.normalize(posix.join(dir, opts.baseUrl, spec)))) return true;
    }
  }
  return false;
}

/** The package.json files from the file's folder up; the nearest first. */
function packageJsons(head: Snapshot, fileDir: string): { path: string; json: Record<string, unknown> }[] {
  const out: { path: string; json: Record<string, unknown> }[] = [];
  for (const dir of ancestors(fileDir)) {
    const path = dir ? `${dir}/package.json` : "package.json";
    const json = parseJson(head.read(path));
    if (json) out.push({ path, json });
  }
  return out;
}

function declared(pkgs: { json: Record<string, unknown> }[], name: string): boolean {
  const typesName = `@types/${name.startsWith("@") ? name.slice(1).replace("/", "__") : name}`;
  return pkgs.some(({ json }) => {
    if (json.name === name) return true;
    return DEP_FIELDS.some((field) => {
      const deps = json[field];
      return deps !== null && typeof deps === "object" && (Object.hasOwn(deps, name) || Object.hasOwn(deps, typesName));
    });
  });
}

const BUILTINS = new Set(builtinModules);

/**
 * Rule 6, fabricated imports. For JS/TS files: a module specifier on an added line that the base version of
 * the file did not import is checked. Relative (`./`, `../`): it must resolve to a file at head (exact, with
 * .ts .tsx .d.ts .js .jsx .mjs .cjs .mts .cts .json, `/index.*`, a folder with package.json, or NodeNext's `.js`→`.ts`).
 * Bare: Node built-ins (with or without `node:`), tsconfig `paths`/`baseUrl` aliases and `#` subpath imports pass;
 * otherwise the package (scoped names kept whole) must be declared in dependencies, devDependencies, peerDependencies
 * or optionalDependencies of the nearest package.json or one above it (workspaces), or be the package itself.
 * Python files are checked by the Python half of the rule. Each offence is one `failure` naming the import.
 */
export function importsRule(ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  for (const { patch, hunks } of ctx.parsed) {
    if (patch.status === "removed" || patch.binary || !JS_FILE.test(patch.path)) continue;
    const text = ctx.head.read(patch.path);
    if (text === undefined) continue;
    const addedLines = new Set<number>();
    for (const h of hunks) for (const l of h.lines) if (l.kind === "added" && l.newLine !== undefined) addedLines.add(l.newLine);
    const baseText = patch.status === "added" ? undefined : ctx.base.read(patch.oldPath ?? patch.path);
    const before = new Set(baseText === undefined ? [] : jsImports(patch.path, baseText).map((i) => i.spec));
    const fileDir = posix.dirname(patch.path);
    const seen = new Set<string>();
    for (const { spec, line } of jsImports(patch.path, text)) {
      if (!addedLines.has(line) || before.has(spec) || seen.has(spec)) continue;
      seen.add(spec);
      const fail = (message: string) =>
        findings.push({ rule: "imports", path: patch.path, start_line: line, end_line: line, level: "failure", message });
      if (spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === "..") {
        const target = posix.normalize(posix.join(fileDir, spec));
        if (target.startsWith("../") || target === "..") fail(`import "${spec}" points outside the repository`);
        else if (!resolvesToFile(ctx.head, target.replace(/\/$/, "")))
          fail(`import "${spec}" resolves to no file at head (looked for ${target} with .ts/.js/.json extensions and /index.*)`);
        continue;
      }
      if (spec.startsWith("node:") || spec.startsWith("#") || spec.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(spec)) continue;
      const name = packageName(spec);
      if (BUILTINS.has(spec) || BUILTINS.has(name)) continue;
      if (aliased(ctx.head, fileDir, spec)) continue;
      const pkgs = packageJsons(ctx.head, fileDir);
      if (declared(pkgs, name)) continue;
      fail(
        pkgs[0]
          ? `import "${spec}": package "${name}" is not declared in ${pkgs[0].path} (dependencies, devDependencies, peerDependencies, optionalDependencies)`
          : `import "${spec}": package "${name}" is not declared in any package.json (there is none from ${fileDir === "." ? "the root" : fileDir} up)`,
      );
    }
  }
  return findings.concat(pythonImportsRule(ctx));
}
