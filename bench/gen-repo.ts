/**
 * A generated repository for benchmarks: deterministic (a fixed-seed PRNG), several languages, realistic line
 * lengths, so that snapshot loading, grep and search see text shaped like real code.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** One generated file: repository-relative path and UTF-8 content. */
export interface GenFile {
  path: string;
  content: string;
}

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  "user",
  "order",
  "invoice",
  "payment",
  "session",
  "token",
  "cache",
  "queue",
  "report",
  "schema",
  "record",
  "audit",
  "event",
  "batch",
  "config",
];

function jsFile(rand: () => number, i: number, targetBytes: number): string {
  const out: string[] = [`import { logger } from "../lib/logger.js";`, ""];
  let n = 0;
  while (out.join("\n").length < targetBytes) {
    const w = WORDS[Math.floor(rand() * WORDS.length)]!;
    const fn = `handle${w[0]!.toUpperCase()}${w.slice(1)}${i}_${n++}`;
    out.push(`export function ${fn}(input, options = {}) {`);
    out.push(`  const ${w}Id = input.${w}Id ?? options.default${w[0]!.toUpperCase()}${w.slice(1)}Id;`);
    out.push(`  if (!${w}Id) {`);
    out.push(`    logger.warn("missing ${w} id in ${fn}", { input });`);
    out.push(`    return null;`);
    out.push(`  }`);
    out.push(`  return { id: ${w}Id, count: ${Math.floor(rand() * 1000)}, label: "${w}-${n}" };`);
    out.push(`}`, "");
  }
  return out.join("\n");
}

function pyFile(rand: () => number, i: number, targetBytes: number): string {
  const out: string[] = ["import logging", "", "logger = logging.getLogger(__name__)", ""];
  let n = 0;
  while (out.join("\n").length < targetBytes) {
    const w = WORDS[Math.floor(rand() * WORDS.length)]!;
    out.push(`class ${w[0]!.toUpperCase()}${w.slice(1)}Service${i}_${n++}:`);
    out.push(`    def load_${w}(self, ${w}_id):`);
    out.push(`        if ${w}_id is None:`);
    out.push(`            logger.warning("missing ${w} id")`);
    out.push(`            return None`);
    out.push(`        return {"id": ${w}_id, "count": ${Math.floor(rand() * 1000)}}`, "");
  }
  return out.join("\n");
}

/**
 * Make `count` files of about `avgBytes` each (JavaScript and Python, spread over nested folders), plus a
 * package.json. Sizes vary ±50% around the average.
 */
export function generateRepo(count: number, avgBytes: number, seed = 42): GenFile[] {
  const rand = prng(seed);
  const files: GenFile[] = [
    {
      path: "package.json",
      content:
        JSON.stringify({ name: "bench-repo", version: "1.0.0", dependencies: { express: "^4.0.0" } }, null, 2) + "\n",
    },
    { path: "lib/logger.js", content: "export const logger = console;\n" },
  ];
  for (let i = 0; files.length < count; i++) {
    const size = Math.max(200, Math.round(avgBytes * (0.5 + rand())));
    const dir = `src/${WORDS[i % WORDS.length]}/${Math.floor(i / 100)}`;
    files.push(
      i % 4 === 3
        ? { path: `${dir}/mod_${i}.py`, content: pyFile(rand, i, size) }
        : { path: `${dir}/mod${i}.js`, content: jsFile(rand, i, size) },
    );
  }
  return files;
}

/** Total UTF-8 bytes of the files. */
export function totalBytes(files: GenFile[]): number {
  return files.reduce((sum, f) => sum + Buffer.byteLength(f.content), 0);
}

/** Write the files under `dir` (created as needed). */
export function writeRepo(dir: string, files: GenFile[]): void {
  for (const f of files) {
    const full = join(dir, f.path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, f.content);
  }
}
