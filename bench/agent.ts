/**
 * Agent: wall time and tool-output tokens of the heuristic model on the demo repository, and of each replay
 * transcript of the test suite over the repository those transcripts were written for. Tokens are estimated as
 * characters / 4 where the model reports none (heuristic and replay report none).
 *
 * References in the same run: for wall time, a replay of the heuristic's own recorded turns (the same tool calls
 * without the heuristic's reasoning); for tokens, the whole repository read once (what a model that "reads
 * everything" would be sent).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { runAgent } from "../src/agent/index.js";
import { createModel } from "../src/agent/models/index.js";
import { createReplayModel } from "../src/agent/models/replay.js";
import { defaultConfig, parseConfig } from "../src/config/schema.js";
import type { Snapshot, Task } from "../src/types.js";
import { buildSnapshot, REPO as TEST_REPO, task as testTask } from "../test/agent/helpers.js";
import { type BenchRow, timeMedian } from "./lib.js";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out[relative(dir, full)] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}

const tokens = (chars: number) => Math.round(chars / 4);

function toolOutputChars(result: Awaited<ReturnType<typeof runAgent>>): number {
  return result.trace.steps.reduce((sum, s) => sum + s.tool_calls.reduce((n, c) => n + c.result_chars, 0), 0);
}

function repoChars(snapshot: Snapshot): number {
  return snapshot.paths.reduce((sum, p) => sum + (snapshot.read(p)?.length ?? 0), 0);
}

export async function benchAgent(runs: number): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const config = defaultConfig();

  // The demo: heuristic, then a replay of its own recorded turns.
  const demoFiles = filesUnder(join(ROOT, "examples", "demo-service"));
  const demo = await buildSnapshot(demoFiles);
  const issue = readFileSync(join(ROOT, "examples", "demo-issue.md"), "utf8");
  const [title, ...rest] = issue.split("\n");
  const demoTask: Task = {
    source: "local",
    key: "local:demo",
    title: title!,
    body: rest.join("\n"),
    repo: { owner: "local", name: "demo-service" },
    baseSha: demo.sha,
  };
  const heuristic = await runAgent({ task: demoTask, snapshot: demo, model: createModel("heuristic"), config });
  const heuristicMs = await timeMedian(runs, () =>
    runAgent({ task: demoTask, snapshot: demo, model: createModel("heuristic"), config }),
  );
  const replayMs = await timeMedian(runs, () =>
    runAgent({ task: demoTask, snapshot: demo, model: createReplayModel(heuristic.transcript), config }),
  );
  rows.push({
    section: "agent",
    name: `heuristic on the demo repo (${heuristic.outcome}, ${heuristic.usage.tool_calls} tool calls)`,
    value: heuristicMs,
    unit: "ms",
    reference: { name: "replay of its turns", value: replayMs },
    ratio: heuristicMs / replayMs,
    ratioMeaning: "of replay",
  });
  const demoTokens = tokens(toolOutputChars(heuristic));
  const demoRepoTokens = tokens(repoChars(demo));
  rows.push({
    section: "agent",
    name: "heuristic on the demo repo: tool-output tokens",
    value: demoTokens,
    unit: "tokens",
    reference: { name: "whole repo once", value: demoRepoTokens },
    ratio: demoTokens / demoRepoTokens,
    ratioMeaning: "of the whole repo",
  });

  // The replay transcripts of the test suite, over the repository they were written for.
  const testSnapshot = await buildSnapshot(TEST_REPO);
  const testRepoTokens = tokens(repoChars(testSnapshot));
  const dir = join(ROOT, "test", "fixtures", "transcripts");
  // The one transcript whose test runs it with another config (test/agent/replay-gates.test.ts, case f).
  const configFor = (name: string) =>
    name.startsWith("f-empty-tool-name-set") ? parseConfig({ agent: { required_tools: [] } }) : config;
  for (const name of readdirSync(dir)
    .filter((n) => n.endsWith(".json"))
    .sort()) {
    const file = join(dir, name);
    const run = () =>
      runAgent({
        task: testTask(),
        snapshot: testSnapshot,
        model: createModel(`replay:${file}`),
        config: configFor(name),
      });
    const result = await run();
    const ms = await timeMedian(runs, run);
    const t = tokens(toolOutputChars(result));
    rows.push({
      section: "agent",
      name: `replay ${name.replace(/\.json$/, "")} (${result.outcome})`,
      value: ms,
      unit: "ms",
      note: `${t} tool-output tokens = ${(t / testRepoTokens).toFixed(2)}× the repo (${testRepoTokens})`,
    });
  }
  return rows;
}
