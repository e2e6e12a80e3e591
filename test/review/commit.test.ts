import { describe, expect, test } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import type { CommitSource } from "../../src/review/commit.js";
import { reviewCommit } from "../../src/review/index.js";
import type { FilePatch, RunRecord, Snapshot } from "../../src/types.js";
import { gitChange } from "./helpers.js";

describe("reviewCommit", () => {
  const base = "export const a = 1;\n";
  const edited = base + "export const b = 2;\n";
  const record: RunRecord = {
    version: 1,
    run_id: "r",
    base_sha: "BASE",
    head_sha: "APP",
    edits: [{ path: "src/a.ts", start_line: 1, end_line: 1, code_before: base, code_after: edited }],
  };
  /** A source with the app's commit APP on BASE, and `heads` (name → files) with the diff from `from` to each. */
  function source(heads: Record<string, { from: string; files: Record<string, string> }>, calls: string[] = []) {
    const own = gitChange({ "src/a.ts": base }, { "src/a.ts": edited });
    const snaps = new Map<string, Snapshot>([
      ["BASE", own.base],
      ["APP", own.head],
    ]);
    const diffs = new Map<string, FilePatch[]>([["BASE..APP", own.patches]]);
    for (const [name, { from, files }] of Object.entries(heads)) {
      const change = gitChange(snaps.get(from) ? filesOf(snaps.get(from)!) : {}, files);
      snaps.set(name, { ...change.head, sha: name });
      diffs.set(`${from}..${name}`, change.patches);
    }
    const host: CommitSource = {
      loadSnapshot: async (sha) => (calls.push(`snap ${sha}`), snaps.get(sha)!),
      diff: async (b, h) => (calls.push(`diff ${b}..${h}`), diffs.get(`${b}..${h}`)!),
    };
    return host;
  }
  const filesOf = (s: Snapshot) => Object.fromEntries(s.paths.map((p) => [p, s.read(p)!]));

  test("with a human commit on top, evidence replays the record on the app's commit and the whole range", async () => {
    const calls: string[] = [];
    const host = source(
      { HUMAN: { from: "BASE", files: { "src/a.ts": edited + "export const human = 3;\n" } } },
      calls,
    );
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
    // The app's own commit matches the record; the human line on top does not.
    expect(report.findings.map((f) => [f.rule, f.path, f.start_line])).toEqual([["evidence", "src/a.ts", 3]]);
    expect(report.conclusion).toBe("failure");
  });

  test("a record edited to explain the human commit no longer matches the app's own commit", async () => {
    const human = edited + "export const human = 3;\n";
    const host = source({ HUMAN: { from: "BASE", files: { "src/a.ts": human } } });
    const forged: RunRecord = { ...record, edits: [{ ...record.edits[0]!, code_after: human }] };
    const report = await reviewCommit(host, {
      baseSha: "BASE",
      headSha: "HUMAN",
      config: defaultConfig(),
      record: forged,
    });
    const evidence = report.findings.filter((f) => f.rule === "evidence");
    // APP lacks the forged line: shown at APP's last line, named as the app's own commit.
    expect(evidence.map((f) => f.start_line)).toEqual([2]);
    expect(evidence[0]!.message).toMatch(/^groundfix's own commit APP: src\/a\.ts lacks "export const human/);
    expect(report.conclusion).toBe("failure");
  });

  test("the base branch merged into the pull request passes when the edits replay the same on it", async () => {
    const host = source({
      NEWBASE: { from: "BASE", files: { "src/a.ts": base, "README.md": "hello\n" } },
      MERGED: { from: "NEWBASE", files: { "src/a.ts": edited, "README.md": "hello\n" } },
    });
    const report = await reviewCommit(host, { baseSha: "NEWBASE", headSha: "MERGED", config: defaultConfig(), record });
    expect(report.findings).toEqual([]);
    expect(report.conclusion).toBe("success");
  });
});
