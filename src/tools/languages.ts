/** File extensions (lower case, no dot) → language name, for describe_repo's counts. */
const BY_EXT: Record<string, string> = {
  js: "JavaScript", jsx: "JavaScript", mjs: "JavaScript", cjs: "JavaScript",
  ts: "TypeScript", tsx: "TypeScript", mts: "TypeScript", cts: "TypeScript",
  py: "Python", pyi: "Python", go: "Go", java: "Java", kt: "Kotlin", kts: "Kotlin", scala: "Scala",
  rb: "Ruby", rake: "Ruby", cs: "C#", fs: "F#", c: "C", h: "C/C++ header", cc: "C++", cpp: "C++", cxx: "C++", hpp: "C++",
  rs: "Rust", swift: "Swift", m: "Objective-C", php: "PHP", pl: "Perl", lua: "Lua", r: "R", dart: "Dart",
  ex: "Elixir", exs: "Elixir", erl: "Erlang", hs: "Haskell", clj: "Clojure", vue: "Vue", svelte: "Svelte",
  sh: "Shell", bash: "Shell", zsh: "Shell", ps1: "PowerShell", sql: "SQL",
  html: "HTML", htm: "HTML", css: "CSS", scss: "SCSS", less: "Less",
  json: "JSON", yaml: "YAML", yml: "YAML", toml: "TOML", xml: "XML", md: "Markdown", rst: "reStructuredText",
  txt: "Text", proto: "Protocol Buffers", graphql: "GraphQL", tf: "Terraform",
};

const BY_NAME: Record<string, string> = { Dockerfile: "Dockerfile", Makefile: "Makefile", Gemfile: "Ruby", Rakefile: "Ruby" };

/** The language of a path by its basename/extension, or "Other". */
export function languageOf(path: string): string {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const named = BY_NAME[base];
  if (named !== undefined) return named;
  const dot = base.lastIndexOf(".");
  if (dot <= 0) return "Other";
  return BY_EXT[base.slice(dot + 1).toLowerCase()] ?? "Other";
}

/** Basenames that usually start a program; describe_repo lists the paths that have them. */
export function isLikelyEntryPoint(path: string): boolean {
  const base = path.slice(path.lastIndexOf("/") + 1);
  const depth = path.split("/").length - 1;
  if (/^(__main__|manage|wsgi|asgi)\.py$/.test(base)) return true;
  if (/^main\.(go|rs|py|java|kt|c|cpp|ts|js)$/.test(base)) return depth <= 3;
  if (/^(index|app|server|cli|main)\.(js|mjs|cjs|ts|tsx|jsx)$/.test(base)) return depth <= 2;
  if (/^(app|application|server|run|cli)\.(py|rb)$/.test(base) || base === "config.ru") return depth <= 2;
  if (/^Program\.cs$|Application\.java$/.test(base)) return true;
  return false;
}
