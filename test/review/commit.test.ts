import { describe, expect, test } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import type { CommitSource } from "../../src/review/commit.js";
import { reviewCommit } from "../../src/review/index.js";
import type { FilePatch, RunRecord, Snapshot } from "../../src/types.js";
import { gitChange } from "./helpers.js";

describe("reviewCommit", () => {
  test("reviews source.diff against both snapshots; evidence uses only the app's own commit", async () => {
    const base = "export const a = 1;\n";
    const own = gitChange({ "src/a.ts": base }, { "src/a.ts": base + "export const b = 2;\n" });
    const all = gitChange(
      { "src/a.ts": base },
      { "src/a.ts": base + "export const b = 2;\nexport const human = 3;\n" },
    );
    const snaps = new Map<string, Snapshot>([
      ["BASE", own.base],
      ["APP", own.head],
      ["HUMAN", all.head],
    ]);
    const diffs = new Map<string, FilePatch[]>([
      ["BASE..APP", own.patches],
      ["BASE..HUMAN", all.patches],
    ]);
    const calls: string[] = [];
    const host: CommitSource = {
      loadSnapshot: async (sha) => (calls.push(`snap ${sha}`), snaps.get(sha)!),
      diff: async (b, h) => (calls.push(`diff ${b}..${h}`), diffs.get(`${b}..${h}`)!),
    };
    const record: RunRecord = {
      version: 1,
      run_id: "r",
      base_sha: "BASE",
      head_sha: "APP",
      edits: [
        { path: "src/a.ts", start_line: 1, end_line: 1, code_before: base, code_after: base + "export const b = 2;\n" },
      ],
    };
    const report = await reviewCommit(host, { baseSha: "BASE", headSha: "HUMAN", config: defaultConfig(), record });
    // The evidence rule replays the record on the app's own commit: its two snapshots are read too.
    expect(calls.sort()).toEqual([
      "diff BASE..APP",
      "diff BASE..HUMAN",
      "snap APP",
      "snap BASE",
      "snap BASE",
      "snap HUMAN",
    ]);
    expect(report.rulesChecked).toContain("evidence");
    expect(report.findings).toEqual([]);
    expect(report.conclusion).toBe("success");

    const noOwn = await reviewCommit(host, {
      baseSha: "BASE",
      headSha: "HUMAN",
      config: defaultConfig(),
      record: { ...record, head_sha: undefined } as RunRecord,
    });
    expect(noOwn.findings.map((f) => [f.rule, f.path, f.start_line])).toEqual([["evidence", "src/a.ts", 3]]);
    expect(noOwn.conclusion).toBe("failure");
  });
});
