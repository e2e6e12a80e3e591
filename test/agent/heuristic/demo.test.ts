import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Script } from "node:vm";
import { describe, expect, it } from "vitest";
import { runAgent } from "../../../src/agent/index.js";
import { createHeuristicModel } from "../../../src/agent/models/heuristic.js";
import { buildSnapshot, config, SHA } from "../helpers.js";
import { addedLines, expectReadable } from "./readable.js";

const EXAMPLES = fileURLToPath(new URL("../../../examples/", import.meta.url));

function readTree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full).split("\\").join("/")] = readFileSync(full, "utf8");
    }
  };
  walk(dir);
  return out;
}

describe("heuristic model on the shipped demo (examples/demo-service + examples/demo-issue.md)", () => {
  it(
    "passes over the in-repo schema library that emits " + "the warning and cites the model that declares `errors`",
    async () => {
      const files = readTree(join(EXAMPLES, "demo-service"));
      const [title = "", ...rest] = readFileSync(join(EXAMPLES, "demo-issue.md"), "utf8").split("\n");
      const snapshot = await buildSnapshot(files);
      const result = await runAgent({
        task: {
          source: "local",
          key: "local:demo",
          title,
          body: rest.join("\n"),
          repo: { owner: "local", name: "demo" },
          baseSha: SHA,
        },
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
      expect(result.diagnosis?.affected_file).toBe("models/ValidationLog.js");
      // the root cause is the line that declares the reserved field (line 10); the frame line 6 is cited through the
      // edit's anchor
      const lines = (files["models/ValidationLog.js"] ?? "").split("\n");
      const declaring = lines.findIndex((l) => /^\s*errors:/.test(l)) + 1;
      expect(result.diagnosis?.root_cause_snippet).toBe(lines[declaring - 1]);
      expect(result.diagnosis?.citations[0]).toEqual({
        path: "models/ValidationLog.js",
        start_line: declaring,
        end_line: declaring,
      });
      expect(result.diagnosis?.citations.some((c) => c.start_line <= 6 && c.end_line >= 6)).toBe(true);
      expect(result.diagnosis?.summary).toContain(
        `\`models/ValidationLog.js\` declares \`errors\` (line ${declaring})`,
      );
      expectReadable(result, rest.join("\n").match(/Warning: .*/)?.[0] ?? "");
      expect(addedLines(result)).toEqual([
        "// groundfix: `errors` is a reserved schema pathname (see " +
          "the warning in the issue); the statement below declares it.",
        // comments only: a startup log line would be one more startup warning, the very thing the issue complains about
        "// Fix options: rename `errors` (and its uses), or pass `suppressReservedKeysWarning` as a schema option.",
      ]);
      // comments change nothing at run time: the addition is proposed, below the pull-request threshold (0.7)
      expect(result.outcome).toBe("diagnosis_only");
      expect(result.diagnosis?.confidence).toBeLessThan(0.7);
      expect(result.edits.map((e) => e.path)).toEqual(["models/ValidationLog.js"]);
      const after = result.files[0]?.content ?? "";
      expect(() => new Script(after)).not.toThrow();
      expect(result.gates.rejections).toEqual([]);
    },
  );
});
