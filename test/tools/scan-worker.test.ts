import { execFile } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultMinChars, resetScanWorker, scanWorkerSettings, scanWorkerStats } from "../../src/tools/scan-worker.js";
import { MAX_WORDS_PER_FILE, rankFiles, scanWords } from "../../src/tools/search-index.js";
import type { Snapshot } from "../../src/types.js";
import { makeContext } from "./fixture.js";

const RANK = {
  boost: { symbols: 3, path: 2, text: 1 },
  prefixWeight: 0.5,
  fuzzyWeight: 0.3,
  fuzzy: 0.15,
  symbolsOf: (path: string) => (path.endsWith("3.ts") ? ["resolveTypeRoots"] : []),
};

// A worker's start may take longer than the default 2 s on a loaded machine; these tests count the worker's answers.
const DEFAULTS = { ...scanWorkerSettings, startupMs: 60_000 };
beforeEach(() => {
  Object.assign(scanWorkerSettings, DEFAULTS);
});

afterEach(() => {
  Object.assign(scanWorkerSettings, DEFAULTS);
  delete scanWorkerSettings.fault;
  resetScanWorker();
});

/** Files of random words (seeded): repeated words across files, case variants, a capped file, a secret file. */
function files(count: number, seed: number): Record<string, string> {
  const vocabulary = ["typeRoots", "TYPE", "subtype", "options", "compilerOptions", "rootsOfType", "é", "ty_pe", "Res"];
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 4294967296;
  const out: Record<string, string> = { ".env": "TYPE_ROOTS_SECRET=typeRootsKey\n" };
  for (let f = 0; f < count; f++) {
    const words = Array.from({ length: 400 }, () => {
      const w = vocabulary[Math.floor(next() * vocabulary.length)] as string;
      return next() < 0.5 ? w : `${w}${Math.floor(next() * 40)}`;
    });
    out[`src/f${String(f).padStart(2, "0")}.ts`] = words.join(next() < 0.5 ? " " : "(\n");
  }
  // Past the cap, in the worker's share (the last ~47% of the text): its first MAX_WORDS_PER_FILE words only.
  out["src/f90-big.ts"] = Array.from({ length: MAX_WORDS_PER_FILE + 50 }, (_, i) => `type${i} roots${i}`).join(" ");
  out["src/f91-after.ts"] = "type1 roots2 missingOptions resolveModule\n";
  // Secrets in files of both shares: their words are not reported by either thread; a file's other words are.
  const secret = (v: string) => `const password = "${v}";\nconst typeRoots = options;\n`;
  out["src/a-db.ts"] = secret("Xq_typeHidden_9Z");
  out["src/f92-db.ts"] = secret("Xq_rootsHidden_9Z");
  out["src/f93-key.ts"] =
    `typeRoots\n-----BEGIN RSA PRIVATE KEY-----\nMIIEtypeKeyBody+roots/x=\n-----END RSA PRIVATE KEY-----\n`;
  return out;
}

/** Every report of one call, as "path word id". */
function reports(snapshot: Snapshot, needles: string[]): string[] {
  const out: string[] = [];
  scanWords(snapshot, needles, (file, word, id) => out.push(`${snapshot.paths[file]} ${word} ${id}`));
  return out;
}

/** The calls of a session: fresh passes, merges of earlier records, more needles than one record keeps. */
const CALLS = [
  ["type"],
  ["compiler", "options", "type", "roots", "missing"],
  ["roots", "type"],
  ["typeroots", "options"],
  ["ty", "pe"],
  ["of", "type", "zz"],
  ["res", "module"],
  ["type"],
];

/** What each call of CALLS reports and what rankFiles answers, on a fresh snapshot of `tree`. */
async function session(tree: Record<string, string>): Promise<string[][]> {
  const { snapshot } = await makeContext(tree, { maxFileBytes: 1 << 20 });
  const out = CALLS.map((needles) => reports(snapshot, needles));
  for (const terms of [["resolve", "type", "roots"], ["compiler", "optionz"], ["missing"]]) {
    const ranking = rankFiles(snapshot, terms, RANK);
    out.push(ranking.paths.map((path, k) => `${path} ${ranking.hit(k).score} ${JSON.stringify(ranking.hit(k).match)}`));
  }
  return out;
}

describe("scanWords with the scan worker", () => {
  it("reports, keeps and merges exactly what one thread does, the texts in one chunk or in many", async () => {
    const tree = files(40, 7);
    scanWorkerSettings.minChars = Infinity;
    const alone = await session(tree);
    expect(scanWorkerStats.answered).toBe(0);
    expect(alone[1]?.filter((r) => r.startsWith("src/f90-big.ts ")).length).toBe(MAX_WORDS_PER_FILE);
    const secretFiles = alone.flat().filter((r) => /^src\/(a-db|f92-db|f93-key)\.ts /.test(r));
    expect(secretFiles.some((r) => r.includes(" typeRoots "))).toBe(true);
    expect(secretFiles.filter((r) => /hidden|keybody/i.test(r))).toEqual([]);
    scanWorkerSettings.minChars = 0;
    // 4 KiB slots: the share's ~110 KB come through the two slots of the ring many times over (the big file alone).
    for (const slotBytes of [2 ** 21, 4096]) {
      scanWorkerSettings.slotBytes = slotBytes;
      const answered = scanWorkerStats.answered;
      const bytes = scanWorkerStats.bytes;
      expect(await session(tree), String(slotBytes)).toEqual(alone);
      // The worker answered every fresh pass (all but the last call, whose needle was looked for already).
      expect(scanWorkerStats.answered - answered).toBeGreaterThanOrEqual(CALLS.length - 1);
      expect(scanWorkerStats.bytes - bytes).toBeGreaterThan(80_000);
    }
  });

  it("answers for each snapshot when calls go from one snapshot to another", async () => {
    const a = (await makeContext(files(20, 1), { maxFileBytes: 1 << 20 })).snapshot;
    const b = (await makeContext(files(20, 2), { maxFileBytes: 1 << 20 })).snapshot;
    scanWorkerSettings.minChars = Infinity;
    const expected = [a, b].map((s) => ["options", "roots", "type"].map((n) => reports(s, [n])));
    // Fresh snapshots of the same trees, so nothing is remembered from the passes above.
    const a2 = (await makeContext(files(20, 1), { maxFileBytes: 1 << 20 })).snapshot;
    const b2 = (await makeContext(files(20, 2), { maxFileBytes: 1 << 20 })).snapshot;
    scanWorkerSettings.minChars = 0;
    const answered = scanWorkerStats.answered;
    const got: string[][][] = [[], []];
    for (const needle of ["options", "roots", "type"]) [a2, b2].forEach((s, i) => got[i]?.push(reports(s, [needle])));
    expect(got).toEqual(expected);
    expect(scanWorkerStats.answered - answered).toBe(6);
  });

  it("gives a scan of another snapshot started from a scan's callback its own answer (it scans alone)", async () => {
    const tree = files(20, 4);
    scanWorkerSettings.minChars = Infinity;
    const { snapshot: a } = await makeContext(tree, { maxFileBytes: 1 << 20 });
    const expected = [reports(a, ["type"]), reports(a, ["roots"])];
    scanWorkerSettings.minChars = 0;
    const { snapshot: b } = await makeContext(tree, { maxFileBytes: 1 << 20 });
    const { snapshot: c } = await makeContext(tree, { maxFileBytes: 1 << 20 });
    const outer: string[] = [];
    let inner: string[] | undefined;
    const { answered, failed } = scanWorkerStats;
    scanWords(b, ["type"], (file, word, id) => {
      inner ??= reports(c, ["roots"]);
      outer.push(`${b.paths[file]} ${word} ${id}`);
    });
    expect([outer, inner]).toEqual(expected);
    // The outer scan shared its pass with the worker; the inner one did not get in its way.
    expect([scanWorkerStats.answered - answered, scanWorkerStats.failed - failed]).toEqual([1, 0]);
  });

  it("reads a code unit past U+00FF as no word character in a snapshot whose text is not Latin-1", async () => {
    const texts = ["\u0161rror \u0130rror x\ud835\udc1arror Error\n", "rror\u0161 \u0161rror Terror\n", "mirror\n"];
    const paths = texts.map((_, i) => `f${i}.js`);
    const plain: Snapshot = {
      sha: "0".repeat(40),
      paths,
      stats: { files: 3, textFiles: 3, textBytes: 60, totalBytes: 60, leftOut: [], truncated: false },
      entry: (path) => (paths.includes(path) ? { path, kind: "text", size: 20, mode: "100644" } : undefined),
      read: (path) => texts[paths.indexOf(path)],
    };
    scanWorkerSettings.minChars = 0;
    const answered = scanWorkerStats.answered;
    expect(reports(plain, ["rror"])).toEqual([
      "f0.js rror 0",
      "f0.js Error 1",
      "f1.js rror 0",
      "f1.js Terror 2",
      "f2.js mirror 3",
    ]);
    expect(scanWorkerStats.answered).toBe(answered + 1);
  });

  for (const fault of ["throw", "exit", "hang", "garble"] as const) {
    it(`gives the same answer when the worker fails (${fault}): the main thread scans its share`, async () => {
      const tree = files(30, 3);
      scanWorkerSettings.minChars = Infinity;
      const alone = await session(tree);
      scanWorkerSettings.minChars = 0;
      scanWorkerSettings.timeoutMs = 300;
      scanWorkerSettings.fault = fault;
      const failed = scanWorkerStats.failed;
      expect(await session(tree)).toEqual(alone);
      expect(scanWorkerStats.failed).toBeGreaterThan(failed);
    });
  }

  it("lets the process exit when the scans are done", async () => {
    // A child process that scans with the worker and then just ends: it must exit on its own.
    const dir = mkdtempSync(join(tmpdir(), "scan-worker-"));
    const script = join(dir, "scan-worker-exit.ts");
    const src = (rel: string) => JSON.stringify(fileURLToPath(new URL(`../../src/${rel}`, import.meta.url)));
    writeFileSync(
      script,
      `import { scanWorkerSettings, scanWorkerStats } from ${src("tools/scan-worker.ts")};\n` +
        `import { scanWords } from ${src("tools/search-index.ts")};\n` +
        `const texts = ["alpha beta", "gamma alphabet", "alpine"];\n` +
        `const paths = texts.map((_, i) => "f" + i + ".js");\n` +
        `const snapshot = { sha: "0".repeat(40), paths, read: (p) => texts[paths.indexOf(p)],\n` +
        `  entry: (p) => ({ path: p, kind: "text", size: 9, mode: "100644" }), stats: {} };\n` +
        `scanWorkerSettings.minChars = 0;\nscanWorkerSettings.startupMs = 60_000;\n` +
        `const words = [];\n` +
        `scanWords(snapshot, ["alp"], (file, word) => words.push(word));\n` +
        `console.log(words.join(" "), scanWorkerStats.answered);\n`,
    );
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(process.execPath, ["--import", "tsx", script], { timeout: 30_000 }, (_, stdout) =>
        resolve({ code: child.exitCode, stdout }),
      );
    });
    expect(out).toEqual({ code: 0, stdout: "alpha alphabet alpine 1\n" });
  });
});

describe("when the worker is used by default", () => {
  it("not on a 2-core machine (the bench's: it made the run slower there), from 4 cores on large snapshots", () => {
    expect(defaultMinChars(1)).toBe(Infinity);
    expect(defaultMinChars(2)).toBe(Infinity);
    expect(defaultMinChars(3)).toBe(Infinity);
    expect(defaultMinChars(4)).toBe(32 * 2 ** 20);
    expect(defaultMinChars(64)).toBe(32 * 2 ** 20);
  });
});
