/**
 * Vitest global setup: build `dist/` once (`tsc -p tsconfig.build.json`) so the CLI end-to-end tests can spawn the
 * built `groundfix` bin from a fresh clone where only `npm test` ran.
 *
 * It builds only when the run includes the CLI tests (no file filter, or a filter that matches `test/cli/`) and
 * `dist/` is older than `src/` (a stamp file records the last build). Type errors do not stop the run as long
 * as tsc emitted `dist/cli/main.js`; the tests then report what is actually broken.
 *
 * It also gives the run one temporary folder, provided to the test workers as `runTmp`: `test/run-tmp.ts` (a setup
 * file) points `TMPDIR` (and `TMP`/`TEMP`) into it for every test and every process a test spawns (`os.tmpdir()`
 * reads them), and the teardown removes it, so the hundreds of repositories, snapshots and replays the tests make
 * with `mkdtemp` do not stay behind in the system's /tmp.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import type { TestProject } from "vitest/node";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const STAMP = join(ROOT, "dist", ".test-build-stamp");
const CLI_TESTS = "test/cli/";

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/**
 * True when the vitest command line has no file filter, or one that selects a test under test/cli/ (vitest filters are
 * substrings of the path).
 */
function runIncludesCliTests(argv: readonly string[]): boolean {
  const i = argv.findIndex((a) => a === "run" || a === "watch" || a === "related");
  const filters = (i >= 0 ? argv.slice(i + 1) : [])
    .filter((a) => !a.startsWith("-"))
    .map((f) => f.replace(/^\.\//, ""));
  if (filters.length === 0) return true;
  const cliFiles = readdirSync(join(ROOT, CLI_TESTS)).map((name) => `${CLI_TESTS}${name}`);
  return filters.some((f) => CLI_TESTS.startsWith(f) || cliFiles.some((p) => p.includes(f)));
}

export default function setup(project: TestProject): () => void {
  const runTmp = mkdtempSync(join(tmpdir(), "groundfix-test-run-"));
  project.provide("runTmp", runTmp);
  const teardown = () => rmSync(runTmp, { recursive: true, force: true });
  buildDist();
  return teardown;
}

/** Build `dist/` when the run includes the CLI tests and it is older than `src/` (see the module comment). */
function buildDist(): void {
  if (!runIncludesCliTests(process.argv)) return;
  const built = existsSync(join(ROOT, "dist", "cli", "main.js")) && existsSync(STAMP);
  if (built && statSync(STAMP).mtimeMs >= newestMtime(join(ROOT, "src"))) return;
  try {
    execFileSync(
      process.execPath,
      [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "tsconfig.build.json"],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
  } catch (error) {
    if (!existsSync(join(ROOT, "dist", "cli", "main.js"))) {
      const out = String((error as { stdout?: Buffer }).stdout ?? "")
        .split("\n")
        .slice(0, 5)
        .join("\n");
      throw new Error(`npx tsc -p tsconfig.build.json did not produce dist/cli/main.js:\n${out}`);
    }
    // Type errors elsewhere: dist/ was still emitted; the tests show what is broken.
  }
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}

declare module "vitest" {
  export interface ProvidedContext {
    /** The run's temporary folder (see the module comment). */
    runTmp: string;
  }
}
