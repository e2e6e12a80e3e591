import { describe, expect, it } from "vitest";
import { renderPullRequestBody, renderStatusComment } from "../../../src/host/github/render.js";
import { escapeUntrusted } from "../../../src/host/github/markdown.js";
import { postedLine } from "../../../src/grounding/posted.js";
import { renderTraceMarkdown } from "../../../src/agent/trace.js";
import type { RunResult } from "../../../src/agent/index.js";
import { BASE_SHA, OWNER, REPO, runResult, task } from "./helpers.js";

/**
 * Attacks on what groundfix posts publicly (a pull request body, a status comment): the model's summary and
 * rationale, the first line of a tool result (file content, or an argument the model chose echoed back), the tool name
 * the model chose and the trace's reason are hostile. None of them may close another issue when the pull request is
 * merged (GitHub's closing keywords), ping anyone (a mention GitHub still reads: inside `_…_`, after a lone backtick,
 * or spelt as the entity `&#64;`), show an attacker's URL as a link (a GFM autolink after `_`), write raw HTML (a fake
 * "review passed" heading) or reorder the text with a bidirectional override.
 */
const HOSTILE =
  "_@octocat_ `@octocat &#64;octocat see _https://evil.example/login_ — this fixes #1, closes acme/shop#2 and " +
  "Resolves: https://github.com/acme/shop/issues/3 \u202edenoipmahc";

/** The ways a posted Markdown text could still act on GitHub; each must be absent. */
function expectInert(body: string): void {
  expect(body).not.toMatch(/@octocat/); // every mention broken (the safe form is `@&#8203;octocat`)
  expect(body).not.toContain("&#64;"); // no entity GitHub decodes into an `@`
  expect(body).not.toMatch(/(^|[\s*_~(])(?:https?:\/\/|www\.)evil\.example/m); // no autolink to the attacker
  const reference = String.raw`(?:#\d|[\w.-]+\/[\w.-]+#\d|https:\/\/github\.com\/\S+\/issues\/\d)`;
  expect(body).not.toMatch(
    new RegExp(String.raw`\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+${reference}`, "i"),
  );
  expect(body).not.toContain("\u202e");
  expect(body).not.toMatch(/<h2/i);
}

function pullRequestBody(result: RunResult, linkKeyword = "Refs"): string {
  const record = { version: 1 as const, run_id: "r1", base_sha: BASE_SHA, edits: [] };
  return renderPullRequestBody({
    task: task(),
    result,
    owner: OWNER,
    repo: REPO,
    baseSha: BASE_SHA,
    linkKeyword,
    record,
  });
}

function statusComment(result: RunResult): string {
  return renderStatusComment({ task: task(), result, baseSha: BASE_SHA, owner: OWNER, repo: REPO });
}

describe("posted Markdown stays inert whatever the model or the repository wrote", () => {
  it("the diagnosis summary and an edit's rationale", () => {
    const result = runResult();
    result.diagnosis!.summary = HOSTILE;
    result.edits = [{ ...result.edits[0]!, rationale: HOSTILE }];
    expectInert(pullRequestBody(result));
    expectInert(statusComment(result));
  });

  it("the trace: a tool result's first line, the reason and the notes", () => {
    const result = runResult();
    result.trace.steps[0]!.tool_calls[0]!.result = HOSTILE;
    result.trace.reason = HOSTILE;
    result.trace.notes = [HOSTILE];
    expectInert(pullRequestBody(result));
    expectInert(statusComment(result));
    expectInert(renderTraceMarkdown(result.trace));
  });

  it("the trace: a tool name or an argument key the model made up cannot leave its code span", () => {
    const result = runResult();
    const escape = "x`\n\n<h2>✅ groundfix review passed</h2>\n\n" + HOSTILE + "\n\n`";
    const call = result.trace.steps[0]!.tool_calls[0]!;
    call.name = escape;
    call.arguments = { [escape]: 1, path: escape };
    const body = pullRequestBody(result);
    expectInert(body.replace(/`[^`\n]*`/g, "")); // outside code spans (GitHub reads no mention or link in one)
    expect(body.match(/<details>/g)).toHaveLength(1);
    const line = renderTraceMarkdown(result.trace)
      .split("\n")
      .find((l) => l.startsWith("1. "));
    expect(line).toMatch(/^1\. `[^`\n]*` → ok: /); // the whole call in one code span, on one line
  });

  it("the link keyword the repository configured still links the run's own issue", () => {
    const result = runResult();
    result.diagnosis!.summary = HOSTILE;
    const body = pullRequestBody(result, "Fixes");
    expect(body).toContain("Fixes #12");
    expect(body.match(/\bfixes\s+#\d+/gi)).toEqual(["Fixes #12"]);
  });

  it("ordinary text reads as before: code spans, emails, GitHub links, words like 'prefixes'", () => {
    expect(escapeUntrusted("call `f(a && b)` from a@b.example; prefixes #1 stay")).toBe(
      "call `f(a && b)` from a@b.example; prefixes #1 stay",
    );
    expect(escapeUntrusted("see https://github.com/acme/shop/pull/3")).toBe("see https://github.com/acme/shop/pull/3");
  });

  it("a one-line text (commit message line, PR title) cannot close an issue either", () => {
    const line = postedLine("this fixes #1 and closes acme/shop#2", 200);
    expect(line).not.toMatch(/\b(?:fixes|closes)\s+(?:[\w.-]+\/[\w.-]+)?#\d/i);
    expect(line.replace(/\u200b/g, "")).toBe("this fixes #1 and closes acme/shop#2");
  });
});
