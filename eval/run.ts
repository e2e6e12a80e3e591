/**
 * `npm run eval`: run `groundfix fix --json` (the default model unless GROUNDFIX_EVAL_MODEL names another) on every
 * case of eval/cases.json, each on its checkout `$GROUNDFIX_EVAL_DIR/<case-id>` at the case's base commit (build
 * them with eval/prepare.ts), and print one row per case and the totals.
 *
 *   GROUNDFIX_EVAL_DIR=/work/corpus npm run eval [-- [--json FILE] [--cli PATH] [case-id …]]
 *
 * Without GROUNDFIX_EVAL_DIR (or when the folder does not exist) it prints one line and exits 0. A case whose
 * checkout is missing or not at its base is listed as missing and left out of the totals. Branches the runs write
 * (`groundfix/*`) are deleted after each run, so a rerun starts from the same state. Run time is the wall time of the
 * `node dist/cli/main.js fix` process (Node start-up included); `--json FILE` also writes the scores there. It builds
 * this checkout's dist/ first (tsc -p tsconfig.build.json); `--cli PATH` runs another build's `dist/cli/main.js`
 * instead (to compare two commits on the same cases).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { FixJson } from "../src/cli/json.js";
import { loadGrammar } from "../src/lang/tree-sitter.js";
import { loadCases, type EvalCase } from "./cases.js";
import { git } from "./git.js";
import { loadGoGrammar } from "./go-syntax.js";
import { preparedBase } from "./prepare.js";
import { errorScore, scoreRun, totals, type CaseScore, type Totals } from "./score.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const CASES = join(ROOT, "eval", "cases.json");
const DEFAULT_CLI = join(ROOT, "dist", "cli", "main.js");
const TIMEOUT_MS = 120_000;

interface Proc {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

function runCli(cli: string, args: readonly string[], input: string, env: NodeJS.ProcessEnv): Promise<Proc> {
  return new Promise((done) => {
    const started = performance.now();
    const child = spawn(process.execPath, [cli, ...args], {
      env,
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => child.kill("SIGKILL"), TIMEOUT_MS);
    child.stdout.setEncoding("utf8").on("data", (s: string) => (stdout += s));
    child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
    child.on("close", (code) => {
      clearTimeout(timer);
      done({
        code,
        stdout,
        stderr,
        ms: Math.round(performance.now() - started),
      });
    });
    child.stdin.end(input);
  });
}

/** Delete the `groundfix/*` branches a run wrote in `dir`. */
function dropRunBranches(dir: string): void {
  const refs = git(["for-each-ref", "--format=%(refname)", "refs/heads/groundfix/"], { cwd: dir });
  for (const ref of refs.split("\n").filter(Boolean)) git(["update-ref", "-d", ref], { cwd: dir });
}

/** Run one case; `undefined` when its checkout is missing or not at its base. */
export async function runCase(
  c: EvalCase,
  corpus: string,
  env: NodeJS.ProcessEnv,
  cli = DEFAULT_CLI,
): Promise<{ score: CaseScore; detail: string; files: number } | undefined> {
  const dir = join(corpus, c.id);
  if (!existsSync(dir) || preparedBase(dir) !== c.base) return undefined;
  const files = git(["ls-tree", "-r", "--name-only", "HEAD"], { cwd: dir }).split("\n").filter(Boolean).length;
  dropRunBranches(dir);
  const args = ["fix", "--repo", dir, "--ref", "HEAD", "--title", c.issue.title, "--issue", "-", "--json"];
  const model = env.GROUNDFIX_EVAL_MODEL?.trim();
  if (model) args.push("--model", model);
  const proc = await runCli(cli, args, c.issue.body.trim() === "" ? c.issue.title : c.issue.body, env);
  dropRunBranches(dir);
  let json: FixJson;
  try {
    json = JSON.parse(proc.stdout) as FixJson;
  } catch {
    const why =
      proc.code === null
        ? `killed after ${TIMEOUT_MS / 1000} s`
        : `exit ${proc.code}: ${proc.stderr.trim().split("\n")[0] ?? ""}`;
    return { score: errorScore(c, proc.ms), detail: why, files };
  }
  const readBase = (path: string): string | undefined => {
    try {
      return git(["cat-file", "blob", `HEAD:${path}`], { cwd: dir, raw: true });
    } catch {
      return undefined;
    }
  };
  const score = scoreRun(c, json, proc.ms, readBase);
  const detail =
    score.parse.state === "fail" ? `parse: ${score.parse.path} ${score.parse.message}` : (json.reason ?? "");
  return { score, detail, files };
}

const mark = (b: boolean | null): string => (b === null ? "-" : b ? "yes" : "no");
const pct = (n: number, of: number): string => (of === 0 ? "n/a" : `${Math.round((100 * n) / of)}% (${n}/${of})`);

/** The table row of one case (fixed-width columns); `files` is the number of files at the base commit. */
export function formatRow(c: EvalCase, s: CaseScore, files: number, idWidth = 30): string {
  const first = s.firstPath === null ? "(none)" : s.firstPath.length > 40 ? `…${s.firstPath.slice(-39)}` : s.firstPath;
  return [
    c.id.padEnd(idWidth),
    c.language.padEnd(10),
    s.status.padEnd(17),
    `${mark(s.fileFirst).padEnd(4)}${first}`.padEnd(46),
    mark(s.functionCited).padEnd(5),
    mark(s.editInChanged).padEnd(5),
    mark(s.codeEditInChanged).padEnd(5),
    (s.prOutside ? "YES" : "no").padEnd(5),
    (s.noise ? "yes" : "no").padEnd(5),
    s.parse.state.padEnd(5),
    `${files}`.padStart(6),
    `${s.ms}`.padStart(6),
  ].join(" ");
}

/** The totals block (ratios as percentages with their counts). */
export function formatTotals(t: Totals, missing: number): string[] {
  return [
    `cases run: ${t.cases}${missing ? ` (${missing} missing from the corpus)` : ""}; errors: ${t.errors}`,
    `file the fix changed cited first:       ${pct(t.fileFirst, t.cases)}`,
    `function the fix changed cited:         ${pct(t.functionCited, t.functionCases)}`,
    `an edit in a changed file:              ${pct(t.editInChanged, t.cases)}`,
    `a non-comment edit in a changed file:   ${pct(t.codeEditInChanged, t.cases)}`,
    `pr_ready: ${t.prReady}; pr_ready editing a file the fix did not touch: ${t.prOutside}`,
    `edits that are only comments or log lines: ${t.noise} runs (${t.prNoise} of them pr_ready)`,
    `edits that do not parse:                ${t.parseFail} of ${t.parseChecked} runs whose edits could be parsed`,
    `run time: median ${t.medianMs} ms, max ${t.maxMs} ms`,
  ];
}

async function main(argv: string[]): Promise<number> {
  const corpus = process.env.GROUNDFIX_EVAL_DIR?.trim();
  if (!corpus || !existsSync(corpus) || !statSync(corpus).isDirectory()) {
    console.log(
      `eval: skipped (set GROUNDFIX_EVAL_DIR to a corpus folder built by ` +
        `eval/prepare.ts${corpus ? `; ${corpus} is not one` : ""})`,
    );
    return 0;
  }
  let jsonOut: string | undefined;
  let cli = DEFAULT_CLI;
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--json") jsonOut = argv[++i];
    else if (a === "--cli") cli = resolve(argv[++i] ?? "");
    else if (a.startsWith("-")) {
      console.error(`eval: unknown flag ${a}`);
      return 2;
    } else only.push(a);
  }
  if (cli === DEFAULT_CLI) {
    // The build under test is this checkout's: compile it first (tsc -p tsconfig.build.json, as npm run build).
    const tsc = join(ROOT, "node_modules", "typescript", "bin", "tsc");
    const built = spawnSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: ROOT, encoding: "utf8" });
    if (built.status !== 0 && !existsSync(cli)) {
      console.error(`eval: the build failed: ${built.stdout.trim().split("\n")[0] ?? ""}`);
      return 1;
    }
  }
  if (!existsSync(cli)) {
    console.error(`eval: ${cli} is missing`);
    return 1;
  }
  const cases = loadCases(CASES).filter((c) => only.length === 0 || only.includes(c.id));
  await loadGrammar("python");
  await loadGoGrammar();
  const idWidth = Math.max(4, ...cases.map((c) => c.id.length));
  const env = { ...process.env };
  delete env.GROUNDFIX_MODEL;
  console.log(
    [
      "case".padEnd(idWidth),
      "language".padEnd(10),
      "status".padEnd(17),
      "first cited (in fix?)".padEnd(46),
      "fn".padEnd(5),
      "edit".padEnd(5),
      "code".padEnd(5),
      "out".padEnd(5),
      "noise",
      "parse",
      " files",
      "    ms",
    ].join(" "),
  );
  const scores: {
    id: string;
    score: CaseScore;
    detail: string;
    files: number;
  }[] = [];
  const missing: string[] = [];
  for (const c of cases) {
    const r = await runCase(c, resolve(corpus), env, cli);
    if (!r) {
      missing.push(c.id);
      console.log(`${c.id.padEnd(idWidth)} missing (run eval/prepare.ts)`);
      continue;
    }
    scores.push({ id: c.id, ...r });
    console.log(
      formatRow(c, r.score, r.files, idWidth) +
        (r.score.status === "error" || r.score.parse.state === "fail" ? `  ${r.detail}` : ""),
    );
  }
  const t = totals(scores.map((s) => s.score));
  console.log("");
  for (const line of formatTotals(t, missing.length)) console.log(line);
  if (jsonOut) writeFileSync(jsonOut, `${JSON.stringify({ totals: t, missing, cases: scores }, null, 2)}\n`);
  return 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (err: unknown) => {
      console.error(`eval: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
