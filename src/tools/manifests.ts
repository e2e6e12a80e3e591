/**
 * Dependency manifests and what they declare. Parsing is deliberately shallow (line patterns, JSON.parse for
 * package.json): it names dependencies for a model to orient by, it is not a resolver.
 */

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
        else if (bin && typeof bin === "object") for (const [k, v] of Object.entries(bin)) m.entries.push(`bin ${k}: ${String(v)}`);
        const scripts = pkg.scripts as Record<string, unknown> | undefined;
        if (scripts && typeof scripts.start === "string") m.entries.push(`npm start: ${scripts.start}`);
      } catch {
        // not valid JSON: no sections
      }
      break;
    }
    case "pip":
      add("requirements", lines.map((l) => l.replace(/#.*/, "").trim()).filter((l) => l !== "" && !l.startsWith("-")).map(pipName));
      break;
    case "python":
      parseToml(lines, (section, key, arrayItems) => {
        if (section === "project" && key === "dependencies") add("dependencies", arrayItems.map(pipName));
        else if (section === "project.optional-dependencies") add(`optional ${key}`, arrayItems.map(pipName));
        else if (/^tool\.poetry\.(dev-)?dependencies$|^tool\.poetry\.group\.\w+\.dependencies$/.test(section) && key !== "python") add(section.replace("tool.poetry.", "poetry "), [key]);
        else if (section === "project.scripts" || section === "tool.poetry.scripts") m.entries.push(`script ${key}`);
      });
      mergeSections(m);
      break;
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
    case "cargo":
      parseToml(lines, (section, key) => {
        if (/^(dev-|build-)?dependencies$/.test(section) || /^target\..*\.dependencies$/.test(section)) add(section, [key]);
        else if (section === "workspace.dependencies") add(section, [key]);
      });
      mergeSections(m);
      break;
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
      add("gems", lines.map((l) => /^\s*gem\s+["']([^"']+)["']/.exec(l)?.[1] ?? ""));
      break;
  }
  return m;
}

/** The distribution name of a pip requirement: `requests[socks]>=2 ; python_version<"3"` → `requests`. */
function pipName(req: string): string {
  return /^\s*["']?([A-Za-z0-9][A-Za-z0-9._-]*)/.exec(req)?.[1] ?? "";
}

/** Merge sections of the same name (TOML keys are reported one at a time). */
function mergeSections(m: Manifest): void {
  const merged = new Map<string, string[]>();
  for (const s of m.sections) merged.set(s.name, [...(merged.get(s.name) ?? []), ...s.deps]);
  m.sections = [...merged].map(([name, deps]) => ({ name, deps: [...new Set(deps)] }));
}

/**
 * A shallow TOML walk: calls `visit(section, key, arrayItems)` for each `key = value` line, with the string items
 * of an array value (single- or multi-line). Enough for dependency tables; not a TOML parser.
 */
function parseToml(lines: string[], visit: (section: string, key: string, arrayItems: string[]) => void): void {
  let section = "";
  for (let i = 0; i < lines.length; i++) {
    const t = (lines[i] ?? "").trim();
    const head = /^\[\[?([^\]]+)\]\]?$/.exec(t);
    if (head?.[1]) {
      section = head[1].trim().replace(/["']/g, "");
      continue;
    }
    const kv = /^["']?([A-Za-z0-9_.-]+)["']?\s*=\s*(.*)$/.exec(t);
    if (!kv?.[1]) continue;
    let value = kv[2] ?? "";
    if (value.startsWith("[") && !value.includes("]")) {
      while (i + 1 < lines.length && !value.includes("]")) value += " " + (lines[++i] ?? "").trim();
    }
    const items = value.startsWith("[") ? [...value.matchAll(/"([^"]*)"|'([^']*)'/g)].map((x) => x[1] ?? x[2] ?? "") : [];
    visit(section, kv[1], items);
  }
}
