/**
 * Providers: what a model is sent, in groundfix's own estimate (characters / 4 of messages plus tool schemas, as
 * src/agent/history.ts counts it). The first request of a run, against the tool schemas alone; and a replayed
 * 10-turn run over groundfix's own src/ (nine 400-line reads of its largest files, then an answer), summed over
 * its requests, with old tool results shortened (the default) against the same run with the history kept whole.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runAgent } from "../src/agent/index.js";
import { estimateTokens } from "../src/agent/history.js";
import { createReplayModel } from "../src/agent/models/replay.js";
import type { Model } from "../src/agent/models/types.js";
import { agentToolSpecs } from "../src/agent/tool-specs.js";
import { defaultConfig } from "../src/config/schema.js";
import { buildSnapshot, task } from "../test/agent/helpers.js";
import type { BenchRow } from "./lib.js";

const SRC = fileURLToPath(new URL("../src", import.meta.url));

function sources(dir: string, out: Record<string, string> = {}): Record<string, string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, e.name);
    if (e.isDirectory()) sources(full, out);
    else out[`src/${relative(SRC, full)}`] = readFileSync(full, "utf8");
  }
  return out;
}

/** The estimated size of each request the model is sent in one run. */
async function requestSizes(model: Model, run: (m: Model) => Promise<unknown>): Promise<number[]> {
  const sizes: number[] = [];
  await run({
    spec: model.spec,
    next: (input) => (sizes.push(estimateTokens(input.messages, input.tools)), model.next(input)),
  });
  return sizes;
}

export async function benchProviders(): Promise<BenchRow[]> {
  const files = sources(SRC);
  const snapshot = await buildSnapshot(files);
  const largest = Object.entries(files)
    .sort((a, b) => b[1].length - a[1].length)
    .slice(0, 9)
    .map(([p]) => p);
  const turns = [
    ...largest.map((path) => ({ tool_calls: [{ name: "get_file_contents", arguments: { path } }] })),
    {
      tool_calls: [
        {
          name: "submit_answer",
          arguments: {
            summary: "s",
            affected_file: largest[0],
            affected_function: null,
            root_cause_snippet: null,
            confidence: 0.5,
          },
        },
      ],
    },
  ];
  const config = defaultConfig();
  const play = (keepFullTurns: number) => (m: Model) =>
    runAgent({ task: task(), snapshot, model: m, config, limits: { keepFullTurns } });
  const shortened = await requestSizes(createReplayModel({ turns }), play(3));
  const whole = await requestSizes(createReplayModel({ turns }), play(Number.MAX_SAFE_INTEGER));
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const schemas = estimateTokens([], agentToolSpecs());
  return [
    {
      section: "providers",
      name: "first request: system prompt, task and the 8 tool schemas",
      value: shortened[0]!,
      unit: "tokens",
      reference: { name: "the tool schemas alone", value: schemas },
      ratio: shortened[0]! / schemas,
      ratioMeaning: "of the schemas",
    },
    {
      section: "providers",
      name: `replayed ${shortened.length}-turn run, tokens sent in all requests, old tool results shortened`,
      value: sum(shortened),
      unit: "tokens",
      reference: { name: "history kept whole", value: sum(whole) },
      ratio: sum(shortened) / sum(whole),
      ratioMeaning: "of whole history",
      note: `largest request ${Math.max(...shortened)} vs ${Math.max(...whole)} tokens`,
    },
  ];
}
