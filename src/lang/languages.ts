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
  }),
);

const BY_BASENAME = new Map<string, string>(
  Object.entries({ Dockerfile: "Dockerfile", Makefile: "Makefile", Gemfile: "Ruby", Rakefile: "Ruby" }),
);

/** The language of a file extension (without the dot, any case: `"TSX"` → `"TypeScript"`), or undefined. */
export function languageOfExtension(extension: string): string | undefined {
  return BY_EXTENSION.get(extension.toLowerCase());
}

/** The language of a basename that has no telling extension (`Dockerfile`, `Gemfile`; exact case), or undefined. */
export function languageOfBasename(basename: string): string | undefined {
  return BY_BASENAME.get(basename);
}
