import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FixJson } from "../../src/cli/json.js";
import type { EvalCase } from "../../eval/cases.js";
import { preparedBase, prepareCase } from "../../eval/prepare.js";
import { loadGoGrammar } from "../../eval/go-syntax.js";
import { isLogLine, parseEdits, plainName, scoreRun, totals } from "../../eval/score.js";

const SERVICE = `export function loadUser(db, id) {
  const row = db.find(id);
  return { name: row.name, email: row.email };
}

export function other() {
  return 1;
}
`;

function sh(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, {
    cwd,
    encoding: "utf8",
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "t",
      GIT_AUTHOR_EMAIL: "t@t",
      GIT_COMMITTER_NAME: "t",
      GIT_COMMITTER_EMAIL: "t@t",
    },
  }).trim();
}

let root: string;
let work: string;
let base: string;
let fix: string;

beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "gf-eval-"));
  work = join(root, "work");
  execFileSync("git", ["init", "--quiet", work]);
  writeFileSync(join(work, "service.js"), SERVICE);
  writeFileSync(join(work, "big.bin"), "pretend this blob is over the snapshot's size limit\n");
  sh(work, "add", "-A");
  sh(work, "commit", "--quiet", "-m", "base");
  base = sh(work, "rev-parse", "HEAD");
  writeFileSync(
    join(work, "service.js"),
    SERVICE.replace("  const row", "  const row = db.find(id);\n  if (!row) throw new Error(`no user ${id}`);\n  //"),
  );
  sh(work, "commit", "--quiet", "-am", "fix");
  fix = sh(work, "rev-parse", "HEAD");
  execFileSync("git", ["clone", "--quiet", "--bare", work, join(root, "mirrors", "acme+tiny", "repo")]);
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

function evalCase(over: Partial<EvalCase> = {}): EvalCase {
  return {
    id: "tiny-null-row",
    language: "javascript",
    repository: "acme/tiny",
    source: "https://example.com/issues/1",
    fix_source: "commit",
    base,
    fix,
    kind: ["top-frame"],
    issue: { title: "TypeError", body: "" },
    changed: { files: ["service.js"], functions: ["loadUser"], other: [] },
    trace_paths: [],
    ...over,
  };
}

/** A `fix --json` document whose one edit replaces `before` by `after` in service.js (or `path`). */
function run(before: string, after: string, over: Partial<FixJson> = {}, path = "service.js"): FixJson {
  const text = path === "service.js" ? SERVICE : "let x = 1;\n";
  const diff = createTwoFilesPatch(`a/${path}`, `b/${path}`, text, text.replace(before, after));
  return {
    status: "diagnosis_only",
    reason: null,
    base_sha: base,
    base_moved: null,
    branch: null,
    head_sha: null,
    branch_reused: false,
    delivery: null,
    held_branch: null,
    model: "heuristic",
    diagnosis: {
      summary: "",
      affected_file: "service.js",
      affected_function: "loadUser",
      root_cause_snippet: null,
      confidence: 0.5,
      citations: [{ path: "service.js", start_line: 3, end_line: 3 }],
    },
    edits: [{ path, start_line: 3, end_line: 3, kind: "addition", diff }],
    review: null,
    no_fix: null,
    gates: { rejections: [], observations_stripped: 0 },
    usage: { model_calls: 1, tool_calls: 1, input_tokens: 0, output_tokens: 0, estimated: false },
    notes: [],
    warnings: [],
    ...over,
  };
}

const readBase = (path: string) => (path === "service.js" ? SERVICE : path === "other.js" ? "let x = 1;\n" : undefined);
const ROW = "  return { name";

describe("eval scoring", () => {
  it("counts a guard in the changed function as a cited file, a cited function and a code edit that parses", () => {
    const s = scoreRun(evalCase(), run(ROW, "  if (!row) throw new Error(`no user ${id}`);\n" + ROW), 800, readBase);
    expect(s).toMatchObject({
      fileFirst: true,
      functionCited: true,
      editInChanged: true,
      codeEditInChanged: true,
      prOutside: false,
      parse: { state: "ok" },
    });
  });

  it("does not count a comment-only edit as a code edit", () => {
    const s = scoreRun(evalCase(), run(ROW, "  // row can be undefined here\n" + ROW), 800, readBase);
    expect(s.editInChanged).toBe(true);
    expect(s.codeEditInChanged).toBe(false);
  });

  it("reports an edit that puts a statement inside an object literal as not parsing", () => {
    const s = scoreRun(
      evalCase(),
      run("name: row.name, ", "name: row.name,\n    if (!row) return;\n    "),
      800,
      readBase,
    );
    expect(s.parse.state).toBe("fail");
  });

  it("flags a pull request that edits a file the fix did not touch, but not a diagnosis that does", () => {
    const outside = run("let x = 1;", "let x = 2;", { status: "pr_ready" }, "other.js");
    expect(scoreRun(evalCase(), outside, 1, readBase).prOutside).toBe(true);
    expect(scoreRun(evalCase(), { ...outside, status: "diagnosis_only" }, 1, readBase).prOutside).toBe(false);
  });

  it("matches function names by their last segment and leaves cases without a named function out", () => {
    expect(plainName("UserService.loadUser()")).toBe("loadUser");
    expect(plainName("Foo::Bar#baz")).toBe("baz");
    expect(plainName("(*Command).execute")).toBe("execute");
    expect(plainName("func (c *Command) execute(a []string)")).toBe("execute");
    expect(plainName("CsvHelper.CsvParser..ctor")).toBe("CsvParser");
    expect(plainName("CsvHelper.CsvDataReader.get_FieldCount()")).toBe("FieldCount");
    expect(plainName("getFieldCount")).toBe("getFieldCount");
    expect(plainName("picocli.CommandLine$Model$CommandReflection.initParentCommand")).toBe("initParentCommand");
    const noFn = scoreRun(
      evalCase({
        changed: { files: ["service.js"], functions: [], other: [] },
      }),
      run(ROW, ROW),
      1,
      readBase,
    );
    expect(noFn.functionCited).toBeNull();
    const t = totals([noFn, scoreRun(evalCase(), run(ROW, ROW), 3, readBase)]);
    expect(t).toMatchObject({
      cases: 2,
      functionCases: 1,
      functionCited: 1,
      medianMs: 1,
      maxMs: 3,
    });
  });

  it("does not count a citation of a file the fix did not change", () => {
    const json = run(ROW, ROW);
    json.diagnosis = {
      ...json.diagnosis!,
      affected_file: "service.test.js",
      affected_function: "other",
    };
    expect(scoreRun(evalCase(), json, 1, readBase)).toMatchObject({
      fileFirst: false,
      functionCited: false,
    });
  });

  it("parses Go edits: a guard parses, a statement inside a composite literal does not", async () => {
    expect(await loadGoGrammar()).toBe(true);
    const go = "package main\n\nfunc f(p *T) int {\n\tv := T{A: 1, B: 2}\n\treturn p.N + v.A\n}\n";
    const edit = (before: string, after: string): FixJson => {
      const diff = createTwoFilesPatch("a/main.go", "b/main.go", go, go.replace(before, after));
      return {
        ...run(ROW, ROW),
        edits: [
          {
            path: "main.go",
            start_line: 4,
            end_line: 4,
            kind: "addition",
            diff,
          },
        ],
      };
    };
    const read = (path: string) => (path === "main.go" ? go : undefined);
    const guard = edit("\tv := T", "\tif p == nil {\n\t\treturn 0\n\t}\n\tv := T");
    expect(parseEdits(guard, read)).toEqual({ state: "ok" });
    const inside = edit("A: 1, ", "A: 1,\n\t\tif p == nil { return 0 }\n\t\t");
    expect(parseEdits(inside, read).state).toBe("fail");
  });

  it("counts an edit that only comments or logs as noise, and a guard as not", () => {
    const logOnly = run(ROW, '  console.error("row is undefined", id);\n  // restating the error\n' + ROW);
    expect(scoreRun(evalCase(), logOnly, 1, readBase)).toMatchObject({
      noise: true,
      codeEditInChanged: true,
    });
    const guard = run(ROW, "  if (!row) throw new Error(`no user ${id}`);\n" + ROW);
    expect(scoreRun(evalCase(), guard, 1, readBase).noise).toBe(false);
    expect(isLogLine('log.Fatalf("no config %s", p)')).toBe(false);
    expect(isLogLine("p.x = 1")).toBe(false);
    expect(isLogLine('fmt.Println("x")')).toBe(true);
  });
});

describe("eval corpus preparation", () => {
  it("checks out the base commit (not the fix) from a bare mirror, and a second run leaves it alone", () => {
    const mirrors = join(root, "mirrors");
    const out = join(root, "corpus");
    expect(prepareCase(evalCase(), mirrors, out)).toBe("created");
    const dir = join(out, "tiny-null-row");
    expect(preparedBase(dir)).toBe(base);
    expect(readFileSync(join(dir, "service.js"), "utf8")).toBe(SERVICE);
    expect(() => sh(dir, "cat-file", "-e", fix)).toThrow(); // the fix is not in the corpus copy
    expect(prepareCase(evalCase(), mirrors, out)).toBe("ready");
  });

  it("refuses a case whose base is not the fix's first parent, or that names a file the fix did not change", () => {
    const mirrors = join(root, "mirrors");
    const out = join(root, "corpus-bad");
    expect(() => prepareCase(evalCase({ base: fix }), mirrors, out)).toThrow(/not the first parent/);
    const wrongFile = evalCase({
      changed: { files: ["big.bin"], functions: [], other: [] },
    });
    expect(() => prepareCase(wrongFile, mirrors, out)).toThrow(/does not change big.bin/);
    const lostPath = evalCase({
      trace_paths: [{ trace: "/srv/app/lib/service.js", repo: "lib/service.js" }],
    });
    expect(() => prepareCase(lostPath, mirrors, out)).toThrow(/lib\/service.js, which is not at the base/);
    const unnamed = evalCase({
      changed: { files: ["service.js"], functions: ["saveUser"], other: [] },
    });
    expect(() => prepareCase(unnamed, mirrors, out)).toThrow(/function saveUser/);
    expect(existsSync(join(out, "tiny-null-row"))).toBe(false);
  });

  it("copies the tree without a blob the mirror lacks, and remembers which base it stands for", () => {
    const mirrors = join(root, "mirrors-loose");
    const bare = join(mirrors, "acme+tiny");
    cpSync(join(work, ".git"), bare, { recursive: true }); // commits made by `git commit` are loose objects
    const blob = sh(work, "rev-parse", `${base}:big.bin`);
    unlinkSync(join(bare, "objects", blob.slice(0, 2), blob.slice(2)));
    const out = join(root, "corpus-loose");
    expect(prepareCase(evalCase(), mirrors, out)).toBe("copied");
    const dir = join(out, "tiny-null-row");
    expect(existsSync(join(dir, "big.bin"))).toBe(false);
    expect(readFileSync(join(dir, "service.js"), "utf8")).toBe(SERVICE);
    expect(preparedBase(dir)).toBe(base);
    expect(prepareCase(evalCase(), mirrors, out)).toBe("ready");
  });
});

describe("npm run eval", () => {
  it("skips with one line and exit 0 when GROUNDFIX_EVAL_DIR is not set", () => {
    const env = { ...process.env };
    delete env.GROUNDFIX_EVAL_DIR;
    const r = spawnSync(process.execPath, ["--import", "tsx", "eval/run.ts"], {
      env,
      encoding: "utf8",
    });
    expect(r.status).toBe(0);
    expect(r.stdout.trim().split("\n")).toHaveLength(1);
    expect(r.stdout).toMatch(/^eval: skipped/);
  });
});
