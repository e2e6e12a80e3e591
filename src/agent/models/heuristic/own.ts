/**
 * Stack frames from an installed copy of this repository, mapped back to the repository's own files.
 *
 * A report's trace often comes from where the package was installed, not from a checkout:
 * `/usr/lib/node_modules/express/lib/response.js`, `…/.venv/lib/python3.12/site-packages/flask/app.py`,
 * `~/go/pkg/mod/github.com/spf13/cobra@v1.10.1/command.go`, `…/gems/rack-3.0.8/lib/rack/utils.rb`. When the
 * installed package is one of the repository's own (its names come from its manifests, see
 * src/tools/manifests.ts `ownPackages`), the frame is the repository's file at the rest of the path; any other
 * installed package stays third-party. Published packages often hold build output (`dist/`, `lib/`, …): when the
 * mapped path is not a file, {@link sourceCandidates} names where its source would be.
 */
import type { OwnPackage } from "../../../tools/manifests.js";
import { cleanFramePath, pathSegments, type StackFrame } from "./frames.js";

/** A frame mapped to this repository: the repository path the installed copy's file corresponds to. */
export interface OwnMapping {
  /** Repository path of the same file (it may not exist: build output, another version). */
  path: string;
  pkg: OwnPackage;
}

const join = (root: string, rest: readonly string[]) => [...(root === "" ? [] : [root]), ...rest].join("/");

/** Go module cache paths escape upper-case letters as `!` + lower case (`github.com/!azure/x` is `Azure`). */
const unescapeModule = (s: string) => s.replace(/!([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * The repository file an installed-copy frame points at, or null when the frame is not under one of `own`'s
 * install locations: `node_modules/<name>/` (also `@scope/<name>`, the innermost `node_modules` of pnpm's
 * `.pnpm/<name>@<v>/node_modules/<name>/`, global installs), `site-packages/<module>/` or `dist-packages/`,
 * `pkg/mod/<module path>@<version>/` or `vendor/<module path>/`, `gems/<name>-<version>/`. Paths may be
 * `file://` URLs or Windows paths.
 */
export function mapInstalledFrame(frame: StackFrame, own: readonly OwnPackage[]): OwnMapping | null {
  const segs = pathSegments(cleanFramePath(frame.rawPath));
  const of = (kind: OwnPackage["kind"], name: string) => own.find((p) => p.kind === kind && p.name === name) ?? null;
  const nm = segs.lastIndexOf("node_modules");
  if (nm >= 0) {
    const scoped = segs[nm + 1]?.startsWith("@") ?? false;
    const name = scoped ? `${segs[nm + 1]}/${segs[nm + 2] ?? ""}` : (segs[nm + 1] ?? "");
    const pkg = of("npm", name);
    const rest = segs.slice(nm + (scoped ? 3 : 2));
    return pkg && rest.length ? { path: join(pkg.root, rest), pkg } : null;
  }
  const sp = Math.max(segs.lastIndexOf("site-packages"), segs.lastIndexOf("dist-packages"));
  if (sp >= 0) {
    const module = (segs[sp + 1] ?? "").replace(/\.py$/, "");
    const pkg = of("python", module);
    const rest = segs.slice(sp + 1);
    return pkg && rest.length ? { path: join(pkg.root, rest), pkg } : null;
  }
  const mod = segs.findIndex((s, i) => s === "pkg" && segs[i + 1] === "mod");
  if (mod >= 0) {
    const at = segs.findIndex((s, i) => i > mod + 1 && s.includes("@"));
    if (at < 0) return null;
    const modulePath = unescapeModule([...segs.slice(mod + 2, at), (segs[at] ?? "").split("@")[0]].join("/"));
    const pkg = of("go", modulePath);
    const rest = segs.slice(at + 1);
    return pkg && rest.length ? { path: join(pkg.root, rest), pkg } : null;
  }
  const vendor = segs.lastIndexOf("vendor");
  if (vendor >= 0 && frame.language === "go") {
    for (const pkg of own.filter((p) => p.kind === "go")) {
      const parts = pkg.name.split("/");
      if (parts.every((p, i) => segs[vendor + 1 + i] === p))
        return { path: join(pkg.root, segs.slice(vendor + 1 + parts.length)), pkg };
    }
    return null;
  }
  // `gems/<name>-<version>/…`, or a path that starts at the gem's folder (error trackers print gem frames so)
  const gems = segs.lastIndexOf("gems");
  const at = gems >= 0 ? gems + 1 : 0;
  const dir = segs[at] ?? "";
  const pkg =
    own.find(
      (p) => p.kind === "gem" && new RegExp(`^${p.name.replace(/[.]/g, "\\.")}-(?:\\d|[0-9a-f]{7,}$)`).test(dir),
    ) ?? null;
  const rest = segs.slice(at + 1);
  return pkg && rest.length ? { path: join(pkg.root, rest), pkg } : null;
}

/**
 * Whether a frame's printed function label places it in this repository's code: a Go package path under an own
 * module, a Java/Kotlin class under an own package prefix, a .NET type under an own namespace. True/false when the
 * repository declares names of that language, null when it does not (nothing to compare with) or the frame's
 * language prints no qualified label.
 */
export function ownByLabel(frame: StackFrame, own: readonly OwnPackage[]): boolean | null {
  const label = frame.label;
  if (!label) return null;
  const under = (name: string, sep: string) => label === name || label.startsWith(`${name}${sep}`);
  if (frame.language === "go") {
    const mods = own.filter((p) => p.kind === "go");
    if (!mods.length || /^main\./.test(label)) return null;
    return mods.some((p) => under(p.name, ".") || under(p.name, "/"));
  }
  if (frame.language === "java") {
    const pkgs = own.filter((p) => p.kind === "java");
    return pkgs.length ? pkgs.some((p) => under(p.name, ".")) : null;
  }
  if (frame.language === "csharp") {
    const names = own.filter((p) => p.kind === "dotnet");
    return names.length ? names.some((p) => under(p.name, ".")) : null;
  }
  return null;
}

/**
 * For a Go frame whose label names an own package (`github.com/spf13/cobra/doc.GenMarkdown` under module
 * `github.com/spf13/cobra`), the repository path of its file: the package's folder plus the frame's file name.
 * Null for other frames.
 */
export function goPackageFile(frame: StackFrame, own: readonly OwnPackage[]): OwnMapping | null {
  if (frame.language !== "go" || !frame.label) return null;
  const pkgPath = goPackagePath(frame.label);
  const file = pathSegments(cleanFramePath(frame.rawPath)).pop();
  if (!pkgPath || !file) return null;
  for (const pkg of own.filter((p) => p.kind === "go")) {
    if (pkgPath !== pkg.name && !pkgPath.startsWith(`${pkg.name}/`)) continue;
    const sub = pkgPath.slice(pkg.name.length).split("/").filter(Boolean);
    return { path: join(pkg.root, [...sub, file]), pkg };
  }
  return null;
}

/** The package path of a Go function label: `github.com/a/b.(*T).m` → `github.com/a/b`; `main.main` → `main`. */
export function goPackagePath(label: string): string | null {
  const slash = label.lastIndexOf("/");
  const dot = label.indexOf(".", slash + 1);
  return dot > 0 ? label.slice(0, dot) : null;
}

const BUILD_DIRS = new Set(["dist", "lib", "build", "out", "cjs", "esm"]);
const COMPILED_EXT = /\.(?:js|mjs|cjs)$/;

/**
 * Where the source of a mapped file may be, best first, after the mapped path itself: the path without the first
 * build folder after the package root (`dist/`, `lib/`, `build/`, `out/`, `cjs/`, `esm/`), each also under the
 * package's `src/` (the published root may itself be the build output), each with `.ts`/`.tsx`/`.mts` for
 * `.js`/`.mjs`/`.cjs`. Paths are repository-relative; `root` is the package's folder ("" at the repository root).
 */
export function sourceCandidates(mapped: string, root: string): string[] {
  const rel = root === "" ? mapped : mapped.slice(root.length + 1);
  const segs = rel.split("/");
  const at = segs.findIndex((s, i) => i < segs.length - 1 && BUILD_DIRS.has(s));
  const stripped = at >= 0 ? [...segs.slice(0, at), ...segs.slice(at + 1)] : segs;
  const bases = [segs, stripped, ["src", ...stripped], ...(at >= 0 ? [["src", ...segs]] : [])];
  const out: string[] = [];
  for (const b of bases) {
    const p = join(root, b);
    const variants = COMPILED_EXT.test(p)
      ? [p, ...["ts", "tsx", "mts"].map((e) => p.replace(COMPILED_EXT, `.${e}`))]
      : [p];
    for (const v of variants) if (!out.includes(v)) out.push(v);
  }
  return out;
}
