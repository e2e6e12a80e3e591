/**
 * The one table of file extensions and basenames → language name (as describe_repo shows it: "TypeScript", "Python",
 * "C#"). Callers that care about fewer languages map these names onto their own subset (the review's structure check,
 * the symbol patterns, the heuristic model's code reading) instead of keeping tables of their own.
 */
const BY_EXTENSION = new Map<string, string>(
  Object.entries({
    js: "JavaScript",
    jsx: "JavaScript",
    mjs: "JavaScript",
    cjs: "JavaScript",
    ts: "TypeScript",
    tsx: "TypeScript",
    mts: "TypeScript",
    cts: "TypeScript",
    py: "Python",
    pyi: "Python",
    go: "Go",
    java: "Java",
    kt: "Kotlin",
    kts: "Kotlin",
    scala: "Scala",
    rb: "Ruby",
    rake: "Ruby",
    cr: "Crystal",
    cs: "C#",
    fs: "F#",
    fsi: "F#",
    fsx: "F#",
    ml: "OCaml",
    mli: "OCaml",
    pas: "Pascal",
    dpr: "Pascal",
    lpr: "Pascal",
    nim: "Nim",
    nims: "Nim",
    jl: "Julia",
    c: "C",
    h: "C/C++ header",
    cc: "C++",
    cpp: "C++",
    cxx: "C++",
    hpp: "C++",
    rs: "Rust",
    swift: "Swift",
    m: "Objective-C",
    php: "PHP",
    pl: "Perl",
    lua: "Lua",
    r: "R",
    dart: "Dart",
    ex: "Elixir",
    exs: "Elixir",
    erl: "Erlang",
    hs: "Haskell",
    clj: "Clojure",
    vue: "Vue",
    svelte: "Svelte",
    sh: "Shell",
    bash: "Shell",
    zsh: "Shell",
    ps1: "PowerShell",
    sql: "SQL",
    html: "HTML",
    htm: "HTML",
    css: "CSS",
    scss: "SCSS",
    less: "Less",
    json: "JSON",
    jsonc: "JSON",
    bat: "Batchfile",
    cmd: "Batchfile",
    yaml: "YAML",
    yml: "YAML",
    toml: "TOML",
    xml: "XML",
    md: "Markdown",
    rst: "reStructuredText",
    txt: "Text",
    proto: "Protocol Buffers",
    graphql: "GraphQL",
    tf: "Terraform",
    cmake: "CMake",
    mk: "Makefile",
    mak: "Makefile",
    dockerfile: "Dockerfile",
    containerfile: "Dockerfile",
    env: "Dotenv",
    ini: "INI",
    cfg: "INI",
    properties: "Java Properties",
    bzl: "Starlark",
  }),
);

const BY_BASENAME = new Map<string, string>(
  Object.entries({
    Dockerfile: "Dockerfile",
    Containerfile: "Dockerfile",
    Makefile: "Makefile",
    makefile: "Makefile",
    GNUmakefile: "Makefile",
    Gemfile: "Ruby",
    Rakefile: "Ruby",
    "CMakeLists.txt": "CMake",
    ".gitignore": "Ignore List",
    ".dockerignore": "Ignore List",
    ".npmignore": "Ignore List",
    ".eslintignore": "Ignore List",
    ".prettierignore": "Ignore List",
    ".stylelintignore": "Ignore List",
    ".hgignore": "Ignore List",
    ".gcloudignore": "Ignore List",
    ".helmignore": "Ignore List",
    ".vercelignore": "Ignore List",
    ".gitattributes": "Git Attributes",
    ".editorconfig": "EditorConfig",
    ".env": "Dotenv",
    BUILD: "Starlark",
    "BUILD.bazel": "Starlark",
    WORKSPACE: "Starlark",
    "WORKSPACE.bazel": "Starlark",
    "MODULE.bazel": "Starlark",
  }),
);

/**
 * Basenames of a family whose extension names no language of its own (`Dockerfile.dev`, `Makefile.am`, `.env.local`;
 * `.env.json` stays JSON), or only "text": pip's requirement files (`requirements-dev.txt`, `dev-requirements.in`,
 * `constraints.txt`; `.in` for pip-tools).
 */
const BASENAME_FAMILIES: readonly [RegExp, string][] = [
  [/^(?:Dockerfile|Containerfile)\.[\w.-]+$/, "Dockerfile"],
  [/^(?:GNUm|M|m)akefile\.[\w.-]+$/, "Makefile"],
  [/^\.env\.[\w.-]+$/, "Dotenv"],
  [/^(?:[\w.-]*[-_.])?(?:requirements|constraints)(?:[-_.][\w.-]*)?\.(?:txt|in)$/i, "Pip Requirements"],
];

/** The language of a file extension (without the dot, any case: `"TSX"` → `"TypeScript"`), or undefined. */
export function languageOfExtension(extension: string): string | undefined {
  return BY_EXTENSION.get(extension.toLowerCase());
}

/**
 * The language of a basename that has no telling extension, or undefined: `Dockerfile`, `Gemfile`, `CMakeLists.txt`,
 * `.gitignore` (exact case), and the families of {@link BASENAME_FAMILIES} (`Dockerfile.dev`, `.env.local`,
 * `requirements-dev.txt`).
 */
export function languageOfBasename(basename: string): string | undefined {
  const named = BY_BASENAME.get(basename);
  if (named !== undefined) return named;
  const ext = basename.slice(basename.lastIndexOf(".") + 1);
  const own = languageOfExtension(ext);
  if (own !== undefined && own !== "Text") return undefined;
  for (const [family, language] of BASENAME_FAMILIES) if (family.test(basename)) return language;
  return undefined;
}

/** Interpreters of a shebang line by their name without version digits (`python3.12` → `python`). */
const BY_INTERPRETER = new Map<string, string>(
  Object.entries({
    sh: "Shell",
    bash: "Shell",
    zsh: "Shell",
    ksh: "Shell",
    dash: "Shell",
    ash: "Shell",
    fish: "Shell",
    python: "Python",
    pypy: "Python",
    node: "JavaScript",
    nodejs: "JavaScript",
    bun: "JavaScript",
    deno: "TypeScript",
    "ts-node": "TypeScript",
    tsx: "TypeScript",
    ruby: "Ruby",
    perl: "Perl",
    php: "PHP",
    lua: "Lua",
    luajit: "Lua",
    Rscript: "R",
    elixir: "Elixir",
    pwsh: "PowerShell",
    make: "Makefile",
    crystal: "Crystal",
    runhaskell: "Haskell",
    runghc: "Haskell",
    julia: "Julia",
    ocaml: "OCaml",
  }),
);

/**
 * The language of a file from its first line when that is a shebang (`#!/bin/sh`, `#!/usr/bin/env python3`,
 * `#!/usr/bin/env -S deno run`), for files whose path names none (`bin/deploy`); undefined for any other line or an
 * interpreter not in the table.
 */
export function languageOfShebang(firstLine: string): string | undefined {
  const m = /^#!\s*(\S+)(.*)$/.exec(firstLine.trim());
  if (!m) return undefined;
  let name = (m[1] as string).slice((m[1] as string).lastIndexOf("/") + 1);
  if (name === "env") {
    // `env [-S] [-i] [NAME=value …] program`
    name = (m[2] as string).split(/\s+/).find((w) => w !== "" && !w.startsWith("-") && !w.includes("=")) ?? "";
    name = name.slice(name.lastIndexOf("/") + 1);
  }
  return BY_INTERPRETER.get(name.replace(/[\d.]+$/, ""));
}
