import { describe, expect, it } from "vitest";
import { runAgent } from "../../../src/agent/index.js";
import { createHeuristicModel } from "../../../src/agent/models/heuristic.js";
import type { Task } from "../../../src/types.js";
import { buildSnapshot, config, SHA } from "../helpers.js";
import { addedLines, expectReadable, syntaxErrors } from "./readable.js";

const task = (title: string, body: string, extra: Partial<Task> = {}): Task => ({
  source: "issue",
  key: "acme/x#issue-2",
  title,
  body,
  repo: { owner: "acme", name: "x" },
  baseSha: SHA,
  ...extra,
});

describe("heuristic model on more languages (through runAgent)", () => {
  const SERVICE = [
    "import { Logger } from './logger';",
    "",
    "export class CartService {",
    "  constructor(private readonly logger: Logger) {}",
    "",
    "  async addItem(cartId: string, sku: string): Promise<void> {",
    "    this.logger.info(`adding ${sku}`);",
    "    const cart = await this.load(cartId);",
    "    cart.items.push({ sku, qty: 1 });",
    "  }",
    "",
    "  private async load(id: string): Promise<any> {",
    "    return undefined;",
    "  }",
    "}",
    "",
  ].join("\n");

  it(
    "TypeScript: a webpack frame into a class method, a guard " +
      "that throws naming the id in scope, still valid TypeScript",
    async () => {
      const snapshot = await buildSnapshot({
        "src/services/cart.service.ts": SERVICE,
        "src/logger.ts": "export class Logger { info(m: string) {} }\n",
        "src/legacy/cart.service.ts": "export {};\n",
      });
      const body =
        "TypeError: Cannot read properties of undefined (reading 'items')\n    at " +
        "CartService.addItem (webpack:///./src/services/cart.service.ts:9:10)\n    " +
        "at async Router.handle (/app/node_modules/express/lib/router/index.js:284:7)";
      const result = await runAgent({
        task: task("Adding to cart crashes", body),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
      // Express's router called it: the throw still fails the request (a 500 for a 500), so a proposal
      expect(result.outcome).toBe("diagnosis_only");
      expect(result.diagnosis?.summary).toContain("It throws while a request is served");
      expect(result.diagnosis).toMatchObject({
        affected_file: "src/services/cart.service.ts",
        affected_function: "addItem",
      });
      const lines = addedLines(result);
      // a guard on the receiver of `.items` (a local assigned above): only when cart is missing it throws, naming the
      // id parameter in scope (where the cart came from), never whole objects; it never runs on into the same crash
      expect(lines).toEqual([
        "    if (cart == null) {",
        "      throw new TypeError(`addItem(): cart is null or undefined before reading 'items' (cartId: ${cartId})`);",
        "    }",
      ]);
      expectReadable(result, "TypeError: Cannot read properties of undefined (reading 'items')");
      expect(syntaxErrors("cart.service.ts", result.files[0]?.content ?? "")).toEqual([]);
    },
  );

  it(
    "Ruby: a Rails backtrace whose app/ folder survives " + "the /app container prefix; a raise guarded by nil?",
    async () => {
      const user = [
        "class User < ApplicationRecord",
        "  def display_name",
        '    Rails.logger.debug("name for #{id}")',
        "    profile.name.upcase",
        "  end",
        "end",
        "",
      ].join("\n");
      const snapshot = await buildSnapshot({
        "app/models/user.rb": user,
        "lib/models/user.rb": "class User\nend\n",
        "app/controllers/users_controller.rb":
          "class UsersController\n  def show\n    @user.display_name\n  end\nend\n",
      });
      const body =
        "NoMethodError (undefined method `name' for nil):\n/app/app/models/user.rb:4:in " +
        "`display_name'\n/app/app/controllers/users_controller.rb:3:in " +
        "`show'\n/usr/local/bundle/gems/actionpack-7.1.2/lib/abstract_controller/base.rb:224:in " +
        "`process_action'";
      const result = await runAgent({
        task: task("Profile page 500", body),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
      expect(result.diagnosis).toMatchObject({
        affected_file: "app/models/user.rb",
        affected_function: "display_name",
      });
      expect(result.outcome).toBe("pr_ready");
      const lines = addedLines(result);
      // `profile.name.upcase`: the receiver of `name` is guarded with a trailing modifier, the one line added (no
      // comment restating the error)
      expect(lines).toEqual([
        "    raise ArgumentError, \"display_name(): profile is nil before calling 'name'\" if profile.nil?",
      ]);
      expectReadable(result, "NoMethodError: undefined method `name' for nil");
    },
  );

  it(
    "Java: a frame resolved through its package path to src/main/java; " +
      "a null return value gets no unconditional log, no pull request",
    async () => {
      const invoice = [
        "package com.acme.billing;",
        "",
        "import org.slf4j.Logger;",
        "import org.slf4j.LoggerFactory;",
        "",
        "public class Invoice {",
        "    private static final Logger LOG = LoggerFactory.getLogger(Invoice.class);",
        "",
        "    public long total(Customer customer) {",
        '        LOG.warn("total for {}", customer);',
        "        return customer.getDiscount().apply(100);",
        "    }",
        "}",
        "",
      ].join("\n");
      const snapshot = await buildSnapshot({
        "src/main/java/com/acme/billing/Invoice.java": invoice,
        "src/main/java/com/acme/legacy/Invoice.java": "package com.acme.legacy;\npublic class Invoice {}\n",
      });
      const body =
        'Exception in thread "main" java.lang.NullPointerException: Cannot invoke ' +
        '"Discount.apply(int)" because the return value of "Customer.getDiscount()" is ' +
        "null\n\tat com.acme.billing.Invoice.total(Invoice.java:11)\n\tat com.acme.App.main(App.java:9)";
      const result = await runAgent({
        task: task("NPE in invoice total", body),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
      expect(result.diagnosis).toMatchObject({
        affected_file: "src/main/java/com/acme/billing/Invoice.java",
        affected_function: "total",
      });
      const lines = addedLines(result);
      // the null is a call's return value (nothing to guard on without calling twice): a log line would only restate
      // the error, so the finding is a comment (the exception's package dropped, cut between words), below the PR
      // threshold
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^ {8}\/\/ groundfix: NullPointerException: Cannot invoke "Discount\.apply\(int\)"/);
      expect(result.outcome).toBe("diagnosis_only");
      expectReadable(
        result,
        'java.lang.NullPointerException: Cannot invoke "Discount.apply(int)" ' +
          'because the return value of "Customer.getDiscount()" is null',
      );
    },
  );

  it("code scanning: reads the alert location and cites it", async () => {
    const query = [
      "const db = require('./db');",
      "",
      "function findUser(name) {",
      '  return db.query("SELECT * FROM users WHERE name = \'" + name + "\'");',
      "}",
      "",
      "module.exports = { findUser };",
      "",
    ].join("\n");
    const snapshot = await buildSnapshot({ "src/users.js": query, "src/db.js": "module.exports = { query() {} };\n" });
    const result = await runAgent({
      task: task("Database query built from user-controlled sources", "This query depends on a user-provided value.", {
        source: "code_scanning",
        location: { path: "src/users.js", startLine: 4 },
      }),
      snapshot,
      model: createHeuristicModel(),
      config: config(),
    });
    expect(result.diagnosis).toMatchObject({ affected_file: "src/users.js", affected_function: "findUser" });
    expect(result.diagnosis?.root_cause_snippet).toContain("db.query(");
    // a comment is no runtime change: the answer stays below the pull-request threshold
    expect(result.outcome).toBe("diagnosis_only");
    expect(result.diagnosis?.summary).toBe(
      'The alert is titled "Database query built from user-controlled sources". ' +
        "The alert points at src/users.js:4 in `findUser`. A comment naming the " +
        "problem (no log line: it would only restate the error) is proposed before line 4.",
    );
    expect(addedLines(result)[0]).toBe(
      "  // groundfix: Database query built from user-controlled sources; the alert points here.",
    );
  });

  it("an alert path that is not in the snapshot falls back to a search instead of failing closed", async () => {
    const snapshot = await buildSnapshot({
      "src/users.js": "function findUser(name) {\n  return name;\n}\nmodule.exports = { findUser };\n",
    });
    const result = await runAgent({
      task: task("Unsafe findUser", "findUser builds a query from user input.", {
        source: "code_scanning",
        location: { path: "src/old/users.js", startLine: 2 },
      }),
      snapshot,
      model: createHeuristicModel(),
      config: config(),
    });
    expect(result.outcome).not.toBe("failed_closed");
    expect(result.gates.rejections.filter((r) => r.gate === "tool_name")).toEqual([]);
    expect(result.transcript.turns.flatMap((t) => t.tool_calls).map((c) => c.name)).toContain("search_codebase");
  });

  it("C#: a Windows-path frame of an async method, a guard that throws with the int id", async () => {
    const cart = [
      "using Microsoft.Extensions.Logging;",
      "",
      "namespace Shop.Services",
      "{",
      "    public class CartService",
      "    {",
      "        private readonly ILogger<CartService> _logger;",
      "",
      "        public async Task AddItemAsync(int cartId, string sku)",
      "        {",
      '            _logger.LogInformation("adding");',
      "            var cart = await _repo.FindAsync(cartId);",
      "            cart.Items.Add(sku);",
      "        }",
      "    }",
      "}",
      "",
    ].join("\n");
    const snapshot = await buildSnapshot({
      "src/Shop/Services/CartService.cs": cart,
      "tests/Shop.Tests/CartServiceTests.cs": "namespace Shop.Tests { public class CartServiceTests {} }\n",
    });
    const body =
      "System.NullReferenceException: Object reference not set to an instance " +
      "of an object.\n   at Shop.Services.CartService.<AddItemAsync>d__4.MoveNext() " +
      "in C:\\agent\\_work\\1\\s\\src\\Shop\\Services\\CartService.cs:line 13";
    const result = await runAgent({
      task: task("Null reference when adding to cart", body),
      snapshot,
      model: createHeuristicModel(),
      config: config(),
    });
    expect(result.diagnosis).toMatchObject({
      affected_file: "src/Shop/Services/CartService.cs",
      affected_function: "AddItemAsync",
    });
    expect(result.outcome).toBe("pr_ready");
    const lines = addedLines(result);
    // no name in the message: the first dereferenced local chain of the frame line, null-conditional so the guard never
    // throws itself; Allman braces like the file; the int id is logged, the string sku is not
    expect(lines).toEqual([
      "            if (cart?.Items == null)",
      "            {",
      '                throw new InvalidOperationException("AddItemAsync(): ' +
        'cart.Items is null" + " cartId=" + cartId);',
      "            }",
    ]);
    expectReadable(result, "System.NullReferenceException: Object reference not set to an instance of an object.");
  });

  it(
    "keeps the frame line as the root cause when it names the " +
      "quoted identifier itself (a declaration nearby is not cited)",
    async () => {
      const cart = [
        "const defaults = {",
        "  items: [],",
        "};",
        "",
        "function add(cart, sku) {",
        "  cart.items.push(sku);",
        "}",
        "",
        "module.exports = { add, defaults };",
        "",
      ].join("\n");
      const snapshot = await buildSnapshot({ "src/cart.js": cart });
      const body =
        "TypeError: Cannot read properties of undefined (reading 'items')\n    at add (/app/src/cart.js:6:8)";
      const result = await runAgent({
        task: task("Adding fails", body),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
      expect(result.diagnosis?.root_cause_snippet).toBe("  cart.items.push(sku);");
      expect(result.diagnosis?.citations[0]).toEqual({ path: "src/cart.js", start_line: 6, end_line: 6 });
      expect(result.diagnosis?.summary).toContain("The stack trace enters the repository at src/cart.js:6 in `add`.");
      expectReadable(result, "TypeError: Cannot read properties of undefined (reading 'items')");
    },
  );

  it(
    "Python: a KeyError about a field declared in the frame's " +
      "class body cites that declaration and says where it is",
    async () => {
      const model = [
        "class Order:",
        "    status = 'new'",
        "",
        "    def close(self, reason):",
        "        self.audit(reason)",
        "        return self.fields['closed_at']",
        "",
        "    fields = {'opened_at': None}",
        "",
      ].join("\n");
      const snapshot = await buildSnapshot({ "shop/order.py": model, "shop/other.py": "fields = {}\n" });
      const body = [
        "Traceback (most recent call last):",
        '  File "/srv/app/shop/order.py", line 5, in close',
        "    self.audit(reason)",
        "KeyError: 'fields'",
      ].join("\n");
      const result = await runAgent({
        task: task("Closing an order fails", body),
        snapshot,
        model: createHeuristicModel(),
        config: config(),
      });
      expect(result.diagnosis?.affected_file).toBe("shop/order.py");
      expect(result.diagnosis?.root_cause_snippet).toBe("    fields = {'opened_at': None}");
      expect(result.diagnosis?.citations[0]).toEqual({ path: "shop/order.py", start_line: 8, end_line: 8 });
      const lines = addedLines(result);
      expect(lines[0]).toBe(
        "        # groundfix: KeyError: 'fields' (see the error in the issue); the code below declares it.",
      );
      // an error (not a warning) about a declared name, no receiver to guard on the frame line: the finding as a
      // comment (a log line would only restate the error), no pull request
      expect(lines).toHaveLength(1);
      expect(result.outcome).toBe("diagnosis_only");
      expectReadable(result, "KeyError: 'fields'");
    },
  );
});
