/**
 * Everything groundfix posts or commits that carries the issue's text — the PR title and body, the commit message,
 * the branch name, the status comment, the check run — is redacted and escaped the same way. The attacker writes the
 * issue title.
 */
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
    expect(bullets).toHaveLength(3); // one per bad key: two at the top level, one under thresholds;
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

describe("a hostile model answer", () => {
  // The model's summary and rationale are its own text: a PR body must not carry its links, images or HTML as
  // live content (a "verified" badge from an attacker host, a "log in to approve" link), nor mention a team.
  const HOSTILE =
    "Guard added. ![verified by security](https://attacker.example/badge.svg) " +
    "[Approve this fix here](https://attacker.example/login) <https://attacker.example/x> @acme/security-team";

  it("the PR body shows the summary and rationale as text: no live link, image or mention", async () => {
    const dir = mkdtempSync(join(tmpdir(), "groundfix-replay-"));
    const file = join(dir, "hostile.json");
    const anchor = "    sum += item.price * item.qty;\n";
    const edit = {
      path: "src/cart.js",
      code_before: anchor,
      code_after: `    if (item == null) throw new TypeError("total(): item is missing");\n${anchor}`,
      rationale: HOSTILE,
    };
    const answer = {
      summary: HOSTILE,
      affected_file: "src/cart.js",
      affected_function: "total",
      root_cause_snippet: "    sum += item.price * item.qty;",
      confidence: 0.95,
    };
    const turns = [
      { tool_calls: [{ name: "get_file_contents", arguments: { path: "src/cart.js" } }] },
      { tool_calls: [{ name: "suggest_addition", arguments: edit }] },
      { tool_calls: [{ name: "submit_answer", arguments: answer }] },
    ];
    writeFileSync(file, JSON.stringify({ turns }));
    app = await startApp({}, { GROUNDFIX_MODEL: `replay:${file}` });
    await app.receive("issues", labeledIssue());
    expect(app.fake.state.pulls).toHaveLength(1);
    const body = app.fake.state.pulls[0]!.body;
    expect(body).toContain("Guard added.");
    // No Markdown image or link, no autolink, no mention pointing anywhere the model chose.
    expect(body).not.toMatch(/!\[[^\]]*\]\(https:\/\/attacker/);
    expect(body).not.toMatch(/(^|[^\\])\[[^\]]*\]\(https:\/\/attacker/m);
    expect(body).not.toContain("<https://attacker");
    // A bare URL is autolinked by GitHub: each one the model wrote is inline code.
    const urls = [...body.matchAll(/.https:\/\/attacker\.example[^\s`]*./g)].map((m) => m[0]);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).toMatch(/^`.*`$/);
    expect(body).not.toContain("@acme");
  });
});
