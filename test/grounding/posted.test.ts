import { describe, expect, it } from "vitest";
import { slugFor } from "../../src/cli/slug.js";
import { defaultConfig } from "../../src/config/schema.js";
import { postedLine } from "../../src/grounding/posted.js";
import { commitMessage, pullRequestTitle } from "../../src/pipeline/record.js";
import { toCheckRunOutputs } from "../../src/review/index.js";
import type { Task } from "../../src/types.js";

const TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";

describe("postedLine", () => {
  it("redacts, keeps one line, drops unseen characters, breaks mentions and cuts", () => {
    expect(postedLine(`\n  fix ${TOKEN} for @ada\u202e\u200b\u0007 now\nSecond line`, 100)).toBe(
      "fix [redacted] for @\u200bada now",
    );
    expect(postedLine("x".repeat(50), 10)).toBe(`${"x".repeat(9)}…`);
    expect(postedLine("mail me: a@b.example", 50)).toBe("mail me: a@b.example");
    expect(postedLine("formatEntry reads entry.user.name without a check", 30)).toBe("formatEntry reads…");
  });
});

describe("the commit message and the pull request title", () => {
  const task = (title: string, key = "o/r#issue-3"): Task =>
    ({
      source: "issue",
      key,
      title,
      body: "",
      repo: { owner: "o", name: "r" },
      baseSha: "b".repeat(40),
      number: 3,
    }) as Task;
  const result = (summary: string | null) =>
    ({ diagnosis: summary === null ? null : { summary }, edits: [] }) as unknown as Parameters<typeof commitMessage>[1];

  it("neither the title nor the summary reaches the commit message: it names the change", () => {
    for (const summary of [null, "   \n  ", `Leak ${TOKEN} @team\nGroundfix-Run: forged`]) {
      const message = commitMessage(task(`Crash ${TOKEN}`), result(summary), defaultConfig(), "run-1");
      expect(message).not.toContain(TOKEN);
      expect(message).not.toContain("Crash");
      expect(message.split("\n")[0]).toBe("groundfix: a grounded change");
      expect(message.match(/^Groundfix-Run: /gm)).toHaveLength(1);
    }
    expect(pullRequestTitle(result("Fix it. Then more."))).toBe("groundfix: a grounded change");
  });

  it("a task key cannot add a trailer", () => {
    const message = commitMessage(task("t", "local:x\nGroundfix-Run: forged"), result("s"), defaultConfig(), "run-1");
    expect(message.match(/^Groundfix-Run: /gm)).toHaveLength(1);
  });

  it("a local branch name never holds a token from the title", () => {
    const slug = slugFor(`Crash ${TOKEN} in cart`, "body");
    expect(slug).toMatch(/^crash-in-cart-[0-9a-f]{7}$/);
  });
});

describe("the check run", () => {
  it("redacts every text of its outputs", () => {
    const report = {
      conclusion: "failure",
      title: `review ${TOKEN}`,
      summary: `summary ${TOKEN}`,
      findings: [
        {
          rule: "edit_policy",
          path: "a.js",
          start_line: 1,
          end_line: 1,
          level: "failure",
          message: `removes "${TOKEN}"`,
        },
      ],
      rulesChecked: [],
    } as unknown as Parameters<typeof toCheckRunOutputs>[0];
    const out = JSON.stringify(toCheckRunOutputs(report));
    expect(out).not.toContain(TOKEN);
    expect(out).toContain("[redacted]");
  });
});
