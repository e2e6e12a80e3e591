import { describe, expect, it } from "vitest";
import { codeShapedWords } from "../../../src/agent/models/heuristic/problem.js";
import { addedLines, runHeuristic } from "./readable.js";

/**
 * An issue without a stack trace that names the function and the member the crash reads: when the function reads
 * that member on one line only, the heuristic guards that line (a proposal: the place comes from the issue's words,
 * not from a frame), instead of only a comment.
 */
const user = (body: string[]) => ({
  "src/db.js": "const users = new Map();\nmodule.exports = { find: (id) => users.get(id) };\n",
  "src/user.js": ['const db = require("./db");', "", "function getUserName(id) {", ...body, "}", ""].join("\n"),
  "src/other.js": "function listUsers(all) {\n  return all.map((u) => u.name);\n}\nmodule.exports = { listUsers };\n",
});
const issue = "TypeError: Cannot read properties of undefined (reading 'name') in getUserName";

describe("no stack trace: the one read of the crash's member in the function the issue names", () => {
  it("JavaScript: a guard before the read, proposed below the pull-request threshold", async () => {
    const result = await runHeuristic(
      user(["  const user = db.find(id);", "  return user.name.trim();"]),
      "getUserName crashes",
      issue,
    );
    expect(result.diagnosis?.affected_file).toBe("src/user.js");
    expect(addedLines(result)[0]).toBe("  if (user == null) {");
    expect(addedLines(result).join("\n")).toContain("throw new TypeError(");
    expect(result.outcome).toBe("diagnosis_only");
    expect(result.diagnosis?.summary).toContain(
      "The issue has no stack trace: line 5 is the only line of `getUserName` that reads `.name`",
    );
  });

  it("Python: the function named as a call in the prose, the attribute read once", async () => {
    const result = await runHeuristic(
      {
        "app/users.py": [
          "def load_user(uid):",
          "    return None",
          "",
          "",
          "def user_label(uid):",
          '    """The label shown for a user."""',
          "    user = load_user(uid)",
          "    return user.display_name.title()",
          "",
        ].join("\n"),
      },
      "user_label() crashes for deleted users",
      "AttributeError: 'NoneType' object has no attribute 'display_name'",
    );
    expect(addedLines(result)[0]).toBe("    if user is None:");
    expect(result.outcome).toBe("diagnosis_only");
    expect(result.diagnosis?.summary).toContain("only line of `user_label` that reads `.display_name`");
  });

  it("attacker: two reads of the member in the function: no line is chosen, only a comment", async () => {
    const result = await runHeuristic(
      user(["  const user = db.find(id);", "  console.log(user.name);", "  return user.name.trim();"]),
      "getUserName crashes",
      issue,
    );
    expect(addedLines(result).join("\n")).not.toMatch(/\bif \(/);
    expect(result.diagnosis?.summary).not.toContain("only line of");
  });

  it("attacker: the only other read is in a comment or a block comment: the code line is the one", async () => {
    const result = await runHeuristic(
      user([
        "  // user.name may be empty",
        "  /* callers pass",
        "     user.name as given */",
        "  const user = db.find(id);",
        "  return user.name.trim();",
      ]),
      "getUserName crashes",
      issue,
    );
    expect(result.diagnosis?.summary).toContain("line 8 is the only line of `getUserName`");
    expect(addedLines(result)[0]).toBe("  if (user == null) {");
  });

  it("attacker: the issue names a function the file lacks, or a plain word: no guard from words", async () => {
    for (const [title, body] of [
      ["getUserLabel crashes", "TypeError: Cannot read properties of undefined (reading 'name') in getUserLabel"],
      ["name crashes", "TypeError: Cannot read properties of undefined (reading 'name') when I open the page"],
    ] as const) {
      const result = await runHeuristic(
        user(["  const user = db.find(id);", "  return user.name.trim();"]),
        title,
        body,
      );
      expect(result.diagnosis?.summary, title).not.toContain("only line of");
    }
  });

  describe("the error quoted inside a sentence, the function named unquoted in the prose", () => {
    const pyUsers = {
      "app/users.py": [
        "def load(uid):",
        "    return None",
        "",
        "",
        "def get_user_name(uid):",
        "    user = load(uid)",
        "    return user.name.strip()",
        "",
      ].join("\n"),
    };
    const js = ["  const user = db.find(id);", "  return user.name.trim();"];

    it("JavaScript and Python alike: the same guard as for an error on a line of its own", async () => {
      for (const [files, fn, error, first] of [
        [
          user(js),
          "getUserName",
          "TypeError: Cannot read properties of undefined (reading 'name')",
          "  if (user == null) {",
        ],
        [pyUsers, "get_user_name", "AttributeError: 'NoneType' object has no attribute 'name'", "    if user is None:"],
      ] as const) {
        for (const body of [
          `When the user was deleted, ${fn} fails with ${error} and the page stays blank.`,
          `When the user was deleted, ${fn} fails with \`${error}\`.`,
        ]) {
          const result = await runHeuristic(files, "Crash", body);
          expect(addedLines(result)[0], body).toBe(first);
          expect(result.outcome, body).toBe("diagnosis_only");
          expect(result.diagnosis?.summary, body).toContain(`The issue reports "${error}".`);
        }
      }
    });

    it("attacker: an error named in passing, code in the quoted message, a name only in a code block", async () => {
      const files = user(js);
      // not a crash the heuristic reads (a ValueError, an `Error:` with no missing value): prose, no guard
      for (const body of [
        "getUserName fails with ValueError: bad input when the user was deleted.",
        "getUserName fails with TypeError: something went wrong when the user was deleted.",
      ]) {
        const result = await runHeuristic(files, "Crash", body);
        expect(addedLines(result).join("\n"), body).not.toMatch(/if \(/);
      }
      // hostile text inside the quoted message never becomes code
      const hostile = await runHeuristic(
        files,
        "Crash",
        "getUserName fails with TypeError: Cannot read properties of undefined (reading 'name`); " +
          "process.exit(1); //') when the user was deleted",
      );
      expect(addedLines(hostile).join("\n")).not.toMatch(/process\.exit\(1\);(?!.*['"`])/);
      // a function named only inside a fenced block (the user's own code) is not searched for
      const fenced = await runHeuristic(
        files,
        "Crash",
        "It fails with TypeError: Cannot read properties of undefined (reading 'name').\n\n```js\ngetUserName(3);\n```",
      );
      expect(fenced.diagnosis?.summary ?? "").not.toContain("only line of");
    });
  });

  it("attacker: a crash on another member than the one the function reads: no guard", async () => {
    const result = await runHeuristic(
      user(["  const user = db.find(id);", "  return user.name.trim();"]),
      "getUserName crashes",
      "TypeError: Cannot read properties of undefined (reading 'email') in getUserName",
    );
    expect(result.diagnosis?.summary ?? "").not.toContain("only line of");
  });
});

describe("codeShapedWords", () => {
  it("keeps camelCase, snake_case and called words; drops prose and members after a dot", () => {
    expect(
      codeShapedWords("getUserName crashes in user_label() and load() when the page opens; see obj.fooBar"),
    ).toEqual(["getUserName", "user_label", "load"]);
  });
});

describe("a guard on a missing key says the key is missing, not the value", () => {
  it("Python KeyError: the summary names the key the guard tests (with a trace and without one)", async () => {
    const files = {
      "app/mail.py":
        "def load(uid):\n    return {}\n\n\ndef send_welcome(uid):\n" +
        "    user = load(uid)\n    address = user['email']\n    return address.lower()\n",
    };
    const trace = [
      "Traceback (most recent call last):",
      '  File "/srv/app/mail.py", line 7, in send_welcome',
      "    address = user['email']",
      "KeyError: 'email'",
    ].join("\n");
    for (const body of [trace, "KeyError: 'email'"]) {
      const result = await runHeuristic(files, "send_welcome() fails for imported users", body);
      expect(addedLines(result)[0], body).toBe('    if "email" not in user:');
      expect(result.diagnosis?.summary, body).toContain("when `user` has no key `'email'` is proposed before line 7");
    }
  });
});

describe("a trace whose line does not fit the file", () => {
  it("Python: the guard goes before the one read, and the summary does not say the issue has no trace", async () => {
    const result = await runHeuristic(
      {
        "billing/__init__.py": "",
        "billing/invoice.py":
          "def load(cid):\n    return None\n\n\ndef invoice_total(cid):\n" +
          "    customer = load(cid)\n    return customer.balance + 1\n",
      },
      "invoice_total crashes",
      [
        "Traceback (most recent call last):",
        '  File "/srv/billing/invoice.py", line 40, in invoice_total',
        "    return customer.balance + 1",
        "AttributeError: 'NoneType' object has no attribute 'balance'",
      ].join("\n"),
    );
    expect(addedLines(result)[0]).toBe("    if customer is None:");
    const summary = result.diagnosis?.summary ?? "";
    expect(summary).toContain("billing/invoice.py:40 in `invoice_total`, but the file has no such line");
    expect(summary).toContain("The trace's line does not fit the file: line 7 is the only line");
    expect(summary).not.toContain("no stack trace");
  });

  it("an installed copy's frame maps to the source without a line: the summary names no ':null' line", async () => {
    const result = await runHeuristic(
      {
        "package.json": JSON.stringify({ name: "@acme/fmt", main: "dist/format.js" }),
        "src/format.ts":
          "export function labels(items: { tag?: { name: string } }[]): string[] {\n" +
          "  return items.map((i) => i.tag.name);\n}\n",
      },
      "labels crashes",
      "TypeError: Cannot read properties of undefined (reading 'name')\n" +
        "    at /app/node_modules/@acme/fmt/dist/format.js:7:30\n    at Array.map (<anonymous>)\n" +
        "    at labels (/app/node_modules/@acme/fmt/dist/format.js:7:18)\n    at main (/app/index.js:3:1)",
    );
    const summary = result.diagnosis?.summary ?? "";
    expect(summary).toContain(
      "The stack trace enters the repository in src/format.ts in `labels` " +
        "(the frame's line number is not this file's).",
    );
    expect(summary).not.toContain(":null");
  });
});
