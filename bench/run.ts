/**
 * `npm run bench`: what a groundfix run costs, each figure against a reference measured in the same run.
 * Prints a table and writes bench/results.json. `--quick` uses smaller inputs (for a smoke run).
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchAgent } from "./agent.js";
import { benchEditCore } from "./edit-core.js";
import { benchProviders } from "./providers.js";
import { benchLarge } from "./large.js";
import { type BenchRow, renderTable } from "./lib.js";
import { benchRestCalls } from "./rest-calls.js";
import { benchSnapshotSearch } from "./snapshot-search.js";
import { benchStructure } from "./structure.js";
import { benchSymbols } from "./symbols.js";
import { benchWebhookAck } from "./webhook-ack.js";

const quick = process.argv.includes("--quick");
const only = process.argv
  .find((a) => a.startsWith("--only="))
  ?.slice("--only=".length)
  .split(",");

const extra: Record<string, unknown> = {};
const sections: { name: string; run: () => Promise<BenchRow[]> }[] = [
  { name: "edit", run: () => benchEditCore(quick ? 3 : 9) },
  { name: "structure", run: () => benchStructure(quick ? 3 : 7) },
  { name: "symbols", run: () => benchSymbols(quick ? 5 : 9, quick ? 20 : 60) },
  {
    name: "snapshot",
    run: () =>
      benchSnapshotSearch(
        quick ? { files: 1000, avgBytes: 10_000, runs: 3 } : { files: 10_000, avgBytes: 10_000, runs: 5 },
      ),
  },
  { name: "webhook", run: () => benchWebhookAck(50) },
  { name: "large", run: () => benchLarge(quick ? 3 : 5) },
  { name: "agent", run: () => benchAgent(quick ? 3 : 7) },
  { name: "providers", run: () => benchProviders() },
  {
    name: "rest",
    run: async () => {
      const { rows, detail } = await benchRestCalls(quick ? [10, 1000] : [10, 1000, 10_000]);
      extra.restCallsByRoute = detail;
      return rows;
    },
  },
];

const rows: BenchRow[] = [];
for (const s of sections) {
  if (only && !only.includes(s.name)) continue;
  process.stderr.write(`bench: ${s.name}…\n`);
  try {
    rows.push(...(await s.run()));
  } catch (e) {
    rows.push({ section: s.name, name: "FAILED", value: NaN, unit: "", note: (e as Error).message.split("\n")[0] });
  }
}
console.log(renderTable(rows));
const out = join(dirname(fileURLToPath(import.meta.url)), "results.json");
writeFileSync(
  out,
  JSON.stringify({ date: new Date().toISOString(), node: process.version, quick, rows, ...extra }, null, 2) + "\n",
);
console.log(`\nwritten: ${out}`);
if (rows.some((r) => r.name === "FAILED")) process.exitCode = 1;
