/**
 * An edited file that does not parse never becomes a pull request, on GitHub as well as locally: the pipeline runs the
 * review's syntax rule on the edits in memory and stops before the host is asked to write anything.
 */
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import type { Host } from "../../src/host/types.js";
import { deliverEdits } from "../../src/pipeline/run.js";
import type { RunReport } from "../../src/pipeline/types.js";
import type { RunResult } from "../../src/agent/loop.js";
import type { Task } from "../../src/types.js";
import { buildSnapshot } from "../agent/helpers.js";

const BEFORE = "export function total(items) {\n  return items.length;\n}\n";

/** A host whose every method fails the test: nothing may be written for these edits. */
function hostThatMustNotBeCalled(name: "github" | "local"): Host {
  return new Proxy({ name } as unknown as Host, {
    get(target, prop) {
      if (prop === "name") return name;
      if (prop === "then") return undefined;
      return () => {
        throw new Error(`host.${String(prop)} was called for an edit that does not parse`);
      };
    },
  });
}

async function deliver(name: "github" | "local", after: string) {
  const task: Task = {
    source: "issue",
    key: "o/r#issue-1",
    title: "total crashes",
    body: "",
    repo: { owner: "o", name: "r" },
    number: 1,
  } as Task;
  const snapshot = await buildSnapshot({ "src/total.js": BEFORE });
  const result = {
    outcome: "pr_ready",
    diagnosis: null,
    edits: [
      {
        path: "src/total.js",
        code_before: BEFORE,
        code_after: after,
        rationale: "guard",
        startLine: 1,
        endLine: 3,
        baseStartLine: 1,
        baseEndLine: 3,
        kind: "addition",
        diff: "",
      },
    ],
    files: [{ path: "src/total.js", content: after, mode: "100644" }],
  } as unknown as RunResult;
  const report = {
    host: name,
    runId: "r1",
    status: "pull_request",
    request: { task, mode: "run", statusIssue: null, branchSuffix: "issue-1" },
    written: {},
  } as unknown as RunReport;
  const status = await deliverEdits(hostThatMustNotBeCalled(name), report, {
    task,
    result,
    snapshot,
    config: defaultConfig(),
    base: { sha: "a".repeat(40), ref: "main" },
  });
  return { status, report };
}

describe("an edit that does not parse", () => {
  for (const name of ["github", "local"] as const) {
    it(`is stopped before delivery on the ${name} host, with the syntax finding in the report`, async () => {
      const broken = "export function total(items) {\n  if (!items) {\n  return items.length;\n}\n";
      const { status, report } = await deliver(name, broken);
      expect(status).toBe("review_failed");
      expect(report.delivery).toBeUndefined();
      expect(report.review?.findings.some((f) => f.rule === "syntax" && f.level === "failure")).toBe(true);
    });
  }
});
