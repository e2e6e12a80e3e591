/**
 * Review webhooks (issue 6) when GitHub fails before the `groundfix/review` check run exists: the webhook is answered,
 * and the head commit always ends with a concluded check run that says why it was not reviewed — never a review
 * under default rules, never a check left in progress, never nothing.
 */
import { afterEach, describe, expect, it } from "vitest";
import { webhookExample } from "../fixtures/github.js";
import { labeledIssue, pullRequestWebhook, SHOP_FILES, startApp } from "./harness.js";

let app: Awaited<ReturnType<typeof startApp>> | undefined;
afterEach(() => {
  app?.stop();
  app = undefined;
});

const BRANCH = "groundfix/issue-1";
const CONFIG_ROUTE = "GET /repos/{o}/{r}/contents/{path}";
const runsOn = (sha: string) => app!.fake.state.checkRuns.filter((r) => r.head_sha === sha);

/**
 * Open the app's PR from a labeled issue, then push a human commit onto its branch; returns the PR and the new head.
 */
async function prWithHumanPush() {
  app = await startApp();
  await app.receive("issues", labeledIssue());
  const pr = app.fake.state.pulls[0]!;
  const head = app.fake.push(BRANCH, {
    "src/cart.js": SHOP_FILES["src/cart.js"].replace("  return sum;", "  // checked by hand\n  return sum;"),
  });
  return { pr, head };
}

function synchronize(pr: { number: number; html_url: string; body: string }, head: string): Record<string, any> {
  return pullRequestWebhook("synchronize", pr, { ref: BRANCH, sha: head }, app!.fake.baseSha);
}

/** `check_suite.requested` / `check_run.rerequested` on the fake's repository, with the PR in `pull_requests`. */
function checkEvent(
  name: "check_suite" | "check_run",
  action: string,
  pr: { number: number },
  head: string,
): Record<string, any> {
  const payload = webhookExample(name, action);
  payload.repository = labeledIssue().repository;
  const repo = { id: 1, url: "https://api.github.com/repos/Codertocat/Hello-World" };
  const pulls = [
    {
      number: pr.number,
      head: { ref: BRANCH, sha: head, repo },
      base: { ref: "master", sha: app!.fake.baseSha, repo },
    },
  ];
  const target = name === "check_suite" ? payload.check_suite : payload.check_run;
  Object.assign(
    target,
    { head_sha: head, pull_requests: pulls },
    name === "check_run" ? { name: "groundfix/review" } : {},
  );
  return payload;
}

describe("a review whose config cannot be read", () => {
  it(
    "answers the webhook and fails the check on the head with " +
      "the GitHub status and how to retry; a re-run then reviews",
    async () => {
      const { pr, head } = await prWithHumanPush();
      app!.fake.state.failures.set(CONFIG_ROUTE, 502);
      const before = app!.fake.state.calls.length;
      await app!.receive("pull_request", synchronize(pr, head));
      await app!.receive("check_suite", checkEvent("check_suite", "requested", pr, head));
      const failed = runsOn(head);
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({
        name: "groundfix/review",
        status: "completed",
        conclusion: "failure",
        details_url: pr.html_url,
      });
      expect(failed[0]!.output.title).toBe("Config could not be read");
      expect(failed[0]!.output.summary).toContain(
        "could not read `.github/groundfix.yml` (GitHub server error (HTTP 502)",
      );
      expect(failed[0]!.output.summary).toContain("Re-run this check to try again.");
      expect(app!.fake.state.calls.slice(before).some((c) => c.route.startsWith("GET /repos/{o}/{r}/compare"))).toBe(
        false,
      );

      app!.fake.state.failures.delete(CONFIG_ROUTE);
      await app!.receive("check_run", checkEvent("check_run", "rerequested", pr, head));
      const runs = runsOn(head);
      expect(runs).toHaveLength(2);
      // Reviewed with every rule: the hand-written line passes all but evidence (it is not groundfix's edit).
      expect(runs[1]).toMatchObject({ status: "completed", conclusion: "failure" });
      expect(runs[1]!.output.summary).toContain("| Edit policy | ✔ passed");
      expect(runs[1]!.output.summary).toContain("| Evidence | ✖ failed");
      expect(app!.fake.state.unhandled).toEqual([]);
    },
  );

  it(
    "a rate-limited config read (429) on a re-run request " + "fails the check instead of reviewing with the defaults",
    async () => {
      const { pr, head } = await prWithHumanPush();
      app!.fake.state.failures.set(CONFIG_ROUTE, 429);
      await app!.receive("check_run", checkEvent("check_run", "rerequested", pr, head));
      expect(runsOn(head)).toMatchObject([{ status: "completed", conclusion: "failure" }]);
      expect(runsOn(head)[0]!.output.summary).toContain("GitHub rate limit (HTTP 429)");
    },
  );

  it(
    "an invalid config fails the check quoting the bad key (a " +
      "stricter repository is never reviewed with the defaults)",
    async () => {
      const { pr, head } = await prWithHumanPush();
      app!.fake.state.config = "edits:\n  max_files: many\n";
      await app!.receive("pull_request", synchronize(pr, head));
      const [run] = runsOn(head);
      expect(run).toMatchObject({ status: "completed", conclusion: "failure" });
      expect(run!.output.title).toBe("Config is invalid");
      expect(run!.output.summary).toContain("edits.max_files");
    },
  );
});

describe("a review whose pull requests cannot be read", () => {
  it(
    "a 502 on GET commits/{sha}/pulls ends in a concluded failing check that says what could not be " +
      "listed, not an in-progress one",
    async () => {
      const { pr, head } = await prWithHumanPush();
      app!.fake.state.failures.set("GET /repos/{o}/{r}/commits/{sha}/pulls", 502);
      await app!.receive("check_suite", checkEvent("check_suite", "requested", pr, head));
      const [run] = runsOn(head);
      expect(run).toMatchObject({ name: "groundfix/review", status: "completed", conclusion: "failure" });
      expect(run!.output.summary).toContain(
        `could not list the open pull requests with ${head.slice(0, 12)} as head (GitHub server error ` +
          `(HTTP 502) on GET /repos/Codertocat/Hello-World/commits/${head}/pulls)`,
      );
      expect(run!.output.summary).toContain(`did not review ${head.slice(0, 12)} of #${pr.number}`);
      expect(app!.fake.state.checkRuns.filter((r) => r.status === "in_progress")).toEqual([]);
    },
  );

  it(
    "a check-run create refused twice is logged: the webhook " + "is still answered and nothing is left in progress",
    async () => {
      const { pr, head } = await prWithHumanPush();
      app!.fake.state.failures.set("POST /repos/{o}/{r}/check-runs", 502);
      await expect(app!.receive("pull_request", synchronize(pr, head))).resolves.toBeUndefined();
      expect(runsOn(head)).toEqual([]);
      expect(
        app!.fake.state.calls.filter((c) => c.route === "POST /repos/{o}/{r}/check-runs" && c.body.head_sha === head),
      ).toHaveLength(2);
    },
  );
});
