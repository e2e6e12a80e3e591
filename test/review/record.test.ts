import { describe, expect, test } from "vitest";
import { decodeRunRecord, encodeRunRecord } from "../../src/review/index.js";
import type { RunRecord } from "../../src/types.js";

const record: RunRecord = {
  version: 1,
  run_id: "run-42",
  base_sha: "a".repeat(40),
  head_sha: "c".repeat(40),
  edits: [
    { path: "src/é.ts", start_line: 3, end_line: 4, code_before: "}\n", code_after: "}\n// --> not a comment end\n" },
  ],
};

describe("run record in a pull request body", () => {
  test("round-trips inside a body as a hidden HTML comment", () => {
    const comment = encodeRunRecord(record);
    expect(comment).toMatch(/^<!-- groundfix:run [A-Za-z0-9+/=]+ -->$/);
    const body = `Fixes a bug.\n\n${comment}\n\nRefs #12`;
    expect(decodeRunRecord(body)).toEqual(record);
  });

  test("anything malformed decodes to null", () => {
    const comment = encodeRunRecord(record);
    const b64 = /groundfix:run (\S+)/.exec(comment)![1]!;
    const variants = [
      "no record here",
      comment.replace(b64, b64.slice(0, -8)), // hand-truncated
      comment.replace(b64, b64.replace(/[A-Z]/, "!")), // a stray character
      `<!-- groundfix:run ${Buffer.from("{not json").toString("base64")} -->`,
      `<!-- groundfix:run ${Buffer.from(JSON.stringify({ ...record, version: 2 })).toString("base64")} -->`,
      `<!-- groundfix:run ${Buffer.from(JSON.stringify({ ...record, edits: [{ path: "a" }] })).toString("base64")} -->`,
      `<!-- groundfix:run ${Buffer.from(JSON.stringify({ ...record, extra: true })).toString("base64")} -->`,
      `<!-- groundfix:run ${Buffer.from("null").toString("base64")} -->`,
    ];
    for (const body of variants) expect(decodeRunRecord(body)).toBeNull();
  });
});
