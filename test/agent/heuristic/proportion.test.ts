import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { addedLines, expectReadable, syntaxErrors, runHeuristic } from "./readable.js";

const run = runHeuristic;

/** True when python3 parses `content` (skipped as true when no python3 is installed). */
function pythonParses(content: string): boolean {
  const dir = mkdtempSync(join(tmpdir(), "gf-py-"));
  writeFileSync(join(dir, "f.py"), content);
  try {
    execFileSync("python3", ["-c", "import ast,sys; ast.parse(open(sys.argv[1]).read())", join(dir, "f.py")], {
      stdio: "pipe",
    });
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT";
  }
}

/** Lines that log something (any logger, print or console call), for "never a whole object" checks. */
const logLines = (lines: string[]) =>
  lines.filter((l) => !/^\s*(?:\/\/|#)/.test(l) && /log|print|console|warn/i.test(l));

describe("the clarifying addition is proportionate", () => {
  it(
    "Python AttributeError on None: a guard on the receiver " +
      "read off the frame line, no whole request object logged",
    async () => {
      const file = [
        "import logging",
        "",
        "logger = logging.getLogger(__name__)",
        "",
        "",
        "def total_price(order, request):",
        "    total = 0",
        "    for item in order.items:",
        "        total += item.price * item.qty",
        "    return total",
        "",
      ].join("\n");
      const body = [
        "Traceback (most recent call last):",
        '  File "/app/shop/api.py", line 12, in checkout',
        "    return total_price(order, request)",
        '  File "/app/shop/pricing.py", line 9, in total_price',
        "    total += item.price * item.qty",
        "AttributeError: 'NoneType' object has no attribute 'price'",
      ].join("\n");
      const result = await run(
        { "shop/pricing.py": file, "shop/api.py": "def checkout(order, request):\n    pass\n" },
        "Checkout crashes",
        body,
      );
      expect(result.outcome).toBe("pr_ready");
      const lines = addedLines(result);
      expect(lines).toEqual([
        "        if item is None:",
        '            raise ValueError(f"total_price(): item is None ' +
          "before reading 'price' (type(order)={type(order).__name__})\")",
      ]);
      // never the whole object, never the request
      for (const l of logLines(lines)) expect(l).not.toMatch(/%r|request|, order\)/);
      expect(result.diagnosis?.summary).toContain(
        "A guard that fails with a clear error when `item` is missing is proposed before line 9.",
      );
      expect(pythonParses(result.files[0]?.content ?? "")).toBe(true);
      expectReadable(result, "AttributeError: 'NoneType' object has no attribute 'price'");
    },
  );

  it(
    "JavaScript TypeError reading 'price': `if (item == " + "null)` with the file's indentation; valid JavaScript",
    async () => {
      const file = [
        "function sum(items, cartId) {",
        "\tlet s = 0;",
        "\tfor (const item of items) {",
        "\t\ts += item.price;",
        "\t}",
        "\treturn s;",
        "}",
        "module.exports = { sum };",
        "",
      ].join("\n");
      const body =
        "TypeError: Cannot read properties of undefined (reading 'price')\n    at sum (/app/src/cart.js:4:16)";
      const result = await run({ "src/cart.js": file }, "Cart total crashes", body);
      expect(addedLines(result)).toEqual([
        "\t\tif (item == null) {",
        "\t\t\tthrow new TypeError(`sum(): item is null or undefined before reading 'price' (cartId: ${cartId})`);",
        "\t\t}",
      ]);
      expect(syntaxErrors("cart.js", result.files[0]?.content ?? "")).toEqual([]);
    },
  );

  it(
    "a receiver bound by the crashing statement itself is not guarded, and " +
      "no unconditional log restates the error: a comment, no pull request",
    async () => {
      const file = ["function names(users) {", "  return users.map((u) => u.profile.name);", "}", ""].join("\n");
      const body =
        "TypeError: Cannot read properties of undefined (reading 'name')\n    at names (/app/src/names.js:2:40)";
      const result = await run({ "src/names.js": file }, "names crash", body);
      const lines = addedLines(result);
      // the lambda binds `u`: no guard; a log line would only restate the error on every call: the finding as a comment
      expect(lines).toEqual([
        "  // groundfix: TypeError: Cannot read properties of " +
          "undefined (reading 'name'); the issue's trace points here.",
      ]);
      expect(result.outcome).toBe("diagnosis_only");
      expect(result.diagnosis?.confidence).toBeLessThan(0.7);
      expect(syntaxErrors("names.js", result.files[0]?.content ?? "")).toEqual([]);
    },
  );

  it(
    "Go nil pointer on a pointer parameter: `if item == " + "nil` inside the function, not a println on every call",
    async () => {
      const file = [
        "package shop",
        "",
        "type Item struct{ Price int }",
        "",
        "func Price(item *Item, qty int) int {",
        "\treturn item.Price * qty",
        "}",
        "",
      ].join("\n");
      const body =
        "panic: runtime error: invalid memory address or nil pointer dereference\n\ngoroutine " +
        "1 [running]:\nexample.com/shop.Price(0x0, 0x2)\n\t/src/shop/price.go:6 +0x1d";
      const result = await run({ "shop/price.go": file }, "panic in Price", body);
      const lines = addedLines(result);
      expect(lines).toEqual(["\tif item == nil {", '\t\tpanic("Price(): item is nil")', "\t}"]);
      expect(lines.join("\n")).not.toMatch(/^\tprintln/m);
    },
  );

  it(
    "Java helpful NullPointerException naming the local: " + "a guard on it that throws, ids only in the message",
    async () => {
      const file = [
        "package com.acme;",
        "",
        "import org.slf4j.Logger;",
        "import org.slf4j.LoggerFactory;",
        "",
        "public class Orders {",
        "    private static final Logger LOG = LoggerFactory.getLogger(Orders.class);",
        "",
        "    public int total(Order order, String orderId) {",
        "        Customer customer = order.getCustomer();",
        "        return customer.getDiscount() + order.getSum();",
        "    }",
        "}",
        "",
      ].join("\n");
      const body =
        'java.lang.NullPointerException: Cannot invoke "com.acme.Customer.getDiscount()" ' +
        'because "customer" is null\n\tat com.acme.Orders.total(Orders.java:11)';
      const result = await run({ "src/main/java/com/acme/Orders.java": file }, "NPE in total", body);
      const lines = addedLines(result);
      expect(lines).toEqual([
        "        if (customer == null) {",
        '            throw new IllegalStateException("total(): customer ' +
          'is null before calling \'getDiscount\'" + " orderId=" + orderId);',
        "        }",
      ]);
    },
  );

  it(
    "a declaration warning (no crash): comments only, naming " + "the fix options the warning gives, no runtime line",
    async () => {
      const model = [
        "const { Schema } = require('../lib/schema');",
        "",
        "const logSchema = new Schema({",
        "  errors: { type: Array },",
        "});",
        "module.exports = logSchema;",
        "",
      ].join("\n");
      const body =
        "(node:1) Warning: `errors` is a reserved schema pathname. To disable this warning pass " +
        "`suppressReservedKeysWarning` as a schema option.\n    at Object.<anonymous> " +
        "(/app/models/Log.js:3:19)";
      const result = await run(
        { "models/Log.js": model, "lib/schema.js": "module.exports = { Schema: class {} };\n" },
        "startup warning",
        body,
      );
      // comment-only: proposed, never a pull request on its own (below the 0.7 threshold), fix options or not
      expect(result.outcome).toBe("diagnosis_only");
      expect(result.diagnosis?.confidence).toBeLessThan(0.7);
      const lines = addedLines(result);
      expect(lines).toEqual([
        "// groundfix: `errors` is a reserved schema pathname (see " +
          "the warning in the issue); the statement below declares it.",
        "// Fix options: rename `errors` (and its uses), or pass `suppressReservedKeysWarning` as a schema option.",
      ]);
      expect(result.diagnosis?.summary).toContain(
        "A comment with the finding and the fix options (no runtime change) is proposed",
      );
    },
  );
});

describe("compiled output and unusual frame paths", () => {
  it(
    "maps dist/services/user.js to src/services/user.ts " + "by the frame's function; a decoy without it loses",
    async () => {
      const real = [
        "import { User } from '../types';",
        "",
        "export function greeting(user: User): string {",
        "  return `Hello ${user.name}`;",
        "}",
        "",
        "export function displayName(user: User | undefined): string {",
        "  const title = 'Dr.';",
        "  return `${title} ${user.profile.last}`;",
        "}",
        "",
      ].join("\n");
      const decoy = ["export function formatUser(u: any): string {", "  return u.profile.first;", "}", ""].join("\n");
      const files = {
        "src/services/user.ts": real,
        "src/services-old/user.ts": decoy,
        "src/types.ts": "export interface User { name: string; profile: any }\n",
      };
      const body =
        "TypeError: Cannot read properties of undefined (reading 'profile')\n    at displayName " +
        "(file:///app/dist/services/user.js:6:20)\n    at main (file:///app/dist/index.js:4:3)";
      const result = await run(files, "displayName crashes", body);
      expect(result.diagnosis).toMatchObject({
        affected_file: "src/services/user.ts",
        affected_function: "displayName",
      });
      expect(result.edits.map((e) => e.path)).toEqual(["src/services/user.ts"]);
      // anchored inside displayName, before source line 9 that reads `.profile` (not at the compiled file's line 6)
      const after = (result.files[0]?.content ?? "").split("\n");
      const guard = after.findIndex((l) => l.trim() === "if (user == null) {");
      expect(guard).toBeGreaterThan(after.findIndex((l) => l.startsWith("export function displayName")));
      expect(after[guard + 3]).toBe("  return `${title} ${user.profile.last}`;");
      expect(result.diagnosis?.summary).toContain("compiled output (dist/services/user.js:6)");
      expect(syntaxErrors("user.ts", result.files[0]?.content ?? "")).toEqual([]);
    },
  );

  it(
    "a frame in lib/ of a plain JavaScript project is the source " +
      "itself: its line is used, not the function's first line",
    async () => {
      const lib = [
        "function check(name, opts) {",
        "  const known = new Set(['a']);",
        "  if (!known.has(name)) {",
        "    throw new Error(`unknown name ${name}`);",
        "  }",
        "}",
        "module.exports = { check };",
        "",
      ].join("\n");
      const body = "Error: unknown name b\n    at check (/app/lib/check.js:4:11)";
      const result = await run(
        { "lib/check.js": lib, "src/lib/check.ts": "export function check(): void {}\n" },
        "unknown name",
        body,
      );
      expect(result.diagnosis?.affected_file).toBe("lib/check.js");
      expect(result.diagnosis?.summary).toContain(
        "The stack trace enters the repository at lib/check.js:4 in `check`.",
      );
      expect(result.diagnosis?.summary).not.toContain("compiled output");
    },
  );

  it(
    "a problem at module level (no enclosing function, no " +
      "declaration) gets a comment only, no log line at every load",
    async () => {
      const file = [
        "const config = require('./config.json');",
        "const port = Number(config.port);",
        "module.exports = { port };",
        "",
      ].join("\n");
      const body = "RangeError: Invalid port\n    at Object.<anonymous> (/app/src/port.js:2:14)";
      const result = await run({ "src/port.js": file, "src/config.json": "{}\n" }, "invalid port at startup", body);
      expect(addedLines(result)).toEqual(["// groundfix: RangeError: Invalid port; the issue's trace points here."]);
      expect(result.diagnosis?.summary).toContain(
        "A comment naming the problem (module level: no log line that would run at every load) is proposed",
      );
    },
  );

  it("a Python frame path with spaces resolves; nothing claims a listed file does not exist", async () => {
    const file = ["def load(cfg):", "    return cfg['path']", ""].join("\n");
    const body =
      'Traceback (most recent call last):\n  File "/app/src/my dir/space file.py", line ' +
      "2, in load\n    return cfg['path']\nTypeError: 'NoneType' object is not subscriptable";
    const result = await run({ "src/my dir/space file.py": file, "src/file.py": "x = 1\n" }, "load crashes", body);
    expect(result.diagnosis?.affected_file).toBe("src/my dir/space file.py");
    expect(result.diagnosis?.summary).not.toMatch(/does not exist|exists in the repository/);
    expect(addedLines(result)).toEqual(["    if cfg is None:", '        raise ValueError("load(): cfg is None")']);
    expect(pythonParses(result.files[0]?.content ?? "")).toBe(true);
  });
});

describe("crashOf / guardFor", () => {
  it("reads what a crash says was missing, per runtime; other messages are not crashes", async () => {
    const { crashOf } = await import("../../../src/agent/models/heuristic/proportion.js");
    expect(crashOf("TypeError: Cannot read properties of null (reading 'id')")).toEqual({
      access: "member",
      name: "id",
      receiver: null,
    });
    expect(crashOf("KeyError: 'sku'")).toEqual({ access: "key", name: "sku", receiver: null });
    expect(crashOf('java.lang.NullPointerException: Cannot invoke "A.b()" because "<local2>" is null')).toEqual({
      access: "member",
      name: "b",
      receiver: null,
    }); // a javac-less local name is no receiver
    expect(crashOf("NoMethodError: undefined method 'title' for nil")).toMatchObject({
      access: "member",
      name: "title",
    });
    expect(crashOf("ValueError: invalid literal for int()")).toBeNull();
    expect(crashOf("(node:1) Warning: `errors` is a reserved schema pathname")).toBeNull();
  });

  it(
    "guards a dotted receiver without dereferencing a missing " +
      "part; refuses calls and names bound by the statement",
    async () => {
      const { crashOf, guardFor } = await import("../../../src/agent/models/heuristic/proportion.js");
      const attr = crashOf("AttributeError: 'NoneType' object has no attribute 'city'")!;
      const enc = { name: "ship", kind: "function" as const, line: 1, params: ["order"], instance: false };
      const line = "    return order.customer.city";
      expect(guardFor(attr, "python", line, line, "def ship(order):", enc, "def ship(order):", [])?.condition).toBe(
        "order is None or order.customer is None",
      );
      expect(guardFor(attr, "java", line, line, "int ship(Order order) {", enc, null, [])?.condition).toBe(
        "order == null || order.customer == null",
      );
      expect(guardFor(attr, "typescript", line, line, "function ship(order) {", enc, null, [])?.condition).toBe(
        "order?.customer == null",
      );
      expect(
        guardFor(attr, "python", "    return load().city", "    return load().city", "def ship(order):", enc, null, []),
      ).toBeNull();
      const loop = "    for c in order.items: print(c.city)";
      expect(guardFor(attr, "python", loop, loop, "def ship(order):", enc, null, [])).toBeNull();
    },
  );
});
