import { describe, expect, it } from "vitest";
import { addedLines, rubyUsers, runHeuristic, syntaxErrors } from "./readable.js";

/**
 * Attacks on the no-trace named read (src/agent/models/heuristic/named-read.ts): the issue's words pick the function
 * and the member, so hostile issue text and file contents must never place a guard where it breaks the code, reads a
 * name out of scope, or reaches a pull request.
 */
const issue = (member = "name", fn = "getUserName") =>
  `TypeError: Cannot read properties of undefined (reading '${member}') in ${fn}`;
const js = (body: string[], head = "function getUserName(id) {", tail = "}") =>
  ['const db = require("./db");', "", head, ...body, tail, "module.exports = { getUserName };", ""].join("\n");
const db = "const users = new Map();\nmodule.exports = { find: (id) => users.get(id) };\n";

/** The file a run changed, with its edit applied (the whole text), or null when it changed nothing. */
function changed(result: Awaited<ReturnType<typeof runHeuristic>>, files: Record<string, string>): string | null {
  const e = result.edits[0];
  if (!e) return null;
  const before = files[e.path] ?? "";
  const lines = before.split("\n");
  // rebuild from the diff's hunks: context and removed lines come from `before`, added lines are inserted
  const out: string[] = [];
  let at = 0;
  for (const h of e.diff.split(/^@@ /m).slice(1)) {
    const start = Number(/^-(\d+)/.exec(h)?.[1] ?? "1") - 1;
    while (at < start) out.push(lines[at++] ?? "");
    for (const l of h.split("\n").slice(1)) {
      if (l.startsWith("+")) out.push(l.slice(1));
      else if (l.startsWith("-") || l.startsWith(" ")) out.push(lines[at++] ?? "");
    }
  }
  while (at < lines.length) out.push(lines[at++] ?? "");
  return out.join("\n");
}

describe("attacker: the named read's guard never breaks the code or reaches a pull request", () => {
  it("a read inside a closure on one line: the guard never tests the closure's own parameter", async () => {
    const files = {
      "src/db.js": db,
      "src/user.js": js(["  const all = db.find(id);", "  return all.map((u) => u.name);"]),
    };
    const result = await runHeuristic(files, "getUserName crashes", issue());
    expect(addedLines(result).join("\n")).not.toMatch(/\bu == null|\bu === undefined|!u\b/);
  });

  it("the member only in a string literal: no guard before that line", async () => {
    const files = {
      "src/db.js": db,
      "src/user.js": js([
        "  const user = db.find(id);",
        '  console.log("looking up user.name for", id);',
        "  return user.fullName;",
      ]),
    };
    const result = await runHeuristic(files, "getUserName crashes", issue());
    expect(result.diagnosis?.summary ?? "").not.toContain("only line of");
    expect(addedLines(result).join("\n")).not.toMatch(/\bif \(/);
  });

  it("a read in a template literal's interpolation is a read: guarded", async () => {
    const files = {
      "src/db.js": db,
      "src/user.js": js(["  const user = db.find(id);", "  return `${user.name}`.trim();"]),
    };
    const result = await runHeuristic(files, "getUserName crashes", issue());
    expect(addedLines(result)[0]).toBe("  if (user == null) {");
    expect(result.outcome).toBe("diagnosis_only");
  });

  it("the member only inside a template literal's text (not interpolated): no guard", async () => {
    const files = {
      "src/db.js": db,
      "src/user.js": js(["  const user = db.find(id);", "  log(`user.name of ${id}`);", "  return user.fullName;"]),
    };
    const result = await runHeuristic(files, "getUserName crashes", issue());
    expect(result.diagnosis?.summary ?? "").not.toContain("only line of");
  });

  it("a read on the signature line or a one-line function: no guard inside the signature", async () => {
    for (const src of [
      js([], "function getUserName(user) { return user.name; }", ""),
      js([], "const getUserName = (user) => user.name;", ""),
    ]) {
      const files = { "src/db.js": db, "src/user.js": src };
      const result = await runHeuristic(files, "getUserName crashes", issue());
      const after = changed(result, files);
      if (after !== null) expect(syntaxErrors("src/user.js", after), after).toEqual([]);
      expect(result.outcome).not.toBe("pr_ready");
    }
  });

  it("an arrow function whose expression body continues on the next line: the edit still parses", async () => {
    const files = {
      "src/db.js": db,
      "src/user.js": js(["  db.find(id).name", "    .trim();"], "const getUserName = (id) =>", ""),
    };
    const result = await runHeuristic(files, "getUserName crashes", issue());
    const after = changed(result, files);
    if (after !== null) expect(syntaxErrors("src/user.js", after), after).toEqual([]);
  });

  it("a read in a multi-line expression (an object literal): the edit still parses", async () => {
    const files = {
      "src/db.js": db,
      "src/user.js": js(["  const user = db.find(id);", "  return {", "    label: user.name,", "    id,", "  };"]),
    };
    const result = await runHeuristic(files, "getUserName crashes", issue());
    const after = changed(result, files);
    if (after !== null) expect(syntaxErrors("src/user.js", after), after).toEqual([]);
  });

  it("the named function reads no such member, another file does: no guard anywhere", async () => {
    const files = {
      "src/db.js": db,
      "src/user.js": js(["  const user = db.find(id);", "  return user.fullName;"]),
      "src/names.js":
        "function formatName(p) {\n  const n = p.first;\n  return p.name;\n}\nmodule.exports = { formatName };\n",
    };
    const result = await runHeuristic(files, "getUserName crashes", issue());
    // getUserName reads no `.name`: no guard may land in src/user.js, and none in names.js from getUserName's words
    const summary = result.diagnosis?.summary ?? "";
    expect(summary).not.toContain("only line of `getUserName`");
    expect(summary).not.toContain("only line of `formatName`");
  });

  it("the same function in two files: at most a proposal, never a pull request", async () => {
    const body = ["  const user = db.find(id);", "  return user.name.trim();"];
    const files = { "src/db.js": db, "src/user.js": js(body), "src/admin.js": js(body) };
    const result = await runHeuristic(files, "getUserName crashes", issue());
    expect(result.outcome).not.toBe("pr_ready");
    expect(result.diagnosis?.confidence ?? 0).toBeLessThan(0.7);
  });

  it("the issue names the function with its file and line but no trace: still a proposal", async () => {
    const files = { "src/db.js": db, "src/user.js": js(["  const user = db.find(id);", "  return user.name.trim();"]) };
    for (const body of [
      `${issue()} (src/user.js line 5)`,
      `${issue()}\nsee src/user.js:5 and getUserName`,
      `${issue()}\n\n\`\`\`js\n  return user.name.trim();\n\`\`\``,
    ]) {
      const result = await runHeuristic(files, "getUserName crashes in src/user.js", body);
      expect(result.outcome, body).not.toBe("pr_ready");
      expect(result.diagnosis?.confidence ?? 0, body).toBeLessThan(0.7);
    }
  });
});

describe("attacker: hostile member names in the crash message", () => {
  it("a member with backticks, braces, $ or a backslash never ends up as code in the guard", async () => {
    for (const member of ["na`me", "na${process.exit(1)}me", "x\\", "{__import__}", "a b", "a)+require('x')+(b"]) {
      const read = member.replace(/\\/g, "\\\\");
      const files = {
        "src/db.js": db,
        "src/user.js": js(["  const user = db.find(id);", `  return user.${read}.trim();`]),
      };
      const result = await runHeuristic(files, "getUserName crashes", issue(member));
      const after = changed(result, files);
      const added = addedLines(result).join("\n");
      expect(added, member).not.toContain("process.exit");
      expect(added, member).not.toContain("require('x')");
      if (after !== null && result.edits.length) expect(result.outcome, member).not.toBe("pr_ready");
    }
  });

  it("a very long member name or function list in the issue: answers in time, no guard", async () => {
    const files = { "src/db.js": db, "src/user.js": js(["  const user = db.find(id);", "  return user.name.trim();"]) };
    const body = `${issue("n".repeat(20000))} ${Array.from({ length: 5000 }, (_, i) => `fnNumber${i}()`).join(" ")}`;
    const t = Date.now();
    const result = await runHeuristic(files, "getUserName crashes", body);
    expect(Date.now() - t).toBeLessThan(20000);
    expect(result.diagnosis?.summary ?? "").not.toContain("only line of");
  });
});

describe("attacker: the named read in Python and Ruby", () => {
  it("Python: a read inside a lambda: no guard on the lambda's parameter", async () => {
    const result = await runHeuristic(
      {
        "app/users.py": [
          "def load(uid):",
          "    return None",
          "",
          "",
          "def user_labels(uids):",
          "    users = [load(u) for u in uids]",
          "    return sorted(users, key=lambda u: u.display_name)",
          "",
        ].join("\n"),
      },
      "user_labels() crashes",
      "AttributeError: 'NoneType' object has no attribute 'display_name'",
    );
    expect(addedLines(result).join("\n")).not.toMatch(/if u is None/);
  });

  describe("Python: an attribute in an f-string's braces is read, one in string text is not", () => {
    const run = (line: string) =>
      runHeuristic(
        {
          "app/users.py": [
            "def load(uid):",
            "    return None",
            "",
            "",
            "def user_label(uid):",
            "    user = load(uid)",
            line,
            "    return user.title",
            "",
          ].join("\n"),
        },
        "user_label() crashes",
        "AttributeError: 'NoneType' object has no attribute 'display_name'",
      );

    it("the attribute only in a plain string or an f-string's text: no guard", async () => {
      for (const line of [
        '    print("reading user.display_name")',
        '    print(f"user.display_name of {uid}")',
        '    print("{user.display_name}")',
        '    print(f"{{user.display_name}} {uid}")',
      ]) {
        const r = await run(line);
        expect(r.diagnosis?.summary ?? "", line).not.toContain("only line of");
        expect(addedLines(r).join("\n"), line).not.toMatch(/user is None/);
      }
    });

    it("the attribute read inside an f-string's braces is guarded", async () => {
      for (const line of ['    print(f"{user.display_name}")', "    print(f'<{user.display_name!r:>20}>')"]) {
        const r = await run(line);
        expect(addedLines(r)[0], line).toBe("    if user is None:");
      }
    });
  });

  it("Ruby: undefined method for nil in a named method: a guard, a proposal", async () => {
    const result = await runHeuristic(
      {
        "lib/users.rb": rubyUsers(["    user.display_name.upcase"]),
      },
      "Users.label crashes",
      "NoMethodError: undefined method `display_name' for nil in label",
    );
    expect(result.outcome).not.toBe("pr_ready");
  });
});

describe("attacker: a trace whose line is not in the file, and a body the tools clipped", () => {
  const files = { "src/db.js": db, "src/user.js": js(["  const user = db.find(id);", "  return user.name.trim();"]) };

  it("a frame past the end of the file: a proposal, and the summary does not deny the trace", async () => {
    const body =
      "TypeError: Cannot read properties of undefined (reading 'name')\n" +
      "    at getUserName (/srv/app/src/user.js:99:17)\n    at main (/srv/app/src/index.js:3:1)";
    const result = await runHeuristic(files, "getUserName crashes", body);
    expect(addedLines(result)[0]).toBe("  if (user == null) {");
    expect(result.diagnosis?.confidence ?? 1).toBeLessThan(0.7);
    expect(result.outcome).toBe("diagnosis_only");
    expect(result.diagnosis?.summary).toContain("src/user.js:99");
    expect(result.diagnosis?.summary).not.toContain("The issue has no stack trace");
    expect(result.diagnosis?.summary).toContain("line 5 is the only line of `getUserName` that reads `.name`");
  });

  it("a body line redacted (a secret) or clipped (a long line): no guard chosen from an unread body", async () => {
    for (const line of [
      '  const key = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";',
      `  const x = [${"1, ".repeat(2000)}];`,
    ]) {
      const result = await runHeuristic(
        { "src/db.js": db, "src/user.js": js(["  const user = db.find(id);", line, "  return user.name.trim();"]) },
        "getUserName crashes",
        issue(),
      );
      expect(result.diagnosis?.summary ?? "", line.slice(0, 30)).not.toContain("only line of");
      expect(addedLines(result).join("\n")).not.toContain("ghp_");
    }
  });
});
