import { afterEach, describe, expect, it } from "vitest";
import { githubWebUrl, permalink } from "../../src/grounding/index.js";

const at = {
  owner: "octo",
  repo: "app",
  sha: "0123456789abcdef0123456789abcdef01234567",
  path: "src/a.ts",
  startLine: 3,
};

describe("permalinks on GitHub Enterprise Server", () => {
  const saved = { host: process.env.GHE_HOST, protocol: process.env.GHE_PROTOCOL };
  afterEach(() => {
    for (const [name, value] of [
      ["GHE_HOST", saved.host],
      ["GHE_PROTOCOL", saved.protocol],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it.each([
    [{}, "https://github.com"],
    [{ GHE_HOST: "ghe.example.com" }, "https://ghe.example.com"],
    [{ GHE_HOST: "ghe.example.com:8443/", GHE_PROTOCOL: "https" }, "https://ghe.example.com:8443"],
    [{ GHE_HOST: "ghe.internal", GHE_PROTOCOL: "HTTP" }, "http://ghe.internal"],
    [{ GHE_HOST: "  " }, "https://github.com"],
  ])("%j → %s", (env, web) => expect(githubWebUrl(env)).toBe(web));

  it("uses the configured host, the same one Probot's API client uses", () => {
    process.env.GHE_HOST = "ghe.example.com";
    delete process.env.GHE_PROTOCOL;
    expect(permalink(at)).toBe(`https://ghe.example.com/octo/app/blob/${at.sha}/src/a.ts#L3`);
    expect(permalink({ ...at, web: "http://x.test" })).toBe(`http://x.test/octo/app/blob/${at.sha}/src/a.ts#L3`);
  });
});
