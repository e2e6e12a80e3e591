import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { runCli } from "../../src/cli/run.js";
import { demoRepo } from "./helpers.js";

/** `groundfix ARGS` in process: exit code and stderr (the model variable cleared unless `env` sets it). */
async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; err: string }> {
  const stderr = new PassThrough();
  let err = "";
  stderr.on("data", (c: Buffer) => (err += c));
  const io = { stdout: new PassThrough(), stderr, stdin: new PassThrough(), env: { GROUNDFIX_MODEL: "", ...env } };
  const code = await runCli(args, io);
  return { code, err };
}

describe("bad options: one line naming the option and what it takes", () => {
  it("an option given without its value names it and what it takes, not node's 'argument is ambiguous'", async () => {
    const r = await run(["fix", "--repo", "--issue", "/tmp/x.md"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(
      'groundfix: fix: --repo needs a value (a path to a git checkout); for a value starting with "-", ' +
        "write --repo=<value>\n",
    );
    const last = await run(["fix", "--issue-text"]);
    expect(last.err).toBe("groundfix: fix: --issue-text needs a value (the problem text)\n");
  });

  it("every option taking a value, in every subcommand, says so", async () => {
    const cases: [string, string[]][] = [
      ["fix", ["repo", "ref", "issue", "issue-text", "title", "model", "record", "trace"]],
      ["review", ["repo", "base", "head"]],
      ["serve", ["role"]],
    ];
    for (const [command, options] of cases) {
      for (const option of options) {
        for (const args of [[`--${option}`], [`--${option}`, "--json"]]) {
          const r = await run([command, ...args]);
          expect(r.code, `${command} ${args.join(" ")}`).toBe(2);
          expect(r.err).toMatch(new RegExp(`^groundfix: ${command}: --${option} needs a value \\([^)]+\\)`));
          expect(r.err).not.toMatch(/ambiguous|unexpected argument/);
        }
      }
    }
  });

  it("an unknown option near a known one gets 'did you mean'; a distant one points at the help", async () => {
    expect((await run(["fix", "--isue", "/tmp/x.md"])).err).toBe(
      "groundfix: fix: unknown option --isue (did you mean --issue?)\n",
    );
    expect((await run(["review", "--haed", "x"])).err).toBe(
      "groundfix: review: unknown option --haed (did you mean --head?)\n",
    );
    expect((await run(["serve", "--rol", "web"])).err).toBe(
      "groundfix: serve: unknown option --rol (did you mean --role?)\n",
    );
    expect((await run(["fix", "--isue=x"])).err).toBe(
      "groundfix: fix: unknown option --isue (did you mean --issue?)\n",
    );
    const far = await run(["fix", "--colour"]);
    expect(far).toEqual({ code: 2, err: "groundfix: fix: unknown option --colour (see groundfix fix --help)\n" });
    expect((await run(["fix", "--json=1"])).err).toBe(
      "groundfix: fix: --json takes no value (see groundfix fix --help)\n",
    );
  });
});

describe("every subcommand's argument errors name the command the user typed", () => {
  it("groundfix worker says worker:, not serve:, and points at its own help", async () => {
    expect(await run(["worker", "--foo"])).toEqual({
      code: 2,
      err: "groundfix: worker: unknown option --foo (see groundfix worker --help)\n",
    });
    expect((await run(["worker", "extra"])).err).toBe(
      "groundfix: worker: unexpected argument extra (see groundfix worker --help)\n",
    );
    expect((await run(["worker", "--hepl"])).err).toBe(
      "groundfix: worker: unknown option --hepl (did you mean --help?)\n",
    );
    // worker is serve --role worker: another --role is refused, not silently taken (it ran a web server before).
    for (const args of [["--role", "web"], ["--role=all"], ["--role"]]) {
      const r = await run(["worker", ...args]);
      expect(r.code).toBe(2);
      expect(r.err).toMatch(/^groundfix: worker: takes no --role \(groundfix worker is serve --role worker; /);
    }
  });

  it("each command's unknown option, stray argument and bad value start with that command's name", async () => {
    for (const command of ["fix", "review", "serve", "worker"]) {
      for (const args of [["--nope"], ["stray"], ["-z"]]) {
        const r = await run([command, ...args]);
        expect(r.code, `${command} ${args.join(" ")}`).toBe(2);
        expect(r.err).toMatch(new RegExp(`^groundfix: ${command}: (unknown option|unexpected argument) `));
        expect(r.err).toContain(`groundfix ${command} --help`);
        expect(r.err.split("\n")).toHaveLength(2);
      }
    }
    expect((await run(["serve", "--role", "db"])).err).toBe(
      'groundfix: serve: --role must be all, web or worker (got "db")\n',
    );
    expect((await run(["help", "fix", "extra"])).err).toBe(
      "groundfix: help: unexpected argument extra (groundfix help <command>)\n",
    );
    expect((await run(["--version", "--foo"])).err).toBe(
      "groundfix: --version: unexpected argument --foo (it takes none)\n",
    );
  });
});

describe("an unknown model spec names where it came from", () => {
  const repo = demoRepo().dir;
  const issue = ["--repo", repo, "--issue-text", "TypeError in models/ValidationLog.js"];

  it("GROUNDFIX_MODEL when the user gave no --model, --model when they did", async () => {
    const fromEnv = await run(["fix", ...issue], { GROUNDFIX_MODEL: "gpt4" });
    expect(fromEnv.code).toBe(2);
    expect(fromEnv.err).toMatch(/^groundfix: GROUNDFIX_MODEL: unknown model spec "gpt4"; use one of /);
    const fromFlag = await run(["fix", ...issue, "--model", "gpt4"], { GROUNDFIX_MODEL: "heuristic" });
    expect(fromFlag.err).toMatch(/^groundfix: --model: unknown model spec "gpt4"; use one of /);
    const replay = await run(["fix", ...issue], { GROUNDFIX_MODEL: "replay:" });
    expect(replay.err).toBe('groundfix: GROUNDFIX_MODEL: model spec "replay:" needs a file: replay:<file>\n');
  });

  it("a bad value of another variable the model reads is that variable's line, not the model spec's", async () => {
    const env = { GROUNDFIX_MODEL: "anthropic:claude-x", ANTHROPIC_API_KEY: "k" };
    const cases: [string, string, string][] = [
      ["GROUNDFIX_RUN_TIMEOUT_MS", "abc", "an integer from 1 to 86400000"],
      ["GROUNDFIX_MAX_OUTPUT_TOKENS", "12", "an integer from 256 to 128000"],
      ["GROUNDFIX_TEMPERATURE", "hot", "a number from 0 to 2"],
    ];
    for (const [name, value, what] of cases) {
      // Before: "GROUNDFIX_MODEL: GROUNDFIX_RUN_TIMEOUT_MS=..." read as a problem of the model spec.
      const r = await run(["fix", ...issue], { ...env, [name]: value });
      expect(r.code).toBe(2);
      expect(r.err).toBe(
        `groundfix: ${name}="${value}" is not ${what} (read for GROUNDFIX_MODEL anthropic:claude-x); ` +
          `correct or unset ${name}\n`,
      );
    }
    const flag = await run(["fix", ...issue, "--model", "anthropic:claude-x"], {
      ANTHROPIC_API_KEY: "k",
      GROUNDFIX_MODEL_RETRIES: "9",
    });
    expect(flag.err).toMatch(/^groundfix: GROUNDFIX_MODEL_RETRIES="9" .* \(read for --model anthropic:claude-x\); /);
  });
});

describe("help agrees with itself", () => {
  it("the top-level help shows serve's --role as serve --help does", async () => {
    const read = async (args: string[]) => {
      const stdout = new PassThrough();
      let out = "";
      stdout.on("data", (c: Buffer) => (out += c));
      await runCli(args, { stdout, stderr: new PassThrough(), stdin: new PassThrough(), env: {} });
      return out;
    };
    const serveUsage = /groundfix serve (\[--role [^\]]+\])/;
    const own = serveUsage.exec(await read(["serve", "--help"]))?.[1];
    expect(own).toBe("[--role all|web|worker]");
    expect(serveUsage.exec(await read(["--help"]))?.[1]).toBe(own);
  });
});
