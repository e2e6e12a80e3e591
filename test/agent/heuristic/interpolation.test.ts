import { describe, expect, it } from "vitest";
import { liveCode } from "../../../src/agent/models/heuristic/live-code.js";
import {
  addedLines,
  rubyUsers,
  runHeuristic,
  syntaxErrors,
  USER_NAME_DB,
  USER_NAME_ISSUE,
  userNameRepo,
} from "./readable.js";

/**
 * Code inside a string's interpolation is code (a read or a call there crashes like any other), string text is text
 * (src/agent/models/heuristic/live-code.ts): the guard a user sees follows that, in every language the heuristic
 * writes, and a hostile string shaped like a read (`"user.email"`) never draws a guard.
 */
describe("a read inside an interpolation is guarded like any other read", () => {
  it("Python: a frame on an f-string line reading a None's attribute: a guard on the receiver", async () => {
    const r = await runHeuristic(
      {
        "app/users.py":
          "def load(uid):\n    return None\n\n\ndef user_label(uid):\n    user = load(uid)\n" +
          '    return f"<{user.display_name}> {uid}"\n',
      },
      "user_label() crashes",
      [
        "Traceback (most recent call last):",
        '  File "/srv/app/users.py", line 7, in user_label',
        '    return f"<{user.display_name}> {uid}"',
        "AttributeError: 'NoneType' object has no attribute 'display_name'",
      ].join("\n"),
    );
    expect(r.diagnosis?.affected_file).toBe("app/users.py");
    expect(addedLines(r)[0]).toBe("    if user is None:");
  });

  it("C#: a frame on an interpolated string's line: a guard on the chain read inside the braces", async () => {
    const cart = [
      "namespace Shop.Services",
      "{",
      "    public class CartService",
      "    {",
      "        public string Describe(int cartId)",
      "        {",
      "            var cart = _repo.Find(cartId);",
      '            return $"Cart {cartId}: {cart.Items.Count,4} items";',
      "        }",
      "    }",
      "}",
      "",
    ].join("\n");
    const r = await runHeuristic(
      { "src/Shop/Services/CartService.cs": cart },
      "Null reference in Describe",
      "System.NullReferenceException: Object reference not set to an instance of an object.\n" +
        "   at Shop.Services.CartService.Describe(Int32 cartId) in /src/Shop/Services/CartService.cs:line 8",
    );
    expect(addedLines(r)[0]).toBe("            if (cart?.Items == null)");
  });
});

describe("attacker: string text shaped like a read is never a read", () => {
  it("JS: `${user.name}` in a double-quoted string (no interpolation there): no guard before that line", async () => {
    for (const line of ['  log("${user.name} is missing", id);', "  log('${user.name}', id);"]) {
      const r = await runHeuristic(userNameRepo(line), "getUserName crashes", USER_NAME_ISSUE);
      expect(addedLines(r).join("\n"), line).not.toMatch(/if \(user == null\)/);
    }
  });

  it("JS: the text of a template literal around an interpolation is text: no guard from it", async () => {
    const r = await runHeuristic(userNameRepo("  log(`user.name of ${id}`);"), "getUserName crashes", USER_NAME_ISSUE);
    expect(addedLines(r).join("\n")).not.toMatch(/if \(user == null\)/);
  });

  it("Ruby: `#{…}` is code in a double-quoted string, text in a single-quoted one", async () => {
    const label = (arg: string) =>
      runHeuristic(
        {
          "lib/users.rb": rubyUsers([`    puts ${arg}`, "    user.title"]),
        },
        "Users.label crashes",
        "/app/lib/users.rb:8:in `label': undefined method `display_name' for nil (NoMethodError)\n" +
          "\tfrom /app/bin/run:3:in `<main>'",
      );
    expect(addedLines(await label('"#{user.display_name}"')).join("\n")).toMatch(/ if user\.nil\?$/);
    expect(addedLines(await label("'#{user.display_name}'")).join("\n")).not.toMatch(/user\.nil\?/);
  });

  it("a string text read beside a real one: the real read is the one line the function reads it on", async () => {
    const r = await runHeuristic(
      {
        "src/db.js": USER_NAME_DB,
        "src/user.js": [
          'const db = require("./db");',
          "function getUserName(id) {",
          "  const user = db.find(id);",
          '  log("reading user.name for", id);',
          "  return user.name.trim();",
          "}",
          "module.exports = { getUserName };",
          "",
        ].join("\n"),
      },
      "getUserName crashes",
      USER_NAME_ISSUE,
    );
    const after = r.files[0]?.content ?? "";
    expect(addedLines(r)[0]).toBe("  if (user == null) {");
    expect(after.indexOf("if (user == null)")).toBeGreaterThan(after.indexOf('log("reading'));
    expect(syntaxErrors("src/user.js", after)).toEqual([]);
  });
});

describe("units: what liveCode keeps as code", () => {
  // `_` marks where text was blanked, to keep the table readable
  const live = (text: string, lang: Parameters<typeof liveCode>[1]) => {
    const out = liveCode(text, lang);
    expect(out.length).toBe(text.length);
    return out.replace(/ +/g, " ").trim();
  };

  it("per language: interpolated code kept, string text and comments blanked, offsets kept", () => {
    expect(live('x = f"{user.email!r:>{width}}" # user.name', "python")).toBe('x = f" user.email width "');
    expect(live('x = rf"{a["k"]}" + "{b.c}" + F\'{{d.e}}\'', "python")).toBe('x = rf" a[" "] " + " " + F\' \'');
    expect(live("log(`${a.b} ${f({ c: 1 })}`, '${d.e}', \"${g.h}\"); // i.j", "javascript")).toBe(
      "log(` a.b f({ c: 1 }) `, ' ', \" \");",
    );
    expect(live("puts \"#{a.b}\", '#{c.d}', `#{e.f}` # g.h", "ruby")).toBe("puts \" a.b \", ' ', ` e.f `");
    expect(live('println("${a.b} $c.d \\${e.f}") // g.h', "kotlin")).toBe('println(" a.b c ")');
    expect(live('W($"{a.B,4:N2} {{c.D}}" + @"x\\" + $@"{e.F}" + "{g.H}");', "csharp")).toBe(
      'W($" a.B " + @" " + $@" e.F " + " ");',
    );
    expect(live("x := `a.b` + \"c.d\" + 'e' // f.g", "go")).toBe("x := ` ` + \" \" + ' '");
    expect(live('String s = "a.b" + c.d; /* e.f */ g.h();', "java")).toBe('String s = " " + c.d; g.h();');
  });
});
