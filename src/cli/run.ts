import { constants, readFileSync } from "node:fs";
import { access, readlink, realpath, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { createLocalHost } from "../host/local/index.js";
import { gitText } from "../host/local/git.js";
import { EXIT, missingValueMessage, UsageError, unknownOptionMessage } from "./errors.js";
import { FIX_HELP, MAIN_HELP, REVIEW_HELP, SERVE_HELP } from "./help.js";
import { assertIssueText, readIssueText, toProblem } from "./issue.js";
import { styleFor } from "./style.js";
import { escapeControls, isBlankText } from "./terminal.js";

// The pipeline (agent, AI SDK, the TypeScript compiler used by the review's syntax rule) is imported only when a
// command runs, so `--help` and bad input answer fast.

/** The streams and environment the CLI runs with (the process's own in `main.ts`; fakes in tests). */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  env: NodeJS.ProcessEnv;
}

const common = { help: { type: "boolean", short: "h" }, repo: { type: "string", default: "." } } as const;

/** What each option that takes a value takes, for the line saying it was given without one. */
const TAKES: Record<string, string> = {
  repo: "a path to a git checkout",
  ref: "a commit or branch",
  issue: 'a file holding the problem text, or "-" for stdin',
  "issue-text": "the problem text",
  title: "the issue's title",
  model: "a model spec: heuristic, replay:<file>, openai:<model>…; see groundfix fix --help",
  record: "a file to write the transcript to",
  trace: "a file to write the trace to",
  base: "a commit or branch, e.g. main",
  head: "a commit or branch",
};

/**
 * `parseArgs` in strict mode; its errors become one-line {@link UsageError}s naming the option: a value missing
 * ({@link missingValueMessage}, what the option takes from {@link TAKES}), an unknown option (with `did you mean`,
 * {@link unknownOptionMessage}), a value given to a flag, a stray argument.
 */
function parse<T extends NonNullable<ParseArgsConfig["options"]>>(args: string[], options: T, command: string) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const { code, message } = error as { code?: string; message: string };
    const first = String(message).split("\n")[0]!;
    const option = /^(?:Unknown option|Option) '(-[^' ]*)/.exec(first)?.[1];
    if (option && code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
      throw new UsageError(unknownOptionMessage(command, option, Object.keys(options)));
    }
    if (option && code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" && !/does not take/.test(first)) {
      const name = option.replace(/^-+/, "");
      const long = Object.entries(options).find(([k, o]) => k === name || o.short === name)?.[0] ?? name;
      const next = args[args.findIndex((a) => a === option) + 1];
      throw new UsageError(missingValueMessage(command, option, TAKES[long], next?.startsWith("-") ?? false));
    }
    if (option) throw new UsageError(`${command}: ${option} takes no value (see groundfix ${command} --help)`);
    const stray = /^Unexpected argument '(.*)'\. This command/s.exec(first)?.[1];
    if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && stray !== undefined)
      throw new UsageError(`${command}: unexpected argument ${stray} (see groundfix ${command} --help)`);
    throw new UsageError(
      `${command}: ${first.replace(/\. (?:To specify|This command) .*$/, "")} (see groundfix ${command} --help)`,
    );
  }
}

/**
 * Why `file`, given to `option` (`--trace`, `--record`), cannot be written, as one sentence naming the option and the
 * path, from the error of a check or a write (`code` ENOENT, ENOTDIR, EACCES, EISDIR…).
 */
async function unwritableReason(option: string, file: string, error: unknown): Promise<string> {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const target = await writeTarget(resolve(file));
  const folder = dirname(target);
  const at = `fix: ${option} ${file}${target === resolve(file) ? "" : ` (a symbolic link to ${target})`}`;
  if (code === "EISDIR")
    return `${at} is a folder; give the path of a file in it (e.g. ${join(file, `${option.slice(2)}.json`)})`;
  if (code === "ENOENT" || code === "ENOTDIR") {
    // The nearest existing part of the folder path: a file there is the cause, else the folder is missing.
    let part = folder;
    let found = await stat(part).catch(() => null);
    while (found === null && dirname(part) !== part) found = await stat((part = dirname(part))).catch(() => null);
    return found && !found.isDirectory()
      ? `${at}: ${part} is a file, not a folder`
      : `${at}: the folder ${folder} does not exist (create it first)`;
  }
  if (code === "EACCES" || code === "EPERM" || code === "EROFS") return `${at}: no permission to write in ${folder}`;
  return `${at}: cannot write it (${code ?? (error instanceof Error ? error.message : String(error))})`;
}

/**
 * The file a write to `abs` creates or replaces: `abs` itself, or the end of the chain of symbolic links it starts
 * (a link whose target does not exist yet is written through, creating the target). At most 40 links are followed.
 */
async function writeTarget(abs: string): Promise<string> {
  let at = abs;
  for (let i = 0; i < 40; i++) {
    const link = await readlink(at).catch(() => null);
    if (link === null) return at;
    at = resolve(dirname(at), link);
  }
  return at;
}

/**
 * Fail fast (before the run) when an output file cannot be written: its folder is missing, not a folder or not
 * writable, or the path is an existing folder; for a symbolic link, of the file it leads to ({@link writeTarget}: a
 * dangling link into a missing folder passed, and the write after the run failed, losing the report). Bad input:
 * {@link UsageError}, exit 2.
 */
async function assertWritable(file: string | undefined, option: string): Promise<void> {
  if (!file) return;
  const abs = await writeTarget(resolve(file));
  try {
    if ((await stat(abs).catch(() => null))?.isDirectory()) throw Object.assign(new Error(abs), { code: "EISDIR" });
    await access(dirname(abs), constants.W_OK);
    const folder = await stat(dirname(abs));
    if (!folder.isDirectory()) throw Object.assign(new Error(abs), { code: "ENOTDIR" });
  } catch (error) {
    throw new UsageError(await unwritableReason(option, file, error));
  }
}

/**
 * True when two output paths name the same file: equal once resolved (with symbolic links in their folders
 * followed), or, when both exist, the same device and inode (a link to the other).
 */
async function sameFile(a: string, b: string): Promise<boolean> {
  const canonical = async (file: string) => {
    const abs = resolve(file);
    return join(await realpath(dirname(abs)).catch(() => dirname(abs)), basename(abs));
  };
  if ((await canonical(a)) === (await canonical(b))) return true;
  const [x, y] = await Promise.all([stat(a).catch(() => null), stat(b).catch(() => null)]);
  return x !== null && y !== null && x.dev === y.dev && x.ino === y.ino;
}

/**
 * The top-level folder of the git repository `repoDir` is in (after the host checked it is one), and a one-line note
 * when `repoDir` is a folder inside it: git works on whole repositories, so a run or review reads every file of the
 * commit and the root's `.github/groundfix.yml`, not only that folder (as `git` itself does from a subfolder). A bare
 * repository has no top level: `{ top: repoDir, note: null }`.
 */
async function repositoryRoot(repoDir: string): Promise<{ top: string; note: string | null }> {
  const top = await gitText(repoDir, ["rev-parse", "--show-toplevel"]).catch(() => null);
  if (top === null) return { top: repoDir, note: null };
  const given = await realpath(resolve(repoDir)).catch(() => resolve(repoDir));
  if (given === (await realpath(top).catch(() => top))) return { top, note: null };
  const folder = given === repoDir ? repoDir : `${repoDir} (${given})`;
  const what = "every file, and its .github/groundfix.yml";
  return {
    top,
    note:
      `--repo ${folder} is a folder inside the git repository ${top}: ` +
      `groundfix works on that whole repository at the commit (${what}), not only on this folder`,
  };
}

async function writeJsonFile(file: string, value: unknown, option: string): Promise<void> {
  try {
    await writeFile(file, `${JSON.stringify(value, null, 2)}\n`, "utf8");
  } catch (error) {
    throw new UsageError(await unwritableReason(option, file, error));
  }
}

/**
 * @throws UsageError when `--repo` was given as an empty string (`--repo ""`, an unset shell variable): git would
 *   take it as the current directory and run on whatever checkout that is.
 */
function assertRepoGiven(repo: string, command: string): void {
  if (repo === "")
    throw new UsageError(`${command}: --repo is empty (give the folder of a git checkout, e.g. --repo .)`);
}

async function fixCommand(args: string[], io: CliIO): Promise<number> {
  const v = parse(
    args,
    {
      ...common,
      ref: { type: "string" },
      issue: { type: "string" },
      "issue-text": { type: "string" },
      title: { type: "string" },
      model: { type: "string" },
      record: { type: "string" },
      trace: { type: "string" },
      json: { type: "boolean", default: false },
      force: { type: "boolean", default: false },
    },
    "fix",
  );
  if (v.help) return (void io.stdout.write(FIX_HELP), EXIT.ok);
  assertRepoGiven(v.repo, "fix");
  if (v.issue === undefined && v["issue-text"] === undefined) {
    throw new UsageError("fix: missing --issue <file|-> or --issue-text <text> (see groundfix fix --help)");
  }
  if (v.issue !== undefined && v["issue-text"] !== undefined)
    throw new UsageError("fix: give either --issue or --issue-text, not both");
  if (v["issue-text"] !== undefined) assertIssueText(v["issue-text"], "fix: --issue-text");
  if (v.title !== undefined && isBlankText(v.title)) throw new UsageError("fix: --title is empty");
  if (v.trace && v.record && (await sameFile(v.trace, v.record))) {
    throw new UsageError(`fix: --trace and --record name the same file (${v.trace}); give each its own file`);
  }
  if (v.issue === "-" && (io.stdin as { isTTY?: boolean }).isTTY) {
    // Else a user who typed `--issue -` without a pipe sees nothing happen.
    io.stderr.write(
      "groundfix: reading the issue text from the terminal; end it with Ctrl-D (Ctrl-Z Enter on Windows)\n",
    );
  }
  const text = v.issue !== undefined ? await readIssueText(v.issue, io.stdin) : v["issue-text"]!;
  const problem = toProblem(text, v.title);
  const progress = io.stderr.isTTY
    ? (m: string) => void io.stderr.write(styleFor(io.stderr, io.env).dim(`… ${escapeControls(m)}\n`))
    : undefined;

  await assertWritable(v.trace, "--trace");
  await assertWritable(v.record, "--record");
  const host = createLocalHost(v.repo, { onProgress: progress });
  const base = await host.resolveBase(v.ref); // bad repo or ref: answer before loading the pipeline
  const root = await repositoryRoot(v.repo);
  // Start reading the commit while the pipeline's modules load: git works in its own process, and the run's
  // loadSnapshot gets this same load (snapshots are cached per folder and commit). A failed load is forgotten
  // there, so the run loads again and reports the error itself.
  host.loadSnapshot(base.sha).catch(() => undefined);
  const { runFix } = await import("./fix.js");
  const { fixToJson } = await import("./json.js");
  const { renderFixReport } = await import("./render.js");
  const report = await runFix({
    repoDir: root.top,
    ref: v.ref,
    title: problem.title,
    body: problem.body,
    model: v.model,
    force: v.force,
    env: io.env,
    onProgress: progress,
    host,
  });
  if (v.trace) await writeJsonFile(v.trace, report.result.trace, "--trace");
  if (v.record) await writeJsonFile(v.record, report.result.transcript, "--record");
  if (root.note) report.notes.unshift(root.note);
  for (const note of report.notes) io.stderr.write(`groundfix: note: ${escapeControls(note)}\n`);
  for (const warning of report.warnings) io.stderr.write(`groundfix: warning: ${escapeControls(warning)}\n`);
  io.stdout.write(
    v.json
      ? `${JSON.stringify(fixToJson(report), null, 2)}\n`
      : `${renderFixReport(report, styleFor(io.stdout, io.env))}\n`,
  );
  return EXIT.ok;
}

async function reviewCommand(args: string[], io: CliIO): Promise<number> {
  const v = parse(
    args,
    {
      ...common,
      base: { type: "string" },
      head: { type: "string" },
      json: { type: "boolean", default: false },
      "exit-code": { type: "boolean", default: false },
      direct: { type: "boolean", default: false },
    },
    "review",
  );
  if (v.help) return (void io.stdout.write(REVIEW_HELP), EXIT.ok);
  assertRepoGiven(v.repo, "review");
  if (!v.base || !v.head)
    throw new UsageError("review: --base <rev> and --head <rev> are required (see groundfix review --help)");
  const host = createLocalHost(v.repo);
  await host.resolveBase(v.base);
  await host.resolveBase(v.head);
  const root = await repositoryRoot(v.repo);
  if (root.note) io.stderr.write(`groundfix: note: ${escapeControls(root.note)}\n`);
  const { reviewRunToJson, runReview } = await import("./review.js");
  const { renderReview, short } = await import("./render.js");
  const run = await runReview({ repoDir: root.top, base: v.base, head: v.head, direct: v.direct });
  if (v.json) {
    io.stdout.write(`${JSON.stringify(reviewRunToJson(run), null, 2)}\n`);
  } else {
    const style = styleFor(io.stdout, io.env);
    const how = run.direct
      ? " (--direct: the diff from this commit itself)"
      : run.baseSha === run.givenBaseSha
        ? ""
        : ` (merge-base of ${escapeControls(v.base)} and ${escapeControls(v.head)}; ` +
          `${escapeControls(v.base)} is at ${short(run.givenBaseSha)})`;
    // The same commit on both sides: nothing was compared, which a bare "success" would hide.
    const same = run.baseSha === run.headSha ? style.dim(" (the base itself: no changes to review)") : "";
    io.stdout.write(
      `${style.bold("Base".padEnd(10))}${short(run.baseSha)}${how}\n` +
        `${style.bold("Head".padEnd(10))}${short(run.headSha)}${same}\n`,
    );
    io.stdout.write(`${renderReview(run.review, style)}\n`);
  }
  // Like `git diff --exit-code`: 1 tells a script the review failed (the run itself completed).
  return v["exit-code"] && run.review.conclusion === "failure" ? EXIT.reviewFailed : EXIT.ok;
}

/** The `version` of groundfix's own package.json (two folders up from this module, in `src/` and in `dist/` alike). */
function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version?: string };
  return pkg.version ?? "unknown";
}

/** Errors that are the user's input, not a bug (by class name, so the modules that define them load lazily). */
const INPUT_ERRORS = new Set(["UsageError", "LocalInputError", "ModelSpecError", "ConfigError", "RepoConfigError"]);

/** True for errors that are the user's input, not a bug: they exit 2 with their one-line message. */
function isInputError(error: unknown): error is Error {
  return error instanceof Error && INPUT_ERRORS.has(error.name);
}

/**
 * The `groundfix` command: dispatch `fix`, `review`, `serve`, print help, map errors to exit codes.
 * @returns the exit code: 0 the run completed (whatever its outcome; `review --exit-code`: 1 when the review's
 * conclusion is failure), 2 bad input (one line on stderr), 1 internal error (one line plus a hint; the stack with
 * GROUNDFIX_DEBUG=1).
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "fix":
        return await fixCommand(rest, io);
      case "review":
        return await reviewCommand(rest, io);
      case "serve":
        if (rest.includes("--help") || rest.includes("-h")) return (void io.stdout.write(SERVE_HELP), EXIT.ok);
        return await (await import("./serve.js")).serve(rest, io);
      case "worker":
        if (rest.includes("--help") || rest.includes("-h")) return (void io.stdout.write(SERVE_HELP), EXIT.ok);
        return await (await import("./serve.js")).serve(rest, io, "worker");
      case "help": {
        // `groundfix help fix` = `groundfix fix --help`.
        if (rest.length > 1) throw new UsageError(`help: unexpected argument ${rest[1]} (groundfix help <command>)`);
        const topic = { fix: FIX_HELP, review: REVIEW_HELP, serve: SERVE_HELP, worker: SERVE_HELP }[rest[0] ?? ""];
        if (rest[0] !== undefined && topic === undefined)
          throw new UsageError(
            `help: unknown command ${JSON.stringify(rest[0])} (commands: fix, review, serve, worker)`,
          );
        io.stdout.write(topic ?? MAIN_HELP);
        return EXIT.ok;
      }
      case "--version":
      case "-V":
      case "version":
        if (rest.length > 0) throw new UsageError(`${command}: unexpected argument ${rest[0]} (it takes none)`);
        io.stdout.write(`groundfix ${packageVersion()}\n`);
        return EXIT.ok;
      case undefined:
      case "--help":
      case "-h":
        io.stdout.write(MAIN_HELP);
        return command === undefined ? EXIT.usage : EXIT.ok;
      default:
        throw new UsageError(
          `unknown command ${JSON.stringify(command)} (commands: fix, review, serve, worker; see groundfix --help)`,
        );
    }
  } catch (error) {
    if (isInputError(error)) {
      io.stderr.write(`groundfix: ${escapeControls(error.message.split("\n")[0] ?? "")}\n`);
      return EXIT.usage;
    }
    const message = escapeControls((error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "");
    if (io.env.GROUNDFIX_DEBUG === "1" && error instanceof Error) io.stderr.write(`${error.stack}\n`);
    io.stderr.write(
      `groundfix: internal error: ` +
        `${message}${io.env.GROUNDFIX_DEBUG === "1" ? "" : " (rerun with GROUNDFIX_DEBUG=1 for the stack)"}` +
        `\n`,
    );
    return EXIT.internal;
  }
}
