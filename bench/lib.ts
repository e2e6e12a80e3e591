/**
 * Small measuring helpers for `npm run bench`. Every figure is a median of repeated runs, and every speed is also
 * given as a ratio against a reference measured in the same run, because this machine is shared and noisy.
 */
import { performance } from "node:perf_hooks";

/** One row of the results table: a figure, its unit, and (when there is one) the ratio against its reference. */
export interface BenchRow {
  section: string;
  name: string;
  value: number;
  unit: string;
  reference?: { name: string; value: number };
  /** value / reference.value for times (lower is better), reference / value for rates; see `ratioMeaning`. */
  ratio?: number;
  ratioMeaning?: string;
  note?: string;
}

/** Median of numbers (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The p-th percentile (0..100) by nearest rank. */
export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Run `fn` `runs` times (after one warm-up) and return the median wall time in milliseconds. */
export async function timeMedian(runs: number, fn: () => unknown): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await fn();
    times.push(performance.now() - t0);
  }
  return median(times);
}

/** Tracks the peak resident set size (bytes) while `fn` runs, sampling every few milliseconds. */
export async function peakRss<T>(fn: () => Promise<T>): Promise<{ result: T; baseline: number; peak: number }> {
  (globalThis as { gc?: () => void }).gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  try {
    const result = await fn();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, baseline, peak };
  } finally {
    clearInterval(timer);
  }
}

/** Render rows as a fixed-width table for stdout. */
export function renderTable(rows: BenchRow[]): string {
  const fmt = (n: number) => (Math.abs(n) >= 100 ? n.toFixed(0) : Math.abs(n) >= 10 ? n.toFixed(1) : n.toFixed(2));
  const lines = rows.map((r) => [
    r.section,
    r.name,
    `${fmt(r.value)} ${r.unit}`,
    r.reference ? `${r.reference.name}: ${fmt(r.reference.value)} ${r.unit}` : "",
    r.ratio !== undefined ? `${r.ratio.toFixed(2)}× ${r.ratioMeaning ?? ""}`.trim() : "",
    r.note ?? "",
  ]);
  const header = ["section", "figure", "value", "reference (same run)", "ratio", "note"];
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const row = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [row(header), row(widths.map((w) => "-".repeat(w))), ...lines.map(row)].join("\n");
}
