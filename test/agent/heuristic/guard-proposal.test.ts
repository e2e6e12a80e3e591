import { describe, expect, it } from "vitest";
import { addedLines, runHeuristic } from "./readable.js";

/**
 * A guard that raises on a parameter that arrived missing stays a proposal (below the pull-request threshold): the
 * caller passed the value, and the guard only swaps the runtime's error for another at the same place. (Go panics
 * where the file's guards do not panic: guard-go.test.ts.)
 */
const pyTrace = (fn: string, line: number, code: string, attr: string) =>
  [
    "Traceback (most recent call last):",
    '  File "/srv/app/shop/views.py", line 5, in checkout',
    "    total = compute_total(cart)",
    `  File "/srv/app/shop/pricing.py", line ${line}, in ${fn}`,
    `    ${code}`,
    `AttributeError: 'NoneType' object has no attribute '${attr}'`,
  ].join("\n");

describe("a guard that raises on a parameter the caller passed missing is a proposal", () => {
  const repo = (pricing: string[]) => ({
    "shop/__init__.py": "",
    "shop/pricing.py": pricing.join("\n"),
    "shop/views.py":
      "from shop.pricing import compute_total\n\n\ndef checkout(cart):\n" +
      "    total = compute_total(cart)\n    return total\n",
  });

  it("Python: the parameter itself is None: ValueError for AttributeError, below the threshold", async () => {
    const result = await runHeuristic(
      repo(["def compute_total(cart):", '    """Sum the cart."""', "    return sum(i.price for i in cart.items)", ""]),
      "Checkout crashes",
      pyTrace("compute_total", 3, "return sum(i.price for i in cart.items)", "items"),
    );
    expect(addedLines(result)[0]).toBe("    if cart is None:");
    expect(addedLines(result)[1]).toMatch(/^\s+raise ValueError\(/);
    expect(result.outcome).toBe("diagnosis_only");
    expect(result.diagnosis?.summary).toContain("the cause is in the caller that passed it");
  });

  it("Python: a default of None in a multi-line signature is no reassignment: still a proposal", async () => {
    const result = await runHeuristic(
      repo([
        "def compute_total(",
        "    cart=None,",
        "    discount=0,",
        "):",
        "    return sum(i.price for i in cart.items) - discount",
        "",
      ]),
      "Checkout crashes",
      pyTrace("compute_total", 5, "return sum(i.price for i in cart.items) - discount", "items"),
    );
    expect(addedLines(result)[0]).toBe("    if cart is None:");
    expect(result.outcome).toBe("diagnosis_only");
  });

  it("attacker: a member of the parameter, or the parameter reassigned by the function: a pull request", async () => {
    // the parameter is there; its member is missing: the function reads what it was given
    const member = await runHeuristic(
      repo(["def compute_total(cart):", "    return sum(i.price for i in cart.basket.items)", ""]),
      "Checkout crashes",
      pyTrace("compute_total", 2, "return sum(i.price for i in cart.basket.items)", "items"),
    );
    expect(addedLines(member)[0]).toMatch(/^    if .*\bcart\.basket is None:$/);
    expect(member.outcome).toBe("pr_ready");
    // the parameter was replaced by the function's own lookup: the None comes from this function
    const reassigned = await runHeuristic(
      repo([
        "def compute_total(cart):",
        "    cart = CARTS.get(cart)",
        "    return sum(i.price for i in cart.items)",
        "",
      ]),
      "Checkout crashes",
      pyTrace("compute_total", 3, "return sum(i.price for i in cart.items)", "items"),
    );
    expect(addedLines(reassigned)[0]).toBe("    if cart is None:");
    expect(reassigned.outcome).toBe("pr_ready");
  });

  it("a guard that returns as the function's own guards do is no swap of errors: a pull request", async () => {
    const result = await runHeuristic(
      repo([
        "def compute_total(cart, discount=0):",
        "    if discount is None:",
        "        return 0",
        "    return sum(i.price for i in cart.items) * (1 - discount)",
        "",
      ]),
      "Checkout crashes",
      pyTrace("compute_total", 4, "return sum(i.price for i in cart.items) * (1 - discount)", "items"),
    );
    expect(addedLines(result)).toEqual(["    if cart is None:", "        return 0"]);
    expect(result.outcome).toBe("pr_ready");
  });
});

describe("a guard that throws inside an HTTP request handler is a proposal", () => {
  const app = (handler: string) =>
    'const express = require("express");\nconst db = require("./db");\nconst app = express();\n\n' +
    `${handler}\n\nmodule.exports = app;\n`;
  const files = (handler: string) => ({
    "src/app.js": app(handler),
    "src/db.js": "module.exports = { find: (id) => undefined };\n",
  });
  const trace =
    "TypeError: Cannot read properties of undefined (reading 'name')\n    at /srv/src/app.js:7:17\n" +
    "    at Layer.handle [as handle_request] (/srv/node_modules/express/lib/router/layer.js:95:5)";

  it("Express (req, res), function (request, response): the request still fails, below the threshold", async () => {
    for (const handler of [
      'app.get("/users/:id", (req, res) => {\n  const user = db.find(req.params.id);\n  res.send(user.name);\n});',
      'app.get("/users/:id", function (request, response) {\n  const user = db.find(request.params.id);\n' +
        "  response.send(user.name);\n});",
    ]) {
      const result = await runHeuristic(files(handler), "GET /users/:id crashes", trace);
      expect(addedLines(result)[0], handler).toBe("  if (user == null) {");
      expect(result.outcome, handler).toBe("diagnosis_only");
      expect(result.diagnosis?.summary, handler).toMatch(
        /It throws inside a request handler \(`\((req, res|request, response)\)`\)/,
      );
    }
  });

  it("attacker: a (req, resolve) callback is no request handler: a pull request as before", async () => {
    const promise = "app.load = (req, resolve) => {\n  const user = db.find(req.id);\n  resolve(user.name);\n};";
    // the trace without Express's frame: no request is being served (that alone makes a proposal, below)
    const result = await runHeuristic(files(promise), "load crashes", trace.split("\n").slice(0, 2).join("\n"));
    expect(addedLines(result)[0]).toBe("  if (user == null) {");
    expect(result.outcome).toBe("pr_ready");
    expect(result.diagnosis?.summary).not.toContain("request handler");
  });
});

describe("a guard that throws in a function the trace shows serving a request is a proposal", () => {
  // The session-9 trial's report: Node's own http server calls a helper that reads a missing user's profile.
  const files = {
    "src/db.js": "'use strict';\nconst users = new Map();\nmodule.exports = { users };\n",
    "src/users.js": [
      "'use strict';",
      "const db = require('./db');",
      "",
      "function findUser(id) {",
      "  return db.users.get(id);",
      "}",
      "",
      "function displayName(id) {",
      "  const user = findUser(id);",
      "  return user.profile.firstName + ' ' + user.profile.lastName;",
      "}",
      "",
      "module.exports = { findUser, displayName };",
      "",
    ].join("\n"),
    "src/server.js":
      "'use strict';\nconst http = require('http');\nconst { displayName } = require('./users');\n\n" +
      "const server = http.createServer((req, res) => {\n  const id = Number(req.url.slice(5));\n" +
      "  res.end(displayName(id));\n});\n\nmodule.exports = server;\n",
  };
  const frames = [
    "TypeError: Cannot read properties of undefined (reading 'profile')",
    "    at displayName (/srv/orders-api/src/users.js:10:15)",
    "    at Server.<anonymous> (/srv/orders-api/src/server.js:7:11)",
  ];

  it("Node's http server, Express's router, Koa: the request still fails, below the threshold", async () => {
    for (const frame of [
      "    at Server.emit (node:events:517:28)\n    at parserOnIncoming (node:_http_server:1107:12)",
      "    at Layer.handle [as handle_request] (/srv/orders-api/node_modules/express/lib/router/layer.js:95:5)",
      "    at dispatch (/srv/orders-api/node_modules/koa-compose/index.js:42:32)",
    ]) {
      const result = await runHeuristic(files, "GET /?id=42 crashes the server", [...frames, frame].join("\n"));
      expect(addedLines(result)[0], frame).toBe("  if (user == null) {");
      expect(addedLines(result)[1], frame).toMatch(/throw new TypeError/);
      expect(result.outcome, frame).toBe("diagnosis_only");
      expect(result.diagnosis?.summary, frame).toMatch(/It throws while a request is served \(the trace's `at /);
    }
  });

  it("attacker: a trace with no server frame, or `_http_server` only in prose, stays a pull request", async () => {
    for (const prose of ["", "\n\nIt happens under node:_http_server too, see _http_server.js:1107."]) {
      const result = await runHeuristic(files, "displayName crashes", frames.join("\n") + prose);
      expect(addedLines(result)[0], prose).toBe("  if (user == null) {");
      expect(result.outcome, prose).toBe("pr_ready");
      expect(result.diagnosis?.summary, prose).not.toContain("request is served");
    }
  });
});

describe("a guard that throws while React renders is a proposal (the page fails as before)", () => {
  /** src/<file>: `lines` (the frame reads `user.name` on the line holding `{user.name}` or `user.name`). */
  const run = async (file: string, lines: string[], fn = "UserCard") => {
    const line = lines.findIndex((l) => /user\.name/.test(l)) + 1;
    return runHeuristic(
      { "src/hooks.js": "export function useUser(id) {\n  return undefined;\n}\n", [`src/${file}`]: lines.join("\n") },
      `${fn} crashes`,
      `TypeError: Cannot read properties of undefined (reading 'name')\n    at ${fn} (/app/src/${file}:${line}:17)\n` +
        "    at renderWithHooks (/app/node_modules/react-dom/cjs/react-dom.development.js:14985:18)",
    );
  };
  const card = (head: string, end = "}") => [
    'import React from "react";',
    'import { useUser } from "./hooks";',
    "",
    head,
    "  const user = useUser(userId);",
    "  return (",
    '    <div className="card">',
    "      <h2>{user.name}</h2>",
    "    </div>",
    "  );",
    end,
    "",
  ];

  it("a function component (.jsx, an arrow in .js), a class's render(), a hook: diagnosis_only, why", async () => {
    const cases: [string, string[], string, RegExp][] = [
      ["UserCard.jsx", card("export function UserCard({ userId }) {"), "UserCard", /while `UserCard` renders/],
      ["UserCard.js", card("export const UserCard = ({ userId }) => {", "};"), "UserCard", /while `UserCard` renders/],
      [
        "UserCard.js",
        [
          'const React = require("react");',
          "class UserCard extends React.Component {",
          "  render() {",
          "    const user = this.props.users.get(this.props.id);",
          "    return <h2>{user.name}</h2>;",
          "  }",
          "}",
          "",
        ],
        "UserCard.render",
        /while the component's `render\(\)` runs/,
      ],
      [
        "useUserName.ts",
        [
          'import { useMemo } from "react";',
          'import { useUser } from "./hooks";',
          "",
          "export function useUserName(id: string): string {",
          "  const user = useUser(id);",
          "  return useMemo(() => user.name.trim(), [user]);",
          "}",
          "",
        ],
        "useUserName",
        /while the hook `useUserName` runs in a render/,
      ],
    ];
    for (const [file, lines, fn, why] of cases) {
      const result = await run(file, lines, fn);
      const added = addedLines(result).join("\n");
      expect(added, file).toMatch(/if \(user == null\) \{/);
      expect(added, file).toMatch(/throw new/);
      expect(result.outcome, file).toBe("diagnosis_only");
      expect(result.diagnosis?.summary, file).toMatch(why);
      expect(result.diagnosis?.summary, file).toContain("what to render instead");
    }
  });

  it("attacker: a PascalCase function in a file not React's, a JSX file's helper rendering nothing", async () => {
    const plain = [
      'const { useUser } = require("./hooks");',
      "",
      "function Label(userId) {",
      "  const user = useUser(userId);",
      "  return `<b>${user.name}</b>`;",
      "}",
      "// import React from 'react' is not needed here",
      "module.exports = { Label };",
      "",
    ];
    const helper = [
      'import { useUser } from "./hooks";',
      "",
      "export function labelOf(userId) {",
      "  const user = useUser(userId);",
      "  return user.name.trim();",
      "}",
      "",
    ];
    for (const [file, lines, fn] of [
      ["label.js", plain, "Label"],
      ["label.jsx", helper, "labelOf"],
    ] as const) {
      const result = await run(file, [...lines], fn);
      expect(addedLines(result).join("\n"), file).toMatch(/if \(user == null\) \{/);
      expect(result.outcome, file).toBe("pr_ready");
      expect(result.diagnosis?.summary, file).not.toContain("render");
    }
  });

  it("a component whose own guards render nothing: the guard returns null as they do, a pull request", async () => {
    const lines = card("export function UserCard({ userId }) {");
    lines.splice(4, 0, "  if (!userId) return null;");
    const result = await run("UserCard.jsx", lines);
    expect(addedLines(result).join("\n")).toContain("return null;");
    expect(addedLines(result).join("\n")).not.toMatch(/throw/);
    expect(result.outcome).toBe("pr_ready");
  });
});
