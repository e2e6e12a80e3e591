/**
 * Build the eval corpus: for each case in eval/cases.json, a git checkout of its base commit at `<out>/<case-id>`
 * (a one-commit shallow fetch from the mirror, so the commit id is the real one and a rerun is repeatable).
 *
 *   node --import tsx eval/prepare.ts [--mirrors DIR] [--out DIR] [case-id …]
 *
 * `--mirrors` (default `/work/.mirror`) holds one git directory per repository (see mirrorGitDir in eval/git.ts);
 * `--out` defaults to `$GROUNDFIX_EVAL_DIR`. A case whose checkout already sits at its base is left alone; one at
 * another commit is replaced. Exit 1 when a case could not be prepared (each failure is one line on stderr).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { loadCases, type EvalCase } from "./cases.js";
import { git, headOf, mirrorGitDir } from "./git.js";

const CASES = fileURLToPath(new URL("./cases.json", import.meta.url));

/** The file in a prepared checkout's git directory that names the base commit it stands for. */
export const BASE_MARKER = "groundfix-eval-base";

/**
 * The base commit a prepared checkout stands for: its HEAD when that is the case's base, else the commit named in
 * `.git/groundfix-eval-base` when HEAD is the copy {@link prepareCase} made of it (see there); undefined otherwise.
 */
export function preparedBase(dir: string): string | undefined {
  const head = headOf(dir);
  if (head === undefined) return undefined;
  const marker = join(dir, ".git", BASE_MARKER);
  if (!existsSync(marker)) return head;
  const [base, copy] = readFileSync(marker, "utf8").trim().split(/\s+/);
  return copy === head ? base : undefined;
}

/**
 * Copy the tree of `base` from the mirror into `dest` as one new commit, leaving out blobs the mirror lacks (the
 * snapshots `fetch` brings have no files of 4 MiB or more). Returns the paths left out.
 */
function copyTree(from: string, base: string, dest: string): string[] {
  const entries = git(["ls-tree", "-r", "-z", "--full-tree", base], {
    cwd: dest,
    gitDir: from,
    raw: true,
  })
    .split("\0")
    .filter(Boolean)
    .map((line) => {
      const tab = line.indexOf("\t");
      const [mode = "", type = "", oid = ""] = line.slice(0, tab).split(" ");
      return { mode, type, oid, path: line.slice(tab + 1) };
    })
    .filter((e) => e.type === "blob");
  const batch = execFileSync("git", ["--git-dir", from, "cat-file", "--batch"], {
    input: entries.map((e) => e.oid).join("\n") + "\n",
    maxBuffer: 1024 * 1024 * 1024,
  });
  const missing: string[] = [];
  const links: { file: string; target: string }[] = [];
  let at = 0;
  for (const e of entries) {
    const nl = batch.indexOf(0x0a, at);
    const header = batch.subarray(at, nl).toString("utf8");
    at = nl + 1;
    if (header.endsWith(" missing")) {
      missing.push(e.path);
      continue;
    }
    const size = Number(header.split(" ")[2]);
    const body = batch.subarray(at, at + size);
    at += size + 1;
    const file = join(dest, e.path);
    mkdirSync(dirname(file), { recursive: true });
    if (e.mode === "120000") links.push({ file, target: body.toString("utf8") });
    else {
      writeFileSync(file, body);
      if (e.mode === "100755") chmodSync(file, 0o755);
    }
  }
  for (const l of links) symlinkSync(l.target, l.file); // last, so no file is ever written through a link
  git(["add", "--all", "--force", "."], { cwd: dest });
  const when = git(["show", "-s", "--format=%aI", base], {
    cwd: dest,
    gitDir: from,
  });
  const message = `${base}\n\nleft out (not in the mirror): ${missing.join(", ")}\n`;
  git(
    [
      "-c",
      "user.name=groundfix eval",
      "-c",
      "user.email=eval@groundfix.invalid",
      "commit",
      "--quiet",
      "--no-verify",
      "-m",
      message,
    ],
    {
      cwd: dest,
      env: { GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when },
    },
  );
  return missing;
}

/**
 * Check a case against its mirror: `base` is the first parent of `fix`; every file the case says the fix changed
 * (`changed.files` and `changed.other`) is in `git diff base fix`; every trace path mapped into the repository is a
 * file at the base; every changed function's name occurs in a changed file at the base.
 *
 * @throws Error naming the first mismatch.
 */
export function checkCase(c: EvalCase, from: string): void {
  let parent: string;
  try {
    parent = git(["rev-parse", "--verify", "--quiet", `${c.fix}^1`], {
      gitDir: from,
    });
  } catch {
    throw new Error(`the mirror has no commit ${c.fix} (or it has no parent)`);
  }
  if (parent !== c.base) throw new Error(`base ${c.base} is not the first parent of ${c.fix} (that is ${parent})`);
  const touched = new Set(
    git(["diff", "--name-only", "--no-renames", c.base, c.fix], {
      gitDir: from,
    }).split("\n"),
  );
  const wrong = [...c.changed.files, ...c.changed.other].filter((p) => !touched.has(p));
  if (wrong.length > 0) throw new Error(`the fix does not change ${wrong.join(", ")}`);
  const atBase = new Set(git(["ls-tree", "-r", "--name-only", c.base], { gitDir: from }).split("\n"));
  const lost = c.trace_paths.filter((t) => t.repo !== null && !atBase.has(t.repo));
  if (lost.length > 0)
    throw new Error(`trace path ${lost[0]?.trace} maps to ${lost[0]?.repo}, which is not at the base`);
  const fixed = c.changed.files
    .filter((p) => atBase.has(p))
    .map((p) => git(["cat-file", "blob", `${c.base}:${p}`], { gitDir: from, raw: true }));
  const unnamed = c.changed.functions.filter((f) => !fixed.some((text) => text.includes(f)));
  if (unnamed.length > 0) throw new Error(`no changed file names the function ${unnamed.join(", ")} at the base`);
}

/**
 * Materialise one case's base commit at `<out>/<id>`: a one-commit shallow fetch of the base from the mirror (the
 * commit id stays the real one), or, when the mirror lacks some of its blobs, a copy of the tree without them as one
 * new commit whose `.git/groundfix-eval-base` names the base and the copy. Returns what was done. When the mirror is
 * there the case is first checked against it ({@link checkCase}), also for a checkout that is already ready.
 *
 * @throws Error when the case does not match its mirror, there is no mirror (and no ready checkout), or git fails.
 */
export function prepareCase(c: EvalCase, mirrors: string, out: string): "ready" | "created" | "copied" {
  const dest = join(out, c.id);
  const from = mirrorGitDir(mirrors, c.repository);
  if (from) checkCase(c, from);
  if (existsSync(dest) && preparedBase(dest) === c.base) return "ready";
  if (!from) throw new Error(`no mirror of ${c.repository} under ${mirrors}`);
  rmSync(dest, { recursive: true, force: true });
  mkdirSync(dest, { recursive: true });
  try {
    git(["init", "--quiet"], { cwd: dest });
    try {
      git(["fetch", "--quiet", "--depth", "1", from, c.base], { cwd: dest });
    } catch {
      const missing = copyTree(from, c.base, dest);
      writeFileSync(join(dest, ".git", BASE_MARKER), `${c.base} ${headOf(dest)}\n`);
      if (missing.length === 0) throw new Error(`the fetch of ${c.base} failed, but no blob of it is missing`);
      return "copied";
    }
    git(["-c", "advice.detachedHead=false", "checkout", "--quiet", "--detach", c.base], { cwd: dest });
  } catch (err) {
    rmSync(dest, { recursive: true, force: true });
    throw err;
  }
  return "created";
}

function main(argv: string[]): number {
  let mirrors = "/work/.mirror";
  let out = process.env.GROUNDFIX_EVAL_DIR ?? "";
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? "";
    if (a === "--mirrors") mirrors = argv[++i] ?? "";
    else if (a === "--out") out = argv[++i] ?? "";
    else if (a.startsWith("-")) {
      console.error(`eval/prepare: unknown flag ${a}`);
      return 2;
    } else only.push(a);
  }
  if (!out) {
    console.error("eval/prepare: give --out DIR or set GROUNDFIX_EVAL_DIR");
    return 2;
  }
  const cases = loadCases(CASES).filter((c) => only.length === 0 || only.includes(c.id));
  let failed = 0;
  for (const c of cases) {
    try {
      const what = prepareCase(c, resolve(mirrors), resolve(out));
      console.log(`${what.padEnd(8)} ${c.id} (${c.repository} @ ${c.base.slice(0, 12)})`);
    } catch (err) {
      failed++;
      console.error(`failed   ${c.id}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return failed > 0 ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url))
  process.exitCode = main(process.argv.slice(2));
