import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, ROOT } from "./helpers.js";

describe("npm run demo (built dist/cli/demo.js)", () => {
  it("ends by saying where its temporary repository is, that it is kept, and how to remove it", () => {
    const tmp = mkdtempSync(join(tmpdir(), "groundfix-demo-test-"));
    const r = spawnSync(process.execPath, [join(ROOT, "dist", "cli", "demo.js")], {
      encoding: "utf8",
      env: { ...process.env, TMPDIR: tmp, GROUNDFIX_MODEL: "", NO_COLOR: "1" },
    });
    expect(r.status).toBe(0);
    const made = readdirSync(tmp).filter((name) => name.startsWith("groundfix-demo-"));
    expect(made).toHaveLength(1);
    const repo = join(tmp, made[0]!);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines.at(-1)).toBe(
      `The demo repository is kept at ${repo} so you can look at it; remove it with: rm -rf ${repo}`,
    );
    expect(r.stdout).toContain(`copied into a fresh git repository (kept after the demo):\n  ${repo}\n`);
    // It is kept, with the branch the "Next" commands show.
    expect(git(repo, "branch", "--list", "groundfix/*")).toMatch(/groundfix\//);
  });
});
