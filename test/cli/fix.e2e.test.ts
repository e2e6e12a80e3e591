import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cli, demoRepo, EXAMPLES, git, GUARD_ISSUE } from "./helpers.js";

const ISSUE = join(EXAMPLES, "demo-issue.md");
const CONFAB = join(EXAMPLES, "transcripts", "confabulating.json");

describe("groundfix fix (built CLI, end to end)", () => {
  it("fixes a crash in the demo service: JSON document, a branch whose parent is the base, checkout untouched", () => {
    const { dir, base } = demoRepo();
    // A dirty working tree and a staged change must survive the run.
    writeFileSync(join(dir, "index.js"), "// my local edit\n");
    writeFileSync(join(dir, "README.md"), "# staged\n");
    git(dir, "add", "README.md");
    const before = {
      status: git(dir, "status", "--porcelain=v1"),
      head: git(dir, "symbolic-ref", "HEAD"),
      sha: git(dir, "rev-parse", "HEAD"),
    };

    const r = cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE, "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    // stderr is not a TTY: no progress; only the note that the two uncommitted changes were not read.
    const dirty =
      `the working tree has 2 uncommitted change(s); this run read the ` +
      `commit ${base.slice(0, 12)} (HEAD) only: commit them to include them`;
    expect(doc.notes).toEqual([dirty]);
    expect(r.stderr).toBe(`groundfix: note: ${dirty}\n`);
    expect(Object.keys(doc)).toEqual(
      expect.arrayContaining(["status", "base_sha", "branch", "diagnosis", "edits", "review", "gates", "usage"]),
    );
    expect(doc.status).toBe("pr_ready");
    expect(doc.base_sha).toBe(base);
    expect(doc.diagnosis.affected_file).toBe("services/audit.js");
    expect(doc.diagnosis.citations.length).toBeGreaterThan(0);
    for (const c of doc.diagnosis.citations) {
      expect(c.path).not.toMatch(/MasterBrand/);
      expect(c.start_line).toBeGreaterThanOrEqual(1);
      expect(c.end_line).toBeGreaterThanOrEqual(c.start_line);
    }
    const realFile = readFileSync(join(EXAMPLES, "demo-service", "services", "audit.js"), "utf8");
    expect(realFile).toContain(doc.diagnosis.root_cause_snippet);
    expect(doc.edits.length).toBeGreaterThan(0);
    expect(doc.edits[0]).toMatchObject({ path: "services/audit.js", kind: "addition" });
    expect(doc.edits[0].diff).toMatch(/^\+/m);
    expect(doc.review.conclusion).toBe("success");
    expect(Array.isArray(doc.review.findings)).toBe(true);
    expect(doc.gates).toMatchObject({ observations_stripped: 0 });
    expect(doc.usage.model_calls).toBeGreaterThan(0);
    expect(doc.usage.tool_calls).toBeGreaterThan(0);

    // The branch: one new commit whose only parent is the base, holding exactly the edited file.
    expect(doc.branch).toMatch(/^groundfix\/[a-z0-9-]+$/);
    const head = git(dir, "rev-parse", `refs/heads/${doc.branch}`);
    expect(doc.head_sha).toBe(head);
    expect(git(dir, "rev-list", "--parents", "-n", "1", head)).toBe(`${head} ${base}`);
    expect(git(dir, "diff", "--name-only", base, head)).toBe("services/audit.js");
    // The user's checkout is exactly as it was.
    expect({
      status: git(dir, "status", "--porcelain=v1"),
      head: git(dir, "symbolic-ref", "HEAD"),
      sha: git(dir, "rev-parse", "HEAD"),
    }).toEqual(before);
    expect(readFileSync(join(dir, "index.js"), "utf8")).toBe("// my local edit\n");

    // A rerun of the same issue reuses the branch instead of stacking a second commit.
    const again = JSON.parse(cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE, "--json"]).stdout);
    expect(again).toMatchObject({ branch: doc.branch, head_sha: head, branch_reused: true });
  });

  it("gives each edit diff as a plain unified diff that git apply takes on the base, giving the branch file", () => {
    const { dir } = demoRepo();
    const doc = JSON.parse(cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE, "--json"]).stdout);
    expect(doc.status).toBe("pr_ready");
    for (const [i, e] of (doc.edits as { path: string; diff: string }[]).entries()) {
      // What `git diff` shows for a file, from its --- line: no jsdiff "====" line before it.
      expect(e.diff.split("\n").slice(0, 3)).toEqual([
        `--- a/${e.path}`,
        `+++ b/${e.path}`,
        expect.stringMatching(/^@@ /),
      ]);
      const file = join(dir, "..", `edit-${i}-${Date.now()}.diff`);
      writeFileSync(file, e.diff);
      git(dir, "apply", file); // the working tree is the base commit
    }
    expect(readFileSync(join(dir, "services", "audit.js"), "utf8")).toBe(
      git(dir, "show", `${doc.branch}:services/audit.js`) + "\n",
    );
  });

  it("run with --repo on a folder inside the repository: says it works on the whole repository, and which", () => {
    const { dir } = demoRepo();
    const top = git(dir, "rev-parse", "--show-toplevel");
    const sub = realpathSync(join(dir, "services")); // as the note names it
    const note =
      `--repo ${sub} is a folder inside the git repository ${top}: groundfix works on that whole repository at ` +
      `the commit (every file, and its .github/groundfix.yml), not only on this folder`;
    const r = cli(["fix", "--repo", sub, "--issue-text", GUARD_ISSUE, "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.notes).toEqual([note]);
    expect(r.stderr).toBe(`groundfix: note: ${note}\n`);
    expect(doc.diagnosis.affected_file).toBe("services/audit.js"); // paths from the repository's root
    expect(doc.status).toBe("pr_ready");
    // From the current folder (the default --repo .), the note names both.
    const here = cli(["review", "--base", "HEAD", "--head", "HEAD"], { cwd: sub });
    expect(here.code).toBe(0);
    expect(here.stderr).toBe(`groundfix: note: ${note.replace(`--repo ${sub}`, `--repo . (${sub})`)}\n`);
    // At the root: no note.
    expect(cli(["review", "--repo", dir, "--base", "HEAD", "--head", "HEAD"]).stderr).toBe("");
  });

  it("prints a readable report with path:line citations and the diff", () => {
    const { dir } = demoRepo();
    const r = cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Outcome\s+pr_ready/);
    expect(r.stdout).toMatch(/services\/audit\.js:\d+/);
    expect(r.stdout).toMatch(/^\s+\+/m);
    expect(r.stdout).toMatch(/Review\s+success/);
    expect(r.stdout).not.toContain("\u001b["); // no colour when stdout is not a TTY
  });

  it("a comment-only proposal says that no edit is proposed for merging, and shows the comment as a note", () => {
    const { dir } = demoRepo(); // default thresholds: the comment stays below the pull-request threshold
    const doc = JSON.parse(cli(["fix", "--repo", dir, "--issue", ISSUE, "--json"]).stdout);
    expect(doc).toMatchObject({ status: "diagnosis_only", branch: null });
    expect(doc.edits.length).toBeGreaterThan(0); // the comment is still there for scripts
    expect(doc.no_fix).toMatch(
      /^no edit is proposed for merging, because the only edit groundfix could ground is a comment/,
    );
    const text = cli(["fix", "--repo", dir, "--issue", ISSUE]).stdout;
    expect(text).toMatch(/^No fix\s+no edit is proposed for merging, because .* changes nothing at run time/m);
    expect(text).toMatch(/^Note: the comment it would add \(not a fix, not committed\)$/m);
    expect(text).not.toMatch(/^Edits/m);
    expect(git(dir, "branch", "--list", "groundfix/*")).toBe("");
  });

  it(
    "stops the confabulating replay with gates: no branch, " + "the rejections listed, --trace and --record written",
    () => {
      const { dir } = demoRepo();
      const trace = join(dir, "..", `trace-${Date.now()}.json`);
      const record = join(dir, "..", `record-${Date.now()}.json`);
      const r = cli(
        [
          "fix",
          "--repo",
          dir,
          "--issue",
          "-",
          "--model",
          `replay:${CONFAB}`,
          "--json",
          "--trace",
          trace,
          "--record",
          record,
        ],
        {
          input: readFileSync(ISSUE, "utf8"),
        },
      );
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(doc.status).not.toBe("pr_ready");
      expect(doc.branch).toBeNull();
      expect(doc.edits).toEqual([]);
      expect(doc.review).toBeNull();
      const gates = doc.gates.rejections.map((x: { gate: string }) => x.gate);
      expect(gates).toContain("tool_name"); // answered after only describe_repo + list_files
      expect(gates).toContain("verbatim_edit"); // code_before never in the file (before and after reading it)
      expect(gates).toContain("claims"); // the invented snippet is not in the cited decoy
      expect(doc.gates.observations_stripped).toBeGreaterThan(0);
      expect(git(dir, "branch", "--list", "groundfix/*")).toBe("");
      const savedTrace = JSON.parse(readFileSync(trace, "utf8"));
      expect(savedTrace.steps.length).toBeGreaterThan(1);
      // A replay is a recording: the user is told it only means something on the repository and base it came from.
      expect(doc.notes).toEqual([
        expect.stringMatching(/replay reproduces a recorded run: use it with the same repository, base commit/),
      ]);
      expect(r.stderr).toBe(`groundfix: note: ${doc.notes[0]}\n`);
      const savedRecord = JSON.parse(readFileSync(record, "utf8"));
      expect(savedRecord.turns[0].tool_calls.map((c: { name: string }) => c.name)).toEqual([
        "describe_repo",
        "list_files",
      ]);
    },
  );

  it(
    "reruns after the base moved or someone committed on the branch: the " +
      "branch is left untouched and delivery says so; --force replaces it",
    () => {
      const { dir, base } = demoRepo();
      const run = (...extra: string[]) => cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE, "--json", ...extra]);
      const first = JSON.parse(run().stdout);
      expect(first).toMatchObject({ status: "pr_ready", branch_reused: false, delivery: null });

      // The base moves on: the same problem again must not report the old branch (reviewed against the new base).
      writeFileSync(join(dir, "CHANGELOG.md"), "## next\n");
      git(dir, "add", "CHANGELOG.md");
      git(dir, "commit", "-q", "-m", "changelog");
      const newBase = git(dir, "rev-parse", "HEAD");
      const moved = run();
      expect(moved.code).toBe(0);
      expect(moved.stderr).toBe("");
      const movedDoc = JSON.parse(moved.stdout);
      expect(movedDoc).toMatchObject({
        status: "held",
        base_sha: newBase,
        branch: null,
        head_sha: null,
        branch_reused: false,
        held_branch: first.branch, // a script finds the branch it would have written without parsing `delivery`
      });
      expect(movedDoc.reason).toBe(movedDoc.delivery);
      // the review ran on the edits, before the branch
      expect(movedDoc.review).toMatchObject({ conclusion: "success" });
      expect(movedDoc.delivery).toBe(
        `branch ${first.branch} already exists at ${first.head_sha.slice(0, 12)} on another ` +
          `base (${base.slice(0, 12)}); left untouched; rerun with --force to replace it`,
      );
      expect(git(dir, "rev-parse", `refs/heads/${first.branch}`)).toBe(first.head_sha);
      const text = cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE]).stdout;
      expect(text).toMatch(
        /^Branch\s+not written: branch groundfix\/\S+ already exists at [0-9a-f]{12} on another base/m,
      );
      expect(text).toMatch(/^Edits \(not committed\)$/m);
      expect(text).toMatch(/^Outcome\s+held/m);
      expect(text).toMatch(/^Review\s+success/m);

      // --force over a groundfix commit on an older base: replaced quietly, reviewed on the new base.
      const forced = run("--force");
      expect(forced.stderr).toBe("");
      const forcedDoc = JSON.parse(forced.stdout);
      expect(forcedDoc).toMatchObject({ branch: first.branch, branch_reused: false, warnings: [] });
      expect(forcedDoc.delivery).toBe(`replaced branch ${first.branch} (was ${first.head_sha.slice(0, 12)})`);
      expect(forcedDoc.review.conclusion).toBe("success");
      expect(git(dir, "rev-list", "--parents", "-n", "1", first.branch)).toBe(`${forcedDoc.head_sha} ${newBase}`);
      // The same run again: the branch holds exactly this commit, so it is reused and reviewed.
      expect(JSON.parse(run().stdout)).toMatchObject({
        head_sha: forcedDoc.head_sha,
        branch_reused: true,
        delivery: null,
        review: { conclusion: "success" },
      });

      // Someone commits on top of the branch: left untouched without --force; with it, a warning names what is dropped.
      const human = git(
        dir,
        "commit-tree",
        `${forcedDoc.head_sha}^{tree}`,
        "-p",
        forcedDoc.head_sha,
        "-m",
        "my follow-up tweak",
      );
      git(dir, "update-ref", `refs/heads/${first.branch}`, human);
      expect(JSON.parse(run().stdout).delivery).toMatch(
        /already exists at [0-9a-f]{12} with other commits; left untouched; rerun with --force/,
      );
      expect(git(dir, "rev-parse", first.branch)).toBe(human);
      const over = run("--force");
      expect(over.code).toBe(0);
      const overDoc = JSON.parse(over.stdout);
      // Which dropped commit was someone's and which was groundfix's own is said, each with its subject.
      const ownSubject = git(dir, "log", "-1", "--format=%s", forcedDoc.head_sha);
      expect(overDoc.warnings).toEqual([
        `--force replaced ${first.branch}, which held commits not made by groundfix; it no longer holds 2 commits ` +
          `(1 not made by groundfix: ${human.slice(0, 12)} "my follow-up tweak" by ` +
          `${JSON.stringify(git(dir, "log", "-1", "--format=%an", human))}; 1 of groundfix's own: ` +
          `${forcedDoc.head_sha.slice(0, 12)} ${JSON.stringify(ownSubject)}); they stay in the reflog ` +
          `(git reflog ${first.branch})`,
      ]);
      expect(ownSubject).toMatch(/^groundfix: /);
      expect(over.stderr).toBe(`groundfix: warning: ${overDoc.warnings[0]}\n`);
      expect(git(dir, "rev-list", "--parents", "-n", "1", first.branch)).toBe(`${overDoc.head_sha} ${newBase}`);
      expect(git(dir, "reflog", "--format=%H", first.branch).split("\n")).toContain(human);
    },
    // Seven CLI runs, each building a snapshot: 47-75 s on a loaded machine (session 9), over the default 60 s.
    180_000,
  );

  it("reads a 5 MB issue file but shows the model only its first 65,536 characters, and notes the cut", () => {
    const { dir } = demoRepo();
    const big = join(mkdtempSync(join(tmpdir(), "gf-big-")), "issue.md");
    const issue = readFileSync(ISSUE, "utf8");
    writeFileSync(big, `${issue}\n${"log line: request served in 3 ms\n".repeat(160_000)}`);
    const r = cli(["fix", "--repo", dir, "--issue", big, "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc.notes).toContainEqual(
      expect.stringMatching(/^the problem text was cut to its first 65536 characters; \d+ more were not shown/),
    );
    expect(doc.diagnosis.affected_file).toBe("models/ValidationLog.js"); // the trace at the top was still read
  });

  it("names the commit it read an invalid config at, so a fix left uncommitted is not a mystery", () => {
    const { dir } = demoRepo();
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, ".github", "groundfix.yml"), "thresholds:\n  pull_requst: 0.9\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "config with a typo");
    const sha = git(dir, "rev-parse", "HEAD");
    writeFileSync(join(dir, ".github", "groundfix.yml"), "thresholds:\n  pull_request: 0.9\n"); // fixed, not committed
    const r = cli(["fix", "--repo", dir, "--issue", ISSUE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `groundfix: invalid .github/groundfix.yml at ${sha.slice(0, 12)} ` +
        `(as committed; uncommitted edits are not read): ` +
        "thresholds.pull_requst: unknown key (did you mean pull_request?)\n",
    );
    expect(git(dir, "branch", "--list", "groundfix/*")).toBe("");
  });

  it("says that an uncommitted .github/groundfix.yml was not used, and which config ran instead", () => {
    const { dir, base } = demoRepo();
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, ".github", "groundfix.yml"), "thresholds:\n  pull_request: 0.9\n");
    const untracked = JSON.parse(cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE, "--json"]).stdout);
    expect(untracked.notes).toEqual([
      `.github/groundfix.yml is not committed; there is none at ${base.slice(0, 12)}, so this run used the ` +
        "defaults (commit it to have groundfix read it)",
    ]);
    expect(untracked.status).toBe("pr_ready"); // the guard's 0.85: the uncommitted 0.9 threshold did not apply

    git(dir, "add", ".github/groundfix.yml");
    git(dir, "commit", "-q", "-m", "config");
    const sha = git(dir, "rev-parse", "HEAD");
    writeFileSync(join(dir, ".github", "groundfix.yml"), "thresholds:\n  pull_request: 0.5\n");
    writeFileSync(join(dir, "index.js"), "// my local edit\n");
    const changed = cli(["fix", "--repo", dir, "--issue-text", GUARD_ISSUE, "--json"]);
    const doc = JSON.parse(changed.stdout);
    expect(doc.notes).toEqual([
      `.github/groundfix.yml has uncommitted changes; this run used .github/groundfix.yml as committed at ` +
        `${sha.slice(0, 12)} (commit it to have groundfix read it)`,
      `the working tree has 1 uncommitted change(s); this run read the commit ${sha.slice(0, 12)} (HEAD) only: ` +
        "commit them to include them",
    ]);
    expect(doc.status).toBe("diagnosis_only"); // the committed 0.9 threshold applied, not the working tree's 0.5
    expect(changed.stderr).toBe(doc.notes.map((n: string) => `groundfix: note: ${n}\n`).join(""));
  });

  it("notes a binary file the issue's stack trace names (it cannot be read or edited)", () => {
    const { dir } = demoRepo(); // it has a lib/ folder already
    // Latin-1, not UTF-8: the snapshot holds it as binary, so no tool serves it.
    writeFileSync(
      join(dir, "lib", "legacy.js"),
      Buffer.from("// caf\xe9\nfunction encode(s) {\n  return s.x;\n}\n", "latin1"),
    );
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "a Latin-1 file");
    const sha = git(dir, "rev-parse", "HEAD");
    const issue =
      "encode crashes\n\nTypeError: Cannot read properties of undefined (reading 'x')\n" +
      "    at encode (/app/lib/legacy.js:3:12)\n    at Object.<anonymous> (/app/index.js:1:1)\n";
    const r = cli(["fix", "--repo", dir, "--issue-text", issue, "--json"]);
    expect(r.code).toBe(0);
    const note =
      `lib/legacy.js, named in the issue's stack trace, is a binary file at ${sha.slice(0, 12)} (a NUL byte, or ` +
      "bytes that are not UTF-8): groundfix can neither read nor edit it, so nothing in it was checked";
    expect(JSON.parse(r.stdout).notes).toEqual([note]);
    expect(r.stderr).toBe(`groundfix: note: ${note}\n`);
  });

  it("notes a config committed at a name groundfix does not read, instead of running silently on defaults", () => {
    const { dir } = demoRepo();
    writeFileSync(join(dir, ".groundfix.yml"), "thresholds:\n  pull_request: 0.1\n");
    mkdirSync(join(dir, ".github"));
    writeFileSync(join(dir, ".github", "groundfix.yaml"), "edits:\n  max_added_line: 3\n");
    git(dir, "add", "-A");
    git(dir, "commit", "-q", "-m", "configs at the wrong names");
    const r = cli(["fix", "--repo", dir, "--issue", ISSUE, "--json"]);
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    const notes = [
      "found .github/groundfix.yaml, which is not read: groundfix reads only .github/groundfix.yml (move it there)",
      "found .groundfix.yml, which is not read: groundfix reads only .github/groundfix.yml (move it there)",
    ];
    expect(doc.notes).toEqual(notes);
    expect(r.stderr).toBe(notes.map((n) => `groundfix: note: ${n}\n`).join(""));
    // The defaults were used: the comment-only addition (0.6) stays below the default threshold (0.7).
    expect(doc.status).not.toBe("pr_ready");
  });

  it(
    "shows control characters from file content escaped in the " +
      "report and exact in --json; notes an unused config model:",
    () => {
      const { dir } = demoRepo();
      const file = join(dir, "models", "ValidationLog.js");
      const lines = readFileSync(file, "utf8").split("\n");
      lines[3] = "// \u001b]0;pwned\u0007\u001b[31mred\u001b[0m";
      writeFileSync(file, lines.join("\n"));
      mkdirSync(join(dir, ".github"));
      writeFileSync(join(dir, ".github", "groundfix.yml"), "model: openai:gpt-4o-mini\n");
      git(dir, "add", "-A");
      git(dir, "commit", "-q", "-m", "hostile comment, config");

      const json = cli(["fix", "--repo", dir, "--issue", ISSUE, "--json"]);
      const doc = JSON.parse(json.stdout);
      expect(doc.edits[0].diff).toContain(lines[3]); // the exact bytes, JSON-escaped on the wire
      expect(json.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
      expect(doc.model).toBe("heuristic");
      expect(doc.notes).toEqual([
        ".github/groundfix.yml sets model: openai:gpt-4o-mini, which the CLI does not " +
          "use; this run used heuristic (choose the model with --model or GROUNDFIX_MODEL)",
      ]);
      expect(json.stderr).toBe(`groundfix: note: ${doc.notes[0]}\n`);

      const text = cli(["fix", "--repo", dir, "--issue", ISSUE]);
      expect(text.code).toBe(0);
      expect(text.stdout).toContain("// \\x1b]0;pwned\\x07\\x1b[31mred\\x1b[0m");
      expect(text.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    },
  );
});
