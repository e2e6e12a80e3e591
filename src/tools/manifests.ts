/**
 * Dependency manifests: what they declare (for a model to orient by, not a resolver) and the repository's own
 * package names (what an installed copy of this repository is called in a stack trace). package.json is read with
 * `JSON.parse`, TOML manifests (pyproject.toml, Cargo.toml) with smol-toml, the others by line patterns.
 */
import { parse as parseTomlText } from "smol-toml";

/** A manifest file and the dependencies it declares, by section (e.g. "dependencies", "devDependencies"). */
export interface Manifest {
  path: string;
  kind: string;
  sections: { name: string; deps: string[] }[];
  /** Entry points the manifest names (package.json main/bin/module, pyproject scripts, go module path). */
  entries: string[];
}

const MANIFEST_NAMES: Record<string, string> = {
  "package.json": "npm",
  "requirements.txt": "pip",
  "pyproject.toml": "python",
  "go.mod": "go",
  "Cargo.toml": "cargo",
  "pom.xml": "maven",
  Gemfile: "bundler",
};

/** The manifest kind of a path by its basename (`npm`, `pip`, `python`, `go`, `cargo`, `maven`, `bundler`), or null. */
export function manifestKind(path: string): string | null {
  const base = path.slice(path.lastIndexOf("/") + 1);
  if (/^requirements[-_.\w]*\.txt$/.test(base)) return "pip";
  return MANIFEST_NAMES[base] ?? null;
}

/** Parse a manifest's dependencies. Never throws: an unparsable file yields no sections. */
export function parseManifest(path: string, content: string): Manifest {
  const kind = manifestKind(path) ?? "unknown";
  const m: Manifest = { path, kind, sections: [], entries: [] };
  const add = (name: string, deps: string[]) => {
    const clean = [...new Set(deps.filter((d) => d !== ""))];
    if (clean.length > 0) m.sections.push({ name, deps: clean });
  };
  const lines = content.split(/\r?\n/);
  switch (kind) {
    case "npm": {
      try {
        const pkg = JSON.parse(content) as Record<string, unknown>;
        for (const s of ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"]) {
          const v = pkg[s];
          if (v && typeof v === "object") add(s, Object.keys(v));
        }
        for (const f of ["main", "module"]) if (typeof pkg[f] === "string") m.entries.push(`${f}: ${pkg[f] as string}`);
        const bin = pkg.bin;
        if (typeof bin === "string") m.entries.push(`bin: ${bin}`);
        else if (bin && typeof bin === "object")
          for (const [k, v] of Object.entries(bin)) m.entries.push(`bin ${k}: ${String(v)}`);
        const scripts = pkg.scripts as Record<string, unknown> | undefined;
        if (scripts && typeof scripts.start === "string") m.entries.push(`npm start: ${scripts.start}`);
      } catch {
        // not valid JSON: no sections
      }
      break;
    }
    case "pip":
      add(
        "requirements",
        lines
          .map((l) => l.replace(/#.*/, "").trim())
          .filter((l) => l !== "" && !l.startsWith("-"))
          .map(pipName),
      );
      break;
    case "python": {
      const doc = tomlDocument(content);
      const project = table(doc.project);
      add("dependencies", strings(project.dependencies).map(pipName));
      for (const [key, items] of Object.entries(table(project["optional-dependencies"])))
        add(`optional ${key}`, strings(items).map(pipName));
      const poetry = table(table(doc.tool).poetry);
      const poetryDeps = (section: string, deps: unknown) =>
        add(
          section,
          Object.keys(table(deps)).filter((k) => k !== "python"),
        );
      poetryDeps("poetry dependencies", poetry.dependencies);
      poetryDeps("poetry dev-dependencies", poetry["dev-dependencies"]);
      for (const [group, body] of Object.entries(table(poetry.group)))
        poetryDeps(`poetry group.${group}.dependencies`, table(body).dependencies);
      for (const key of [...Object.keys(table(project.scripts)), ...Object.keys(table(poetry.scripts))])
        m.entries.push(`script ${key}`);
      break;
    }
    case "go": {
      const deps: string[] = [];
      let inRequire = false;
      for (const l of lines) {
        const t = l.replace(/\/\/.*/, "").trim();
        const mod = /^module\s+(\S+)/.exec(t);
        if (mod?.[1]) m.entries.push(`module ${mod[1]}`);
        if (/^require\s*\($/.test(t)) inRequire = true;
        else if (inRequire && t === ")") inRequire = false;
        else if (inRequire && t !== "") deps.push(t.split(/\s+/)[0] ?? "");
        else {
          const one = /^require\s+(\S+)/.exec(t);
          if (one?.[1]) deps.push(one[1]);
        }
      }
      add("require", deps);
      break;
    }
    case "cargo": {
      const doc = tomlDocument(content);
      for (const section of ["dependencies", "dev-dependencies", "build-dependencies"])
        add(section, Object.keys(table(doc[section])));
      add("workspace.dependencies", Object.keys(table(table(doc.workspace).dependencies)));
      for (const [target, body] of Object.entries(table(doc.target))) {
        for (const section of ["dependencies", "dev-dependencies", "build-dependencies"])
          add(`target.${target}.${section}`, Object.keys(table(table(body)[section])));
      }
      break;
    }
    case "maven": {
      const deps: string[] = [];
      const blocks = content.split("<dependency>").slice(1);
      for (const b of blocks) {
        const body = b.split("</dependency>")[0] ?? "";
        const g = /<groupId>\s*([^<\s]+)\s*<\/groupId>/.exec(body)?.[1];
        const a = /<artifactId>\s*([^<\s]+)\s*<\/artifactId>/.exec(body)?.[1];
        if (a) deps.push(g ? `${g}:${a}` : a);
      }
      add("dependencies", deps);
      break;
    }
    case "bundler":
      add(
        "gems",
        lines.map((l) => /^\s*gem\s+["']([^"']+)["']/.exec(l)?.[1] ?? ""),
      );
      break;
  }
  return m;
}

/** The distribution name of a pip requirement: `requests[socks]>=2 ; python_version<"3"` → `requests`. */
function pipName(req: string): string {
  return /^\s*["']?([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(req)?.[1] ?? "";
}

/** A TOML document as plain objects; an unparsable document is empty (never throws). */
function tomlDocument(content: string): Record<string, unknown> {
  try {
    return parseTomlText(content) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** `v` when it is a TOML table (a plain object), else an empty table. */
function table(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date)
    ? (v as Record<string, unknown>)
    : {};
}

/** The string items of a TOML array, or [] for anything else. */
function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/**
 * One name this repository is published or imported under, and the repository folder its installed copy's root
 * corresponds to. A stack frame under `node_modules/<name>/rest`, `site-packages/<name>/rest`,
 * `pkg/mod/<name>@<version>/rest` or `gems/<name>-<version>/rest` is the repository's file `<root>/rest` (for
 * Python: `<root>/<name>/rest`, the import package folder is part of the path); a Java/Kotlin class or a .NET type
 * whose qualified name starts with `<name>.` is the repository's own code.
 */
export interface OwnPackage {
  /**
   * npm: the package name (`express`, `@scope/pkg`); python: a top-level import package (`flask`); go: the module
   * path (`github.com/spf13/cobra`); gem: the gem name; java: a package prefix (Maven/Gradle group, `com.acme`);
   * dotnet: an assembly name or root namespace (`Acme.Web`).
   */
  name: string;
  kind: "npm" | "python" | "go" | "gem" | "java" | "dotnet";
  /** The repository folder (no trailing `/`, "" for the root) that holds what the installed copy holds. */
  root: string;
  /** The manifest (or, for Python import packages, the `__init__.py`) the name was read from. */
  source: string;
  /**
   * npm only: the package's entry file relative to `root`, as its package.json names it (`exports["."]`, else
   * `main`, else Node's default `index.js`); a leading `./` is dropped. Absent for other kinds.
   */
  entry?: string;
}

/** Folders whose manifests describe tests, fixtures or third-party copies, never the repository's own package. */
const NOT_OWN = new RegExp(
  String.raw`(?:^|\/)(?:node_modules|vendor|third_party|bower_components|test|` +
    String.raw`tests|__tests__|spec|specs|fixtures?|testdata|__fixtures__|e2e|\.git)\/`,
);

/** Folders of samples and docs: their source folders are not the repository's own packages. */
const SAMPLES = /(?:^|\/)(?:examples?|samples?|docs?|benchmarks?|demos?)(?:\/|$)/;
/** Top-level Java package segments shared by unrelated projects (`com.acme` and `com.other`). */
const GENERIC_TOP = new Set(["com", "org", "net", "io", "de", "fr", "uk", "edu", "gov", "info", "me", "dev", "app"]);

/** The folder of a repository path ("" at the root). */
const folderOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/")) : "");
const fileOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);

/**
 * The repository's own package names (see {@link OwnPackage}), read from its manifests: package.json `name` (root
 * and every workspace package), pyproject.toml `[project].name` / `[tool.poetry].name`, setup.cfg `[metadata] name`,
 * setup.py `name=`, plus Python import packages (folders with an `__init__.py` at a manifest's root or under its
 * `src/`), go.mod `module`, Maven `groupId` (the project's, else its parent's), Gradle `group`, the Java/Kotlin
 * package path the files of each `src/main/java/` or `src/main/kotlin/` folder share, a gemspec's name,
 * and a .csproj's `AssemblyName`/`RootNamespace` (else its file name). Manifests under tests, fixtures and vendored
 * folders are ignored. Shallower manifests come first; no duplicates. Never throws.
 *
 * @param paths every repository path
 * @param read the text of a path, or undefined when it is not a text file
 */
export function ownPackages(paths: readonly string[], read: (path: string) => string | undefined): OwnPackage[] {
  const out: OwnPackage[] = [];
  const add = (
    name: string | undefined | null,
    kind: OwnPackage["kind"],
    root: string,
    source: string,
    entry?: string,
  ) => {
    const n = (name ?? "").trim();
    if (n === "" || !/^[@\w][\w@./+-]*$/.test(n)) return;
    if (!out.some((p) => p.name === n && p.kind === kind && p.root === root))
      out.push({ name: n, kind, root, source, ...(entry !== undefined ? { entry } : {}) });
  };
  const candidates = paths
    .filter((p) => !NOT_OWN.test(p))
    .sort((a, b) => a.split("/").length - b.split("/").length || (a < b ? -1 : 1));
  const pythonRoots = new Set<string>();
  for (const path of candidates) {
    const base = fileOf(path);
    const dir = folderOf(path);
    if (
      !new RegExp(
        String.raw`^(?:package\.json|pyproject\.toml|setup\.cfg|setup\.py|go\.mod|` +
          String.raw`pom\.xml|build\.gradle(?:\.kts)?|.+\.gemspec|.+\.csproj)$`,
      ).test(base)
    )
      continue;
    const text = read(path);
    if (text === undefined) continue;
    if (base === "package.json") {
      try {
        const pkg = JSON.parse(text) as { name?: unknown; main?: unknown; exports?: unknown };
        if (typeof pkg.name === "string") add(pkg.name, "npm", dir, path, npmEntry(pkg));
      } catch {
        // not JSON: no name
      }
    } else if (base === "pyproject.toml") {
      const doc = tomlDocument(text);
      const name = table(doc.project).name ?? table(table(doc.tool).poetry).name;
      if (typeof name === "string") add(importName(name), "python", dir, path);
      pythonRoots.add(dir);
    } else if (base === "setup.cfg") {
      const meta = /^\[metadata\][^[]*?^name\s*=\s*(\S+)/m.exec(text);
      add(meta?.[1] ? importName(meta[1]) : null, "python", dir, path);
      pythonRoots.add(dir);
    } else if (base === "setup.py") {
      add(importNameOrNull(/\bname\s*=\s*["']([\w.-]+)["']/.exec(text)?.[1]), "python", dir, path);
      pythonRoots.add(dir);
    } else if (base === "go.mod") {
      add(/^\s*module\s+"?([^\s"]+)"?/m.exec(text)?.[1], "go", dir, path);
    } else if (base === "pom.xml") {
      const project = text
        .replace(/<!--[\s\S]*?-->/g, "")
        .replace(/<(dependencies|dependencyManagement|build|profiles|plugins|reporting)>[\s\S]*?<\/\1>/g, "");
      const parent = /<parent>([\s\S]*?)<\/parent>/.exec(project)?.[1] ?? "";
      const own = project.replace(/<parent>[\s\S]*?<\/parent>/, "");
      add(
        /<groupId>\s*([\w.-]+)\s*<\/groupId>/.exec(own)?.[1] ?? /<groupId>\s*([\w.-]+)\s*<\/groupId>/.exec(parent)?.[1],
        "java",
        dir,
        path,
      );
    } else if (base.startsWith("build.gradle")) {
      add(/^\s*group\s*=?\s*["']([\w.-]+)["']/m.exec(text)?.[1], "java", dir, path);
    } else if (base.endsWith(".gemspec")) {
      add(
        /\.name\s*=\s*["']([\w.-]+)["']|Gem::Specification\.new\s*\(?\s*["']([\w.-]+)["']/
          .exec(text)
          ?.slice(1)
          .find(Boolean),
        "gem",
        dir,
        path,
      );
    } else if (base.endsWith(".csproj")) {
      add(
        /<AssemblyName>\s*([\w.-]+)\s*<\/AssemblyName>/.exec(text)?.[1] ?? base.replace(/\.csproj$/, ""),
        "dotnet",
        dir,
        path,
      );
      add(/<RootNamespace>\s*([\w.-]+)\s*<\/RootNamespace>/.exec(text)?.[1], "dotnet", dir, path);
    }
  }
  // Python import packages: `<root>/<pkg>/__init__.py` or `<root>/src/<pkg>/__init__.py` for each Python project root.
  for (const path of candidates) {
    if (fileOf(path) !== "__init__.py") continue;
    const pkgDir = folderOf(path);
    const holder = folderOf(pkgDir);
    const projectRoot = fileOf(holder) === "src" ? folderOf(holder) : holder;
    if (pythonRoots.has(projectRoot) && /^[A-Za-z_]\w*$/.test(fileOf(pkgDir)))
      add(fileOf(pkgDir), "python", holder, path);
  }
  // Java/Kotlin packages from the source folders: a Gradle `group` or Maven `groupId` (`info.picocli`) need not be
  // the package the classes are in (`picocli`), so each `src/main/java/` or `src/main/kotlin/` folder adds the
  // package path all its files share (`org/jsoup/…` → `org.jsoup`). A single generic top segment (`com`, `org`)
  // says nothing and is left out.
  const javaRoots = new Map<string, string[] | null>();
  for (const path of candidates) {
    const m = /^((?:.*\/)?src\/main\/(?:java|kotlin))\/(.+)\/[^/]+\.(?:java|kt)$/.exec(path);
    if (!m?.[1] || !m[2] || SAMPLES.test(m[1])) continue;
    const segs = m[2].split("/");
    const prev = javaRoots.get(m[1]);
    if (prev === undefined) javaRoots.set(m[1], segs);
    else if (prev !== null) {
      let n = 0;
      while (n < prev.length && n < segs.length && prev[n] === segs[n]) n++;
      javaRoots.set(m[1], n ? prev.slice(0, n) : null);
    }
  }
  for (const [root, segs] of javaRoots) {
    if (!segs || !segs.every((s) => /^[a-z_][\w]*$/.test(s))) continue;
    if (segs.length === 1 && GENERIC_TOP.has(segs[0] as string)) continue;
    add(segs.join("."), "java", root, root);
  }
  // A Python distribution name that is also an import package keeps only the import package's root.
  return out.filter(
    (p) =>
      p.kind !== "python" ||
      p.source.endsWith("__init__.py") ||
      !out.some((q) => q.kind === "python" && q.name === p.name && q !== p),
  );
}

/**
 * The entry file of a package.json, relative to its folder: `exports["."]` (a string, or its `require`/`import`/
 * `default` condition), else `exports` as a string, else `main`, else `index.js` (Node's default); `./` dropped.
 */
function npmEntry(pkg: { main?: unknown; exports?: unknown }): string {
  const pick = (v: unknown): string | null => {
    if (typeof v === "string") return v;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      for (const k of ["require", "import", "default", "node"]) {
        const got = pick(o[k]);
        if (got) return got;
      }
    }
    return null;
  };
  const exp = pkg.exports;
  const dot = exp && typeof exp === "object" && !Array.isArray(exp) ? (exp as Record<string, unknown>)["."] : null;
  const entry = pick(dot) ?? (typeof exp === "string" ? exp : null) ?? (typeof pkg.main === "string" ? pkg.main : null);
  return (entry ?? "index.js").replace(/^\.\//, "") || "index.js";
}

/** The import name a Python distribution is usually imported as: `Flask` → `flask`, `my-lib` → `my_lib`. */
function importName(distribution: string): string {
  return distribution
    .trim()
    .replace(/^["']|["']$/g, "")
    .toLowerCase()
    .replace(/[-.]/g, "_");
}
const importNameOrNull = (d: string | undefined) => (d ? importName(d) : null);
