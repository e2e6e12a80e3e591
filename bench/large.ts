/**
 * Large: whole `groundfix fix` runs (the built CLI, a replayed model) on a repository of at least 100 MB of real
 * code, against the floor of any run, reading the commit once (`git archive HEAD | wc -c`), in the same rounds
 * (interleaved: floor, grep run, search run, symbol run, floor, …; medians). Peak memory is each run's maximum
 * resident set size against the source size (the sum of the commit's file sizes). Then `grep_codebase` against
 * `git grep` on the same commit, also interleaved (A B A B, medians).
 *
 * The repository: `GROUNDFIX_BENCH_LARGE_REPO=<dir>` names a folder to use (a git checkout is used as it is; a
 * missing or empty folder is filled as below and kept, so later runs reuse it). Without it, the repository is built
 * in a temporary folder and removed afterwards: the JavaScript and TypeScript sources of the installed packages
 * (node_modules, files up to 1.9 MB), copied side by side as projects `p0`, `p1`, … until the copies pass
 * {@link LARGE_MIN_BYTES}; copies after the first rename a quarter of their longer identifiers (vowels shifted), so
 * the projects share a language but not every word, as side-by-side projects do. Never committed.
 */
import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { snapshotFromGit } from "../src/snapshot/index.js";
import { grepSnapshot } from "../src/tools/grep.js";
import { type BenchRow, median } from "./lib.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The smallest repository the section measures on (bytes of file content). */
export const LARGE_MIN_BYTES = 105 * 1024 * 1024;
const MAX_FILE_BYTES = 1.9 * 1024 * 1024;
const CODE = /\.(js|mjs|cjs|ts|mts|cts|tsx|jsx)$/;

/** Every code file under the installed packages, once per real path (workspace symlinks are followed once). */
export function packageSources(): { rel: string; full: string; size: number }[] {
  const base = realpathSync(join(ROOT, "node_modules"));
  const seen = new Set<string>();
  const out: { rel: string; full: string; size: number }[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name === ".bin" || e.name === ".cache") continue;
      const full = join(dir, e.name);
      let real: string;
      try {
        real = realpathSync(full);
      } catch {
        continue;
      }
      if (seen.has(real)) continue;
      seen.add(real);
      const st = statSync(real);
      if (st.isDirectory()) walk(full);
      else if (st.isFile() && CODE.test(e.name) && st.size > 0 && st.size <= MAX_FILE_BYTES)
        out.push({ rel: relative(base, full), full: real, size: st.size });
    }
  };
  walk(base);
  return out.sort((a, b) => (a.rel < b.rel ? -1 : 1));
}

const VOWELS: Record<string, string> = { a: "e", e: "i", i: "o", o: "u", u: "a" };

/** Copy `k` of a file: for k > 0, a quarter of its identifiers of 6+ characters get their vowels shifted. */
function vary(text: string, k: number): string {
  if (k === 0) return text;
  return text.replace(/\b[A-Za-z_][A-Za-z0-9_]{5,}\b/g, (w) => {
    let h = k * 2654435761;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 16777619);
    return (h >>> 0) % 4 === 0 ? w.replace(/[aeiou]/g, (v) => VOWELS[v] as string) : w;
  });
}

function git(dir: string, ...args: string[]): string {
  return execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
}

/** Fill `dir` with projects p0, p1, … (see the module comment) and commit them. */
function buildRepo(dir: string): void {
  const sources = packageSources();
  const perCopy = sources.reduce((s, f) => s + f.size, 0);
  if (perCopy === 0) throw new Error("no package sources under node_modules to build the large repository from");
  const copies = Math.ceil(LARGE_MIN_BYTES / perCopy);
  mkdirSync(dir, { recursive: true });
  for (let k = 0; k < copies; k++) {
    for (const f of sources) {
      const target = join(dir, `p${k}`, f.rel);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, vary(readFileSync(f.full, "utf8"), k));
    }
  }
  git(dir, "init", "-q");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "large bench repository");
}

/** The repository to measure on, and whether to remove it afterwards. */
function largeRepo(): { dir: string; remove: boolean } {
  const given = process.env.GROUNDFIX_BENCH_LARGE_REPO;
  if (given !== undefined && given !== "") {
    if (existsSync(join(given, ".git"))) return { dir: given, remove: false };
    if (existsSync(given) && readdirSync(given).length > 0)
      throw new Error(`GROUNDFIX_BENCH_LARGE_REPO=${given} is neither a git checkout nor empty`);
    process.stderr.write(`bench: building the large repository in ${given} (kept)…\n`);
    buildRepo(given);
    return { dir: given, remove: false };
  }
  const dir = mkdtempSync(join(tmpdir(), "groundfix-large-"));
  process.stderr.write(`bench: building the large repository in ${dir}…\n`);
  buildRepo(dir);
  return { dir, remove: true };
}

/** A replay transcript: each of `calls`, one per turn, then an answer. */
function transcript(calls: { name: string; arguments: Record<string, unknown> }[]): string {
  const answer = {
    name: "submit_answer",
    arguments: {
      summary: "The module resolver reads a missing cache entry.",
      affected_file: "p0/typescript/lib/lib.d.ts",
      affected_function: null,
      root_cause_snippet: null,
      confidence: 0.3,
    },
  };
  return JSON.stringify({ turns: [...calls.map((c) => ({ tool_calls: [c] })), { tool_calls: [answer] }] });
}

/** The three runs: two calls of one tool each, then an answer. */
const RUNS = [
  {
    name: "grep",
    calls: [
      { name: "grep_codebase", arguments: { pattern: "createSourceFile" } },
      { name: "grep_codebase", arguments: { pattern: "function (parse|read)[A-Z][A-Za-z]*\\(", regex: true } },
    ],
  },
  {
    name: "search",
    calls: [
      {
        name: "search_codebase",
        arguments: {
          query: "TypeError: Cannot read properties of undefined (reading 'resolvedModule') in resolveModuleName",
        },
      },
      { name: "search_codebase", arguments: { query: "compiler options typeRoots missing" } },
    ],
  },
  {
    name: "symbols",
    calls: [
      { name: "verify_symbol_in_repo", arguments: { name: "createSourceFile" } },
      { name: "verify_symbol_in_repo", arguments: { name: "resolveModuleNme" } },
    ],
  },
] as const;

/** Run a command to its end; its wall time (ms) and, for node, its maximum resident set size (bytes). */
function timed(
  cmd: string,
  args: string[],
  opts: { cwd?: string; okCodes?: number[] } = {},
): Promise<{ ms: number; rss: number; out: string }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(cmd, args, { cwd: opts.cwd, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      const ms = performance.now() - t0;
      if (!(opts.okCodes ?? [0]).includes(code ?? -1))
        return reject(
          new Error(`${cmd} ${args.slice(0, 3).join(" ")} exited ${code}: ${err.trim().split("\n").pop()}`),
        );
      const m = /GROUNDFIX_MAXRSS (\d+)/.exec(err);
      resolve({ ms, rss: m ? Number(m[1]) * 1024 : NaN, out });
    });
  });
}

/** Node flag printing the process's maximum resident set size (KiB, `process.resourceUsage`) as it exits. */
const MAXRSS_HOOK =
  `data:text/javascript,process.on("exit",()=>process.stderr.write("\\nGROUNDFIX_MAXRSS ` +
  `"+process.resourceUsage().maxRSS+"\\n"))`;

export async function benchLarge(rounds: number): Promise<BenchRow[]> {
  process.stderr.write("bench: building dist/ (npm run build)…\n");
  execFileSync("npx", ["tsc", "-p", "tsconfig.build.json"], { cwd: ROOT, stdio: "inherit" });
  const { dir, remove } = largeRepo();
  const tmp = mkdtempSync(join(tmpdir(), "groundfix-large-runs-"));
  try {
    const files = RUNS.map((r) => {
      const file = join(tmp, `${r.name}.json`);
      writeFileSync(file, transcript([...r.calls]));
      return file;
    });
    const cli = join(ROOT, "dist", "cli", "main.js");
    const fix = (file: string) =>
      timed(
        process.execPath,
        [
          "--import",
          MAXRSS_HOOK,
          cli,
          "fix",
          "--repo",
          dir,
          "--issue-text",
          "resolver crash\nTypeError in resolveModuleName",
          "--model",
          `replay:${file}`,
          "--json",
        ],
        { cwd: tmp },
      );
    const floor = () => timed("sh", ["-c", "git archive HEAD | wc -c"], { cwd: dir });
    const size = Number((await floor()).out.trim());
    // One warm-up of each (page cache, module compile cache), then interleaved rounds.
    for (const f of files) await fix(f);
    const floorMs: number[] = [];
    const runMs: number[][] = RUNS.map(() => []);
    const runRss: number[][] = RUNS.map(() => []);
    for (let i = 0; i < rounds; i++) {
      floorMs.push((await floor()).ms);
      for (let r = 0; r < files.length; r++) {
        const m = await fix(files[r] as string);
        runMs[r]!.push(m.ms);
        runRss[r]!.push(m.rss);
      }
    }
    // The source: the commit's file contents (what a snapshot holds), without the archive's headers.
    const source = git(dir, "ls-tree", "-r", "-l", "HEAD")
      .split("\n")
      .reduce((s, line) => s + (Number(line.split(/\s+/)[3]) || 0), 0);
    const fileCount = git(dir, "ls-files").split("\n").filter(Boolean).length;
    const floorMed = median(floorMs);
    const mb = (b: number) => (b / 1048576).toFixed(0);
    const rows: BenchRow[] = [
      {
        section: "large",
        name: `git archive HEAD | wc -c (${fileCount} files, ${mb(source)} MB source, ${mb(size)} MB tar)`,
        value: floorMed,
        unit: "ms",
        ratio: 1,
        ratioMeaning: "of reading the commit",
      },
    ];
    const grepMed = median(runMs[0]!);
    RUNS.forEach((r, i) => {
      const ms = median(runMs[i]!);
      const rss = median(runRss[i]!);
      const vsGrep = i === 0 ? "" : `; ${(ms / grepMed).toFixed(2)}× the grep run`;
      rows.push({
        section: "large",
        name: `fix, two ${r.calls[0].name} calls then an answer`,
        value: ms,
        unit: "ms",
        reference: { name: "git archive", value: floorMed },
        ratio: ms / floorMed,
        ratioMeaning: "of reading the commit",
        note: `peak RSS ${mb(rss)} MB = ${(rss / source).toFixed(2)}× the source${vsGrep}`,
      });
    });

    // grep_codebase against git grep on the same commit, A B A B.
    const snapshot = await snapshotFromGit(dir, "HEAD");
    const cases = [
      { name: "literal", query: { pattern: "createSourceFile", maxHits: 50 }, git: ["-F", "createSourceFile"] },
      {
        name: "regex",
        query: { pattern: "function (parse|read)[A-Z][A-Za-z]*\\(", regex: true, maxHits: 50 },
        git: ["-E", "function (parse|read)[A-Z][A-Za-z]*\\("],
      },
    ];
    for (const c of cases) {
      const ours: number[] = [];
      const theirs: number[] = [];
      grepSnapshot(snapshot, c.query);
      for (let i = 0; i < Math.max(3, rounds); i++) {
        const t0 = performance.now();
        grepSnapshot(snapshot, c.query);
        ours.push(performance.now() - t0);
        theirs.push(
          (await timed("git", ["grep", "-n", "--no-color", ...c.git, "HEAD"], { cwd: dir, okCodes: [0, 1] })).ms,
        );
      }
      const o = median(ours);
      const t = median(theirs);
      rows.push({
        section: "large",
        name: `grep_codebase ${c.name} (in process)`,
        value: o,
        unit: "ms",
        reference: { name: "git grep HEAD", value: t },
        ratio: o / t,
        ratioMeaning: "of git grep's time",
      });
    }
    return rows;
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    if (remove) rmSync(dir, { recursive: true, force: true });
  }
}
