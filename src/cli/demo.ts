/**
 * `npm run demo`: the main job on an example repository, with no credentials and no network.
 *
 * Copies `examples/demo-service` into a temporary git repository (one commit), then runs the same pipeline as
 * `groundfix fix` three times on the issue in `examples/demo-issue.md`: with the default `heuristic` model (expected:
 * the real file cited with a verified snippet and a grounded addition that is comments only, so it stays below the
 * pull-request threshold and nothing is committed); the same run approved as a maintainer's `/groundfix approve`
 * would (expected: the addition committed on a branch, the review passing); and the replay of a confabulating model
 * (expected: each fabrication stopped by a gate, no branch). Exit code 1 when an expectation does not hold, so the
 * demo doubles as a smoke test. The temporary repository is kept (its branch is what the "Next" commands show), and
 * the last line names it and how to remove it, also after a failure.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runFix, type FixReport } from "./fix.js";
import { toProblem } from "./issue.js";
import { renderFixReport } from "./render.js";
import { styleFor, type Style } from "./style.js";
import { escapeControls } from "./terminal.js";

const EXAMPLES = fileURLToPath(new URL("../../examples/", import.meta.url));
const REAL_FILE = "models/ValidationLog.js";
const DECOYS = ["models/MasterBrandA.js", "models/MasterBrandB.js", "models/MasterBrandC.js"];
const TRANSCRIPT = "examples/transcripts/confabulating.json";

/** Copy the example service into a fresh temp dir and commit it; returns the directory. */
function makeDemoRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), "groundfix-demo-"));
  cpSync(join(EXAMPLES, "demo-service"), dir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      ["-C", dir, "-c", "user.name=groundfix demo", "-c", "user.email=demo@example.invalid", ...args],
      {
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "demo-service: initial commit");
  return dir;
}

/** A short description of what a tool call claimed (for the fabrication list). */
function describeCall(name: string, args: unknown): string {
  const a = (args ?? {}) as Record<string, unknown>;
  const firstLine = (v: unknown) => (typeof v === "string" ? JSON.stringify(v.trim().split("\n")[0]) : "");
  if (name === "submit_answer")
    return `submit_answer citing ${String(a.affected_file)} with snippet ${firstLine(a.root_cause_snippet)}…`;
  if (name === "suggest_addition")
    return `suggest_addition on ${String(a.path)} anchored on ${firstLine(a.code_before)}…`;
  return `${name}(${JSON.stringify(args)})`;
}

/** Each fabrication of a run (a refused call, a removed Observation block), the gate, and what the model was told. */
function renderFabrications(report: FixReport, style: Style): string {
  const out: string[] = [];
  for (const step of report.result.trace.steps) {
    if (step.observations_stripped > 0) {
      out.push(
        `  ${style.bold(`step ${step.step}`)}  wrote its own "Observation:" block claiming what a file contains`,
        `           ${style.yellow("stopped by transcript hygiene")}: the ` +
          `block was removed before the text went back into the conversation`,
      );
    }
    for (const call of step.tool_calls) {
      if (call.status !== "rejected") continue;
      out.push(`  ${style.bold(`step ${step.step}`)}  ${escapeControls(describeCall(call.name, call.arguments))}`);
      out.push(`           ${style.yellow(`stopped by gate ${call.gate ?? "(tool)"}`)}; the model was told:`);
      out.push(
        escapeControls(call.result.trim())
          .split("\n")
          .map((l) => `             ${style.dim(l)}`)
          .join("\n"),
      );
    }
  }
  return out.join("\n");
}

function section(title: string, style: Style): string {
  return `\n${style.bold(title)}\n${style.dim("─".repeat(Math.min(title.length, 72)))}`;
}

/** The demo's temporary repository once made (kept after the demo; {@link keptNote} says so). */
let demoRepo: string | null = null;

/** The last line of the demo: where its repository is, that it is kept, and how to remove it. */
function keptNote(dir: string): string {
  return `The demo repository is kept at ${dir} so you can look at it; remove it with: rm -rf ${dir}`;
}

async function main(): Promise<number> {
  const style = styleFor(process.stdout);
  const say = (text = "") => process.stdout.write(`${text}\n`);
  const problems: string[] = [];
  const expect = (ok: boolean, good: string, bad: string) => {
    say(ok ? `  ${style.green("✓")} ${good}` : `  ${style.red("✗")} ${bad}`);
    if (!ok) problems.push(bad);
  };

  const issue = toProblem(readFileSync(join(EXAMPLES, "demo-issue.md"), "utf8"));
  const repo = (demoRepo = makeDemoRepo());
  say(style.bold("groundfix demo — grounded fixes, no credentials, no network"));
  say();
  say(
    `The example: ${style.cyan("examples/demo-service")}, a small Node service, ` +
      "copied into a fresh git repository (kept after the demo):",
  );
  say(`  ${repo}`);
  say(`Its issue (${style.cyan("examples/demo-issue.md")}): "${issue.title}"`);
  say("The body holds the warning and a stack trace. Three brand models with near-identical names and schemas");
  say(`(${DECOYS.join(", ")}) are decoys; only ${REAL_FILE} declares \`errors\`.`);

  say(section("1. The default model (heuristic: deterministic, no network)", style));
  const good = await runFix({ repoDir: repo, title: issue.title, body: issue.body, model: "heuristic" });
  say(renderFixReport(good, style));
  say();
  const cited = good.result.diagnosis?.citations.map((c) => c.path) ?? [];
  expect(
    good.result.diagnosis?.affected_file === REAL_FILE && !cited.some((p) => DECOYS.includes(p)),
    `cites ${REAL_FILE}, the file that really declares \`errors\` (no decoy cited)`,
    `expected ${REAL_FILE} to be cited and no decoy; got ` +
      `${good.result.diagnosis?.affected_file ?? "no diagnosis"} (${cited.join(", ")})`,
  );
  expect(
    Boolean(good.result.diagnosis?.root_cause_snippet),
    "its snippet was verified verbatim in the file at the pinned commit",
    "expected a verified root-cause snippet",
  );
  // The grounded addition is comments (the finding and the warning's fix options): it changes nothing at run time,
  // so its confidence stays below the pull-request threshold and nothing is committed until a maintainer approves.
  expect(
    good.result.outcome === "diagnosis_only" &&
      good.result.edits.some((e) => e.path === REAL_FILE) &&
      good.delivery === null &&
      good.noFix !== null,
    `the grounded addition (comments only) applies to ${REAL_FILE} and stays below the pull-request ` +
      `threshold: shown as a note, no edit proposed for merging, nothing committed`,
    `expected outcome diagnosis_only with a proposed edit of ${REAL_FILE} and no branch; ` +
      `got ${good.result.outcome}${good.result.reason ? ` (${good.result.reason})` : ""}`,
  );

  say(section("2. The same run approved by a maintainer (on GitHub: /groundfix approve)", style));
  say("The pull-request threshold drops to the comment threshold for this run; every gate and the review still apply.");
  say();
  const approved = await runFix({
    repoDir: repo,
    title: issue.title,
    body: issue.body,
    model: "heuristic",
    approve: true,
  });
  say(renderFixReport(approved, style));
  say();
  expect(
    approved.result.outcome === "pr_ready" && approved.delivery !== null && !approved.delivery.reused,
    `the grounded addition is one commit on ${approved.delivery?.branch ?? "a branch"}; ` +
      `your working tree and current branch were not touched`,
    `expected outcome pr_ready with a new branch; got ${approved.result.outcome}` +
      `${approved.result.reason ? ` (${approved.result.reason})` : ""}`,
  );
  expect(
    approved.review?.conclusion === "success",
    "the review rules pass on the new commit",
    `expected the review to pass; got ${approved.review?.conclusion ?? "no review"}`,
  );

  say(section("3. A confabulating model (replay of a recorded transcript)", style));
  say(`Same repository, same issue, --model replay:${TRANSCRIPT}. The model answers before reading any code,`);
  say("cites a decoy with an invented snippet, vouches for it in a self-written Observation block, and edits text");
  say("that was never in the file. Each fabrication and what stopped it:");
  say();
  const bad = await runFix({
    repoDir: repo,
    title: issue.title,
    body: issue.body,
    model: `replay:${fileURLToPath(new URL(`../../${TRANSCRIPT}`, import.meta.url))}`,
  });
  say(renderFabrications(bad, style));
  say();
  const gates = new Set(bad.result.gates.rejections.map((r) => r.gate));
  const gaveUp = /replay transcript exhausted/.test(bad.result.reason ?? "")
    ? style.dim(" (the recorded model gave up: its turns ran out)")
    : "";
  say(
    `${style.bold("Outcome".padEnd(10))}${style.red(bad.result.outcome)}` +
      `${bad.result.reason ? ` — ${bad.result.reason}` : ""}${gaveUp}`,
  );
  expect(
    bad.result.outcome !== "pr_ready" && bad.delivery === null,
    "no branch, no commit: nothing the model invented reached the repository",
    `expected no delivery for the confabulating model; got ${bad.result.outcome}`,
  );
  expect(
    bad.result.gates.observations_stripped > 0 && gates.size >= 2,
    `stopped by ${[...gates].join(", ")}${bad.result.gates.observations_stripped ? " and transcript hygiene" : ""}`,
    `expected several gates and stripped observations; got ` +
      `${[...gates].join(", ") || "none"}, ${bad.result.gates.observations_stripped} stripped`,
  );

  say(section("Next", style));
  say(`  git -C ${repo} show ${approved.delivery?.branch ?? "HEAD"}     the commit groundfix made`);
  say("  node dist/cli/main.js fix --repo <your checkout> --issue <file>     try it on your own code");
  say("  node dist/cli/main.js fix --help                                      every option");
  say();
  say(keptNote(repo));
  if (problems.length > 0) {
    process.stderr.write(`\ndemo: ${problems.length} expectation(s) did not hold (see ✗ above)\n`);
    return 1;
  }
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`demo: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
    if (process.env.GROUNDFIX_DEBUG === "1" && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    if (demoRepo) process.stderr.write(`demo: ${keptNote(demoRepo)}\n`);
    process.exitCode = 1;
  },
);
