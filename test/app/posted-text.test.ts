/**
 * Everything groundfix posts or commits that carries the issue's text — the PR title and body, the commit message,
 * the branch name, the status comment, the check run — is redacted and escaped the same way. The attacker writes the
 * issue title.
 */
import { afterEach, describe, expect, it } from "vitest";
import { labeledIssue, startApp } from "./harness.js";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});

const TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
const TITLE = `Checkout crashes @octocat <!-- x --> [click](https://evil.example) **bold** ${TOKEN}\u202e\u0007`;

describe("a hostile issue title", () => {
  it("reaches no write in clear: PR title and body, commit, branch, status comment, check run", async () => {
    app = await startApp();
    const payload = labeledIssue();
    payload.issue.title = TITLE;
    payload.issue.body = `${payload.issue.body}\nmy token: ${TOKEN}\n`;
    await app.receive("issues", payload);
    const { state } = app.fake;
    // Every request body groundfix sent to GitHub, whatever the route.
    const sent = JSON.stringify(state.calls.map((c) => c.body ?? null));
    expect(sent).not.toContain(TOKEN);
    expect(sent).not.toContain("\u202e");

    expect(state.pulls).toHaveLength(1);
    const pr = state.pulls[0]!;
    expect(pr.title).not.toMatch(/(^|[^\u200b])@octocat/);
    expect(pr.title).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(pr.head).toBe("groundfix/issue-1");
    // In the body the title is literal inline text: no live mention, no link, no HTML comment, no bold.
    const line = pr.body.split("\n").find((l) => l.startsWith("groundfix investigated"))!;
    expect(line).toContain("@\u200boctocat");
    expect(line).toContain("&lt;\\!-- x --");
    expect(line).toContain("\\[click\\]\\(https://evil.example\\)");
    expect(line).toContain("\\*\\*bold\\*\\*");
    expect(line).toContain("\\[redacted\\]");

    const commit = state.calls.find((c) => c.route === "POST /repos/{o}/{r}/git/commits")!;
    expect(commit.body.message.split("\n")[0]).not.toMatch(/[\u0000-\u001f\u202e]/);
    expect(state.checkRuns.length).toBeGreaterThan(0);
  });
});

describe("a hostile .github/groundfix.yml", () => {
  // Key names are the config author's text, and YAML lets a quoted key hold line breaks: each bad key is quoted in
  // the status comment (and in the review check) as one line of inline code, redacted, pinging no one.
  const CONFIG = [
    `"${TOKEN}": 1`,
    '"x\\n\\n@acme/security-team please look ![p](https://attacker.example/p.png) <img src=x>": 1',
    "thresholds:",
    '  "a`` @octocat ``b": 2',
    "",
  ].join("\n");

  it("the status comment quotes each bad key on one line: no token, no mention, no image outside code", async () => {
    app = await startApp({ config: CONFIG });
    await app.receive("issues", labeledIssue());
    const comments = app.fake.state.comments.filter((c) => c.body.includes("<!-- groundfix:status -->"));
    expect(comments).toHaveLength(1);
    const body = comments[0]!.body;
    expect(body).toContain(".github/groundfix.yml` is invalid");
    expect(body).not.toContain(TOKEN);
    expect(body).toContain("[redacted]");
    const bullets = body.split("\n").filter((l) => l.startsWith("- "));
    expect(bullets).toHaveLength(2);
    // Each bullet is one inline code span that nothing closes early, so the mention and the image stay literal.
    for (const bullet of bullets) {
      const fence = /^- (`+)/.exec(bullet)![1]!;
      const inner = bullet.slice(2 + fence.length, bullet.length - fence.length);
      expect(bullet.endsWith(fence)).toBe(true);
      expect(inner.match(/`+/g) ?? []).not.toContain(fence); // no run inside closes the span early
    }
    expect(body).not.toMatch(/^@acme/m);
    expect(body).not.toContain("@acme"); // the mention is broken (and inside code)
    expect(body.split("\n").filter((l) => l.includes("acme/security-team"))).toEqual([expect.stringMatching(/^- `/)]);
  });
});
