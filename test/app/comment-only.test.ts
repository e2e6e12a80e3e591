import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { labeledIssue, startApp } from "./harness.js";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});

/** A replay transcript that reads src/cart.js, adds only a comment there and answers with `confidence`. */
function commentOnlyReplay(confidence: number): string {
  const file = join(mkdtempSync(join(tmpdir(), "groundfix-replay-")), "comment.json");
  const edit = {
    path: "src/cart.js",
    code_before: "    sum += item.price * item.qty;\n",
    code_after:
      "    // an undefined item reaches this line (see the issue's trace)\n    sum += item.price * item.qty;\n",
    rationale: "mark where the trace points",
  };
  const answer = {
    summary: "total() reads item.price of an undefined item.",
    affected_file: "src/cart.js",
    affected_function: "total",
    root_cause_snippet: "    sum += item.price * item.qty;",
    confidence,
  };
  writeFileSync(
    file,
    JSON.stringify({
      turns: [
        { tool_calls: [{ name: "get_file_contents", arguments: { path: "src/cart.js" } }] },
        { tool_calls: [{ name: "suggest_addition", arguments: edit }] },
        { tool_calls: [{ name: "submit_answer", arguments: answer }] },
      ],
    }),
  );
  return file;
}

describe("a comment-only proposal on GitHub", () => {
  it("says that no edit is proposed for merging and why, and shows the comment as a note", async () => {
    app = await startApp({}, { GROUNDFIX_MODEL: `replay:${commentOnlyReplay(0.6)}` });
    await app.receive("issues", labeledIssue());
    expect(app.fake.state.pulls).toEqual([]);
    const status = app.fake.state.comments.filter((c) => c.body.includes("<!-- groundfix:status -->"));
    expect(status).toHaveLength(1);
    const body = status[0]!.body;
    expect(body).toContain(
      "No pull request: no edit is proposed for merging, because the only edit groundfix could ground is a " +
        "comment, which changes nothing at run time (confidence 0.6 is below the pull-request threshold 0.7); " +
        "it is shown as a note, not as a fix. Comment `/groundfix approve` to open a pull request with the " +
        "comment anyway",
    );
    expect(body).toContain("#### Note: the comment it would add (not a fix)");
    expect(body).not.toContain("#### Edits");
    expect(body).toContain("an undefined item reaches this line"); // the note itself is still shown
  });
});
