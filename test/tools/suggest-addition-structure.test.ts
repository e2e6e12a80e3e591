import { describe, expect, test } from "vitest";
import { defaultConfig, parseConfig } from "../../src/config/schema.js";
import { createEditSession, prepareSuggestAddition, runSuggestAddition } from "../../src/tools/suggest-addition.js";
import { makeContext } from "./fixture.js";

const FILES = {
  "src/handler.js":
    "function handle(req, res, next) {\n  const user = load(req);\n  " +
    "audit(user);\n  res.send(user);\n}\nmodule.exports = { handle };\n",
  "app/views.py": "def view(request):\n    user = load(request)\n    audit(user)\n    return user\n",
  "cmd/main.go": "package main\n\nfunc run(x int) int {\n\ty := load(x)\n\taudit(y)\n\treturn y\n}\n",
};

/** A model that has read the whole file and now calls suggest_addition, inserting `lines` after `anchor`. */
async function suggest(path: keyof typeof FILES, anchor: string, lines: string, config = defaultConfig()) {
  const ctx = await makeContext(FILES);
  ctx.reads.record({ path, startLine: 1, endLine: 50 });
  const session = createEditSession();
  const args = { path, code_before: anchor, code_after: anchor + lines, rationale: "guard" };
  await prepareSuggestAddition(args);
  const out = runSuggestAddition(args, { snapshot: ctx.snapshot, reads: ctx.reads, config, session });
  return { out, session };
}

describe("suggest_addition refuses additions that disable existing code", () => {
  test.each([
    ["src/handler.js", "  const user = load(req);\n", "  return;\n"],
    ["src/handler.js", "  const user = load(req);\n", "  next(); return;\n"],
    ["src/handler.js", "  const user = load(req);\n", "  /*\n"],
    ["src/handler.js", "  const user = load(req);\n", "  if (false)\n"],
    ["app/views.py", "    user = load(request)\n", "    return None\n"],
    ["app/views.py", "    user = load(request)\n", '    """\n'],
    ["cmd/main.go", "\ty := load(x)\n", "\treturn 0\n"],
  ] as const)("%s + %j", async (path, anchor, lines) => {
    const { out, session } = await suggest(path, anchor, lines);
    expect(out.result.status).toBe("rejected");
    expect(out.gate).toBe("verbatim_edit");
    expect(out.result.text).toMatch(/^REJECTED: .* Nothing was applied\.$/s);
    expect(session.edits).toEqual([]);
  });

  test.each([
    ["a lone CR", "  // checked\r audit(null);\n"],
    ["U+2028", "  // checked\u2028audit(null);\n"],
    ["U+2029", "  // checked\u2029audit(null);\n"],
    ["a bidi override", '  const role = "user\u202E";\n'],
  ])("a line terminator or control hidden in an added line: %s", async (_n, lines) => {
    const { out } = await suggest("src/handler.js", "  const user = load(req);\n", lines);
    expect(out.result.text).toMatch(/hidden line break|invisible or bidirectional/);
    // also with edits.allow: modifications
    const mod = await suggest(
      "src/handler.js",
      "  const user = load(req);\n",
      lines,
      parseConfig({ edits: { allow: "modifications" } }),
    );
    expect(mod.out.result.status).toBe("rejected");
  });
});

describe("suggest_addition refuses additions that attach to or replace existing declarations", () => {
  test.each([
    [
      "app/views.py",
      "def view(request):\n",
      "@csrf_exempt\ndef view(request):\n",
      /inside the added decorated definition/,
    ],
    [
      "src/handler.js",
      "function handle(req, res, next) {\n",
      "export default\nfunction handle(req, res, next) {\n",
      /attaches to the existing function declaration/,
    ],
    [
      "src/handler.js",
      "module.exports = { handle };\n",
      "module.exports = { handle };\nexports.handle = () => {};\n",
      /changes what the module exports/,
    ],
    [
      "src/handler.js",
      "module.exports = { handle };\n",
      "function handle() {}\nmodule.exports = { handle };\n",
      /declares "handle"/,
    ],
  ] as const)("%s: %j", async (path, code_before, code_after, message) => {
    const ctx = await makeContext(FILES);
    ctx.reads.record({ path, startLine: 1, endLine: 50 });
    const session = createEditSession();
    const args = { path, code_before, code_after, rationale: "r" };
    await prepareSuggestAddition(args);
    const out = runSuggestAddition(args, {
      snapshot: ctx.snapshot,
      reads: ctx.reads,
      config: defaultConfig(),
      session,
    });
    expect(out.result.status).toBe("rejected");
    expect(out.result.text).toMatch(message);
    expect(session.edits).toEqual([]);
  });
});

describe("suggest_addition keeps the product's own kind of fix", () => {
  test.each([
    ["src/handler.js", "  const user = load(req);\n", "  if (!user) throw new Error(`no user for ${req.url}`);\n"],
    ["src/handler.js", "  const user = load(req);\n", "  if (user == null) return next();\n"],
    ["app/views.py", "    user = load(request)\n", '    if user is None:\n        raise ValueError("no user")\n'],
    ["cmd/main.go", "\ty := load(x)\n", '\tif y < 0 {\n\t\tpanic("negative")\n\t}\n'],
  ] as const)("%s + %j", async (path, anchor, lines) => {
    const { out, session } = await suggest(path, anchor, lines);
    expect(out.result.status).toBe("ok");
    expect(session.edits).toHaveLength(1);
  });

  test("with edits.allow: modifications an added return is the maintainer's choice", async () => {
    const { out } = await suggest(
      "src/handler.js",
      "  const user = load(req);\n",
      "  return;\n",
      parseConfig({ edits: { allow: "modifications" } }),
    );
    expect(out.result.status).toBe("ok");
  });
});
