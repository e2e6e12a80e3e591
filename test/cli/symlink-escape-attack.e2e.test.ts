import { mkdirSync, mkdtempSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { createReadLog, readTools, runTool } from "../../src/tools/index.js";
import { editPathProblem } from "../../src/tools/suggest-addition.js";
import { snapshotFromGit, snapshotFromTar } from "../../src/snapshot/index.js";
import type { Snapshot } from "../../src/types.js";
import { cli, git } from "./helpers.js";
import { makeGitHubTarball, type TestFile } from "../snapshot/build-repo.js";

/**
 * Attack: a repository whose symbolic links point out of it (absolute, `../..`, to a folder outside, its config
 * file) tries to get groundfix to read, quote or search a file outside the snapshot. The snapshot records a link as
 * its target text only (git mode 120000; a tarball's symlink entry) and no reader follows one: nothing outside the
 * repository is ever read, on any path (snapshot, tools, the write path, the whole CLI run).
 */
const MARKER = "OUTSIDE_MARKER_7c1e";
const outside = mkdtempSync(join(tmpdir(), "groundfix-outside-"));
writeFileSync(join(outside, "secret.js"), `function leak() {\n  return "${MARKER}";\n}\n`);
writeFileSync(join(outside, "groundfix.yml"), `thresholds:\n  pull_request: 0.01 # ${MARKER}\n`);
const depth = outside.split("/").length; // enough ../ to reach / from any folder of the repository

const LINKS: Record<string, string> = {
  "lib/abs.js": join(outside, "secret.js"),
  "lib/up.js": `${"../".repeat(depth)}${outside.slice(1)}/secret.js`,
  "lib/dir": outside,
  "lib/inside.js": "real.js",
};
const FILES: Record<string, TestFile> = {
  "lib/real.js": "function f(x) {\n  return x.length;\n}\nmodule.exports = { f };\n",
  "package.json": '{ "name": "linked" }\n',
  ...Object.fromEntries(Object.entries(LINKS).map(([p, t]) => [p, { symlink: t }])),
};

/** A git checkout of FILES whose links resolve on disk (the working tree really reaches `outside`). */
function checkout(): { dir: string; sha: string } {
  const dir = mkdtempSync(join(tmpdir(), "groundfix-links-"));
  for (const [path, file] of Object.entries(FILES)) {
    mkdirSync(join(dir, path, ".."), { recursive: true });
    if (typeof file === "object" && "symlink" in file) symlinkSync(file.symlink, join(dir, path));
    else writeFileSync(join(dir, path), file as string);
  }
  git(dir, "init", "-q", "-b", "main");
  git(dir, "add", "-A");
  git(dir, "commit", "-q", "-m", "links");
  // The working tree does reach outside: the attack is real if anything follows a link.
  expect(readFileSync(join(dir, "lib/dir/secret.js"), "utf8")).toContain(MARKER);
  return { dir, sha: git(dir, "rev-parse", "HEAD") };
}

/** Every answer of every read tool to calls that name the links, the paths through them, and the marker. */
async function toolAnswers(snapshot: Snapshot): Promise<string[]> {
  const ctx = { snapshot, reads: createReadLog() };
  const paths = [...Object.keys(LINKS), "lib/dir/secret.js", `${outside}/secret.js`, "lib/../../secret.js"];
  const calls: [string, unknown][] = [
    ...paths.map((path) => ["get_file_contents", { path }] as [string, unknown]),
    // Queries hold a prefix of the marker only: an answer holding the whole marker quotes the outside file.
    ["grep_codebase", { pattern: MARKER.slice(0, 10) }],
    ["grep_codebase", { pattern: "leak" }],
    ["search_codebase", { query: `${MARKER.slice(0, 10)} leak` }],
    ["list_files", { glob: "**" }],
    ["describe_repo", {}],
    ["describe_repo", { path: "lib/dir" }],
    ["verify_symbol_in_repo", { name: "leak" }],
  ];
  const out: string[] = [];
  for (const [name, args] of calls) {
    const def = readTools.find((t) => t.name === name)!;
    out.push(JSON.stringify(await runTool(def, args, ctx)));
  }
  return out;
}

function expectNothingOutside(snapshot: Snapshot) {
  for (const path of Object.keys(LINKS)) {
    expect(snapshot.entry(path)).toMatchObject({ kind: "symlink", target: LINKS[path] });
    expect(snapshot.read(path)).toBeUndefined();
  }
  expect(snapshot.paths.filter((p) => p.startsWith("lib/dir/"))).toEqual([]);
  for (const path of snapshot.paths) expect(snapshot.read(path) ?? "").not.toContain(MARKER);
}

describe("symbolic links out of the repository: never followed", () => {
  const repo = checkout();

  it("a git snapshot records each link as its target and reads nothing through one", async () => {
    const snapshot = await snapshotFromGit(repo.dir, repo.sha);
    expectNothingOutside(snapshot);
    for (const answer of await toolAnswers(snapshot)) expect(answer).not.toContain(MARKER);
    for (const path of Object.keys(LINKS)) {
      expect(editPathProblem(path, snapshot, defaultConfig())).toMatch(/is a symlink entry, not a text file/);
    }
  });

  it("a GitHub tarball snapshot does the same", async () => {
    const sha = "0123456789abcdef0123456789abcdef01234567";
    const snapshot = await snapshotFromTar(await makeGitHubTarball(FILES, sha), { sha, stripTopFolder: true });
    expectNothingOutside(snapshot);
    for (const answer of await toolAnswers(snapshot)) expect(answer).not.toContain(MARKER);
  });

  it("a fix run on the links: the outside file is never quoted, each link is named with its target", () => {
    const trace = join(mkdtempSync(join(tmpdir(), "groundfix-links-trace-")), "trace.json");
    for (const link of ["lib/abs.js", "lib/up.js", "lib/dir/secret.js"]) {
      const issue =
        `Crash in leak\n\nTypeError: Cannot read properties of undefined (reading 'length')\n` +
        `    at leak (/app/${link}:2:10)\n`;
      const r = cli(["fix", "--repo", repo.dir, "--issue-text", issue, "--json", "--trace", trace]);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain(MARKER);
      expect(r.stderr).not.toContain(MARKER);
      expect(readFileSync(trace, "utf8")).not.toContain(MARKER);
      const report = JSON.parse(r.stdout);
      if (link !== "lib/dir/secret.js") {
        const summary = String(report.diagnosis?.summary);
        expect(summary).toContain(`${link} is a symbolic link to ${JSON.stringify(LINKS[link])}`);
        expect(summary).toContain("groundfix does not follow links out of the repository");
      }
    }
    expect(git(repo.dir, "branch", "--list", "groundfix/*")).toBe("");
  });

  it("a frame in a link to a file of the repository is read at that file, and the edit lands there", () => {
    const issue =
      "Crash\n\nTypeError: Cannot read properties of undefined (reading 'length')\n" +
      "    at f (/app/lib/inside.js:2:12)\n";
    const r = cli(["fix", "--repo", repo.dir, "--issue-text", issue, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.diagnosis.citations.map((c: { path: string }) => c.path)).toEqual(["lib/real.js"]);
    expect(report.edits.map((e: { path: string }) => e.path)).toEqual(["lib/real.js"]);
  });

  it("a config that is a link (or not UTF-8) is an error naming it, never the defaults in its place", () => {
    const { dir } = checkout();
    const issue = "Crash\n\nTypeError: x is undefined\n    at f (/app/lib/real.js:2:10)\n";
    mkdirSync(join(dir, ".github"));
    symlinkSync(join(outside, "groundfix.yml"), join(dir, ".github", "groundfix.yml"));
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "config link");
    for (const args of [
      ["fix", "--repo", dir, "--issue-text", issue],
      ["review", "--repo", dir, "--base", "HEAD", "--head", "HEAD"],
    ]) {
      const r = cli(args);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr).not.toContain(MARKER);
      expect(r.stderr).toMatch(
        new RegExp(
          "^groundfix: invalid \\.github/groundfix\\.yml at [0-9a-f]{12} .*: \\(file\\): a symbolic link to " +
            `${JSON.stringify(join(outside, "groundfix.yml"))}, which groundfix does not follow ` +
            "\\(commit the file itself\\)\n$",
        ),
      );
    }
    // Before: a Latin-1 config was read as no config, and the run went on with the default thresholds.
    unlinkSync(join(dir, ".github", "groundfix.yml"));
    writeFileSync(
      join(dir, ".github", "groundfix.yml"),
      Buffer.from("thresholds:\n  pull_request: 0.9 # caf\xe9\n", "latin1"),
    );
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "latin-1 config");
    const r = cli(["fix", "--repo", dir, "--issue-text", issue]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^groundfix: invalid \.github\/groundfix\.yml at .*: \(file\): not UTF-8 text \(save it as UTF-8\)\n$/,
    );
  });
});
