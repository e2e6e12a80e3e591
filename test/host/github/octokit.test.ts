import { describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/config/schema.js";
import { describeFailure } from "../../../src/host/github/octokit.js";

/** An error shaped like Octokit's RequestError. */
function requestError(status: number, message: string, headers: Record<string, string> = {}) {
  return Object.assign(new Error(message), {
    status,
    request: { method: "POST", url: "https://api.github.com/repos/o/r/git/commits?x=1" },
    response: { headers },
  });
}

describe("describeFailure", () => {
  it("names rate limits (429, 403 with remaining 0 or a secondary limit) with the failed request", () => {
    expect(describeFailure(requestError(429, "Too Many Requests", { "retry-after": "60" }))).toBe(
      "GitHub rate limit (HTTP 429) on POST /repos/o/r/git/commits (retry after 60 s)",
    );
    expect(describeFailure(requestError(403, "API rate limit exceeded", { "x-ratelimit-remaining": "0" }))).toBe(
      "GitHub rate limit (HTTP 403) on POST /repos/o/r/git/commits",
    );
    expect(describeFailure(requestError(403, "You have exceeded a secondary rate limit"))).toMatch(
      /^GitHub rate limit \(HTTP 403\)/,
    );
  });

  it("names server errors, other HTTP errors, config errors and plain errors in one line", () => {
    expect(describeFailure(requestError(502, "Bad Gateway\n<html>…"))).toBe(
      "GitHub server error (HTTP 502) on POST /repos/o/r/git/commits",
    );
    expect(describeFailure(requestError(403, "Resource not accessible by integration"))).toBe(
      "GitHub answered HTTP 403 on POST /repos/o/r/git/commits: Resource not accessible by integration",
    );
    expect(describeFailure(new ConfigError(["edits.max_files: too big"], ".github/groundfix.yml"))).toBe(
      "invalid .github/groundfix.yml: edits.max_files: too big",
    );
    expect(describeFailure(new Error("first line\n    at stack (x.js:1:1)"))).toBe("first line");
  });
});
