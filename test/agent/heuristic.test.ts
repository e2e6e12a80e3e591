import { describe, expect, it } from "vitest";
import { Script } from "node:vm";
import { execFileSync } from "node:child_process";
import { runAgent, type RunResult } from "../../src/agent/index.js";
import { createHeuristicModel } from "../../src/agent/models/heuristic.js";
import type { Snapshot, Task } from "../../src/types.js";
import { buildSnapshot, config, SHA } from "./helpers.js";
import { expectReadable } from "./heuristic/readable.js";

function task(title: string, body: string, extra: Partial<Task> = {}): Task {
  return {
    source: "issue",
    key: "acme/shop#issue-1",
    title,
    body,
    repo: { owner: "acme", name: "shop" },
    baseSha: SHA,
    number: 1,
    ...extra,
  };
}

/**
 * The lines the run added to `path` (from its unified diffs), and a check that no original line was removed or changed.
 */
function addedLines(result: RunResult, path: string): string[] {
  const diffs = result.edits.filter((e) => e.path === path).map((e) => e.diff);
  for (const d of diffs) expect(d.split("\n").filter((l) => l.startsWith("-") && !l.startsWith("---"))).toEqual([]);
  return diffs.flatMap((d) =>
    d
      .split("\n")
      .filter((l) => l.startsWith("+") && !l.startsWith("+++"))
      .map((l) => l.slice(1)),
  );
}

/** Every line of the base file is still in the new file, in order (the change is purely additive). */
function keepsEveryLine(base: string, after: string): boolean {
  const next = after.split("\n");
  let i = 0;
  for (const line of base.split("\n")) {
    while (i < next.length && next[i] !== line) i++;
    if (i === next.length) return false;
    i++;
  }
  return true;
}

const hasPython = (() => {
  try {
    execFileSync("python3", ["-c", "pass"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

// ───────────── a JavaScript repository with decoy models of similar names ─────────────

const JS_REPO: Record<string, string> = {
  "package.json": '{\n  "name": "brands",\n  "dependencies": { "mongoose": "^8.0.0" }\n}\n',
  "lib/logger.js": "module.exports = { warn: (...a) => console.warn(...a), info: (...a) => console.log(...a) };\n",
  "models/MasterBrandA.js": [
    "const mongoose = require('mongoose');",
    "",
    "const masterBrandASchema = new mongoose.Schema({",
    "    email: { type: String, required: true },",
    "    validationErrors: { type: Array },",
    "});",
    "",
    "module.exports = mongoose.model('MasterBrandA', masterBrandASchema);",
    "",
  ].join("\n"),
  "models/MasterBrandB.js": [
    "const mongoose = require('mongoose');",
    "",
    "const masterBrandBSchema = new mongoose.Schema({",
    "    email: { type: String, required: true },",
    "    errorCount: { type: Number, default: 0 },",
    "});",
    "",
    "module.exports = mongoose.model('MasterBrandB', masterBrandBSchema);",
    "",
  ].join("\n"),
  "models/ValidationLog.js": [
    "const mongoose = require('mongoose');",
    "const logger = require('../lib/logger');",
    "",
    "logger.info('loading ValidationLog model');",
    "",
    "const validationLogSchema = new mongoose.Schema({",
    "    brand: { type: String, required: true },",
    "    checked: { type: Number, default: 0 },",
    "    errors: { type: Array },",
    "});",
    "",
    "module.exports = mongoose.model('ValidationLog', validationLogSchema);",
    "",
  ].join("\n"),
  "services/audit.js": [
    "const ValidationLog = require('../models/ValidationLog');",
    "",
    "function recordImport(brand, result) {",
    "    return ValidationLog.create({ brand, checked: result.length });",
    "}",
    "",
    "module.exports = { recordImport };",
    "",
  ].join("\n"),
};

const WARNING =
  "(node:1) [MONGOOSE] Warning: `errors` is a reserved schema pathname and may " +
  "break some functionality. You are allowed to use it, but use at your own risk. " +
  "To disable this warning pass `suppressReservedKeysWarning` as a schema option.";
const JS_TRACE = [
  WARNING,
  "    at Schema.path (/usr/src/app/node_modules/mongoose/lib/schema.js:1077:15)",
  "    at Schema.add (/usr/src/app/node_modules/mongoose/lib/schema.js:729:14)",
  "    at new Schema (/usr/src/app/node_modules/mongoose/lib/schema.js:134:10)",
  "    at Object.<anonymous> (/usr/src/app/models/ValidationLog.js:6:29)",
  "    at Module._compile (node:internal/modules/cjs/loader:1521:14)",
  "    at Object.<anonymous> (/usr/src/app/services/audit.js:1:23)",
].join("\n");

describe("heuristic model through runAgent: JavaScript repository with decoys", () => {
  it(
    "cites the file that declares the field, quotes it verbatim, and " +
      "adds comments only (a declaration warning needs no runtime line)",
    async () => {
      const snapshot = await buildSnapshot(JS_REPO);
      const result = await runAgent({
        task: task("Mongoose warns about a reserved pathname", `Every start prints:\n\n\`\`\`\n${JS_TRACE}\n\`\`\``),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });

      // comments only change nothing at run time: proposed below the pull-request threshold, not committed
      expect(result.outcome).toBe("diagnosis_only");
      expect(result.diagnosis?.affected_file).toBe("models/ValidationLog.js");
      const base = snapshot.read("models/ValidationLog.js") ?? "";
      // the root cause is the line that declares the reserved field, not the frame line; both are cited
      expect(result.diagnosis?.root_cause_snippet).toBe("    errors: { type: Array },");
      expect(result.diagnosis?.citations).toContainEqual({
        path: "models/ValidationLog.js",
        start_line: 9,
        end_line: 9,
      });
      expect(result.diagnosis?.citations.some((c) => c.start_line <= 6 && c.end_line >= 6)).toBe(true);
      expect(result.diagnosis?.confidence).toBe(0.6); // the comment-only cap: below the pull-request threshold 0.7
      // whole sentences: the warning quoted up to a sentence end with "…", then where and why
      expect(result.diagnosis?.summary).toBe(
        'The issue reports "[MONGOOSE] Warning: `errors` is a ' +
          'reserved schema pathname and may break some functionality…". ' +
          "`models/ValidationLog.js` declares `errors` (line 9), the reserved schema pathname " +
          "the warning names; the stack trace enters the repository at models/ValidationLog.js:6. " +
          "A comment with the finding and the fix options (no runtime change) is proposed before line 6.",
      );

      expect(result.edits.map((e) => [e.path, e.kind])).toEqual([["models/ValidationLog.js", "addition"]]);
      const added = addedLines(result, "models/ValidationLog.js");
      expect(added).toHaveLength(2);
      // module level: no indentation; a comment naming the problem and the declaration, then the fix options the
      // warning itself documents; no log line (it would run at every start, one more startup message)
      expect(added[0]).toBe(
        "// groundfix: `errors` is a reserved schema pathname (see " +
          "the warning in the issue); the statement below declares it.",
      );
      expect(added[1]).toMatch(/^\/\/ Fix(?: options)?: rename `errors`/);
      expect(added.join("\n")).not.toMatch(/logger\.|console\./);
      expectReadable(result, WARNING.replace("(node:1) ", ""));
      const after = result.files.find((f) => f.path === "models/ValidationLog.js")?.content ?? "";
      expect(keepsEveryLine(base, after)).toBe(true);
      // right above the declaring statement
      expect(after.indexOf(added[1] ?? "?")).toBeLessThan(after.indexOf("const validationLogSchema"));
      expect(() => new Script(after)).not.toThrow();
      for (const e of result.edits)
        for (const line of e.code_before.split("\n")) expect(base.split("\n")).toContain(line);

      const reads = result.transcript.turns
        .flatMap((t) => t.tool_calls)
        .filter((c) => c.name === "get_file_contents")
        .map((c) => (c.arguments as { path: string }).path);
      expect(reads).not.toContain("models/MasterBrandA.js");
      expect(reads).not.toContain("models/MasterBrandB.js");
    },
  );

  it(
    "without a stack trace, picks the declaring file by the " +
      "quoted field name, with the confidence of an identifier match",
    async () => {
      const snapshot = await buildSnapshot(JS_REPO);
      const result = await runAgent({
        task: task("Reserved pathname warning", WARNING),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
      expect(result.diagnosis?.affected_file).toBe("models/ValidationLog.js");
      expect(result.diagnosis?.confidence).toBeGreaterThanOrEqual(0.55);
      expect(result.diagnosis?.confidence).toBeLessThan(0.7);
      expect(result.outcome).toBe("diagnosis_only");
      expect(result.diagnosis?.root_cause_snippet).toBe("    errors: { type: Array },");
      expect(result.diagnosis?.citations[0]).toEqual({ path: "models/ValidationLog.js", start_line: 9, end_line: 9 });
      expectReadable(result, WARNING.replace("(node:1) ", ""));
    },
  );

  it("adapts to a rejected edit (path denied): keeps the diagnosis, no edit, lower confidence", async () => {
    const snapshot = await buildSnapshot(JS_REPO);
    const result = await runAgent({
      task: task("Reserved pathname", JS_TRACE),
      snapshot,
      model: createHeuristicModel(),
      config: config({ paths: { deny: ["models/**"] } }),
    });
    expect(result.gates.rejections.map((r) => r.gate)).toContain("path_policy");
    expect(result.edits).toEqual([]);
    expect(result.diagnosis?.affected_file).toBe("models/ValidationLog.js");
    expect(result.diagnosis?.confidence).toBeLessThan(0.85);
    expect(result.outcome).toBe("diagnosis_only");
  });

  it("is deterministic: the same task gives the same transcript", async () => {
    const snapshot = await buildSnapshot(JS_REPO);
    const run = () =>
      runAgent({
        task: task("Reserved pathname", JS_TRACE),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
    const [a, b] = [await run(), await run()];
    expect(JSON.stringify(b.transcript)).toBe(JSON.stringify(a.transcript));
  });

  it("asks for information when nothing in the problem points at code", async () => {
    const snapshot = await buildSnapshot(JS_REPO);
    const result = await runAgent({
      task: task("It is slow sometimes", "Since yesterday the page feels slow. Please have a look."),
      snapshot,
      model: createHeuristicModel(),
      config: config(),
    });
    expect(result.outcome).toBe("needs_information");
    expect(result.edits).toEqual([]);
    expect(result.diagnosis?.confidence ?? 0).toBeLessThanOrEqual(0.3);
    expect(result.diagnosis?.summary).toMatch(/stack trace/);
  });
});

// ───────────── a Python repository ─────────────

const PY_PRICING = [
  "import logging",
  "",
  "logger = logging.getLogger(__name__)",
  "",
  "",
  "def compute_total(cart, discount=0):",
  '    logger.info("computing total")',
  "    if discount:",
  "        return apply_discount(cart, discount)",
  "    return sum(item.price for item in cart.items)",
  "",
  "",
  "def apply_discount(cart, discount):",
  "    return sum(item.price for item in cart.items) * (1 - discount)",
  "",
].join("\n");

const PY_REPO: Record<string, string> = {
  "requirements.txt": "flask==3.0.0\n",
  "shop/__init__.py": "",
  "shop/pricing.py": PY_PRICING,
  "shop/pricing_legacy.py": "def compute_total(cart):\n    return 0\n",
  "shop/views.py":
    "from shop.pricing import compute_total\n\n\ndef checkout(cart):\n " +
    '   total = compute_total(cart)\n    return {"total": total}\n',
  "tests/test_pricing.py":
    "from shop.pricing import compute_total\n\n\ndef test_empty():\n    assert compute_total(None) == 0\n",
};

describe("heuristic model through runAgent: Python repository", () => {
  it(
    "resolves a container traceback to shop/pricing.py and guards the None with a clear error at the frame's " +
      "indentation, as a proposal: the caller passed the parameter as None",
    async () => {
      const snapshot: Snapshot = await buildSnapshot(PY_REPO);
      const body = [
        "Checkout crashes for guests:",
        "```",
        "Traceback (most recent call last):",
        '  File "/usr/local/lib/python3.11/site-packages/flask/app.py", line 1484, in full_dispatch_request',
        "    rv = self.dispatch_request()",
        '  File "/usr/src/app/shop/views.py", line 5, in checkout',
        "    total = compute_total(cart)",
        '  File "/usr/src/app/shop/pricing.py", line 10, in compute_total',
        "    return sum(item.price for item in cart.items)",
        "AttributeError: 'NoneType' object has no attribute 'items'",
        "```",
      ].join("\n");
      const result = await runAgent({
        task: task("Checkout crashes with AttributeError", body),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
      // `cart` is the parameter itself: views.checkout passed None, so the guard only swaps AttributeError for
      // ValueError at the same place; the cause is the caller (the test even expects compute_total(None) == 0)
      expect(result.outcome).toBe("diagnosis_only");
      expect(result.diagnosis?.confidence).toBeLessThan(0.7);
      expect(result.diagnosis?.summary).toContain(
        "It fails on the parameter `cart` itself, which arrived missing: the cause is in the caller that passed it",
      );
      expect(result.diagnosis?.affected_file).toBe("shop/pricing.py");
      expect(result.diagnosis?.affected_function).toBe("compute_total");
      expect(PY_PRICING).toContain(result.diagnosis?.root_cause_snippet ?? "\u0000");
      const added = addedLines(result, "shop/pricing.py");
      // a guard on the receiver of `.items` read off the frame line: raises only when cart is None, with the other
      // parameter's type name, the whole object never; no comment line restating the error
      expect(added).toEqual([
        "    if cart is None:",
        '        raise ValueError(f"compute_total(): cart is None before ' +
          "reading 'items' (type(discount)={type(discount).__name__})\")",
      ]);
      expectReadable(result, "AttributeError: 'NoneType' object has no attribute 'items'");
      expect(result.diagnosis?.summary).toContain(
        "The stack trace enters the repository at shop/pricing.py:10 in `compute_total`.",
      );
      const after = result.files[0]?.content ?? "";
      expect(keepsEveryLine(PY_PRICING, after)).toBe(true);
      expect(after.indexOf(added[1] ?? "?")).toBeGreaterThan(-1);
      expect(after.indexOf(added[1] ?? "?")).toBeLessThan(
        after.indexOf("    return sum(item.price for item in cart.items)\n\n"),
      );
      if (hasPython)
        expect(() =>
          execFileSync("python3", ["-c", "import ast,sys; ast.parse(sys.stdin.read())"], { input: after }),
        ).not.toThrow();
    },
  );
});

// ───────────── a Go repository ─────────────

const GO_STORE = [
  "package store",
  "",
  "import (",
  '\t"errors"',
  '\t"log"',
  ")",
  "",
  "type Store struct {",
  "\titems map[string]string",
  "}",
  "",
  "func (s *Store) Get(key string) (string, error) {",
  '\tlog.Printf("get %s", key)',
  "\tv, ok := s.items[key]",
  "\tif !ok {",
  '\t\treturn "", errors.New("missing")',
  "\t}",
  "\treturn v, nil",
  "}",
  "",
].join("\n");

describe("heuristic model through runAgent: Go repository", () => {
  it(
    "resolves a CI-checkout panic frame to store/store.go and " +
      "guards the nil receiver with the function's own error (errors.New) at tab indentation, as a proposal",
    async () => {
      const snapshot = await buildSnapshot({
        "go.mod": "module github.com/acme/inventory\n\ngo 1.22\n",
        "store/store.go": GO_STORE,
        "store/store_test.go": 'package store\n\nimport "testing"\n\nfunc TestGet(t *testing.T) {}\n',
        "legacy/store.go": "package legacy\n\nfunc Get() {}\n",
        "main.go":
          'package main\n\nimport "github.com/acme/inventory/store"\n\nfunc ' +
          'main() {\n\tvar s *store.Store\n\ts.Get("a")\n}\n',
      });
      const body = [
        "panic: runtime error: invalid memory address or nil pointer dereference",
        "[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a1b2c]",
        "",
        "goroutine 1 [running]:",
        "github.com/acme/inventory/store.(*Store).Get(0x0, {0x4c1a20, 0x1})",
        "\t/home/runner/work/inventory/inventory/store/store.go:14 +0x1d",
        "main.main()",
        "\t/home/runner/work/inventory/inventory/main.go:7 +0x45",
      ].join("\n");
      const result = await runAgent({
        task: task("nil pointer panic in Get", body),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
      // main.go calls Get on a nil *Store: the receiver arrived nil, the cause is the caller
      expect(result.outcome).toBe("diagnosis_only");
      expect(result.diagnosis?.summary).toContain("It fails on the receiver `s` itself, which arrived missing");
      expect(result.diagnosis?.affected_file).toBe("store/store.go");
      expect(result.diagnosis?.affected_function).toBe("Get");
      expect(GO_STORE).toContain(result.diagnosis?.root_cause_snippet ?? "\u0000");
      const added = addedLines(result, "store/store.go");
      expectReadable(result, "panic: runtime error: invalid memory address or nil pointer dereference");
      // the method's pointer receiver is nil-checked; the function returns its error as its own guard does
      // (`errors.New`: the file does not import fmt), so the key, a string that is not an id, is not printed
      expect(added).toEqual(["\tif s == nil {", '\t\treturn "", errors.New("Get(): s is nil")', "\t}"]);
      const after = result.files[0]?.content ?? "";
      expect(keepsEveryLine(GO_STORE, after)).toBe(true);
      expect(after.indexOf(added[1] ?? "?")).toBeGreaterThan(-1);
      expect(after.indexOf(added[1] ?? "?")).toBeLessThan(after.indexOf("\tv, ok := s.items[key]"));
    },
  );
});
