import { mkdtempSync, readFileSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, demoRepo } from "./helpers.js";

/**
 * Attacks on `fix --trace/--record` output paths (src/cli/run.ts assertWritable): a path that cannot be written is
 * refused before the run (exit 2, one line naming the option, the path and why), never after it (the report lost).
 */
describe("attacker: fix --trace/--record through symbolic links (built CLI)", () => {
  const { dir } = demoRepo();
  const text = ["--issue-text", "TypeError in models/ValidationLog.js"];

  it("a dangling link into a missing folder: refused before the run, naming the link's target", () => {
    const out = mkdtempSync(join(tmpdir(), "groundfix-out-"));
    const target = join(out, "gone", "t.json");
    symlinkSync(target, join(out, "dangling"));
    const r = cli(["fix", "--repo", dir, ...text, "--trace", join(out, "dangling")]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `groundfix: fix: --trace ${join(out, "dangling")} (a symbolic link to ${target}): ` +
        `the folder ${join(out, "gone")} does not exist (create it first)\n`,
    );
  });

  it("a dangling link into an existing folder is written through, with the report", () => {
    const out = mkdtempSync(join(tmpdir(), "groundfix-out-"));
    symlinkSync("real.json", join(out, "link.json"));
    const r = cli(["fix", "--repo", dir, ...text, "--json", "--record", join(out, "link.json")]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).status).toBeTruthy();
    expect(JSON.parse(readFileSync(join(out, "real.json"), "utf8"))).toBeTruthy();
  });
});
