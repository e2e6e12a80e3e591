/**
 * A fresh base, on a checkout: the branch HEAD names moves while the agent investigates (the test commits on it when
 * the run reports that it starts investigating). Before committing, the pipeline reads the branch again and applies
 * every edit anew on its head: the same verbatim rule (`code_before` found exactly once), or no branch at all.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { runFix, type FixReport } from "../../src/cli/fix.js";
import { fixToJson } from "../../src/cli/json.js";
import { renderFixReport } from "../../src/cli/render.js";
import { styleFor } from "../../src/cli/style.js";
import { defaultConfig } from "../../src/config/schema.js";
import { reapplyEdits } from "../../src/pipeline/fresh-base.js";
import type { AppliedEdit } from "../../src/types.js";
import { CRASH_BODY, SHOP_FILES } from "../app/harness.js";
import { makeRepo, sh } from "../host/local/git-repo.js";

const TITLE = "Checkout crashes with TypeError";
const CART = SHOP_FILES["src/cart.js"];
const ANCHOR = "    sum += item.price * item.qty;\n";

/** Commit `files` (null deletes one) on the checked-out branch; returns the new head. */
function commit(dir: string, files: Record<string, string | null>, message = "maintainer change"): string {
  for (const [path, content] of Object.entries(files)) {
    if (content === null) sh(dir, "rm", "-q", path);
    else {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    }
  }
  sh(dir, "add", "-A");
  sh(dir, "commit", "-q", "-m", message);
  return sh(dir, "rev-parse", "HEAD");
}

/** `groundfix fix` on the crash report; `duringRun` runs once, when the agent starts reading code at the base. */
async function fix(dir: string, duringRun?: () => void): Promise<FixReport> {
  let moved = false;
  return runFix({
    repoDir: dir,
    title: TITLE,
    body: CRASH_BODY,
    env: {},
    onProgress: (message) => {
      if (!moved && message.includes("reading code at")) {
        moved = true;
        duringRun?.();
      }
    },
  });
}

const branchOf = (report: FixReport) => `groundfix/${report.task.key.replace(/^local:/, "")}`;
const branchExists = (dir: string, branch: string) => {
  try {
    sh(dir, "rev-parse", "--verify", "-q", `refs/heads/${branch}`);
    return true;
  } catch {
    return false;
  }
};

/** The content the run writes into src/cart.js on the unmoved base: the maintainer's "same fix". */
async function fixedCart(): Promise<string> {
  const repo = makeRepo(SHOP_FILES);
  const report = await fix(repo.dir);
  expect(report.status).toBe("pr_ready");
  return report.result.files.find((f) => f.path === "src/cart.js")!.content;
}

describe("a fresh base on a checkout", () => {
  it("head unmoved: the commit is on the investigated base, as before, and nothing says the base moved", async () => {
    const repo = makeRepo(SHOP_FILES);
    const report = await fix(repo.dir);
    expect(report.status).toBe("pr_ready");
    expect(report.baseMoved).toBeNull();
    expect(report.baseSha).toBe(repo.base);
    expect(sh(repo.dir, "rev-parse", `${report.delivery!.headSha}^`)).toBe(repo.base);
    expect(fixToJson(report).base_moved).toBeNull();
  });

  it(
    "head moved with an unrelated change: the edit is applied " + "again on the new head, which is the commit's parent",
    async () => {
      const repo = makeRepo(SHOP_FILES);
      let head = "";
      // Two lines above the anchor (so its line moves from 4 to 6) and a file the run never read.
      const movedCart = `// Shopping cart.\n"use strict";\n${CART}`;
      const report = await fix(repo.dir, () => {
        head = commit(repo.dir, { "src/cart.js": movedCart, "CHANGELOG.md": "## 1.0.1\n" });
      });

      expect(report.status).toBe("pr_ready");
      expect(report.baseMoved).toEqual({ from: repo.base, to: head });
      expect(report.baseSha).toBe(head);
      const commitSha = report.delivery!.headSha;
      expect(sh(repo.dir, "rev-parse", `${commitSha}^`)).toBe(head);
      // The commit holds the maintainer's change and the edit on top of it; its diff against the new head is the edit.
      expect(sh(repo.dir, "show", `${commitSha}:CHANGELOG.md`)).toBe("## 1.0.1");
      const edit = report.result.edits[0]!;
      const expected = movedCart.replace(ANCHOR, `${edit.code_after}\n`);
      expect(sh(repo.dir, "show", `${commitSha}:src/cart.js`)).toBe(expected.replace(/\n$/, ""));
      expect(sh(repo.dir, "diff", "--stat", head, commitSha)).toBe(
        "src/cart.js | 3 +++\n 1 file changed, 3 insertions(+)",
      );
      // Lines and diff are those of the new head; the commit message names it as the base.
      expect(edit).toMatchObject({ baseStartLine: 6, baseEndLine: 6, startLine: 6 });
      expect(edit.diff).toMatch(/\n@@ -3,\d+ \+3,\d+ @@\n function total\(items\) \{\n/);
      expect(sh(repo.dir, "log", "-1", "--format=%B", commitSha)).toContain(`Groundfix-Base: ${head}`);
      // The review ran against the new head: it passed on the edit at its new lines.
      expect(report.review?.conclusion).toBe("success");

      const json = fixToJson(report);
      expect(json).toMatchObject({ status: "pr_ready", base_sha: head, base_moved: { from: repo.base, to: head } });
      expect(json.edits[0]).toMatchObject({ start_line: 6, end_line: 6 });
      expect(report.notes.join("\n")).toContain(
        `the base HEAD moved from ${repo.base.slice(0, 12)} to ` +
          `${head.slice(0, 12)} during the run; every edit was applied again there`,
      );
      expect(renderFixReport(report, styleFor({ isTTY: false }))).toContain(
        `${head.slice(0, 12)} (HEAD; moved from ${repo.base.slice(0, 12)} during the run)`,
      );
    },
  );

  it(
    "head moved touching the anchor: no branch, and the " + "report says which edit no longer applies and why",
    async () => {
      const repo = makeRepo(SHOP_FILES);
      let head = "";
      const report = await fix(repo.dir, () => {
        head = commit(repo.dir, { "src/cart.js": CART.replace("item.qty", "item.quantity") });
      });
      expect(report.status).toBe("outdated");
      expect(report.delivery).toBeNull();
      expect(branchExists(repo.dir, branchOf(report))).toBe(false);
      expect(report.deliveryNote).toBe(
        `the base HEAD moved from ${repo.base.slice(0, 12)} to ${head.slice(0, 12)} during ` +
          `the run and edit 1 to src/cart.js no longer applies there: its code_before is no ` +
          `longer in the file verbatim; nothing written; run again to investigate the new head`,
      );
      expect(fixToJson(report)).toMatchObject({ status: "outdated", base_moved: { from: repo.base, to: head } });
    },
  );

  it("the fix already on the new head: no branch, and the report says the new head already holds it", async () => {
    const fixed = await fixedCart();
    const repo = makeRepo(SHOP_FILES);
    let head = "";
    const report = await fix(repo.dir, () => {
      head = commit(repo.dir, { "src/cart.js": fixed }, "maintainer: guard against a missing item");
    });
    expect(report.status).toBe("already_fixed");
    expect(report.delivery).toBeNull();
    expect(branchExists(repo.dir, branchOf(report))).toBe(false);
    expect(report.deliveryNote).toMatch(
      new RegExp(
        `to ${head.slice(0, 12)} during the run and ${head.slice(0, 12)} ` +
          `already holds this fix \\(src/cart\\.js:4-7\\); nothing written$`,
      ),
    );
  });

  it("hostile: the new head makes the anchor appear twice, so it no longer names one place: no branch", async () => {
    const repo = makeRepo(SHOP_FILES);
    const twice = CART.replace(
      "module.exports",
      "function subtotal(items) {\n  let sum = 0;\n  for (const item of items) {\n " +
        "   sum += item.price * item.qty;\n  }\n  return sum;\n}\n\nmodule.exports",
    );
    const report = await fix(repo.dir, () => commit(repo.dir, { "src/cart.js": twice }));
    expect(report.status).toBe("outdated");
    expect(branchExists(repo.dir, branchOf(report))).toBe(false);
    expect(report.deliveryNote).toContain("its code_before now occurs 2 times (lines 4, 12)");
  });

  it("hostile: the same addition would take over a loop's body on the new head: outdated, no branch", async () => {
    // The anchor is still there once, but the maintainer made the loop brace-less: the guard inserted before the
    // anchor would become the loop's body, and the existing `sum += …` would run once, after the loop.
    const repo = makeRepo(SHOP_FILES);
    let head = "";
    const braceless = CART.replace("  for (const item of items) {\n", "  for (const item of items)\n").replace(
      "    sum += item.price * item.qty;\n  }\n",
      "    sum += item.price * item.qty;\n",
    );
    const report = await fix(repo.dir, () => {
      head = commit(repo.dir, { "src/cart.js": braceless });
    });
    expect(report.status).toBe("outdated");
    expect(report.delivery).toBeNull();
    expect(branchExists(repo.dir, branchOf(report))).toBe(false);
    expect(report.deliveryNote).toContain(
      `to ${head.slice(0, 12)} during the run and edit 1 to src/cart.js no longer applies there: applied there it ` +
        "would change existing code (src/cart.js line 4: the added line 4 changes how the existing for of statement",
    );
  });

  it("the edited file deleted on the new head: no branch", async () => {
    const repo = makeRepo(SHOP_FILES);
    const report = await fix(repo.dir, () => commit(repo.dir, { "src/cart.js": null }));
    expect(report.status).toBe("outdated");
    expect(report.deliveryNote).toContain(
      "edit 1 to src/cart.js no longer applies there: the file is no longer a text file there",
    );
  });

  it("switching branches during the run does not move the base onto the other branch", async () => {
    const repo = makeRepo(SHOP_FILES);
    const report = await fix(repo.dir, () => {
      sh(repo.dir, "checkout", "-q", "-b", "elsewhere");
      commit(repo.dir, { "src/cart.js": CART.replace("item.qty", "item.quantity") });
    });
    expect(report.status).toBe("pr_ready");
    expect(report.baseMoved).toBeNull();
    expect(sh(repo.dir, "rev-parse", `${report.delivery!.headSha}^`)).toBe(repo.base);
  });
});

describe("reapplyEdits (the verbatim rule on the new head's files)", () => {
  const config = defaultConfig();
  const edit = (path: string, before: string, after: string): AppliedEdit => ({
    path,
    code_before: before,
    code_after: after,
    rationale: "guard",
    startLine: 1,
    endLine: 1,
    baseStartLine: 1,
    baseEndLine: 1,
    kind: "addition",
    diff: "",
  });
  const file = (path: string, content: string, mode = "100644") => ({ path, content, mode });

  it("applies a second edit of the same file on what the first left, and keeps the new head's mode", () => {
    const edits = [
      edit("a.sh", "one\n", "one\nguard one\n"),
      edit("a.sh", "guard one\ntwo\n", "guard one\ntwo\nguard two\n"),
    ];
    const head = new Map([["a.sh", { content: "zero\none\ntwo\n", mode: "100755" }]]);
    const out = reapplyEdits(edits, [file("a.sh", "unused")], head, config);
    expect(out).toMatchObject({
      kind: "moved",
      files: [{ path: "a.sh", content: "zero\none\nguard one\ntwo\nguard two\n", mode: "100755" }],
      baseFiles: [{ path: "a.sh", content: "zero\none\ntwo\n", mode: "100755" }],
    });
    if (out.kind !== "moved") throw new Error("moved expected");
    expect(out.edits.map((e) => [e.startLine, e.baseStartLine])).toEqual([
      [2, 2],
      [3, undefined], // anchored partly on a line the first edit wrote: no single span of the new head
    ]);
  });

  it("keeps the investigated mode when the host cannot tell (GitHub)", () => {
    const out = reapplyEdits(
      [edit("a", "x\n", "x\ny\n")],
      [file("a", "", "100755")],
      new Map([["a", { content: "x\n" }]]),
      config,
    );
    expect(out).toMatchObject({ kind: "moved", files: [{ mode: "100755" }] });
  });

  it("only part of the fix on the new head is not the fix: outdated, naming the edit that is there", () => {
    const edits = [edit("a", "alpha();\n", "alpha();\ncheckA();\n"), edit("b", "beta();\n", "beta();\ncheckB();\n")];
    const head = new Map([
      ["a", { content: "alpha();\ncheckA();\n" }],
      ["b", { content: "beta();\n" }],
    ]);
    expect(reapplyEdits(edits, [file("a", ""), file("b", "")], head, config)).toEqual({
      kind: "outdated",
      path: "a",
      edit: 1,
      why: "only part of the fix is there (edit 1 is already at lines 1-2, the others are not)",
    });
  });

  it("an anchor that would now remove a line under edits.allow: additions is outdated", () => {
    // At the investigated commit "a" ended the file; on the new head a line follows, which the edit would join.
    const out = reapplyEdits(
      [edit("a", "a\n", "a\nnew")],
      [file("a", "")],
      new Map([["a", { content: "a\nb\n" }]]),
      config,
    );
    expect(out).toMatchObject({ kind: "outdated", why: "applied there it would remove or alter existing lines" });
  });
});
