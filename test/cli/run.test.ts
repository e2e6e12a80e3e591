import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runNotes } from "../../src/cli/fix.js";
import { runCli, type CliIO } from "../../src/cli/run.js";
import { demoRepo, EXAMPLES, GUARD_ISSUE } from "./helpers.js";

/** In-process IO with captured output; `tty` marks stdout and stderr as terminals. */
function fakeIO(tty: boolean): CliIO & { out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const o: Buffer[] = [];
  const e: Buffer[] = [];
  stdout.on("data", (c: Buffer) => o.push(c));
  stderr.on("data", (c: Buffer) => e.push(c));
  Object.assign(stdout, { isTTY: tty });
  Object.assign(stderr, { isTTY: tty });
  return {
    stdout,
    stderr,
    stdin: new PassThrough(),
    env: { ...process.env, GROUNDFIX_MODEL: "", NO_COLOR: "1" },
    out: () => Buffer.concat(o).toString("utf8"),
    err: () => Buffer.concat(e).toString("utf8"),
  };
}

describe("runCli (in process)", () => {
  it(
    "prints a command's help for `help <command>`, the " + "version for --version, and refuses an unknown topic",
    async () => {
      const help = fakeIO(false);
      expect(await runCli(["help", "fix"], help)).toBe(0);
      expect(help.out()).toMatch(/^Usage: groundfix fix \[--repo <dir>\]/);
      const version = fakeIO(false);
      expect(await runCli(["--version"], version)).toBe(0);
      const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
        version: string;
      };
      expect(version.out()).toBe(`groundfix ${pkg.version}\n`);
      const unknown = fakeIO(false);
      expect(await runCli(["help", "deploy"], unknown)).toBe(2);
      expect(unknown.err()).toBe('groundfix: help: unknown command "deploy" (commands: fix, review, serve, worker)\n');
    },
  );

  it("writes progress to stderr only when it is a terminal, and keeps stdout one JSON document", async () => {
    const { dir } = demoRepo();
    const io = fakeIO(true);
    const code = await runCli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE, "--json"], io);
    expect(code).toBe(0);
    expect(io.err()).toMatch(/^… snapshot of [0-9a-f]{12} \(HEAD\)$/m);
    expect(io.err()).toMatch(/^… step 1: /m);
    expect(io.err()).not.toMatch(/step \d+: step/);
    expect(JSON.parse(io.out()).status).toBe("pr_ready");
    expect(io.out()).not.toContain("\u001b["); // NO_COLOR
  });

  it("reports an unwritable --trace file as bad input (exit 2, one line)", async () => {
    const { dir } = demoRepo();
    const io = fakeIO(false);
    const issue = readFileSync(join(EXAMPLES, "demo-issue.md"), "utf8");
    const folder = join(dir, "no", "such", "dir");
    const trace = join(folder, "t.json");
    const code = await runCli(["fix", "--repo", dir, "--issue-text", issue, "--trace", trace], io);
    expect(code).toBe(2);
    expect(io.err()).toBe(`groundfix: fix: --trace ${trace}: the folder ${folder} does not exist (create it first)\n`);
  });

  it("--issue - on a terminal says it reads the issue there and how to end it; a pipe gets no such line", async () => {
    const { dir } = demoRepo();
    for (const tty of [true, false]) {
      const io = fakeIO(false);
      const stdin = new PassThrough();
      Object.assign(stdin, { isTTY: tty });
      stdin.end(GUARD_ISSUE);
      const code = await runCli(["fix", "--repo", dir, "--issue", "-", "--json"], { ...io, stdin });
      expect(code).toBe(0);
      const hint =
        "groundfix: reading the issue text from the terminal; end it with Ctrl-D (Ctrl-Z Enter on Windows)\n";
      expect(io.err().startsWith(hint)).toBe(tty);
      expect(JSON.parse(io.out()).status).toBe("pr_ready");
    }
  });

  it("notes a config model: only when it differs from the model used, and every replay", () => {
    expect(runNotes("heuristic", "heuristic", "heuristic")).toEqual([]);
    expect(runNotes(undefined, "heuristic", "heuristic")).toEqual([]);
    expect(runNotes("anthropic:claude", "heuristic", "heuristic")).toEqual([
      expect.stringMatching(/sets model: anthropic:claude, which the CLI does not use; this run used heuristic/),
    ]);
    expect(runNotes(undefined, "replay:t.json", "replay:t.json")).toEqual([
      expect.stringMatching(/^a replay reproduces a recorded run/),
    ]);
  });
});
