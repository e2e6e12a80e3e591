import { describe, expect, it } from "vitest";
import { mismatchOf } from "../../../src/agent/models/heuristic/proportion.js";
import { addedLines, runHeuristic as run, syntaxErrors } from "./readable.js";

const pkg = { "package.json": '{"name":"app"}\n' };
const trace = (message: string, line: number) =>
  `notify crash\n${message}\n    at notify (/app/src/notify.js:${line}:19)`;

describe("JavaScript `X is not iterable`: a clearer error before the line that iterates X (as Python's)", () => {
  it("the trial's cases: `list is not iterable` on a for…of, `cart.items is not iterable` on a spread", async () => {
    const js = [
      "function notify(list) {",
      "  let sent = 0;",
      "  for (const user of list) {",
      "    sent += user.send();",
      "  }",
      "  return sent;",
      "}",
      "module.exports = { notify };",
      "",
    ].join("\n");
    const list = await run({ "src/notify.js": js, ...pkg }, "crash", trace("TypeError: list is not iterable", 3));
    const added = addedLines(list);
    expect(added[0]).toBe('  if (typeof list?.[Symbol.iterator] !== "function") {');
    expect(added.join("\n")).toMatch(/throw new TypeError\(.*list must be iterable/);
    expect(syntaxErrors("src/notify.js", list.files[0]?.content ?? "")).toEqual([]);
    expect(list.outcome).toBe("diagnosis_only");

    const cart = [
      "function notify(cart) {",
      "  const names = [];",
      "  const all = [...cart.items].map((i) => i.name);",
      "  return names.concat(all);",
      "}",
      "",
    ].join("\n");
    const items = await run(
      { "src/notify.js": cart, ...pkg },
      "crash",
      trace("TypeError: cart.items is not iterable", 3),
    );
    expect(addedLines(items)[0]).toBe('  if (typeof cart?.items?.[Symbol.iterator] !== "function") {');
    expect(syntaxErrors("src/notify.js", items.files[0]?.content ?? "")).toEqual([]);
  });

  it("a line iterating two values: the guard names the one the message names, never the other", async () => {
    const js = [
      "function notify(admins, users) {",
      "  let n = 0;",
      "  const everyone = [...admins, ...users];",
      "  return everyone.length + n;",
      "}",
      "",
    ].join("\n");
    const result = await run({ "src/notify.js": js, ...pkg }, "crash", trace("TypeError: users is not iterable", 3));
    const added = addedLines(result).join("\n");
    expect(addedLines(result)[0]).toBe('  if (typeof users?.[Symbol.iterator] !== "function") {');
    expect(added).not.toMatch(/admins/);
    // a destructuring of the named value is iterating it too
    const pair = "function notify(pair, rest) {\n  let n = 0;\n  const [a, b] = pair;\n  return a + b + n + rest;\n}\n";
    const destructured = await run(
      { "src/notify.js": pair, ...pkg },
      "crash",
      trace("TypeError: pair is not iterable", 3),
    );
    expect(addedLines(destructured)[0]).toBe('  if (typeof pair?.[Symbol.iterator] !== "function") {');
  });

  it("attack: the name in the message is not iterated on the traced line: no guard on a wrong line", async () => {
    const js = [
      "function notify(list, items) {",
      "  let sent = 0;",
      "  for (const user of items) {",
      "    sent += user.send(list);",
      "  }",
      "  return sent;",
      "}",
      "",
    ].join("\n");
    // `list` is on line 4 but not iterated there; line 3 iterates `items`, which the message does not name
    for (const line of [3, 4]) {
      const result = await run(
        { "src/notify.js": js, ...pkg },
        "crash",
        trace("TypeError: list is not iterable", line),
      );
      const added = addedLines(result).join("\n");
      expect(added).not.toMatch(/Symbol\.iterator|throw/);
    }
    // an object spread does not iterate: `{...list}` never throws `is not iterable`
    const obj = "function notify(list) {\n  let n = 0;\n  const copy = { ...list };\n  return copy.a + n;\n}\n";
    const spread = await run({ "src/notify.js": obj, ...pkg }, "crash", trace("TypeError: list is not iterable", 3));
    expect(addedLines(spread).join("\n")).not.toMatch(/Symbol\.iterator/);
  });

  it("V8's unnamed forms (`undefined`/`object null … is not iterable (…)`): the one value iterated", async () => {
    const js = [
      "function notify(list, other) {",
      "  let n = 0;",
      "  const users = Array.from(list);",
      "  return users.length + n + other;",
      "}",
      "",
    ].join("\n");
    for (const message of [
      "TypeError: undefined is not iterable (cannot read property Symbol(Symbol.iterator))",
      "TypeError: object null is not iterable (cannot read property Symbol(Symbol.iterator))",
    ]) {
      const result = await run({ "src/notify.js": js, ...pkg }, "crash", trace(message, 3));
      expect(addedLines(result)[0]).toBe('  if (typeof list?.[Symbol.iterator] !== "function") {');
    }
    // two values iterated and the message names neither: no guard
    const two = "function notify(a, b) {\n  let n = 0;\n  const all = [...a, ...b];\n  return all.length + n;\n}\n";
    const unnamed = await run(
      { "src/notify.js": two, ...pkg },
      "crash",
      trace("TypeError: undefined is not iterable (cannot read property Symbol(Symbol.iterator))", 3),
    );
    expect(addedLines(unnamed).join("\n")).not.toMatch(/Symbol\.iterator/);
  });

  it("mismatchOf reads V8's and Firefox's wording; Python's and a call's return value stay as they were", () => {
    expect(mismatchOf("TypeError: cart.items is not iterable")).toMatchObject({
      kind: "iterable",
      receiver: "cart.items",
    });
    expect(mismatchOf("TypeError: this.rows is not iterable")).toMatchObject({ receiver: "this.rows" });
    expect(mismatchOf("TypeError: list is not iterable (cannot read property undefined)")).toMatchObject({
      receiver: "list",
    });
    expect(mismatchOf("TypeError: undefined is not iterable")).toMatchObject({ kind: "iterable", receiver: null });
    expect(mismatchOf("TypeError: 'int' object is not iterable")).toMatchObject({ type: "int", receiver: null });
    expect(mismatchOf("TypeError: f is not a function or its return value is not iterable")).toBeNull();
    expect(mismatchOf("TypeError: o[k] is not iterable")).toBeNull();
  });
});
