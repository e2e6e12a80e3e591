import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { COMMENT_ONLY_REASON } from "../../src/agent/outcome.js";
import { isCommentOnly } from "../../src/lang/comments.js";
import { changeSubject, commentOnlyNote, SUBJECT_MAX } from "../../src/pipeline/describe.js";
import { commitMessage, pullRequestTitle } from "../../src/pipeline/record.js";
import type { RunResult } from "../../src/agent/index.js";
import type { AppliedEdit, Task } from "../../src/types.js";

/** An applied addition: `added` inserted before line `line` of `base` (a real unified diff, as the pipeline has). */
function addition(path: string, base: string, line: number, added: string): AppliedEdit {
  const lines = base.split("\n");
  const after = [...lines.slice(0, line - 1), ...added.replace(/\n$/, "").split("\n"), ...lines.slice(line - 1)];
  const anchor = `${lines[line - 1]}\n`;
  return {
    path,
    code_before: anchor,
    code_after: `${added}${anchor}`,
    rationale: "r",
    startLine: line,
    endLine: line,
    baseStartLine: line,
    baseEndLine: line,
    kind: "addition",
    diff: createTwoFilesPatch(`a/${path}`, `b/${path}`, base, after.join("\n")),
  };
}

const RESOLVE_JS = [
  "const path = require('path');",
  "",
  "function resolve(options, file) {",
  "  const root = options.root;",
  "  return path.join(root, file);",
  "}",
  "",
  "module.exports = { resolve };",
  "",
].join("\n");

const read = (files: Record<string, string>) => (path: string) => files[path];
const noDiagnosis = null;

describe("the commit subject names the change", () => {
  it("a guard reads `guard <name> against <value> in <function>()`", () => {
    const edit = addition(
      "lib/resolve.js",
      RESOLVE_JS,
      4,
      "  if (options.root === undefined) {\n    return null;\n  }\n",
    );
    expect(changeSubject([edit], noDiagnosis, read({ "lib/resolve.js": RESOLVE_JS }))).toBe(
      "groundfix: guard options.root against undefined in resolve()",
    );
  });

  it("reads the guards of Python, Go, Ruby, Kotlin, C# and Java", () => {
    const cases: [string, string, string][] = [
      ["a.py", "    if request is None:\n        raise ValueError('request is None')\n", "guard request against None"],
      ["a.go", "\tif f.Body == nil {\n\t\treturn 0, nil\n\t}\n", "guard f.Body against nil"],
      ["a.rb", "    raise ArgumentError, 'line is nil' if line.nil?\n", "guard line against nil"],
      [
        "a.kt",
        "        if (!::rectF.isInitialized) {\n            return\n        }\n",
        "guard rectF against use before",
      ],
      [
        "a.cs",
        "\t\tif (reader == null)\n\t\t{\n\t\t\tthrow new ArgumentNullException(nameof(reader));\n\t\t}\n" +
          "\n\t\tif (configuration == null)\n\t\t{\n\t\t\tthrow new ArgumentNullException();\n\t\t}\n",
        "guard reader and configuration against null",
      ],
      ["A.java", '        Objects.requireNonNull(token, "token");\n', "guard token against null"],
      [
        "a.py",
        "    if not hasattr(request, \"_enc_data\"):\n        raise TypeError('x')\n",
        "guard request against a missing _enc_data",
      ],
    ];
    cases.push([
      "a.js",
      "  if (!Array.isArray(items)) return 0;\n",
      "guard items against a value that is not an array",
    ]);
    // A call's result is not a "missing value": only what the condition shows is named.
    cases.push(["a.js", "  if (!isReady(job)) return;\n", "add 1 line"]);
    for (const [path, added, phrase] of cases) {
      const subject = changeSubject([addition(path, "x\ny\n", 2, added)], noDiagnosis);
      expect(subject, path).toContain(`groundfix: ${phrase}`);
      expect(subject.length).toBeLessThanOrEqual(SUBJECT_MAX);
    }
  });

  it("other code is counted, a comment is a comment, and the place is the function or the file", () => {
    const code = addition("lib/resolve.js", RESOLVE_JS, 5, "  console.log(root);\n  debugger;\n");
    expect(changeSubject([code], noDiagnosis, read({ "lib/resolve.js": RESOLVE_JS }))).toBe(
      "groundfix: add 2 lines to resolve()",
    );
    const comment = addition("lib/resolve.js", RESOLVE_JS, 8, "// groundfix: the trace points here\n");
    expect(changeSubject([comment], noDiagnosis, read({ "lib/resolve.js": RESOLVE_JS }))).toBe(
      "groundfix: add a comment to resolve.js",
    );
    expect(isCommentOnly(comment)).toBe(true);
    expect(isCommentOnly(code)).toBe(false);
  });

  it("stays within 72 characters: the place goes first, then names are counted", () => {
    const long = "aLongFunctionNameForTheSubjectLine";
    const base = `function ${long}(a) {\n  return a.b;\n}\n`;
    const edit = addition("a.js", base, 2, "  if (a.someLongerValueName == null) {\n    return;\n  }\n");
    expect(changeSubject([edit], noDiagnosis, read({ "a.js": base }))).toBe(
      "groundfix: guard a.someLongerValueName against null",
    );
    const short = addition("a.js", base, 2, "  if (a == null) {\n    return;\n  }\n");
    expect(changeSubject([short], noDiagnosis, read({ "a.js": base }))).toBe(
      `groundfix: guard a against null in ${long}()`,
    );
    const many = addition(
      "a.js",
      base,
      2,
      "  if (alphaValueOfTheCart == null || betaValueOfTheCart == null || gammaValueOfTheCart == null) return;\n",
    );
    expect(changeSubject([many], noDiagnosis, read({ "a.js": base }))).toBe("groundfix: guard 3 values against null");
  });

  it("several edits: one subject for guards in one place, else the first and a count", () => {
    const a = addition("lib/resolve.js", RESOLVE_JS, 4, "  if (options == null) return null;\n");
    const b = addition("lib/resolve.js", RESOLVE_JS, 5, "  if (root == null) return null;\n");
    const read1 = read({ "lib/resolve.js": RESOLVE_JS });
    expect(changeSubject([a, b], noDiagnosis, read1)).toBe(
      "groundfix: guard options and root against null in resolve()",
    );
    const c = addition("lib/other.js", "x\ny\n", 2, "  z();\n");
    expect(changeSubject([a, c], noDiagnosis, read1)).toBe(
      "groundfix: guard options against null in resolve() and 1 more edit",
    );
  });
});

describe("hostile text never reaches the subject", () => {
  const TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
  const task = {
    source: "issue",
    key: "o/r#issue-3",
    title: "Fixes #1 @octocat",
    body: "",
    repo: { owner: "o", name: "r" },
    baseSha: "b".repeat(40),
    number: 3,
  } as Task;

  it("a model's summary and function name, an issue title: no mention, reference, markup or control", () => {
    const edit = addition("src/cart.js", "a\nb\n", 2, "  if (item == null) return 0;\n");
    const result = {
      diagnosis: {
        summary: "Closes #7 @team/security ![x](https://evil.example/p.png)\u202e\u0007",
        affected_file: "src/cart.js",
        affected_function: "total`@octocat` [x](https://evil.example)",
        root_cause_snippet: null,
        confidence: 0.9,
        citations: [],
      },
      edits: [edit],
    } as unknown as RunResult;
    const message = commitMessage(task, result, defaultConfig(), "run-1");
    const subject = message.split("\n")[0]!;
    expect(subject).toBe("groundfix: guard item against null in cart.js");
    expect(pullRequestTitle(result)).toBe(subject);
    expect(message).not.toMatch(/@|Closes|evil|!\[|\u202e|\u0007|`/);
    // The one issue reference is the configured link keyword's, to the task's own issue.
    expect(message.match(/#\d+/g)).toEqual(["#3"]);
  });

  it("names from hostile code are shown only when they are plain identifiers; a token in one is redacted", () => {
    const hostile = [
      "  if (@octocat == null) return;\n",
      "  if (x[`](https://evil.example)`] == null) return;\n",
      "  if (a\u202eb == null) return;\n",
    ];
    for (const added of hostile) {
      const subject = changeSubject([addition("a.js", "x\ny\n", 2, added)], noDiagnosis);
      expect(subject).toBe("groundfix: add 1 line to a.js");
    }
    const token = changeSubject([addition("a.js", "x\ny\n", 2, `  if (${TOKEN} == null) return;\n`)], noDiagnosis);
    expect(token).not.toContain(TOKEN);
    expect(token).toContain("[redacted]");
    // A file name that is not plain is not shown.
    const odd = changeSubject([addition("src/@team `x`.js", "x\ny\n", 2, "  z();\n")], noDiagnosis);
    expect(odd).toBe("groundfix: add 1 line");
  });

  it("the body's edit lines read `(line 123)` for one line and `(lines 4-6)` for more", () => {
    const one = addition("src/cart.js", "a\nb\n", 2, "  if (item == null) return 0;\n");
    const two = { ...addition("src/cart.js", "a\nb\nc\nd\n", 2, "  z();\n"), baseStartLine: 2, baseEndLine: 3 };
    const message = commitMessage(
      task,
      { diagnosis: null, edits: [one, two] } as unknown as RunResult,
      defaultConfig(),
      "run-1",
    );
    expect(message).toContain("- addition in src/cart.js (line 2): guard item against null\n");
    expect(message).toContain("- addition in src/cart.js (lines 2-3): add 1 line\n");
    expect(message).not.toMatch(/lines (\d+)-\1\b/);
  });
});

describe("commentOnlyNote", () => {
  const comment = addition("a.py", "x\ny\n", 2, "    # the trace points here\n");
  const code = addition("a.py", "x\ny\n", 2, "    if y is None:\n        return\n");
  it("speaks only for an uncommitted run whose every edit is a comment", () => {
    const reason = "confidence 0.6 is below the pull-request threshold 0.7";
    expect(commentOnlyNote({ outcome: "diagnosis_only", reason, edits: [comment] })).toBe(
      "no edit is proposed for merging, because the only edit groundfix could ground is a comment, which changes " +
        `nothing at run time (${reason}); it is shown as a note, not as a fix`,
    );
    expect(commentOnlyNote({ outcome: "pr_ready", reason: null, edits: [comment] })).toBeNull(); // approved
    expect(commentOnlyNote({ outcome: "diagnosis_only", reason, edits: [comment, code] })).toBeNull();
    expect(commentOnlyNote({ outcome: "needs_information", reason, edits: [] })).toBeNull();
  });

  it("does not say twice why a confident comment-only answer opens no pull request", () => {
    expect(commentOnlyNote({ outcome: "diagnosis_only", reason: COMMENT_ONLY_REASON, edits: [comment] })).toBe(
      "no edit is proposed for merging, because the only edit groundfix could ground is a comment, which changes " +
        "nothing at run time; it is shown as a note, not as a fix",
    );
  });

  it("calls an edit that comments code out a change, not a comment", () => {
    const base = "def f(y):\n    y.run()\n    return y\n";
    const out = {
      ...addition("a.py", base, 2, ""),
      diff: createTwoFilesPatch("a/a.py", "b/a.py", base, base.replace("    y.run()", "    # y.run()")),
      kind: "modification" as const,
    };
    expect(changeSubject([out], noDiagnosis, read({ "a.py": base }))).toBe("groundfix: change 1 line in f()");
  });
});
