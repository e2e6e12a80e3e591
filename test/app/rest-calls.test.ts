/**
 * The REST calls of one run, counted through the faked GitHub (every call the app makes, the installation token and
 * `GET /app` included): a PR-producing run stays within 16, a diagnosis-only run within 9, and neither pays for
 * progress edits, a second check-run request or a lookup it already made. `npm run bench -- --only=rest` prints
 * the same calls route by route.
 */
import { afterEach, describe, expect, it } from "vitest";
import { CRASH_BODY, labeledIssue, pullRequestWebhook, startApp } from "./harness.js";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});

const MARK = "<!-- groundfix:status -->";
const VAGUE_BODY = "Something about checkout feels slow sometimes. No error message, no stack trace.";
const STATUS_WRITES =
  /^(POST \/repos\/\{o\}\/\{r\}\/issues\/\{n\}\/comments|PATCH \/repos\/\{o\}\/\{r\}\/issues\/comments\/\{n\})$/;
/** Reads of the default branch head (the base, and the fresh-base check before committing). */
const HEAD_READS = /^GET \/repos\/\{o\}\/\{r\}\/(branches\/\{branch\}|git\/ref\/heads\/\{branch\})$/;

const routes = () => app!.fake.state.calls.map((c) => c.route);
const count = (pattern: RegExp) => routes().filter((r) => pattern.test(r)).length;

describe("REST calls of one run", () => {
  it(
    "a PR-producing run costs at most 16 calls, the fresh-base read of the default branch and the list of " +
      "pull requests with its head included",
    async () => {
      app = await startApp();
      await app.receive("issues", labeledIssue("groundfix", CRASH_BODY));
      const { state } = app.fake;
      // What a reader sees is all there: the PR, its concluded check, the status comment in its final state.
      expect(state.pulls).toHaveLength(1);
      expect(state.pulls[0]!.body).toContain("Refs #1");
      expect(state.checkRuns).toMatchObject([{ name: "groundfix/review", status: "completed", conclusion: "success" }]);
      const status = state.comments.filter((c) => c.body.includes(MARK));
      expect(status).toHaveLength(1);
      expect(status[0]!.body).toContain(`Opened pull request [#${state.pulls[0]!.number}]`);

      const total = routes().length;
      expect(total, routes().join("\n")).toBeLessThanOrEqual(16);
      // Budget: one read of the default branch head beyond the first is the fresh-base check, and one list of the
      // pull requests with the new head (after its check run: one opened meanwhile fails it); without them, 14.
      const heads = count(/^GET \/repos\/\{o\}\/\{r\}\/commits\/\{sha\}\/pulls$/);
      expect(heads).toBe(1);
      expect(total - Math.max(0, count(HEAD_READS) - 1) - heads, routes().join("\n")).toBeLessThanOrEqual(14);
      expect(count(STATUS_WRITES)).toBe(1); // fast stages: no progress edit, one final write
      expect(count(/^PATCH \/repos\/\{o\}\/\{r\}\/check-runs/)).toBe(0); // the check run is created concluded
      expect(count(/^POST \/repos\/\{o\}\/\{r\}\/check-runs$/)).toBe(1);
      expect(count(/\/tarball\//)).toBe(1); // the review's head is the base snapshot plus the run's own files
      expect(count(/\/compare\//)).toBe(0); // the diff is computed locally
      expect(count(/^GET \/repos\/\{o\}\/\{r\}$/)).toBe(0); // the default branch comes from the webhook
      expect(count(/^GET \/app$/)).toBe(0); // no earlier status comment to prove as the app's own
      expect(count(/^POST \/app\/installations\/\{id\}\/access_tokens$/)).toBe(1);
    },
  );

  it("a diagnosis-only run costs at most 9 calls and writes its status comment once", async () => {
    app = await startApp();
    await app.receive("issues", labeledIssue("groundfix", VAGUE_BODY));
    const status = app.fake.state.comments.filter((c) => c.body.includes(MARK));
    expect(status).toHaveLength(1);
    expect(status[0]!.body).toContain("No pull request:");
    expect(app.fake.state.pulls).toEqual([]);
    expect(routes().length, routes().join("\n")).toBeLessThanOrEqual(9);
    expect(count(STATUS_WRITES)).toBe(1);
  });

  it("a second run on the same issue in the same process edits the comment without asking GET /app", async () => {
    app = await startApp();
    await app.receive("issues", labeledIssue("groundfix", VAGUE_BODY));
    const first = routes().length;
    await app.receive("issues", labeledIssue("groundfix", VAGUE_BODY));
    const second = routes().slice(first);
    expect(app.fake.state.comments.filter((c) => c.body.includes(MARK))).toHaveLength(1);
    expect(second).not.toContain("GET /app"); // learned from the comment the first run created
    expect(second).not.toContain("GET /repos/{o}/{r}/issues/{n}/comments"); // its id is remembered
    expect(second.filter((r) => STATUS_WRITES.test(r))).toEqual(["PATCH /repos/{o}/{r}/issues/comments/{n}"]);
  });

  it(
    "the webhooks the run's own pull request causes cost " + "no call: its head was claimed before the PR existed",
    async () => {
      app = await startApp();
      await app.receive("issues", labeledIssue("groundfix", CRASH_BODY));
      const pr = app.fake.state.pulls[0]!;
      const head = app.fake.state.refs.get("groundfix/issue-1")!;
      const after = routes().length;
      const opened = pullRequestWebhook("opened", pr, { ref: "groundfix/issue-1", sha: head }, app.fake.baseSha);
      await app.receive("pull_request", opened);
      expect(routes().slice(after)).toEqual([]); // no config read, no check-run lookup, no second check run
      expect(app.fake.state.checkRuns).toHaveLength(1);
    },
  );
});
