import { runAgent, type RunResult } from "../../../src/agent/index.js";
import { createHeuristicModel } from "../../../src/agent/models/heuristic.js";
import type { Task } from "../../../src/types.js";
import { buildSnapshot, config, SHA } from "../helpers.js";

/** An issue task on the test repository `acme/x` at the pinned commit. */
export const issueTask = (title: string, body: string): Task => ({
  source: "issue",
  key: "acme/x#issue-3",
  title,
  body,
  repo: { owner: "acme", name: "x" },
  baseSha: SHA,
});

/** One run of the heuristic model on a repository the test builds (`files`: path → text) and an issue. */
export async function runHeuristic(files: Record<string, string>, title: string, body: string): Promise<RunResult> {
  return runAgent({
    task: issueTask(title, body),
    snapshot: await buildSnapshot(files),
    model: createHeuristicModel(),
    config: config(),
  });
}
