import { describe, expect, it } from "vitest";
import { liveCode } from "../../../src/agent/models/heuristic/live-code.js";
import { addedLines, rubyUsers, runHeuristic, USER_NAME_ISSUE, userNameRepo } from "./readable.js";

/**
 * Attacks on the heuristic's reading of string interpolation (src/agent/models/heuristic/live-code.ts, owner this
 * session: the heur helper): string text shaped like a read must never draw a guard, even when something before it
 * on the line holds a quote that is no string's (a regular expression literal, a Ruby character literal).
 *
 * The three findings of session 8's attack helper (a guard drawn from string text after a regex literal's or a Ruby
 * character literal's quote; no guard for a read inside a raw f-string's braces) were tracked `it.fails` until session
 * 9 taught liveCode regular expression literals, Ruby character literals and punctuation globals, and raw strings.
 * The variants around each: a quote or slash inside a regex's class, division read as division (a read after it is
 * still guarded), JSX closing tags, Ruby regexes with interpolation, `\N{…}` in an f-string.
 */

describe("attacker: a quote in a regular expression literal before string text shaped like a read", () => {
  it("JS: /`/ or /'/ before '${user.name}' (plain string text): no guard on user", async () => {
    for (const line of [
      "  const parts = String(id).split(/`/); log('${user.name}', parts);",
      "  const re = /'/; log(`${id}`, '${user.name}', re);",
      // a slash and a backtick inside a class, a regex after `return`-like keywords and inside an interpolation
      "  const parts = String(id).split(/[/`]/g); log('${user.name}', parts);",
      "  log(typeof /'/, `${/'/.test(id)}`, '${user.name}');",
    ]) {
      const r = await runHeuristic(userNameRepo(line), "getUserName crashes", USER_NAME_ISSUE);
      expect(addedLines(r).join("\n"), line).not.toMatch(/if \(user == null\)/);
    }
  });

  it("JS: a division is no regex: a read after two slashes is still guarded", async () => {
    for (const line of [
      "  const w = String(id).length / 2, n = `${user.name}`.length / w;",
      "  const w = (id) / 2 + [id][0] / 3 + user.name.length;",
    ]) {
      const r = await runHeuristic(userNameRepo(line), "getUserName crashes", USER_NAME_ISSUE);
      expect(addedLines(r).join("\n"), line).toMatch(/if \(user == null\)/);
    }
  });

  it("control: the same text without the regular expression draws no guard", async () => {
    const r = await runHeuristic(
      userNameRepo("  log('${user.name}', String(id));"),
      "getUserName crashes",
      USER_NAME_ISSUE,
    );
    expect(addedLines(r).join("\n")).not.toMatch(/if \(user == null\)/);
  });
});

describe('attacker: a Ruby character literal ?" or global $" before single-quoted text like #{…}', () => {
  const label = (arg: string) =>
    runHeuristic(
      { "lib/users.rb": rubyUsers([`    puts ${arg}`, "    user.title"]) },
      "Users.label crashes",
      "/app/lib/users.rb:8:in `label': undefined method `display_name' for nil (NoMethodError)\n" +
        "\tfrom /app/bin/run:3:in `<main>'",
    );

  it("`?\"; puts '#{user.display_name}'` reads nothing of user: no nil guard", async () => {
    expect(addedLines(await label("?\"; puts '#{user.display_name}'")).join("\n")).not.toMatch(/user\.nil\?/);
    // $" is a global variable (the loaded features), not a quote
    expect(addedLines(await label("$\".size; puts '#{user.display_name}'")).join("\n")).not.toMatch(/user\.nil\?/);
    // a regex holding a quote, `?\"`, `$'`
    for (const arg of [
      "s =~ /\"/; puts '#{user.display_name}'",
      "?\\\"; puts '#{user.display_name}'",
      "$'; puts '#{user.display_name}'",
    ])
      expect(addedLines(await label(arg)).join("\n"), arg).not.toMatch(/user\.nil\?/);
    // control: without the character literal
    expect(addedLines(await label("'#{user.display_name}'")).join("\n")).not.toMatch(/user\.nil\?/);
  });

  it("a ternary's `?` and a regex's interpolation are code: the read there is guarded", async () => {
    for (const arg of ['id ? "#{user.display_name}" : ""', '/"#{user.display_name}"/', '"#@x #{user.display_name}"'])
      expect(addedLines(await label(arg)).join("\n"), arg).toMatch(/ if user\.nil\?$/);
  });
});

describe("a raw f-string: a backslash escapes nothing, the braces after it are an interpolation", () => {
  it("Python: rf'\\{user.display_name}' reads user.display_name: the guard of any other read", async () => {
    const line = "    return rf'\\{user.display_name}'";
    const r = await runHeuristic(
      {
        "app/users.py":
          "def load(uid):\n    return None\n\n\ndef user_label(uid):\n    user = load(uid)\n" + line + "\n",
      },
      "user_label() crashes",
      [
        "Traceback (most recent call last):",
        '  File "/srv/app/users.py", line 7, in user_label',
        line,
        "AttributeError: 'NoneType' object has no attribute 'display_name'",
      ].join("\n"),
    );
    expect(addedLines(r)[0]).toBe("    if user is None:");
  });
});

describe("units: the quotes that open no string (liveCode)", () => {
  // blanked text collapsed to one space, to keep the table readable
  const live = (text: string, lang: Parameters<typeof liveCode>[1]) => {
    const out = liveCode(text, lang);
    expect(out.length).toBe(text.length);
    return out.replace(/ +/g, " ");
  };

  it("JS/TS regular expressions: text blanked, division kept, JSX closing tags kept", () => {
    expect(live("s.split(/[/`]/g); log('${a.b}')", "javascript")).toBe("s.split(/ / ); log(' ')");
    expect(live("return /'/.test(s) ? a.b : ''", "typescript")).toBe("return / /.test(s) ? a.b : ''");
    expect(live("x = a[0] / b / c.d + (e) / 2 / f.g", "javascript")).toBe("x = a[0] / b / c.d + (e) / 2 / f.g");
    expect(live("x = `${a}` / 2 / c.d", "javascript")).toBe("x = ` a ` / 2 / c.d");
    expect(live("<Foo {...p} /><b>{a.b}</b><i>x</i>{c.d}</i>", "typescript")).toBe(
      "<Foo {...p} /><b>{a.b}</b><i>x</i>{c.d}</i>",
    );
    // a slash that never closes on its line divides: the code after it stays code
    expect(live("x = (1 + 2)\n/ 3; y = '/'; z = a.b", "javascript")).toBe("x = (1 + 2)\n/ 3; y = ' '; z = a.b");
  });

  it("Ruby: regexes (with interpolation), character literals, punctuation globals, #@ivar", () => {
    expect(live("if s =~ /\"/ then puts '#{a.b}' end", "ruby")).toBe("if s =~ / / then puts ' ' end");
    expect(live('puts /"#{a.b}"/i', "ruby")).toBe("puts / a.b / ");
    expect(live("n = @count / 2 + a.b / 3", "ruby")).toBe("n = @count / 2 + a.b / 3");
    expect(live('c = ?"; d = ?#; e = ?\\"; f = a.empty? ? g.h : ?x', "ruby")).toBe(
      "c = ? ; d = ? ; e = ? ; f = a.empty? ? g.h : ?x",
    );
    expect(live('$/ = "#{a.b}"; $\' ; $" << c.d', "ruby")).toBe('$/ = " a.b "; $\' ; $" << c.d');
    expect(live('"#@a #$b #@@c #d"', "ruby")).toBe('" @a $b @@c "');
  });

  it("Python: raw strings escape nothing, \\N{…} is one escape", () => {
    expect(live("rf'\\{a.b}' + Rf'\\'{c.d}' + r'\\\\' + e.f", "python")).toBe("rf' a.b ' + Rf' c.d ' + r' ' + e.f");
    expect(live("f'\\N{EM DASH}{a.b}' + f\"\\\\N{c.d}\"", "python")).toBe("f' a.b ' + f\" c.d \"");
  });
});

describe("attacker: a line built to make the regex scan quadratic", () => {
  it("200,000 characters of `(/[` read in linear time", () => {
    const text = `${"(/[".repeat(66_667)}\nx = a.b`;
    const t0 = performance.now();
    const out = liveCode(text, "javascript");
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(out.endsWith("x = a.b")).toBe(true);
  });
});
