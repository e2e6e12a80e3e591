/**
 * Snapshot and search: load a generated repository (~10,000 files, ~100 MB) from one gzip tar stream; measure MB/s
 * and peak memory against the source size; `grep_codebase` (literal and regex) against `git grep` on the same files;
 * `search_codebase` and `verify_symbol_in_repo` latency (first call, then repeated calls: nothing is indexed ahead,
 * each call scans the snapshot for its words).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { extract } from "tar-stream";
import { snapshotFromTar } from "../src/snapshot/index.js";
import { createReadLog, grepCodebase, runTool, searchCodebase, verifySymbolInRepo } from "../src/tools/index.js";
import type { Snapshot } from "../src/types.js";
import { githubTarball } from "../test/fixtures/github.js";
import { generateRepo, totalBytes, writeRepo } from "./gen-repo.js";
import { type BenchRow, median, peakRss, timeMedian } from "./lib.js";

/** Parse the tarball without keeping anything: the floor for any tar-based loader. */
async function drainTar(tarball: Buffer): Promise<number> {
  const ex = extract();
  let bytes = 0;
  ex.on("entry", (_h, stream, next) => {
    stream.on("data", (c: Buffer) => (bytes += c.length));
    stream.on("end", next);
    stream.resume();
  });
  const done = new Promise<void>((resolve, reject) => {
    ex.on("finish", resolve);
    ex.on("error", reject);
  });
  Readable.from(tarball).pipe(createGunzip()).pipe(ex);
  await done;
  return bytes;
}

function gitGrep(dir: string, args: string[]): void {
  try {
    execFileSync("git", ["grep", "-n", ...args], { cwd: dir, stdio: ["ignore", "ignore", "ignore"] });
  } catch (e) {
    if ((e as { status?: number }).status !== 1) throw e; // 1 = no match
  }
}

export async function benchSnapshotSearch(opts: {
  files: number;
  avgBytes: number;
  runs: number;
}): Promise<BenchRow[]> {
  const files = generateRepo(opts.files, opts.avgBytes);
  const bytes = totalBytes(files);
  const mb = bytes / (1024 * 1024);
  const tarball = await githubTarball("octo-bench-0000000", Object.fromEntries(files.map((f) => [f.path, f.content])));
  const rows: BenchRow[] = [];
  const sha = "0".repeat(40);

  const drainMs = await timeMedian(opts.runs, () => drainTar(tarball));
  let snapshot: Snapshot | undefined;
  const loadTimes: number[] = [];
  let peak = 0;
  for (let i = 0; i < opts.runs; i++) {
    snapshot = undefined;
    const t0 = performance.now();
    const measured = await peakRss(() => snapshotFromTar(tarball, { sha, stripTopFolder: true }));
    loadTimes.push(performance.now() - t0);
    snapshot = measured.result;
    peak = Math.max(peak, measured.peak - measured.baseline);
  }
  const loadMs = median(loadTimes);
  const snap = snapshot!;
  rows.push({
    section: "snapshot",
    name: `load ${snap.stats.files} files, ${mb.toFixed(0)} MB (gzip tar)`,
    value: mb / (loadMs / 1000),
    unit: "MB/s",
    reference: { name: "gunzip+tar parse only", value: mb / (drainMs / 1000) },
    ratio: loadMs / drainMs,
    ratioMeaning: "time of bare parse",
  });
  rows.push({
    section: "snapshot",
    name: "peak RSS growth while loading / source size",
    value: peak / bytes,
    unit: "× source",
    note: `${(peak / 1048576).toFixed(0)} MB for ${mb.toFixed(0)} MB`,
  });

  const dir = mkdtempSync(join(tmpdir(), "groundfix-bench-"));
  try {
    writeRepo(dir, files);
    const git = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=bench", "-c", "user.email=bench@example.com", ...args], {
        cwd: dir,
        stdio: "ignore",
      });
    git("init", "-q");
    git("add", "-A");
    git("commit", "-q", "-m", "bench");
    const ctx = { snapshot: snap, reads: createReadLog() };
    const cases: { name: string; tool: unknown; git: string[] }[] = [
      { name: "literal", tool: { pattern: "missing invoice id", max_results: 50 }, git: ["-F", "missing invoice id"] },
      {
        name: "regex",
        tool: { pattern: "handle(Audit|Batch)[0-9]+_1\\(", regex: true, max_results: 50 },
        git: ["-E", "handle(Audit|Batch)[0-9]+_1\\("],
      },
    ];
    for (const c of cases) {
      const ours = await timeMedian(opts.runs, () => runTool(grepCodebase, c.tool, ctx));
      const theirs = await timeMedian(opts.runs, () => gitGrep(dir, c.git));
      rows.push({
        section: "search",
        name: `grep_codebase ${c.name}`,
        value: ours,
        unit: "ms",
        reference: { name: "git grep", value: theirs },
        ratio: ours / theirs,
        ratioMeaning: "of git grep's time",
      });
    }
    const t0 = performance.now();
    await runTool(searchCodebase, { query: "warmup" }, ctx);
    const buildMs = performance.now() - t0;
    const search = await timeMedian(opts.runs, () =>
      runTool(searchCodebase, { query: "missing payment id handlePayment" }, ctx),
    );
    rows.push({ section: "search", name: "search_codebase first call", value: buildMs, unit: "ms" });
    rows.push({ section: "search", name: "search_codebase query (repeated)", value: search, unit: "ms" });
    const t1 = performance.now();
    await runTool(verifySymbolInRepo, { name: "warmupSymbol" }, ctx);
    const symBuild = performance.now() - t1;
    // A name the generated repository really defines (from a file in the middle), and a one-letter typo of it.
    const middle = files.slice(Math.floor(files.length / 2)).find((f) => f.path.endsWith(".js"))!;
    const defined = /export function (\w+)/.exec(middle.content)![1]!;
    const probe = await runTool(verifySymbolInRepo, { name: defined }, ctx);
    if (probe.status !== "ok")
      throw new Error(`verify_symbol_in_repo did not find ${defined}: ${probe.text.split("\n")[0]}`);
    const typo = `${defined.slice(0, 6)}x${defined.slice(7)}`;
    const found = await timeMedian(opts.runs, () => runTool(verifySymbolInRepo, { name: defined }, ctx));
    const missing = await timeMedian(opts.runs, () => runTool(verifySymbolInRepo, { name: typo }, ctx));
    rows.push({ section: "search", name: "verify_symbol_in_repo first call", value: symBuild, unit: "ms" });
    rows.push({ section: "search", name: "verify_symbol_in_repo FOUND", value: found, unit: "ms" });
    rows.push({
      section: "search",
      name: "verify_symbol_in_repo NOT_FOUND (similar names)",
      value: missing,
      unit: "ms",
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}
