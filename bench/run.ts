/**
 * `npm run bench`: what a groundfix run costs, each figure against a reference measured in the same run.
 * Prints a table and writes bench/results.json. Options (node:util `parseArgs`; anything else exits 2 saying so):
 * `--quick` smaller inputs (for a smoke run); `--only=<section>[,<section>…]` only those sections (names below);
 * `--rounds=<n>` the interleaved rounds of the `large` section (default 5, 3 with `--quick`).
 */
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
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

/** The options of the command line, or exit 2 with the reason. */
function options(): { quick: boolean; only?: string[]; rounds?: number } {
  try {
    const { values } = parseArgs({
      options: { quick: { type: "boolean" }, only: { type: "string" }, rounds: { type: "string" } },
      strict: true,
      allowPositionals: false,
    });
    const rounds = values.rounds === undefined ? undefined : Number(values.rounds);
    if (rounds !== undefined && !(Number.isInteger(rounds) && rounds >= 1))
      throw new Error(`--rounds=${values.rounds}: give a whole number of rounds, 1 or more`);
    return {
      quick: values.quick === true,
      ...(values.only !== undefined ? { only: values.only.split(",").map((x) => x.trim()) } : {}),
      ...(rounds !== undefined ? { rounds } : {}),
    };
  } catch (error) {
    process.stderr.write(`bench: ${(error as Error).message}\n`);
    process.exit(2);
  }
}
const { quick, only, rounds } = options();

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
  { name: "large", run: () => benchLarge(rounds ?? (quick ? 3 : 5)) },
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

const unknown = (only ?? []).filter((name) => !sections.some((s) => s.name === name));
if (unknown.length > 0) {
  const names = sections.map((s) => s.name).join(", ");
  process.stderr.write(`bench: no section ${unknown.join(", ")} (the sections: ${names})\n`);
  process.exit(2);
}
if (rounds !== undefined && only !== undefined && !only.includes("large"))
  process.stderr.write("bench: --rounds sets the large section's rounds only; it is not run here\n");

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
