import { describe, expect, it } from "vitest";
import { addedLines, rubyUsers, runHeuristic, USER_NAME_ISSUE, userNameRepo } from "./readable.js";

/**
 * Attacks on the heuristic's reading of string interpolation (src/agent/models/heuristic/live-code.ts, owner this
 * session: the heur helper): string text shaped like a read must never draw a guard, even when something before it
 * on the line holds a quote that is no string's (a regular expression literal, a Ruby character literal).
 *
 * Each `it.fails` is an open finding (session 8, attack helper; not fixed by the owner by 07:40). liveCode's module
 * comment says regular expression literals are not recognised; these are what that costs: a guard drawn from string
 * text (JS, Ruby), and no guard for a read inside a raw f-string's braces (Python).
 */

describe("attacker: a quote in a regular expression literal before string text shaped like a read", () => {
  it.fails("JS: /`/ or /'/ before '${user.name}' (plain string text): no guard on user", async () => {
    for (const line of [
      "  const parts = String(id).split(/`/); log('${user.name}', parts);",
      "  const re = /'/; log(`${id}`, '${user.name}', re);",
    ]) {
      const r = await runHeuristic(userNameRepo(line), "getUserName crashes", USER_NAME_ISSUE);
      expect(addedLines(r).join("\n"), line).not.toMatch(/if \(user == null\)/);
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

  it.fails("`?\"; puts '#{user.display_name}'` reads nothing of user: no nil guard", async () => {
    expect(addedLines(await label("?\"; puts '#{user.display_name}'")).join("\n")).not.toMatch(/user\.nil\?/);
    // $" is a global variable (the loaded features), not a quote
    expect(addedLines(await label("$\".size; puts '#{user.display_name}'")).join("\n")).not.toMatch(/user\.nil\?/);
    // control: without the character literal
    expect(addedLines(await label("'#{user.display_name}'")).join("\n")).not.toMatch(/user\.nil\?/);
  });
});

describe("a raw f-string: a backslash escapes nothing, the braces after it are an interpolation", () => {
  it.fails("Python: rf'\\{user.display_name}' reads user.display_name: the guard of any other read", async () => {
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
