/**
 * Symbols: what `extractSymbols` (src/grounding/symbols.ts) costs per character, against reading every line of the
 * same files (`split("\n")` and a look at each line) in the same rounds (interleaved: lines, symbols, lines, …;
 * medians). Three inputs: the JavaScript and TypeScript sources of the installed packages (node_modules, in path
 * order, up to a size), the Python files of the generated repository (bench/gen-repo.ts), and a hostile Ruby file of
 * `def` lines that no `end` closes (linear, not quadratic, in its lines).
 */
import { performance } from "node:perf_hooks";
import { readFileSync } from "node:fs";
import { extractSymbols } from "../src/grounding/symbols.js";
import { generateRepo } from "./gen-repo.js";
import { packageSources } from "./large.js";
import { type BenchRow, median } from "./lib.js";

interface SourceFile {
  path: string;
  content: string;
}

/** Reading every line: the reference. Returns the number of non-empty lines (so the work is not dropped). */
function readLines(files: SourceFile[]): number {
  let n = 0;
  for (const f of files) for (const line of f.content.split("\n")) if (line.length > 0) n++;
  return n;
}

function extractAll(files: SourceFile[]): number {
  let n = 0;
  for (const f of files) n += extractSymbols(f.path, f.content).length;
  return n;
}

/** `rounds` interleaved rounds of the reference and of `extractSymbols` over `files`; one row. */
function measure(name: string, files: SourceFile[], rounds: number): BenchRow {
  const chars = files.reduce((s, f) => s + f.content.length, 0);
  const lines: number[] = [];
  const symbols: number[] = [];
  let found = 0;
  readLines(files);
  extractAll(files);
  for (let r = 0; r < rounds; r++) {
    let t = performance.now();
    readLines(files);
    lines.push(performance.now() - t);
    t = performance.now();
    found = extractAll(files);
    symbols.push(performance.now() - t);
  }
  const value = median(symbols);
  return {
    section: "symbols",
    name: `extractSymbols, ${name} (${(chars / 1e6).toFixed(1)} M chars)`,
    value,
    unit: "ms",
    reference: { name: "reading every line", value: median(lines) },
    ratio: value / median(lines),
    ratioMeaning: "slower",
    note: `${((value * 1e6) / chars).toFixed(1)} ns/char, ${found} symbols`,
  };
}

/** The bench section `symbols`: `megabytes` of package sources, and the generated Python files. */
export async function benchSymbols(rounds: number, megabytes: number): Promise<BenchRow[]> {
  const js: SourceFile[] = [];
  let size = 0;
  for (const f of packageSources()) {
    if (size >= megabytes * 1e6) break;
    js.push({ path: f.rel, content: readFileSync(f.full, "utf8") });
    size += f.size;
  }
  if (js.length === 0) throw new Error("no package sources under node_modules to measure on");
  const python = generateRepo(4000, 5000).filter((f) => f.path.endsWith(".py"));
  // A hostile Ruby file: a class, then `def` lines that no `end` closes (every block stays open).
  const defs = Array.from({ length: 60_000 }, (_, i) => `    def m${i}(a, b)`);
  const ruby = [{ path: "app/hostile.rb", content: ["class Big", ...defs].join("\n") }];
  return [
    measure(`JS/TS package sources, ${js.length} files`, js, rounds),
    measure(`generated Python, ${python.length} files`, python, rounds),
    measure("a Ruby file of 60,000 `def` lines and no `end`", ruby, rounds),
  ];
}
