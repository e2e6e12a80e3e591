/**
 * A fresh base through the faked GitHub: someone pushes to the default branch while the run investigates (the fake
 * pushes when the base tarball is fetched). Before committing, the app reads the branch again (one
 * `GET branches/{branch}`) and, when it moved, the edited files at its new head (one `GET contents/{path}` each):
 * every edit must apply there exactly once, or no pull request is opened and the status comment says why.
 */
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { createGitHubHost } from "../../src/host/github/host.js";
import type { Octokit } from "../../src/host/github/octokit.js";
import { renderPullRequestBody } from "../../src/host/github/render.js";
import type { RunResult } from "../../src/agent/index.js";
import { CRASH_BODY, labeledIssue, OWNER, REPO, SHOP_FILES, startApp } from "../app/harness.js";
import { createGitHubFake, type GitHubFake } from "../fixtures/github-fake.js";
import { TestOctokit } from "../fixtures/github.js";

const CART = SHOP_FILES["src/cart.js"];
const WEB = `https://github.com/${OWNER}/${REPO}`;

let app: Awaited<ReturnType<typeof startApp>> | undefined;
let fake: GitHubFake | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
  fake?.stop();
  fake = undefined;
  nock.enableNetConnect();
});

/** Label the issue; while the run reads the base (its tarball), `files` are pushed to master. Returns the new head. */
async function runWithPush(files: Record<string, string | null> | null) {
  app = await startApp();
  const fakeGitHub = app.fake;
  let head: string | undefined;
  fakeGitHub.state.onCall = (call) => {
    if (files && !head && call.route === "GET /repos/{o}/{r}/tarball/{sha}") head = fakeGitHub.push("master", files);
  };
  await app.receive("issues", labeledIssue());
  expect(fakeGitHub.state.unhandled).toEqual([]);
  const status = fakeGitHub.state.comments.filter((c) => c.body.includes("<!-- groundfix:status -->"));
  expect(status).toHaveLength(1);
  const routes = fakeGitHub.state.calls.map((c) => c.route);
  const fileReads = fakeGitHub.state.calls.filter(
    (c) => c.route === "GET /repos/{o}/{r}/contents/{path}" && !c.path.endsWith("/groundfix.yml"),
  );
  return { fake: fakeGitHub, base: fakeGitHub.baseSha, head: head!, comment: status[0]!.body, routes, fileReads };
}

const count = (routes: string[], route: string) => routes.filter((r) => r === route).length;
const writes = (routes: string[]) =>
  routes.filter((r) => /^POST \/repos\/\{o\}\/\{r\}\/(git|pulls|check-runs)/.test(r));

describe("a fresh base on GitHub", () => {
  it("head unmoved: one extra GET of the branch, no file read, the PR on the investigated base", async () => {
    const { fake, base, routes, fileReads } = await runWithPush(null);
    expect(count(routes, "GET /repos/{o}/{r}/branches/{branch}")).toBe(2);
    expect(fileReads).toEqual([]);
    const commit = fake.state.calls.find((c) => c.route === "POST /repos/{o}/{r}/git/commits")!;
    expect(commit.body.parents).toEqual([base]);
    expect(fake.state.pulls[0]!.body).not.toContain("moved from");
  });

  it(
    "head moved with an unrelated change: the PR is based " + "on the new head and says the base moved from A to B",
    async () => {
      const moved = `// Shopping cart.\n"use strict";\n${CART}`;
      const { fake, base, head, comment, routes, fileReads } = await runWithPush({
        "src/cart.js": moved,
        "CHANGELOG.md": "## 1.0.1\n",
      });
      // One read of the branch more than before, and one read of the one edited file at the new head.
      expect(count(routes, "GET /repos/{o}/{r}/branches/{branch}")).toBe(2);
      expect(fileReads.map((c) => c.path)).toEqual([`/repos/${OWNER}/${REPO}/contents/src/cart.js`]);
      expect(count(routes, "GET /repos/{o}/{r}/tarball/{sha}")).toBe(1);

      const commit = fake.state.calls.find((c) => c.route === "POST /repos/{o}/{r}/git/commits")!;
      expect(commit.body.parents).toEqual([head]);
      expect(commit.body.message).toContain(`Groundfix-Base: ${head}`);
      const onBranch = fake.filesOf("groundfix/issue-1")!;
      expect(onBranch["CHANGELOG.md"]!.content).toBe("## 1.0.1\n"); // the maintainer's push is kept
      expect(
        onBranch["src/cart.js"]!.content.startsWith('// Shopping cart.\n"use strict";\nfunction total(items) {\n'),
      ).toBe(true);
      expect(onBranch["src/cart.js"]!.content).toContain("if (item == null) {");

      const pr = fake.state.pulls[0]!;
      expect(pr).toMatchObject({ base: "master", head: "groundfix/issue-1" });
      const short = (sha: string) => sha.slice(0, 7);
      expect(pr.body).toContain(
        `The base branch \`master\` moved from [\`${short(base)}\`](${WEB}/commit/${base}) ` +
          `to [\`${short(head)}\`](${WEB}/commit/${head}) while groundfix investigated.`,
      );
      // The edit is anchored at its line on the new head; the diagnosis links to where it was read.
      expect(pr.body).toContain(`(${WEB}/blob/${head}/src/cart.js#L6)`);
      expect(pr.body).toContain(`(${WEB}/blob/${base}/src/cart.js#L4)`);
      expect(pr.body).not.toContain(`/blob/${head}/src/cart.js#L4)`);
      expect(comment).toContain(`moved from [\`${short(base)}\`]`);

      // The review compares against the new head: its check is on the PR head and passes on the edit alone.
      const prHead = fake.state.refs.get("groundfix/issue-1")!;
      expect(fake.state.checkRuns).toMatchObject([
        { name: "groundfix/review", head_sha: prHead, status: "completed", conclusion: "success" },
      ]);
    },
  );

  it(
    "head moved touching the anchor: no PR, nothing " + "written, and the status comment says which edit and why",
    async () => {
      const { fake, head, comment, routes } = await runWithPush({
        "src/cart.js": CART.replace("item.qty", "item.quantity"),
      });
      expect(fake.state.pulls).toEqual([]);
      expect(writes(routes)).toEqual([]);
      expect(fake.state.refs.has("groundfix/issue-1")).toBe(false);
      expect(comment).toContain(
        "No pull request: the base branch moved during the run and an edit no longer applies on its new head",
      );
      expect(comment).toContain(
        `On [\`${head.slice(0, 7)}\`](${WEB}/commit/${head}), edit 1 to [\`src/cart.js\`](${WEB}/blob/` +
          `${head}/src/cart.js) no longer applies: its code_before is no longer in the file verbatim.`,
      );
      expect(comment).toContain("comment `/groundfix retry` to investigate again on the new head");
    },
  );

  it(
    "the fix already on the new head: no PR, and the status " + "comment says the new head holds it (no retry offered)",
    async () => {
      // The same guard, pushed by a maintainer: what the run would have written.
      const guard =
        "    if (item == null) {\n      throw new TypeError(`total(): " +
        "item is null or undefined before reading 'price' (itemsLength: ${items?.length})`);\n    }\n";
      const fixed = CART.replace("    sum += item.price", `${guard}    sum += item.price`);
      const { fake, head, comment, routes } = await runWithPush({ "src/cart.js": fixed });
      expect(fake.state.pulls).toEqual([]);
      expect(writes(routes)).toEqual([]);
      expect(comment).toContain(
        "No pull request: the base branch moved during the run and its new head already holds this fix",
      );
      expect(comment).toContain(
        `[\`${head.slice(0, 7)}\`](${WEB}/commit/${head}) already holds this fix ` +
          `(edit 1 at [\`src/cart.js#L4-L7\`](${WEB}/blob/${head}/src/cart.js#L4-L7))`,
      );
      expect(comment).not.toContain("/groundfix retry");
    },
  );

  it("hostile: the new head makes the anchor appear twice: no PR, and the comment names both lines", async () => {
    const twice = CART.replace(
      "module.exports",
      "function subtotal(items) {\n  let sum = 0;\n  for (const item of items) {\n " +
        "   sum += item.price * item.qty;\n  }\n  return sum;\n}\n\nmodule.exports",
    );
    const { fake, comment, routes } = await runWithPush({ "src/cart.js": twice });
    expect(fake.state.pulls).toEqual([]);
    expect(writes(routes)).toEqual([]);
    expect(comment).toContain(
      "its code_before now occurs 2 times (lines 4, 12), so it is no longer anchored on one place",
    );
  });

  it("hostile: the guard would become a brace-less loop's body on the new head: no PR, nothing pushed", async () => {
    // Without the structure rule on the new head this opened a PR (with a failing check) whose commit runs the
    // existing `sum += …` once, after the loop.
    const braceless = CART.replace("  for (const item of items) {\n", "  for (const item of items)\n").replace(
      "    sum += item.price * item.qty;\n  }\n",
      "    sum += item.price * item.qty;\n",
    );
    const { fake, comment, routes } = await runWithPush({ "src/cart.js": braceless });
    expect(fake.state.pulls).toEqual([]);
    expect(writes(routes)).toEqual([]);
    expect(fake.state.refs.has("groundfix/issue-1")).toBe(false);
    expect(comment).toContain("no longer applies: applied there it would change existing code (src/cart.js line 4:");
  });

  it("the edited file deleted on the new head: no PR", async () => {
    const { fake, comment } = await runWithPush({ "src/cart.js": null });
    expect(fake.state.pulls).toEqual([]);
    expect(comment).toContain("no longer applies: the file is no longer a text file there");
  });
});

describe("GitHubHost.readFile", () => {
  const host = () => {
    nock.disableNetConnect();
    const octokit = new TestOctokit({ auth: "token" }) as unknown as Octokit;
    return createGitHubHost({ octokit, repo: { owner: OWNER, name: REPO }, log: console, config: defaultConfig() });
  };

  it(
    "reads a file at a commit, a file above 1 MB through " + "the raw media type, and null for a missing path",
    async () => {
      const big = `${"// padding line of a large generated file\n".repeat(30_000)}export {};\n`;
      expect(Buffer.byteLength(big)).toBeGreaterThan(1024 * 1024);
      fake = createGitHubFake({ owner: OWNER, name: REPO, files: { "src/cart.js": CART, "gen/big.js": big } });
      const github = host();
      expect(await github.readFile(fake.baseSha, "src/cart.js")).toEqual({ content: CART });
      expect(await github.readFile(fake.baseSha, "gen/big.js")).toEqual({ content: big });
      expect(await github.readFile(fake.baseSha, "src/gone.js")).toBeNull();
      const reads = fake.state.calls.filter((c) => c.route === "GET /repos/{o}/{r}/contents/{path}");
      expect(reads).toHaveLength(4); // cart.js once, big.js twice (JSON, then raw), gone.js once
    },
  );
});

describe("the PR body of a moved base", () => {
  it("links both commits on the configured GitHub host (GHE_HOST)", () => {
    const before = process.env.GHE_HOST;
    process.env.GHE_HOST = "ghe.example.com";
    try {
      const result = {
        outcome: "pr_ready",
        diagnosis: null,
        edits: [],
        files: [],
        trace: {
          model: "heuristic",
          started_at: "2026-01-01T00:00:00Z",
          steps: [],
          input_removed: {},
          observations_stripped: 0,
          outcome: "pr_ready",
          reason: null,
          total_ms: 1,
        },
        gates: { rejections: [], observations_stripped: 0 },
        usage: { model_calls: 1, tool_calls: 1, input_tokens: 1, output_tokens: 1 },
      } as unknown as RunResult;
      const [a, b] = ["a".repeat(40), "b".repeat(40)];
      const body = renderPullRequestBody({
        task: {
          source: "issue",
          key: "o/r#issue-1",
          title: "t",
          body: CRASH_BODY,
          repo: { owner: "o", name: "r" },
          baseSha: b,
          number: 1,
        },
        result,
        owner: "o",
        repo: "r",
        baseSha: b,
        linkKeyword: "Refs",
        record: { version: 1, run_id: "r", base_sha: b, edits: [] },
        baseMoved: { kind: "moved", from: a, to: b, ref: "main", edits: [], files: [], baseFiles: [] },
      });
      expect(body).toContain(
        "The base branch `main` moved from [`aaaaaaa`](https://ghe.example.com/o/r/commit/" +
          a +
          ") to [`bbbbbbb`](https://ghe.example.com/o/r/commit/" +
          b +
          ")",
      );
      expect(body).toContain(`at base commit \`${a.slice(0, 12)}\``);
    } finally {
      if (before === undefined) delete process.env.GHE_HOST;
      else process.env.GHE_HOST = before;
    }
  });
});
