import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { READ_TOOL_NAMES } from "../../src/types.js";
import { createReadLog, readTools, runTool, type ToolContext, type ToolDefinition } from "../../src/tools/index.js";
import { FILES, makeContext } from "./fixture.js";

const tool = (name: string): ToolDefinition => {
  const t = readTools.find((d) => d.name === name);
  if (!t) throw new Error(`no tool ${name}`);
  return t;
};
let ctx: ToolContext;
const call = (name: string, args: unknown) => runTool(tool(name), args, ctx);

beforeAll(async () => {
  ctx = await makeContext();
});

describe("tool table", () => {
  it("offers the six read tools in READ_TOOL_NAMES order, each with a JSON schema", () => {
    expect(readTools.map((t) => t.name)).toEqual([...READ_TOOL_NAMES]);
    for (const t of readTools) {
      expect(t.readsCode).toBe(true);
      expect(z.toJSONSchema(t.schema)).toMatchObject({ type: "object" });
    }
  });

  it("answers bad arguments with one line on how to call the tool", async () => {
    const r = await call("get_file_contents", { start_line: 3 });
    expect(r.status).toBe("invalid");
    expect(r.text).toMatch(
      /^INVALID: path: .*Call get_file_contents with \{ path: string, start_line\?: number, end_line\?: number \}/,
    );
    expect(r.text.split("\n")).toHaveLength(1);
  });
});

describe("get_file_contents", () => {
  it("answers numbered lines with the total and records the window", async () => {
    const reads = createReadLog();
    const r = await runTool(
      tool("get_file_contents"),
      { path: "./src/models/cart.js", start_line: 6, end_line: 8 },
      { ...ctx, reads },
    );
    expect(r.status).toBe("ok");
    expect(r.text).toBe(
      "src/models/cart.js (lines 6-8 of 15)\n   6|   addItem(item) {\n   7|     " +
        "this.items.push(item);\n   8|   }\n… 7 more lines not shown; call again with start_line=9",
    );
    expect(reads.windows()).toEqual([{ path: "src/models/cart.js", startLine: 6, endLine: 8 }]);
    expect(reads.covers("src/models/cart.js", 6, 8)).toBe(true);
    expect(reads.covers("src/models/cart.js", 5, 8)).toBe(false);
  });

  it("caps the window at 400 lines and says how to read on", async () => {
    const r = await call("get_file_contents", { path: "long.txt", start_line: 1, end_line: 1000 });
    const numbered = r.text.split("\n").filter((l) => /^\s*\d+\| /.test(l));
    expect(numbered).toHaveLength(400);
    expect(r.text).toContain("(lines 1-400 of 1000)");
    expect(r.text).toContain("… 600 more lines not shown (window capped at 400 lines); call again with start_line=401");
  });

  it("shows a CRLF file without carriage returns and says it uses CRLF", async () => {
    const r = await call("get_file_contents", { path: "src/windows.txt" });
    expect(r.text).toContain("CRLF line endings");
    expect(r.text).toContain("   2| beta needle\n");
    expect(r.text).not.toContain("\r");
  });

  it("answers a missing path with the nearest real paths, basename matches first", async () => {
    const r = await call("get_file_contents", { path: "lib/cart.js" });
    expect(r.status).toBe("not_found");
    expect(r.text).toMatch(/^NOT_FOUND: no file 'lib\/cart.js' at 0123456\. Nearest real paths: src\/models\/cart\.js/);
    const suffix = await call("get_file_contents", { path: "models/cart.js" });
    expect(suffix.text).toContain("Nearest real paths: src/models/cart.js");
  });

  it("refuses paths outside the repository without touching the file system", async () => {
    const r = await call("get_file_contents", { path: "../../etc/passwd" });
    expect(r.status).toBe("not_found");
    expect(r.text).toContain("leaves the repository");
    const abs = await call("get_file_contents", { path: "/src/index.js" });
    expect(abs.status).toBe("ok");
  });

  it("says why binary, too-large, symlink and secret files are not served", async () => {
    const reads = createReadLog();
    const read = (path: string) => runTool(tool("get_file_contents"), { path }, { ...ctx, reads });
    const bin = await read("assets/logo.png");
    expect(bin.text).toContain("is a binary file");
    const big = await read("data/huge.json");
    expect(big.text).toContain("too large to serve");
    const link = await read("docs/link.md");
    expect(link.text).toBe(
      `NOT_FOUND: docs/link.md is a symbolic link to '../README.md' ` +
        `(not followed). Call get_file_contents with path "README.md".`,
    );
    const env = await read(".env");
    expect(env.status).toBe("rejected");
    expect(env.text).not.toContain("hunter2");
    expect(reads.windows()).toHaveLength(0);
  });

  it("redacts token-like strings", async () => {
    const r = await call("get_file_contents", { path: "src/config.js" });
    expect(r.text).toContain("export const token = '[redacted]';");
    expect(r.text).not.toContain("ghp_");
  });

  it("says when start_line is past the end", async () => {
    const r = await call("get_file_contents", { path: "README.md", start_line: 9 });
    expect(r.status).toBe("invalid");
    expect(r.text).toContain("README.md has 2 lines");
  });
});

describe("list_files", () => {
  it("lists matching paths with the total and marks non-text entries", async () => {
    const r = await call("list_files", { glob: "*.js" });
    expect(r.text.split("\n")).toEqual([
      "3 paths match '*.js' (showing 1-3):",
      "src/config.js",
      "src/index.js",
      "src/models/cart.js",
    ]);
    const all = await call("list_files", {});
    expect(all.text).toContain("assets/logo.png [binary, 8 B]");
    expect(all.text).toContain("docs/link.md -> ../README.md [symlink]");
    expect(all.text).toContain(".env\n");
  });

  it("pages with offset and limit and shows what is left", async () => {
    const r = await call("list_files", { glob: "src/**", offset: 1, limit: 2 });
    expect(r.text).toMatch(/^6 paths match 'src\/\*\*' \(showing 2-3\):/);
    expect(r.text).toContain("… 3 more not shown; call again with offset=3");
  });
});

describe("grep_codebase", () => {
  it("finds a literal with path:line: text and the total", async () => {
    const r = await call("grep_codebase", { pattern: "items" });
    expect(r.text.split("\n")[0]).toBe('3 matching line(s) in 1 file(s) for "items" (1 secret file(s) not searched):');
    expect(r.text).toContain("src/models/cart.js:7: this.items.push(item);");
  });

  it("caps hits with a visible line", async () => {
    const r = await call("grep_codebase", { pattern: "line", path_glob: "long.txt", max_results: 5 });
    expect(r.text).toContain("1000 matching line(s) in 1 file(s)");
    expect(r.text).toContain("… 995 more not shown");
  });

  it("finds in CRLF files with a line-end anchor and respects case", async () => {
    const r = await call("grep_codebase", { pattern: "needle$", regex: true });
    expect(r.text).toContain("src/windows.txt:2: beta needle");
    const upper = await call("grep_codebase", { pattern: "NEEDLE" });
    expect(upper.text).toMatch(/^0 matches/);
    const ci = await call("grep_codebase", { pattern: "NEEDLE", case_sensitive: false });
    expect(ci.text).toContain("src/windows.txt:2");
  });

  it("answers a catastrophic-backtracking pattern promptly", async () => {
    const evil = await makeContext({ "evil.txt": "a".repeat(50_000) + "!\n" });
    const r = await runTool(tool("grep_codebase"), { pattern: "(a+)+$", regex: true }, evil);
    expect(r.status).toBe("ok");
    expect(r.text).toMatch(/^0 matches/);
  });

  it("explains an invalid regex", async () => {
    const r = await call("grep_codebase", { pattern: "(foo", regex: true });
    expect(r.status).toBe("invalid");
    expect(r.text).toMatch(/^INVALID: regex '\(foo' does not compile \(.*missing.*\)/i);
  });

  it("does not search secret files and redacts hits", async () => {
    const env = await call("grep_codebase", { pattern: "hunter2" });
    expect(env.text).toContain("1 secret file(s) not searched");
    const tok = await call("grep_codebase", { pattern: "token" });
    expect(tok.text).toContain("src/config.js:1: export const token = '[redacted]';");
  });
});

describe("search_codebase", () => {
  it("ranks files and symbols with why they matched", async () => {
    const r = await call("search_codebase", { query: "cart total price" });
    const lines = r.text.split("\n");
    expect(lines[0]).toMatch(/^Files/);
    expect(lines[1]).toMatch(/^1\. src\/models\/cart\.js — .*"cart" in path/);
    expect(r.text).toMatch(/method Cart\.totalPrice src\/models\/cart\.js:10 — name words: .*total/);
  });

  it("splits snake_case identifiers", async () => {
    const r = await call("search_codebase", { query: "formatPrice" });
    expect(r.text).toContain("src/util/format_price.py");
    expect(r.text).toContain("function format_price src/util/format_price.py:1");
  });
});

describe("verify_symbol_in_repo", () => {
  it("answers FOUND with definition sites", async () => {
    const r = await call("verify_symbol_in_repo", { name: "Cart.totalPrice" });
    expect(r.status).toBe("ok");
    expect(r.text).toBe(
      "FOUND: Cart.totalPrice is defined 1 time(s):\nsrc/models/cart.js:10-12 method Cart.totalPrice",
    );
  });

  it("answers NOT_FOUND with similar names", async () => {
    const r = await call("verify_symbol_in_repo", { name: "getTotalPrice" });
    expect(r.status).toBe("not_found");
    expect(r.text).toContain("Similar defined names: method Cart.totalPrice (src/models/cart.js:10)");
    const scoped = await call("verify_symbol_in_repo", { name: "Cart", path: "src/util" });
    expect(scoped.status).toBe("not_found");
    expect(scoped.text).toMatch(/^NOT_FOUND: no definition of Cart under src\/util at 0123456\./);
    expect(scoped.text).not.toContain("src/models/cart.js");
  });
});

describe("describe_repo", () => {
  it("describes layout, languages, manifests with dependencies and entry points", async () => {
    const r = await call("describe_repo", {});
    expect(r.text).toContain("src/ (6 files)");
    expect(r.text).toMatch(/Languages \(text files\): .*JavaScript 3/);
    expect(r.text).toContain("dependencies: express");
    expect(r.text).toContain("devDependencies: vitest");
    expect(r.text).toContain("requirements: requests, flask");
    expect(r.text).toContain("require: github.com/pkg/errors");
    expect(r.text).toContain("main: src/index.js (package.json)");
    expect(r.text).toMatch(/Not served: .*1 binary.*1 too large.*1 symlink/);
  });

  it("lists a folder with sizes and outlines a file", async () => {
    const folder = await call("describe_repo", { path: "src/models/" });
    expect(folder.text).toContain("cart.js (");
    expect(folder.text).toContain("cart.js (214 B, 15 lines)");
    const file = await call("describe_repo", { path: "src/models/cart.js" });
    expect(file.text).toMatch(/1-13 class Cart/);
    expect(file.text).toMatch(/6-8 method Cart\.addItem/);
  });
});

describe("truncated snapshot", () => {
  it("tools say that the snapshot is truncated", async () => {
    const small = await makeContext(FILES, { maxFiles: 3 });
    const r = await runTool(tool("list_files"), {}, small);
    expect(r.text.split("\n")).toHaveLength(5);
    expect(r.text).toContain("Note: this snapshot is truncated: 12 file(s) were left out");
    const g = await runTool(tool("grep_codebase"), { pattern: "zzz-not-here" }, small);
    expect(g.text).toContain("snapshot is truncated");
  });
});
