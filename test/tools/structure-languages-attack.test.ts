import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { reviewChange } from "../../src/review/index.js";
import { createReadLog } from "../../src/tools/index.js";
import { createEditSession, prepareSuggestAddition, runSuggestAddition } from "../../src/tools/suggest-addition.js";
import { buildSnapshot } from "../agent/helpers.js";
import { gitChange } from "../review/helpers.js";

/**
 * Attack on invariant 7 ("an addition changes nothing that exists", docs/ARCHITECTURE.md) outside the four languages
 * the structure rule parses (JS/TS by extension, Python, Go). Under the default `edits.allow: additions` each edit
 * below only adds lines, yet each one stops existing code from running: an auth check commented out (a block comment,
 * `=begin`, a here-document, `#if 0`) or skipped (`if (true) return;`). Once `suggest_addition` applied them as
 * additions and the review's edit-policy rule passed them; now both read them with one rule, `additionProblems` of
 * src/grounding/lexical.ts: the parse comparison where a parser reads the file (also an extension-less script whose
 * shebang names Node), else the lexical rule (how each existing line reads, preprocessor conditionals, the guard in
 * front of an added exit, added blocks and loops). The tests below try to get around it (spacing, CRLF, comment
 * markers in strings and comments, escapes, nested comments, constants dressed as calls) and check that the guards
 * a fix adds in those languages still apply.
 */
const FILES: Record<string, string> = {
  "src/Pay.java": "class Pay {\n  void charge(User u) {\n    checkAuth(u);\n    pay(u);\n  }\n}\n",
  "lib/pay.rb": "def charge(u)\n  check_auth(u)\n  pay(u)\nend\n",
  "bin/deploy.sh": "#!/bin/sh\ncheck_auth\ndeploy\n",
  "src/pay.c": "int charge(user *u) {\n  check_auth(u);\n  return pay(u);\n}\n",
  "bin/pay": "#!/usr/bin/env node\nfunction charge(u) {\n  checkAuth(u);\n  pay(u);\n}\n",
  "src/pay.js": "function charge(u) {\n  checkAuth(u);\n  pay(u);\n}\n",
};

/** [path, code_before, code_after]: each keeps every line of code_before and adds lines around it. */
const DISABLING: [string, string, string][] = [
  ["src/Pay.java", "    checkAuth(u);\n", "    /*\n    checkAuth(u);\n    */\n"],
  ["src/Pay.java", "    checkAuth(u);\n", "    if (true) return;\n    checkAuth(u);\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "=begin\n  check_auth(u)\n=end\n"],
  ["bin/deploy.sh", "check_auth\n", ": <<'SKIP'\ncheck_auth\nSKIP\n"],
  ["src/pay.c", "  check_auth(u);\n", "#if 0\n  check_auth(u);\n#endif\n"],
  ["bin/pay", "  checkAuth(u);\n", "  /*\n  checkAuth(u);\n  */\n"],
];

async function suggest(path: string, code_before: string, code_after: string, files = FILES) {
  const snapshot = await buildSnapshot(files);
  const reads = createReadLog();
  reads.record({ path, startLine: 1, endLine: 200 });
  await prepareSuggestAddition({ path });
  const ctx = { snapshot, reads, config: defaultConfig(), session: createEditSession() };
  return runSuggestAddition({ path, code_before, code_after, rationale: "a guard" }, ctx);
}

describe("an addition that disables existing code, in a language the structure rule does not parse", () => {
  it("the same edit in a .js file is refused (the rule this attack gets around)", async () => {
    const out = await suggest("src/pay.js", "  checkAuth(u);\n", "  /*\n  checkAuth(u);\n  */\n");
    expect(out.result.status).toBe("rejected");
  });

  // In every language: an added loop that tests a value but whose empty body nothing ends spins forever once the
  // value is set (`Adapter.emptyLoop` of src/grounding/structure.ts; the lexical rule's loops below).
  it("suggest_addition refuses an added endless loop before existing code in a .js file", async () => {
    const out = await suggest("src/pay.js", "  checkAuth(u);\n", "  while (u != null) {}\n  checkAuth(u);\n");
    expect(out.result.status).toBe("rejected");
  });

  it.each(DISABLING)("suggest_addition refuses it in %s (%j → %j)", async (path, before, after) => {
    const out = await suggest(path, before, after);
    expect(out.result.status).toBe("rejected");
  });

  it.each(DISABLING)("the review does not pass it silently in %s (%j → %j)", (path, before, after) => {
    const base = FILES[path]!;
    const change = gitChange({ [path]: base }, { [path]: base.replace(before, after) });
    const report = reviewChange({ ...change, config: defaultConfig(), record: null });
    expect(report.findings.filter((f) => f.rule === "edit_policy")).not.toEqual([]);
  });
});

/** More files, in the languages the lexical rule reads (src/grounding/lexical.ts). */
const MORE: Record<string, string> = {
  "src/Pay.java": FILES["src/Pay.java"]!,
  "src/Pay.crlf.java": FILES["src/Pay.java"]!.replace(/\n/g, "\r\n"),
  "lib/pay.rb": FILES["lib/pay.rb"]!,
  "bin/deploy.sh": FILES["bin/deploy.sh"]!,
  "bin/deploy": FILES["bin/deploy.sh"]!,
  "src/pay.c": FILES["src/pay.c"]!,
  "src/Pay.kt": "/* Payments.\n */\nfun charge(u: User?) {\n  checkAuth(u)\n  pay(u)\n}\n",
  "src/pay.rs": "fn charge(u: Option<User>) {\n    check_auth(&u);\n    pay(u);\n}\n",
  "src/Pay.cs": "class Pay {\n  void Charge(User u) {\n    CheckAuth(u);\n    Pay(u);\n  }\n}\n",
  "lib/pay.pl": "sub charge {\n  my ($u) = @_;\n  check_auth($u);\n  pay($u);\n}\n",
  "lib/pay.lua": "function charge(u)\n  check_auth(u)\n  pay(u)\nend\n",
  "lib/pay.php": "<?php\nfunction charge($u) {\n  check_auth($u);\n  pay($u);\n}\n",
  "src/Pay.swift": "func charge(u: User?) {\n  checkAuth(u)\n  pay(u)\n}\n",
  "bin/tool": "#!/usr/bin/env python3\ndef charge(u):\n    check_auth(u)\n    pay(u)\n",
  "src/pay.py": "def charge(u):\n    check_auth(u)\n    pay(u)\n",
  "src/pay.go": "package pay\n\nfunc Charge(u *User) {\n\tcheckAuth(u)\n\tpay(u)\n}\n",
  "lib/sql.rb": "def active_sql\n  <<~SQL\n    SELECT id\n    WHERE active\n  SQL\nend\n",
  "bin/report.sh": "#!/bin/sh\npsql <<EOF\nSELECT id\nWHERE active\nEOF\n",
};

/** [path, text to insert before, the inserted lines]: each only adds lines, and each stops existing code running. */
const EVASIONS: [string, string, string][] = [
  // comments, strings, here-documents and preprocessor lines that take existing code in
  ["src/Pay.java", "    pay(u);\n", "    int n = 1; /*\n"],
  ["src/Pay.java", "    checkAuth(u);\n", "    // \\u002a/ \\u002f\\u002a\n"],
  ["src/Pay.crlf.java", "    checkAuth(u);\r\n", "    /*\r\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "=begin skipped\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "__END__\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "  <<~SKIP\n"],
  ["bin/deploy.sh", "check_auth\n", ':   <<  "SKIP"\n'],
  ["bin/deploy.sh", "check_auth\n", ": '\n"],
  ["bin/deploy.sh", "check_auth\n", "echo skipping \\\n"],
  ["src/pay.c", "  check_auth(u);\n", "  #  if 0\n"],
  ["src/pay.c", "  check_auth(u);\n", "#ifdef NEVER_DEFINED\n"],
  ["src/pay.c", "  check_auth(u);\n", "  // see below \\\n"],
  ["src/pay.c", "int charge", "#define check_auth(u) 0\n"],
  ["src/Pay.kt", " */\n", "/*\n"],
  ["lib/pay.php", "  check_auth($u);\n", "?>\n"],
  ["lib/pay.pl", "  check_auth($u);\n", "\n=pod\n\n"],
  ["src/Pay.cs", "    CheckAuth(u);\n", "#if false\n"],
  // a line put inside an existing here-document changes the query it holds
  ["lib/sql.rb", "    WHERE active\n", "    OR 1=1\n"],
  ["bin/report.sh", "WHERE active\n", "# OR 1=1\n"],
  // exits that no value test guards
  ["src/Pay.java", "    checkAuth(u);\n", "    if(true)return;\n"],
  ["src/Pay.java", "    checkAuth(u);\n", "    if ( !false )\n      return ;\n"],
  ["src/Pay.java", "    checkAuth(u);\n", "    if (u == null || true) return;\n"],
  ["src/Pay.java", "    checkAuth(u);\n", '    if ("a".equals("a")) return;\n'],
  ["src/Pay.java", "    checkAuth(u);\n", '    log("if (u == null)"); return;\n'],
  ["src/Pay.java", "    checkAuth(u);\n", "    /* if (u == null) */ return;\n"],
  ["src/Pay.java", "    checkAuth(u);\n", "    { return; }\n"],
  ["src/Pay.java", "    checkAuth(u);\n", "    System.exit(0);\n"],
  ["src/Pay.crlf.java", "    checkAuth(u);\r\n", "    if (true) return;\r\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "  return if true\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "  exit!\n"],
  ["bin/deploy.sh", "check_auth\n", "true && exit 0\n"],
  ["bin/deploy.sh", "check_auth\n", "if grep -q x f || true; then exit 0; fi\n"],
  ["bin/deploy.sh", "check_auth\n", "exec /bin/true\n"],
  ["bin/deploy", "check_auth\n", "exit 0\n"],
  ["src/pay.c", "  check_auth(u);\n", "  goto done;\n"],
  ["src/pay.c", "  check_auth(u);\n", "  if (1) return 0;\n"],
  ["src/pay.rs", "    check_auth(&u);\n", '    panic!("later");\n'],
  ["src/Pay.kt", "  checkAuth(u)\n", "  return\n"],
  ["lib/pay.lua", "  check_auth(u)\n", "  do return end\n"],
  ["bin/tool", "    check_auth(u)\n", "    sys.exit(0)\n"],
  // an added block around existing code, a definition that replaces an existing one
  ["src/Pay.java", "    checkAuth(u);\n", "    if (u.isAdmin()) {\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "  if u.admin?\n"],
  ["bin/deploy.sh", "check_auth\n", "check_auth() { :; }\n"],
  // loops that only wait, and loops that never end
  ["src/Pay.java", "    checkAuth(u);\n", "    while (u != null);\n"],
  ["src/Pay.java", "    checkAuth(u);\n", "    for (;;) { tick(); }\n"],
  ["src/Pay.java", "    checkAuth(u);\n", "    do {} while (u.isLocked());\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "  sleep 1 while u.locked?\n"],
  ["bin/deploy.sh", "check_auth\n", "while [ -f /tmp/lock ]; do sleep 1; done\n"],
  ["bin/deploy.sh", "check_auth\n", "while :; do :; done\n"],
  ["src/pay.rs", "    check_auth(&u);\n", "    loop {}\n"],
  ["bin/tool", "    check_auth(u)\n", "    while u is None:\n        pass\n"],
  ["src/pay.py", "    check_auth(u)\n", "    while u is not None:\n        pass\n"],
  ["src/pay.go", "\tcheckAuth(u)\n", "\tfor u != nil {\n\t}\n"],
];

/** [path, text to insert before, the inserted lines]: guards that test a value, and lines that change nothing. */
const GUARDS: [string, string, string][] = [
  ["src/Pay.java", "    checkAuth(u);\n", "    if (u == null) return;\n"],
  [
    "src/Pay.java",
    "    checkAuth(u);\n",
    '    if (u == null) {\n      throw new IllegalArgumentException("u is null");\n    }\n',
  ],
  ["src/Pay.java", "    checkAuth(u);\n", '    if (u == null)\n      throw new IllegalArgumentException("no user");\n'],
  ["src/Pay.java", "    checkAuth(u);\n", '    String open = "/*"; // if (true) return;\n'],
  [
    "src/Pay.java",
    "    checkAuth(u);\n",
    "    switch (u.kind) {\n      case GUEST: return;\n      default: break;\n    }\n",
  ],
  ["src/Pay.java", "  }\n}\n", '    if (u.isAdmin()) LOG.info("admin {}", u);\n'],
  ["src/Pay.java", "    checkAuth(u);\n", "    do {\n      u = u.parent();\n    } while (u.isProxy());\n"],
  ["src/Pay.crlf.java", "    checkAuth(u);\r\n", "    if (u == null) return;\r\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "  return if u.nil?\n"],
  ["lib/pay.rb", "  check_auth(u)\n", "  if u.nil? then return end\n"],
  ["lib/pay.rb", "  check_auth(u)\n", '  raise ArgumentError, "u is nil" unless u\n'],
  ["lib/pay.rb", "  check_auth(u)\n", '  if u.nil?\n    raise ArgumentError, "no user"\n  end\n'],
  ["bin/deploy.sh", "check_auth\n", '[ -z "$TOKEN" ] && exit 1\n'],
  ["bin/deploy.sh", "check_auth\n", 'if [ "$#" -eq 0 ]; then\n  echo "usage: deploy ENV" >&2\n  exit 2\nfi\n'],
  ["bin/deploy.sh", "check_auth\n", "command -v curl >/dev/null || exit 1\n"],
  ["bin/deploy.sh", "check_auth\n", ': "${TOKEN:?TOKEN is not set}"\n'],
  ["bin/deploy.sh", "check_auth\n", 'case "$1" in\n  -h) echo usage; exit 0 ;;\nesac\n'],
  ["bin/deploy.sh", "check_auth\n", 'die() {\n  echo "$1" >&2\n  exit 1\n}\n'],
  ["bin/deploy", "check_auth\n", '[ -n "$CI" ] || exit 0\n'],
  ["src/pay.c", "  check_auth(u);\n", "  if (u == NULL) return -1;\n"],
  ["src/pay.c", "  check_auth(u);\n", '#ifdef DEBUG\n  fprintf(stderr, "charge\\n");\n#endif\n'],
  ["src/pay.c", "  check_auth(u);\n", "  /*\n   * u may be NULL here\n   */\n"],
  ["src/Pay.kt", "  checkAuth(u)\n", "  val user = u ?: return\n"],
  ["src/Pay.kt", "  checkAuth(u)\n", "  if (!::rect.isInitialized) return\n"],
  ["lib/pay.rb", "  check_auth(u)\n", '  raise ArgumentError, "user is nil (id=#{id.inspect})" if u.nil?\n'],
  ["src/Pay.kt", "  checkAuth(u)\n", "  /* note */\n  if (u == null)\n    return\n"],
  ["src/pay.rs", "    check_auth(&u);\n", "    let Some(user) = u.as_ref() else { return; };\n"],
  ["src/Pay.cs", "    CheckAuth(u);\n", "    if (u == null) throw new ArgumentNullException(nameof(u));\n"],
  ["lib/pay.pl", "  check_auth($u);\n", '  die "no user" unless $u;\n'],
  ["lib/pay.lua", "  check_auth(u)\n", "  if not u then return end\n"],
  ["lib/pay.php", "  check_auth($u);\n", "  if (!$u) { return; }\n"],
  ["src/Pay.swift", "  checkAuth(u)\n", "  guard let user = u else { return }\n"],
  ["bin/tool", "    check_auth(u)\n", "    if u is None:\n        sys.exit(1)\n"],
];

const insert = (path: string, at: string, lines: string): string => {
  const base = MORE[path]!;
  expect(base.includes(at), `${path} holds ${JSON.stringify(at)}`).toBe(true);
  return base.replace(at, lines + at);
};

const suggestIn = (path: string, at: string, lines: string) => suggest(path, at, lines + at, MORE);

function reviewIn(path: string, at: string, lines: string) {
  const change = gitChange({ [path]: MORE[path]! }, { [path]: insert(path, at, lines) });
  return reviewChange({ ...change, config: defaultConfig(), record: null }).findings.filter(
    (f) => f.rule === "edit_policy",
  );
}

describe("the one addition rule outside the parsed languages (src/grounding/lexical.ts), tool and review alike", () => {
  it.each(EVASIONS)("suggest_addition refuses, in %s before %j, %j", async (path, at, lines) => {
    insert(path, at, lines);
    const out = await suggestIn(path, at, lines);
    expect(out.result.status).toBe("rejected");
    expect(out.result.text).toMatch(/line \d+/);
  });

  it.each(EVASIONS)("the review fails it, in %s before %j, %j", (path, at, lines) => {
    const findings = reviewIn(path, at, lines);
    expect(findings.map((f) => f.level)).toContain("failure");
  });

  it.each(GUARDS)("suggest_addition applies, in %s before %j, %j", async (path, at, lines) => {
    const out = await suggestIn(path, at, lines);
    expect(out.result.text).not.toContain("REJECTED");
    expect(out.result.status).toBe("ok");
  });

  it.each(GUARDS)("the review passes it, in %s before %j, %j", (path, at, lines) => {
    expect(reviewIn(path, at, lines)).toEqual([]);
  });

  it("tells the model what it refused and what to do instead", async () => {
    const out = await suggestIn("src/Pay.java", "    checkAuth(u);\n", "    if (true) return;\n");
    expect(out.result.text).toContain("src/Pay.java line 3: the added return at line 3 is guarded by a constant");
    expect(out.result.text).toContain("add a guard that tests a value");
    const loop = await suggestIn("bin/deploy.sh", "check_auth\n", "while :; do :; done\n");
    expect(loop.result.text).toContain("has an empty body");
    const shell = await suggestIn("bin/deploy.sh", "check_auth\n", ": <<'SKIP'\n");
    expect(shell.result.text).toContain("makes the existing line 3 part of a string, a here-document");
  });
});
