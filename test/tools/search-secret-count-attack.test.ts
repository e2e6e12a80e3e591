import { describe, expect, it } from "vitest";
import { searchCodebase } from "../../src/tools/search.js";
import { makeContext } from "./fixture.js";

const PEM_BEGIN = "-----BEGIN RSA PRIVATE KEY-----";
const PEM_END = "-----END RSA PRIVATE KEY-----";

/** search_codebase's answer text for `query` over `files`. */
async function answer(files: Record<string, string>, query: string): Promise<string> {
  const ctx = await makeContext(files);
  return (await searchCodebase.run({ query }, ctx)).text;
}

/**
 * The answers for `query` over two snapshots that differ only in a secret's value: `right` holds the guessed word
 * ("hunter", a token of Xq_hunter_9Z) in the secret, `wrong` another value of the same length (file sizes are the
 * same, and list_files shows them anyway).
 */
async function both(files: (value: string) => Record<string, string>, query: string) {
  return { right: await answer(files("Xq_hunter_9Z"), query), wrong: await answer(files("Xq_other9_9Z"), query) };
}

// A guess at a secret's value must get the same answer whether it is right. Until session 12 rankFiles counted the
// words of the raw text, so a word only inside a secret (or next to one) counted in N, in a term's document
// frequency, in a file's term frequency and in whether a term is present (so in what is expanded); each test says
// what differed then ("Was: …"). The word scan now keeps only the words the served text shows (visibleWords,
// src/tools/search-index.ts; the byte tests of src/tools/secret-words.ts, then the file's secrets).
describe("search_codebase gives no oracle on a secret's value", () => {
  const files = (value: string) => ({
    "src/a.js": "const foo = 1;\nmodule.exports = { foo };\n",
    "src/db.js": `const password = "${value}";\nmodule.exports = { connect() {} };\n`,
  });

  it("names no file for a word that is only inside a secret", async () => {
    const { right, wrong } = await both(files, "xq_hunter_9z");
    expect(right).toMatch(/^No file or symbol matches/);
    expect(right).toBe(wrong);
  });

  it("counts the same N in 'Files (k of N matching)' whether the guess is right", async () => {
    // Was: right "Files (1 of 2 matching)" (db.js matched by the secret's token "hunter"), wrong "(1 of 1 …)".
    const { right, wrong } = await both(files, "foo hunter");
    expect(right).toContain("Files (1 of 1 matching)");
    expect(right).toBe(wrong);
  });

  it("orders files the same: a secret's word does not lift its file", async () => {
    // Both files show "foo". Was: right, b.js first (it also matched "hunter", in the secret); wrong, a.js first.
    const { right, wrong } = await both(
      (v) => ({ "src/a.js": "const foo = 1;\n", "src/b.js": `const foo = 2;\nconst password = "${v}";\n` }),
      "foo hunter",
    );
    expect(right).toContain("1. src/a.js");
    expect(right).toBe(wrong);
  });

  it("a term only inside a secret is not present, so it is expanded as in the other snapshot", async () => {
    // The file shows "hunters" and holds "hunter" only in its secret. Was: right, "hunter" present (no prefix
    // expansion, shown as `"hunter" in text`); wrong, expanded to "hunters" (`"hunters" in symbols, text`).
    const { right, wrong } = await both(
      (v) => ({ "src/a.js": `const hunters = 1;\nconst password = "${v}";\n` }),
      "hunter",
    );
    expect(right).toContain('"hunters" in symbols, text');
    expect(right).toBe(wrong);
  });

  it("a word both inside and outside a secret in one file counts as the served text has it", async () => {
    // b.js shows "hunter" and holds it again in the secret (as a token of xq_hunter_9z). Was: right, b.js's term
    // frequency 2 lifted it above a.js (same length, same symbols); wrong, a tie in path order.
    const pad = "x".repeat(17);
    const { right, wrong } = await both(
      (v) => ({
        "src/a.js": `let y = hunter;\nlet z = "${pad}";\n`,
        "src/b.js": `let y = hunter;\nlet password = "${v}";\n`,
      }),
      "hunter",
    );
    expect(wrong).toContain("1. src/a.js");
    expect(right).toBe(wrong);
  });

  it("a .env-style line in a file that is searched (deploy/app.env) gives no count", async () => {
    // `app.env` is not a secret path (only `.env`, `.env.*`), so it is searched; its API_TOKEN value is redacted.
    const { right, wrong } = await both(
      (v) => ({ "src/a.js": "const foo = 1;\n", "deploy/app.env": `API_TOKEN=${v}\nPORT=80\n` }),
      "foo hunter",
    );
    expect(right).toContain("Files (1 of 1 matching)");
    expect(right).toBe(wrong);
  });

  it("a .env file itself is never searched: no count either way", async () => {
    const { right, wrong } = await both(
      (v) => ({ "src/a.js": "const foo = 1;\n", ".env": `API_TOKEN=${v}\n` }),
      "foo hunter",
    );
    expect(right).toContain("Files (1 of 1 matching)");
    expect(right).toBe(wrong);
  });

  it("several files holding the secret (code, Python, shell, a URL, a key block's base64) change nothing", async () => {
    // Was: right, N counts every file holding the value; wrong "Files (1 of 1 matching)".
    const { right, wrong } = await both(
      (v) => ({
        "src/a.js": "const foo = 1;\n",
        "src/b.js": `const password = "${v}";\n`,
        "src/c.py": `token = "${v}"\n`,
        "src/d.sh": `export DB_PASSWORD=${v}\n`,
        "src/e.ts": `const url = "postgres://admin:${v}@db:5432/app";\n`,
        // The key's base64 holds no `_`: the value with `+` instead.
        "src/f.ts": `const key = \`${PEM_BEGIN}\nMIIEow+${v.replace(/_/g, "+")}/abcdefghijklmnop=\n${PEM_END}\`;\n`,
      }),
      "foo hunter",
    );
    expect(right).toContain("Files (1 of 1 matching)");
    expect(right).toBe(wrong);
  });

  it("a word right next to a secret is left out whatever the secret's last character", async () => {
    // An OpenAI-style key ends where [A-Za-z0-9_-] ends: `…-$hunter` would leave "$hunter" a word of its own after a
    // value ending in "-", and part of the value's last word otherwise. Neither snapshot counts it.
    const key = (v: string) => ({
      "src/a.js": "const foo = 1;\n",
      "src/k.js": `x = sk-${v}abcdefghijklmnop$hunter;\n`,
    });
    const dash = await answer(key("Xq_hunter_9-"), "foo hunter");
    const word = await answer(key("Xq_hunter_9Z"), "foo hunter");
    expect(dash).toContain("Files (1 of 1 matching)");
    expect(dash).toBe(word);
  });
});
