/**
 * `groundfix fix` and `groundfix review` on a checkout whose file starts with a UTF-8 byte-order mark: an addition
 * before line 1, after line 1, in the middle and at the end each ends as a commit whose blob is exactly the base's
 * bytes plus the added lines (one BOM, at offset 0), the report shows only the added lines, the review passes, and
 * `review` of the branch (git's own diff, which shows line 1 removed and added again) passes too.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFix } from "../../src/cli/fix.js";
import { fixToJson } from "../../src/cli/json.js";
import { renderFixReport } from "../../src/cli/render.js";
import { styleFor } from "../../src/cli/style.js";
import { runReview } from "../../src/cli/review.js";
import { makeRepo } from "../host/local/git-repo.js";

const BOM = "\uFEFF";
const BODY = "const items = load();\nrun(items);\nfinish(items);\n";

/** A replay model that reads src/a.js, makes one addition and answers at 0.95 (a pull request, if it applies). */
function replay(code_before: string, code_after: string): string {
  const file = join(mkdtempSync(join(tmpdir(), "groundfix-replay-")), "bom.json");
  const edit = { path: "src/a.js", code_before, code_after, rationale: "check the items" };
  const answer = {
    summary: "run() reads items that load() may not return.",
    affected_file: "src/a.js",
    affected_function: null,
    root_cause_snippet: "run(items);",
    confidence: 0.95,
  };
  const turns = [
    { tool_calls: [{ name: "get_file_contents", arguments: { path: "src/a.js" } }] },
    { tool_calls: [{ name: "suggest_addition", arguments: edit }] },
    { tool_calls: [{ name: "submit_answer", arguments: answer }] },
  ];
  writeFileSync(file, JSON.stringify({ turns }));
  return file;
}

/** The bytes of `path` in `rev` (a blob read with git cat-file, no decoding). */
function blob(dir: string, rev: string, path: string): Buffer {
  return execFileSync("git", ["-C", dir, "cat-file", "blob", `${rev}:${path}`]);
}

const utf8 = (s: string) => Buffer.from(s, "utf8");
const EF_BB_BF = Buffer.from([0xef, 0xbb, 0xbf]);

describe("groundfix fix on a file that starts with a byte-order mark", () => {
  const cases: [string, string, string, string, string][] = [
    ["before line 1", "const items = load();", "check(items);\nconst items = load();", "check(items);", "\n"],
    ["after line 1", "const items = load();\n", "const items = load();\ncheck(items);\n", "check(items);", "\n"],
    ["in the middle", "run(items);", "check(items);\nrun(items);", "check(items);", "\n"],
    ["at the end", "finish(items);\n", "finish(items);\ndone(items);\n", "done(items);", "\n"],
    [
      "before line 1 of a CRLF file",
      "const items = load();",
      "check(items);\nconst items = load();",
      "check(items);",
      "\r\n",
    ],
  ];
  for (const [name, before, after, added, eol] of cases) {
    it(name, async () => {
      const body = BODY.replaceAll("\n", eol);
      const { dir, base } = makeRepo({ "src/a.js": BOM + body, "package.json": '{"name":"a","version":"1.0.0"}\n' });
      const report = await runFix({
        repoDir: dir,
        title: "run crashes",
        body: "TypeError in run()",
        model: `replay:${replay(before, after)}`,
        env: {},
      });
      expect(report.result.gates.rejections.filter((r) => r.gate !== "claims")).toEqual([]);
      expect(report.status).toBe("pr_ready");
      expect(report.review?.conclusion).toBe("success");
      expect(report.review?.findings).toEqual([]);

      // The commit's blob: the base bytes with the added line, the BOM once, at offset 0.
      const expected = BOM + body.replace(before.replaceAll("\n", eol), after.replaceAll("\n", eol));
      const bytes = blob(dir, report.delivery!.branch, "src/a.js");
      expect(bytes.subarray(0, 3)).toEqual(EF_BB_BF);
      expect(bytes.indexOf(EF_BB_BF, 1)).toBe(-1);
      expect(bytes).toEqual(utf8(expected));
      expect(blob(dir, base, "src/a.js")).toEqual(Buffer.concat([EF_BB_BF, utf8(body)]));

      // The report a person reads shows only the added line.
      const text = renderFixReport(report, styleFor({ isTTY: false }));
      const rows = text.split("\n").map((l) => l.trim());
      expect(rows.filter((l) => /^[+-](?![+-]{2} )/.test(l))).toEqual([`+${added}`]);
      expect(text).not.toContain(BOM);

      // `fix --json`: its diff applies to the base bytes with git apply and gives the commit's blob.
      const doc = fixToJson(report);
      writeFileSync(join(dir, "edit.diff"), doc.edits[0]!.diff);
      execFileSync("git", ["-C", dir, "apply", "--check", "edit.diff"]);

      // `groundfix review` of the branch reads git's own diff, which shows line 1 removed and re-added for the
      // first case: the review still sees one added line.
      const review = await runReview({ repoDir: dir, base: "main", head: report.delivery!.branch });
      expect(review.review.findings).toEqual([]);
      expect(review.review.conclusion).toBe("success");
    });
  }
});
