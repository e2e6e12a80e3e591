/**
 * Stack frames in problem text (issue bodies, alert messages), for the heuristic model.
 *
 * Each supported runtime prints frames in its own shape; this module turns them into {@link StackFrame}s ordered
 * innermost first, and turns the paths they carry (container paths, CI checkouts, bundler URLs, Windows paths) into
 * repository-relative guesses. Resolution to a real file happens later, through the read tools (see `resolveFrame` in
 * `plan.ts`).
 *
 * Shapes recognised (one frame per line unless said otherwise):
 * - JavaScript / TypeScript (V8): `at fn (path:line:col)`, `at path:line:col`, `at async fn (…)`, `at new C (…)`.
 * - Python: `File "path", line N, in fn` ("most recent call last": innermost is the last frame of a traceback).
 * - Java / Kotlin: `at pkg.Class.method(File.java:N)`, also `at java.base/pkg.C.m(…)` and trailing `~[jar]`.
 * - Go (panic / runtime.Stack): a `pkg.fn(args)` line followed by a tab-indented `path.go:N +0x1d` line.
 * - Ruby: `path.rb:N:in 'method'` and the older backtick form `` path.rb:N:in `method' ``, optionally after `from `.
 * - C# (.NET): `at Ns.Class.Method(args) in path.cs:line N`.
 */

/** The runtime that printed a frame. */
export type FrameLanguage = "javascript" | "python" | "java" | "go" | "ruby" | "csharp";

/** One frame of a stack trace. `line` is 1-based; `column` is 1-based when the runtime prints it. */
export interface StackFrame {
  /**
   * The path exactly as the trace printed it (for Java: the package path plus the file name, e.g. `com/acme/A.java`).
   */
  rawPath: string;
  /** Normalised path with known deployment prefixes dropped (see {@link normaliseFramePath}); a guess, not a fact. */
  path: string;
  line: number;
  column?: number;
  /** The function or method name (last segment, e.g. `save` for `ValidationLog.save`), or null (module level). */
  fn: string | null;
  language: FrameLanguage;
  /** True for frames in dependencies or the runtime (node_modules, site-packages, GOROOT, gems, java.*, node:…). */
  library: boolean;
  /**
   * The qualified function label as printed (Go `github.com/a/b.(*T).m`, Java `com.acme.A.m`, C# `Ns.C.M`), or null.
   */
  label: string | null;
}

/** Path prefixes that deployments put in front of a repository checkout, tried in order (longest first). */
const KNOWN_PREFIXES: readonly RegExp[] = [
  /^home\/runner\/work\/[^/]+\/[^/]+\//, // GitHub Actions checkout: /home/runner/work/REPO/REPO/
  /^github\/workspace\//, // container actions
  /^builds\/[^/]+\/[^/]+\//, // GitLab CI
  /^usr\/src\/app\//,
  /^usr\/src\//,
  /^opt\/app\//,
  /^srv\/app\//,
  /^var\/task\//, // AWS Lambda
  /^var\/www\/html\//,
  /^var\/www\//,
  /^workspace\//,
  /^app\//,
  /^code\//,
  /^src\/app\/(?=.*\/)/, // only when more folders follow
  /^(?:[^/]+\/)*?go\/src\/[^/]+\.[^/]+\/[^/]+\/[^/]+\//, // GOPATH, wherever it lives: …/go/src/github.com/owner/repo/
  /^(?:home|Users)\/[^/]+\/(?:(?:src|code|projects|work|dev|git|repos)\/)?[^/]+\//, // a developer's checkout
];

/**
 * Turn a path printed by a runtime into a repository-relative guess:
 * drops `webpack://[name]/`, `file://`, `vite` `/@fs/`, query strings (`?v=1`), Windows drive letters and
 * backslashes, `./` and `.` segments, a leading `/`, then the first matching known deployment prefix
 * (`/app/`, `/usr/src/app/`, `/home/runner/work/x/x/`, `/var/task/`, …).
 *
 * @example normaliseFramePath("webpack:///./src/a.js?abc") === "src/a.js"
 * @example normaliseFramePath("C:\\build\\proj\\src\\A.cs") === "build/proj/src/A.cs" (no known prefix: suffix matching
 * decides)
 */
export function normaliseFramePath(raw: string): string {
  let p = cleanFramePath(raw);
  for (const prefix of KNOWN_PREFIXES) {
    const m = prefix.exec(p);
    if (m && m[0].length < p.length) {
      p = p.slice(m[0].length);
      break;
    }
  }
  return p;
}

/**
 * The syntactic part of {@link normaliseFramePath}: URL schemes, query strings, drive letters, backslashes, `.`
 * segments and the leading `/` dropped, but every folder kept (no deployment prefix is guessed).
 */
export function cleanFramePath(raw: string): string {
  let p = raw.trim();
  p = p.replace(/^webpack:\/\/[^/]*\//, "/").replace(/^webpack-internal:\/\/\/(?:\([^)]*\)\/)?/, "/");
  p = p.replace(/^file:\/\//, "").replace(/^\/@fs\//, "/");
  p = p.replace(/^\[PROJECT_ROOT\](?=[/\\])/, ""); // Airbrake/Errbit/Honeybadger print the application root so
  p = p.replace(/[?#].*$/, "");
  p = p.replace(/\\/g, "/");
  p = p.replace(/^\/?[A-Za-z]:\//, "/");
  return p
    .split("/")
    .filter((s) => s !== "" && s !== ".")
    .join("/");
}

/** The file name of a `/`-separated path: the text after its last `/` (`src/a/b.ts` → `b.ts`; `b.ts` → `b.ts`). */
export function baseName(path: string): string {
  return path.slice(path.lastIndexOf("/") + 1);
}

/** Segments of a normalised path; used for suffix matching against repository paths. */
export function pathSegments(path: string): string[] {
  return path.split("/").filter((s) => s !== "" && s !== "." && s !== "..");
}

/**
 * How many trailing path segments `framePath` and `repoPath` share (0 when the file names differ).
 * The repository file with the most shared segments is the frame's file.
 *
 * @example commonSuffixSegments("/app/models/Log.js", "models/Log.js") === 2
 */
export function commonSuffixSegments(framePath: string, repoPath: string): number {
  return sharedTailLength(pathSegments(cleanFramePath(framePath)), pathSegments(repoPath));
}

/** How many trailing elements two segment lists share (`["a","b","c"]`, `["x","b","c"]` → 2). */
export function sharedTailLength(a: readonly string[], b: readonly string[]): number {
  let n = 0;
  while (n < a.length && n < b.length && a[a.length - 1 - n] === b[b.length - 1 - n]) n++;
  return n;
}

const LIBRARY_PATH = new RegExp(
  String.raw`(?:^|[/\\])(?:node_modules|bower_components|site-packages|dist-packages|` +
    String.raw`vendor[/\\]bundle|gems|\.cargo|pkg[/\\]mod)(?:[/\\]|$)|^node:|^internal[/\\]|^<|` +
    String.raw`^\[(?!PROJECT_ROOT\])|(?:^|[/\\])lib[/\\](?:python\d[\d.]*|ruby)[/\\]|` +
    String.raw`^\/usr\/(?:local\/)?(?:lib|go)\/|(?:^|\/)go\/src\/(?:runtime|net|internal|reflect|` +
    String.raw`sync|syscall|testing)\/|^\/opt\/hostedtoolcache\/|^[A-Za-z][\w.-]*-\d+(?:\.\d+)+[` +
    String.raw`\w.]*[/\\]lib[/\\]`,
);

/**
 * True when a path printed in a frame belongs to a dependency or the runtime rather than the repository: package
 * folders (`node_modules/`, `site-packages/`, `gems/`, Go's `pkg/mod/`), the runtime's own paths, and a path that
 * starts at a gem's folder (`actionview-4.2.9/lib/…`, as error trackers print gem frames).
 */
export function isLibraryPath(path: string): boolean {
  return LIBRARY_PATH.test(path.trim());
}

const JAVA_LIBRARY = /^(?:java|javax|jdk|sun|com\.sun|kotlin|kotlinx|scala|android|dalvik)\./;
const DOTNET_LIBRARY = /^(?:System|Microsoft)\./;

/** Clean a JS/V8 function label: `async`, `new`, `[as alias]`, `Object.<anonymous>` → name or null. */
function jsFunctionName(label: string | undefined): string | null {
  if (!label) return null;
  let s = label
    .trim()
    .replace(/^async\s+/, "")
    .replace(/^new\s+/, "")
    .replace(/\s*\[as [^\]]+\]$/, "");
  if (s.includes("<anonymous>") || s === "") return null;
  const last = s.split(".").pop() ?? s;
  s = last.replace(/^<|>$/g, "");
  return /^#?[A-Za-z_$][\w$]*$/.test(s) ? s : null; // `#printOperation`: a private method, named as it is declared
}

/** `block (2 levels) in Foo#bar` → `bar`; `<main>` → null. */
function rubyFunctionName(label: string): string | null {
  const s = label.replace(/^(?:block(?: \(\d+ levels\))?|rescue|ensure) in /, "");
  if (s.startsWith("<")) return null;
  const last = s.split(/[#.]|::/).pop() ?? s;
  return /^[A-Za-z_][\w]*[?!=]?$/.test(last) ? last : null;
}

/** `main.(*Server).handle.func1` → `handle`; `github.com/a/b/db.Query` → `Query`. */
function goFunctionName(label: string): string | null {
  const noPkgPath = label.slice(label.lastIndexOf("/") + 1);
  const parts = noPkgPath.split(".").filter((p) => p !== "" && !/^func\d+$/.test(p) && !/^\d+$/.test(p));
  const last = parts.pop();
  if (!last || parts.length === 0) return null;
  return /^[A-Za-z_]\w*$/.test(last) ? last : null;
}

/** `Ns.Class.<Method>d__5.MoveNext` → `Method`; `Ns.Class.Method` → `Method`. */
function csharpFunctionName(label: string): string | null {
  const asyncName = /<(\w+)>d__\d+/.exec(label);
  if (asyncName?.[1]) return asyncName[1];
  const last = label.split(".").pop() ?? "";
  return /^\w+$/.test(last) ? last : null;
}

/** `com.acme.web.UserController$Inner.show` + `UserController.java` → `com/acme/web/UserController.java`. */
function javaPath(qualified: string, file: string): string {
  const noModule = qualified.includes("/") ? qualified.slice(qualified.lastIndexOf("/") + 1) : qualified;
  const parts = noModule.split(".");
  parts.pop(); // method
  parts.pop(); // class (possibly Outer$Inner)
  const pkg = parts.filter((p) => /^[a-z_][\w]*$/.test(p));
  return [...pkg, file].join("/");
}

const RE_CSHARP = /^\s*at\s+(.+?)\(.*?\)\s+in\s+(.+?):line\s+(\d+)\s*$/;
const RE_JAVA = /^\s*at\s+([\w$.\/<>]+)\(([^():]+\.(?:java|kt|scala|groovy)):(\d+)\)/;
const RE_JS = /^\s*at\s+(.+)$/;
const RE_PYTHON = /^\s*File "(.+?)", line (\d+)(?:, in (.+?))?\s*$/;
const RE_RUBY = /^\s*(?:from\s+)?(.+?\.(?:rb|rake|erb|ru|gemspec)):(\d+):in [`'](.+?)'/;
/** A Ruby frame inside a sentence (a title that quotes the top frame: `… (from gems/x-1.0/lib/x.rb:3:in 'm')`). */
const RE_RUBY_INLINE = /(?:^|[\s(])(?:from\s+)?([^\s(`'"]+\.(?:rb|rake|erb|ru|gemspec)):(\d+):in [`'](.+?)'/;
/**
 * A line that is only a location, as error trackers and terse reports print frames: `path.ext:12`, `path.ext:12:5`,
 * optionally followed by the function (`→ file`, `-> file`, ` in file`, `:in 'file'`) or Go's `+0x1d`.
 */
const RE_LOCATION = new RegExp(
  String.raw`^\s*(?:from\s+)?(\S+\.(js|mjs|cjs|jsx|ts|tsx|mts|cts|py|go|rb|java|kt|cs)):(\d+)(?::(\d+))?` +
    String.raw`(?:\s+\+0x[0-9a-f]+|\s*(?:→|->|\bin\b|:in)\s*` +
    "[`']?" +
    String.raw`((?:(?:block|rescue|ensure)(?: \(\d+ levels\))? in )?[\w$#.:<>?!]+?)'?)?\s*$`,
);
const LOCATION_LANGUAGE: Record<string, FrameLanguage> = {
  py: "python",
  go: "go",
  rb: "ruby",
  java: "java",
  kt: "java",
  cs: "csharp",
};
/**
 * A V8 frame after a log prefix (`🦋  error     at f (path:1:2)`, `npm ERR!     at …`, `[12:00:01] ERROR   at …`): the
 * `at` must follow whitespace and end in a location, so prose such as "fails at startup" is not a frame.
 */
const RE_JS_PREFIXED = /^[^(]{1,60}?\sat\s+(\S.*\(\S+:\d+(?::\d+)?\)|\S+:\d+(?::\d+)?)\s*$/;
/** The function of a Go trace line `pkg.(*T).m(args)`: everything before the argument list (matched from the end). */
function goCallLabel(line: string): string {
  if (!line.endsWith(")")) return "";
  let depth = 0;
  for (let i = line.length - 1; i >= 0; i--) {
    const c = line[i];
    if (c === ")") depth++;
    else if (c === "(" && --depth === 0) {
      const label = line.slice(0, i);
      return /^[\w./*()\[\]-]+$/.test(label) ? label : "";
    }
  }
  return "";
}
const RE_GO_LOC = /^\s+(\S+\.go):(\d+)(?:\s+\+0x[0-9a-f]+)?\s*$/;

/** A line without the Markdown quote (`>`) or table (`|`) markers a paste put before it; indentation is kept. */
function withoutMarkers(line: string): string {
  return line.replace(/^\s*(?:[>|](?=\s|$)\s*)+/, "  ");
}

/** Parse the location part of a V8 frame: `path:line:col` or `path:line`. */
function jsLocation(text: string): { path: string; line: number; column?: number } | null {
  const m = /^(.*?):(\d+)(?::(\d+))?$/.exec(text.trim());
  if (!m || !m[1]) return null;
  const path = m[1];
  if (path === "native" || path === "<anonymous>" || path.startsWith("eval at")) return null;
  return { path, line: Number(m[2]), ...(m[3] ? { column: Number(m[3]) } : {}) };
}

/** One JS frame line after `at `: `fn (loc)` or `loc`. */
function parseJsFrame(rest: string): { fn: string | null; loc: ReturnType<typeof jsLocation> } {
  const trimmed = rest.trim();
  if (trimmed.endsWith(")")) {
    const open = trimmed.lastIndexOf(" (");
    if (open > 0) {
      return { fn: jsFunctionName(trimmed.slice(0, open)), loc: jsLocation(trimmed.slice(open + 2, -1)) };
    }
  }
  return { fn: null, loc: jsLocation(trimmed) };
}

interface Block {
  frames: StackFrame[];
  /** Python tracebacks list the innermost frame last. */
  innermostLast: boolean;
  /** Java `Caused by:` blocks hold the root cause: they come first, the last one first of all. */
  causedBy: boolean;
}

function frame(
  rawPath: string,
  line: number,
  fn: string | null,
  language: FrameLanguage,
  extra?: { column?: number; library?: boolean; label?: string },
): StackFrame {
  return {
    rawPath,
    path: normaliseFramePath(rawPath),
    line,
    ...(extra?.column !== undefined ? { column: extra.column } : {}),
    fn,
    language,
    library: extra?.library ?? isLibraryPath(rawPath),
    label: extra?.label ?? null,
  };
}

/**
 * All stack frames of `text`, innermost first: within each trace the frame closest to the throw comes first
 * (Python tracebacks are reversed); several traces keep their order, except Java `Caused by:` traces, which are the
 * root cause and come first (the last one first). Frames without a file (`Native Method`, `<anonymous>`) are skipped.
 * Never throws.
 */
export function parseStackFrames(text: string): StackFrame[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const blocks: Block[] = [];
  let current: Block | null = null;
  let causedBy = false;
  let goCreatedBy = false;
  const locationOnly = new Set<StackFrame>();
  const push = (f: StackFrame, innermostLast: boolean) => {
    if (!current || current.innermostLast !== innermostLast || current.frames[0]?.language !== f.language) {
      current = { frames: [], innermostLast, causedBy };
      blocks.push(current);
    }
    current.frames.push(f);
  };
  const breakBlock = () => {
    current = null;
  };

  for (let i = 0; i < lines.length; i++) {
    // Markdown quotes and pasted tables put `>` or `|` before a trace's lines: the frame is what follows them.
    const line = withoutMarkers(lines[i] ?? "");
    if (/^\s*Caused by:/.test(line)) {
      causedBy = true;
      breakBlock();
      continue;
    }
    if (/^Traceback \(most recent call last\)/.test(line.trim()) || /^goroutine \d+ \[/.test(line)) {
      causedBy = false;
      breakBlock();
      continue;
    }
    let m = RE_CSHARP.exec(line);
    if (m) {
      const label = m[1] ?? "";
      push(
        frame(m[2] ?? "", Number(m[3]), csharpFunctionName(label), "csharp", {
          library: DOTNET_LIBRARY.test(label) || isLibraryPath(m[2] ?? ""),
          label,
        }),
        false,
      );
      continue;
    }
    m = RE_JAVA.exec(line);
    if (m) {
      const qualified = m[1] ?? "";
      const noModule = qualified.includes("/") ? qualified.slice(qualified.lastIndexOf("/") + 1) : qualified;
      const method = noModule.split(".").pop() ?? "";
      const fn = /^[A-Za-z_$][\w$]*$/.test(method) && method !== "<init>" && method !== "<clinit>" ? method : null;
      push(
        frame(javaPath(qualified, m[2] ?? ""), Number(m[3]), fn, "java", {
          library: JAVA_LIBRARY.test(noModule),
          label: noModule,
        }),
        false,
      );
      continue;
    }
    m = RE_PYTHON.exec(line);
    if (m) {
      const fn = m[3] && !m[3].startsWith("<") ? m[3].trim() : null;
      const launcher =
        /(?:^|[/\\])(?:\.?venv|\.virtualenvs?[/\\][^/\\]+|env)[/\\](?:bin|Scripts)[/\\]|^\/usr\/(?:local\/)?bin\//.test(
          m[1] ?? "",
        );
      push(frame(m[1] ?? "", Number(m[2]), fn, "python", launcher ? { library: true } : undefined), true);
      continue;
    }
    m = RE_RUBY.exec(line);
    if (m && /\s/.test(m[1] ?? "")) m = RE_RUBY_INLINE.exec(line);
    if (m) {
      push(frame(m[1] ?? "", Number(m[2]), rubyFunctionName(m[3] ?? ""), "ruby"), false);
      continue;
    }
    m = RE_GO_LOC.exec(line);
    if (m) {
      if (goCreatedBy) {
        goCreatedBy = false;
        continue;
      }
      const label = goCallLabel((lines[i - 1] ?? "").trim());
      const library =
        isLibraryPath(m[1] ?? "") ||
        /^(?:runtime|panic|net\/http|reflect|sync|testing)\b/.test(label) ||
        label === "panic";
      push(
        frame(m[1] ?? "", Number(m[2]), label ? goFunctionName(label) : null, "go", {
          library,
          ...(label ? { label } : {}),
        }),
        false,
      );
      continue;
    }
    if (/^created by /.test(line.trim())) {
      goCreatedBy = true;
      continue;
    }
    m = RE_LOCATION.exec(line);
    if (m) {
      const ext = m[2] ?? "";
      const language = LOCATION_LANGUAGE[ext] ?? "javascript";
      const label = language === "go" ? goCallLabel(withoutMarkers(lines[i - 1] ?? "").trim()) : "";
      const named =
        language === "ruby"
          ? (rubyFunctionName(m[5] ?? "") ?? "")
          : (m[5]?.replace(/^#/, "").replace(/[?!]$/, "") ?? "");
      const fn = label ? goFunctionName(label) : /^[A-Za-z_$][\w$]*[?!=]?$/.test(named) ? named : null;
      const f = frame(m[1] ?? "", Number(m[3]), fn, language, {
        ...(m[4] ? { column: Number(m[4]) } : {}),
        ...(label ? { label } : {}),
      });
      locationOnly.add(f);
      push(f, language === "python");
      continue;
    }
    m = RE_JS.exec(line) ?? RE_JS_PREFIXED.exec(line);
    if (m) {
      const { fn, loc } = parseJsFrame(m[1] ?? "");
      if (loc && /\.[A-Za-z]{1,5}$/.test(loc.path.replace(/[?#].*$/, ""))) {
        push(
          frame(loc.path, loc.line, fn, "javascript", loc.column !== undefined ? { column: loc.column } : undefined),
          false,
        );
      }
      continue;
    }
    if (line.trim() === "") breakBlock();
  }

  const ordered = [...blocks.filter((b) => b.causedBy).reverse(), ...blocks.filter((b) => !b.causedBy)];
  const all = ordered.flatMap((b) => (b.innermostLast ? [...b.frames].reverse() : b.frames));
  // Node prints the throwing line's location above the message (`/app/cli.js:10`): the full frame says it better
  const fuller = (f: StackFrame) =>
    all.some((g) => g !== f && !locationOnly.has(g) && g.rawPath === f.rawPath && g.line === f.line);
  return all.filter((f) => !locationOnly.has(f) || !fuller(f));
}

/** Folders that hold compiled output (TypeScript `outDir`, bundlers, Babel): `dist/`, `build/`, `lib/`, `out/`. */
const COMPILED_DIRS = new Set(["dist", "build", "lib", "out"]);

/** True when a repository path lies under a folder of compiled output other than `lib/` (`dist/`, `build/`, `out/`). */
export function isCompiledOutputPath(path: string): boolean {
  return pathSegments(path).some((s) => s === "dist" || s === "build" || s === "out");
}

/**
 * The source guess for a frame in compiled JavaScript (`/app/dist/services/user.js` → stem `user`, `rel`
 * `services/user`, glob `user.{ts,tsx,mts,cts,js}`): the path after the last `dist/`/`build/`/`lib/`/`out/` folder,
 * without its `.js`/`.mjs`/`.cjs` extension. Null for other frames. The source lies under `src/` or the repository
 * root; its line numbers differ from the compiled file's (no source maps are read).
 */
export function compiledSource(rawPath: string): { stem: string; rel: string; glob: string } | null {
  const segs = pathSegments(cleanFramePath(rawPath));
  const file = segs[segs.length - 1] ?? "";
  const m = /^(.+)\.(?:js|mjs|cjs)$/.exec(file);
  if (!m?.[1]) return null;
  let at = -1;
  for (let i = segs.length - 2; i >= 0; i--)
    if (COMPILED_DIRS.has(segs[i] ?? "")) {
      at = i;
      break;
    }
  if (at < 0) return null;
  const rel = [...segs.slice(at + 1, -1), m[1]].join("/");
  return { stem: m[1], rel, glob: `${m[1]}.{ts,tsx,mts,cts,js}` };
}
