import { describe, expect, it } from "vitest";
import { parseConfig } from "../../src/config/schema.js";
import { mayTrigger, senderPermission, type PermissionOctokit } from "../../src/events/permission.js";

function octokit(
  answer: { permission: string; role_name?: string } | { status: number },
  calls: string[] = [],
): PermissionOctokit {
  return {
    rest: {
      repos: {
        async getCollaboratorPermissionLevel(p) {
          calls.push(p.username);
          if ("status" in answer) throw Object.assign(new Error("HTTP"), { status: answer.status });
          return { data: answer };
        },
      },
    },
  };
}
const repo = { owner: "o", name: "r" };
const user = { login: "alice", type: "User" };

describe("sender permission", () => {
  it("prefers role_name (maintain, triage) over the coarse permission field", async () => {
    expect(await senderPermission(octokit({ permission: "write", role_name: "maintain" }), repo, "alice")).toBe(
      "maintain",
    );
    expect(await senderPermission(octokit({ permission: "read", role_name: "triage" }), repo, "alice")).toBe("triage");
    expect(await senderPermission(octokit({ permission: "write", role_name: "custom-deployer" }), repo, "alice")).toBe(
      "write",
    );
    expect(await senderPermission(octokit({ status: 404 }), repo, "alice")).toBe("none");
  });

  it("requires trigger_permission", async () => {
    const cfg = parseConfig({});
    expect(await mayTrigger(octokit({ permission: "write", role_name: "write" }), repo, user, cfg)).toEqual({
      allowed: true,
    });
    expect(await mayTrigger(octokit({ permission: "read", role_name: "read" }), repo, user, cfg)).toEqual({
      allowed: false,
      reason: "@alice has read access; trigger_permission is write",
    });
    const triage = parseConfig({ trigger_permission: "triage" });
    expect(await mayTrigger(octokit({ permission: "read", role_name: "triage" }), repo, user, triage)).toEqual({
      allowed: true,
    });
    const maintain = parseConfig({ trigger_permission: "maintain" });
    expect((await mayTrigger(octokit({ permission: "write", role_name: "write" }), repo, user, maintain)).allowed).toBe(
      false,
    );
  });

  it("lets a bot through only by its exact login, without a permission lookup", async () => {
    const calls: string[] = [];
    const bot = { login: "deploy-bot[bot]", type: "Bot" };
    const ok = octokit({ permission: "admin" }, calls);
    expect((await mayTrigger(ok, repo, bot, parseConfig({}))).allowed).toBe(false);
    expect((await mayTrigger(ok, repo, bot, parseConfig({ allowed_bots: ["deploy-bot"] }))).allowed).toBe(false);
    expect(await mayTrigger(ok, repo, bot, parseConfig({ allowed_bots: ["deploy-bot[bot]"] }))).toEqual({
      allowed: true,
    });
    expect(calls).toEqual([]);
  });
});
