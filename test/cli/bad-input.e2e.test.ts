import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MODEL_SPECS } from "../../src/agent/models/index.js";
import { cli, demoRepo, git, ROOT } from "./helpers.js";

/** Exit 2, nothing on stdout, exactly one line on stderr matching `reason`. */
function expectBadInput(r: { code: number | null; stdout: string; stderr: string }, reason: RegExp) {
  expect(r.code).toBe(2);
  expect(r.stdout).toBe("");
  const lines = r.stderr.split("\n").filter((l) => l !== "");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(/^groundfix: /);
  expect(lines[0]).toMatch(reason);
}

describe("groundfix bad input (built CLI): exit 2 with one clear line", () => {
  const { dir } = demoRepo();
  const text = ["--issue-text", "TypeError in models/ValidationLog.js"];

  it("not a git repository", () => {
    const plain = mkdtempSync(join(tmpdir(), "groundfix-plain-"));
    expectBadInput(cli(["fix", "--repo", plain, ...text]), /is not a git repository/);
    expectBadInput(cli(["fix", "--repo", join(plain, "missing"), ...text]), /missing does not exist/);
  });

  it("unknown ref", () => {
    expectBadInput(
      cli(["fix", "--repo", dir, "--ref", "no-such-branch", ...text]),
      /unknown revision "no-such-branch"/,
    );
    expectBadInput(cli(["review", "--repo", dir, "--base", "HEAD", "--head", "nope"]), /unknown revision "nope"/);
  });

  it("unreadable issue file", () => {
    expectBadInput(
      cli(["fix", "--repo", dir, "--issue", join(dir, "missing.md")]),
      /cannot read issue file .*missing\.md: no such file/,
    );
    expectBadInput(cli(["fix", "--repo", dir, "--issue", dir]), /cannot read issue file .*: is a directory/);
  });

  it("a repository without commits", () => {
    const empty = mkdtempSync(join(tmpdir(), "groundfix-empty-"));
    git(empty, "init", "-q", "-b", "main");
    expectBadInput(
      cli(["fix", "--repo", empty, ...text]),
      /^groundfix: repository \/.* has no commits yet \(commit a file first\)$/,
    );
    expectBadInput(
      cli(["review", "--repo", empty, "--base", "HEAD", "--head", "HEAD"]),
      /has no commits yet \(commit a file first\)$/,
    );
  });

  it("an issue that is not text, or shows nothing", () => {
    const files = mkdtempSync(join(tmpdir(), "groundfix-issues-"));
    const nul = join(files, "nul.md");
    const latin1 = join(files, "latin1.md");
    const invisible = join(files, "invisible.md");
    writeFileSync(nul, Buffer.from("TypeError\u0000\u0001\u0002", "latin1"));
    writeFileSync(latin1, Buffer.from([0x45, 0x72, 0x72, 0x65, 0x75, 0x72, 0x20, 0xe9, 0x0a])); // "Erreur é" in Latin-1
    writeFileSync(invisible, "\ufeff\u200b\u200d\n\t\u2060\u202e\u2066\n");
    expectBadInput(
      cli(["fix", "--repo", dir, "--issue", nul]),
      /^groundfix: issue file .*nul\.md is not UTF-8 text \(binary data or another encoding\)$/,
    );
    expectBadInput(cli(["fix", "--repo", dir, "--issue", latin1]), /latin1\.md is not UTF-8 text/);
    expectBadInput(
      cli(["fix", "--repo", dir, "--issue", "-"], { input: "crash\u0000\u0000" }),
      /the issue text on stdin is not UTF-8 text/,
    );
    expectBadInput(cli(["fix", "--repo", dir, "--issue", invisible]), /issue file .*invisible\.md is empty$/);
    expectBadInput(
      cli(["fix", "--repo", dir, "--issue", "-"], { input: " \u200b\n" }),
      /the issue text on stdin is empty$/,
    );
    expectBadInput(cli(["fix", "--repo", dir, "--issue-text", "\u200b\u202e \u2060"]), /--issue-text is empty$/);
    expectBadInput(cli(["fix", "--repo", dir, ...text, "--title", ""]), /--title is empty$/);
    expectBadInput(cli(["fix", "--repo", dir, ...text, "--title", " \u200b "]), /--title is empty$/);
  });

  it("--trace or --record to a missing folder, a folder, or below a file: the option, the path and why", () => {
    const out = mkdtempSync(join(tmpdir(), "groundfix-out-"));
    writeFileSync(join(out, "plain"), "");
    const run = (option: string, file: string) => cli(["fix", "--repo", dir, ...text, option, file]);
    const missing = join(out, "gone", "t.json");
    expectBadInput(
      run("--trace", missing),
      new RegExp(`^groundfix: fix: --trace ${missing}: the folder ${join(out, "gone")} does not exist \\(create it`),
    );
    expectBadInput(
      run("--record", out),
      new RegExp(
        `^groundfix: fix: --record ${out} is a folder; give the path of a file in it \\(e\\.g\\. ${out}/record`,
      ),
    );
    expectBadInput(
      run("--trace", join(out, "plain", "x", "t.json")),
      new RegExp(`^groundfix: fix: --trace ${out}/plain/x/t\\.json: ${out}/plain is a file, not a folder$`),
    );
  });

  it("--trace and --record naming the same file", () => {
    const out = mkdtempSync(join(tmpdir(), "groundfix-out-"));
    mkdirSync(join(out, "sub"));
    symlinkSync(out, join(out, "link"));
    const same = /^groundfix: fix: --trace and --record name the same file/;
    expectBadInput(
      cli(["fix", "--repo", dir, ...text, "--trace", join(out, "t.json"), "--record", `${out}/sub/../t.json`]),
      same,
    );
    expectBadInput(
      cli(["fix", "--repo", dir, ...text, "--trace", join(out, "t.json"), "--record", join(out, "link", "t.json")]),
      same,
    );
    expectBadInput(cli(["fix", "--repo", dir, ...text, "--trace", "t.json", "--record", join(ROOT, "t.json")]), same);
  });

  it("unknown model spec", () => {
    expectBadInput(cli(["fix", "--repo", dir, ...text, "--model", "gpt-banana"]), /gpt-banana/);
    expectBadInput(
      cli(["fix", "--repo", dir, ...text, "--model", "replay:/no/such/transcript.json"]),
      /cannot read replay transcript \/no\/such\/transcript\.json: no such file$/,
    );
  });

  it("unknown flag, missing --issue, unknown command", () => {
    expectBadInput(cli(["fix", "--repo", dir, ...text, "--colour"]), /--colour/);
    expectBadInput(cli(["fix", "--repo", dir]), /missing --issue/);
    expectBadInput(cli(["frobnicate"]), /unknown command "frobnicate"/);
    expectBadInput(cli(["review", "--repo", dir, "--base", "HEAD"]), /--head/);
  });

  it("leaves no branch behind after bad input", () => {
    expect(git(dir, "branch", "--list", "groundfix/*")).toBe("");
  });

  it("prints help with exit 0", () => {
    for (const args of [["--help"], ["fix", "--help"], ["review", "-h"], ["serve", "--help"]]) {
      const r = cli(args);
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/Usage:/);
    }
  });

  it("fix --help lists every model spec groundfix accepts", () => {
    const help = cli(["fix", "--help"]).stdout;
    for (const spec of MODEL_SPECS) {
      expect(help).toContain(spec);
    }
  });
});
