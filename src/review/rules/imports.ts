import { builtinModules } from "node:module";
import { posix } from "node:path";
import type * as TS from "typescript";
import { typescript } from "../../lang/typescript.js";
import type { Finding, Snapshot } from "../../types.js";
import type { RuleContext } from "../types.js";
import { goImportsRule } from "./imports-go.js";
import { pythonImportsRule } from "./imports-python.js";
import { addedLineNumbers, existsAt, importFailure, newDependencyMessage } from "./util.js";

const JS_FILE = /\.(?:[cm]?[jt]sx?)$/i;
const DEP_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"] as const;

/**
 * Module specifiers of a JS/TS source with their 1-based lines: static imports, `export … from`, `import()`,
 * `require()`.
 */
export function jsImports(text: string): { spec: string; line: number }[] {
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
  return typescript()
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => ({ spec: f.fileName, line: lineOf(f.pos) }));
}

/** Every folder of a snapshot ("" is the root), computed once per snapshot. */
const FOLDERS = new WeakMap<Snapshot, Set<string>>();
function folders(snapshot: Snapshot): Set<string> {
  let set = FOLDERS.get(snapshot);
  if (!set) {
    set = new Set([""]);
    const all = [...snapshot.paths, ...snapshot.stats.leftOut.map((l) => l.path)];
    for (const p of all) for (let k = p.indexOf("/"); k !== -1; k = p.indexOf("/", k + 1)) set.add(p.slice(0, k));
    FOLDERS.set(snapshot, set);
  }
  return set;
}

/** `/a/b` (the snapshot mounted at `/`) → `a/b`; undefined outside it or inside a `node_modules` folder. */
function repoPath(file: string): string | undefined {
  if (!file.startsWith("/")) return undefined;
  const p = posix.normalize(file).slice(1).replace(/\/$/, "");
  return p.split("/").includes("node_modules") ? undefined : p;
}

/**
 * TypeScript's module resolution host over a snapshot mounted at `/`: files and folders are the snapshot's (files left
 * out by a cap count as present), `node_modules` never exists (packages are checked against package.json instead).
 */
function resolutionHost(head: Snapshot): TS.ModuleResolutionHost {
  const dirs = folders(head);
  return {
    fileExists: (f) => {
      const p = repoPath(f);
      return p !== undefined && existsAt(head, p) && !dirs.has(p);
    },
    readFile: (f) => {
      const p = repoPath(f);
      return p === undefined ? undefined : head.read(p);
    },
    directoryExists: (d) => {
      const p = repoPath(d);
      return p !== undefined && dirs.has(p);
    },
    getCurrentDirectory: () => "/",
    realpath: (f) => f,
  };
}

/**
 * The compiler options module resolution uses for a file: the `compilerOptions` of the nearest tsconfig.json or
 * jsconfig.json from its folder up (`paths`, `baseUrl`; `extends` is not followed), with `moduleResolution: bundler`
 * (extensionless and `./a.js` → `./a.ts` imports both resolve, as bundlers and NodeNext sources write them), JS and
 * JSON modules allowed.
 */
function resolutionOptions(head: Snapshot, fileDir: string): { options: TS.CompilerOptions; configured: boolean } {
  const ts = typescript();
  const base: TS.CompilerOptions = {
    allowJs: true,
    resolveJsonModule: true,
    allowImportingTsExtensions: true,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
  };
  for (const dir of ancestors(fileDir)) {
    for (const name of ["tsconfig.json", "jsconfig.json"]) {
      const cfg = parseJson(head.read(dir ? `${dir}/${name}` : name));
      const raw = cfg?.compilerOptions;
      if (!raw || typeof raw !== "object") continue;
      const abs = `/${dir}`;
      const { options } = ts.convertCompilerOptionsFromJson(raw, abs);
      const picked: TS.CompilerOptions = { ...base };
      if (options.paths) Object.assign(picked, { paths: options.paths, pathsBasePath: abs });
      if (options.baseUrl) picked.baseUrl = options.baseUrl;
      if (options.rootDirs) picked.rootDirs = options.rootDirs;
      return { options: picked, configured: options.paths !== undefined || options.baseUrl !== undefined };
    }
  }
  return { options: base, configured: false };
}

/** Where TypeScript resolves `spec` from `path` at head: a repository file, or undefined. */
function resolveInRepo(head: Snapshot, path: string, spec: string, options: TS.CompilerOptions): string | undefined {
  const ts = typescript();
  const { resolvedModule } = ts.resolveModuleName(spec, `/${path}`, options, resolutionHost(head));
  return resolvedModule && !resolvedModule.isExternalLibraryImport
    ? repoPath(resolvedModule.resolvedFileName)
    : undefined;
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
 * the file did not import is checked. Relative (`./`, `../`): TypeScript's `resolveModuleName` over the head snapshot
 * (bundler resolution: extensions, `/index.*`, package.json `main`/`exports`, `./a.js` → `./a.ts`) must find a file,
 * or the exact path must be a file (`./style.css`). Bare: Node built-ins (with or without `node:`), `#` subpath
 * imports and tsconfig/jsconfig `paths`/`baseUrl` aliases that resolve to a repository file pass; otherwise the
 * package (scoped names kept whole) must be declared in dependencies, devDependencies, peerDependencies or
 * optionalDependencies of the nearest package.json or one above it (workspaces), or be the package itself — and be
 * declared already at base: a package that the same change adds to package.json fails as a new dependency for a human
 * to vet. Python and Go files are checked by their halves of the rule. Each offence is one `failure` naming the import.
 */
export function importsRule(ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  for (const { patch, hunks } of ctx.parsed) {
    if (patch.status === "removed" || patch.binary || !JS_FILE.test(patch.path)) continue;
    const text = ctx.head.read(patch.path);
    if (text === undefined) continue;
    const addedLines = addedLineNumbers(hunks);
    const baseText = patch.status === "added" ? undefined : ctx.base.read(patch.oldPath ?? patch.path);
    const before = new Set(baseText === undefined ? [] : jsImports(baseText).map((i) => i.spec));
    const fileDir = posix.dirname(patch.path);
    const seen = new Set<string>();
    let resolution: { options: TS.CompilerOptions; configured: boolean } | undefined;
    for (const { spec, line } of jsImports(text)) {
      if (!addedLines.has(line) || before.has(spec) || seen.has(spec)) continue;
      seen.add(spec);
      const fail = importFailure(findings, patch.path, line);
      resolution ??= resolutionOptions(ctx.head, fileDir);
      if (spec.startsWith("./") || spec.startsWith("../") || spec === "." || spec === "..") {
        const target = posix.normalize(posix.join(fileDir, spec)).replace(/\/$/, "");
        if (target.startsWith("../") || target === "..") fail(`import "${spec}" points outside the repository`);
        else if (
          !(existsAt(ctx.head, target) && !folders(ctx.head).has(target)) &&
          !resolveInRepo(ctx.head, patch.path, spec, resolution.options)
        )
          fail(
            `import "${spec}" resolves to no file at head (TypeScript's module resolution from ${patch.path}: no ` +
              `${target} with a .ts/.js/.json extension, /index.* or package.json)`,
          );
        continue;
      }
      if (spec.startsWith("node:") || spec.startsWith("#") || spec.startsWith("/") || /^[a-z][a-z0-9+.-]*:/i.test(spec))
        continue;
      const name = packageName(spec);
      if (BUILTINS.has(spec) || BUILTINS.has(name)) continue;
      if (resolution.configured && resolveInRepo(ctx.head, patch.path, spec, resolution.options)) continue;
      const pkgs = packageJsons(ctx.head, fileDir);
      if (declared(pkgs, name)) {
        if (!declared(packageJsons(ctx.base, fileDir), name)) {
          fail(newDependencyMessage(spec, `package "${name}"`));
        }
        continue;
      }
      fail(
        pkgs[0]
          ? `import "${spec}": package "${name}" is not declared in ${pkgs[0].path} (dependencies, devDependencies, ` +
              `peerDependencies, optionalDependencies)`
          : `import "${spec}": package "${name}" is not declared in any package.json (there is none from ` +
              `${fileDir === "." ? "the root" : fileDir} up)`,
      );
    }
  }
  return findings.concat(pythonImportsRule(ctx), goImportsRule(ctx));
}
