import { describe, expect, it } from "vitest";
import { droppedWarning } from "../../src/cli/fix.js";
import { escapeControls } from "../../src/cli/terminal.js";

const sha = (c: string) => c.repeat(40);

describe("the --force warning", () => {
  it("says which dropped commits were groundfix's and which were not, and counts those not looked at", () => {
    const warning = droppedWarning(
      "groundfix/x",
      [
        { sha: sha("a"), author: "Ann", subject: "my follow-up tweak", ours: false },
        { sha: sha("b"), author: "groundfix", subject: "groundfix: guard a against null in f()", ours: true },
        { sha: sha("c"), author: "Bo", subject: "wip", ours: false },
      ],
      5,
    );
    expect(warning).toBe(
      "--force replaced groundfix/x, which held commits not made by groundfix; it no longer holds 5 commits " +
        `(2 not made by groundfix: ${"a".repeat(12)} "my follow-up tweak" by "Ann", ${"c".repeat(12)} "wip" by "Bo"; ` +
        `1 of groundfix's own: ${"b".repeat(12)} "groundfix: guard a against null in f()"; 2 more, not looked at); ` +
        "they stay in the reflog (git reflog groundfix/x)",
    );
  });

  it("a hostile subject or author stays on one line, quoted, and is printed with its controls escaped", () => {
    const warning = droppedWarning(
      "groundfix/x",
      [
        {
          sha: sha("d"),
          author: "Eve\u202e\u0007",
          subject: "\u001b]8;;https://evil.example\u0007x\nforged: line",
          ours: false,
        },
      ],
      1,
    );
    expect(warning.split("\n")).toHaveLength(1);
    expect(warning).toContain('"\\u001b]8;;https://evil.example\\u0007x\\nforged: line"');
    expect(escapeControls(warning)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
  });
});
