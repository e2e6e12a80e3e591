import { describe, expect, it } from "vitest";
import { scanSecrets } from "../../src/grounding/secrets.js";
import { servedText, servedWords } from "../../src/tools/serve.js";
import { random, text } from "../grounding/secret-texts.js";

const KEY_LINE = "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo";
const files: Record<string, string> = {
  "a.js":
    'const password = "Hunter2Hunter2";\n' +
    "-----BEGIN RSA PRIVATE KEY-----\n" +
    `${KEY_LINE}\n`.repeat(20) +
    "-----END RSA PRIVATE KEY-----\n" +
    "// the MIIEOW word, at last outside the key\n",
  "b.js": 'const token = "tok_9f8e7d6c5b4a";\nexport function Hunter() {}\n',
};
const snapshot = { read: (p: string) => files[p] };

/** `t` between many short lines, so that servedWords looks at the lines around a word, not at the whole file. */
const padded = (t: string) => `f();\n`.repeat(250) + t + `\nf();`.repeat(250);

describe("servedWords", () => {
  it("holds the words the served text holds, ignoring case, and no word found only inside a secret", () => {
    expect(servedWords(snapshot, "b.js", ["hunter", "tok_9f8e7d6c5b4a", "token", "export"])).toEqual(
      new Set(["hunter", "token", "export"]),
    );
    expect(servedWords(snapshot, "a.js", ["hunter2hunter2", "password", "redacted", "nothere"])).toEqual(
      new Set(["password"]),
    );
  });

  it("looks past the first lines holding a word when all of them are redacted", () => {
    expect(servedWords(snapshot, "a.js", ["miieow"])).toEqual(new Set(["miieow"]));
    expect(servedText(snapshot, "a.js")?.toLowerCase().includes("miieow")).toBe(true);
    const onlyInKey = { read: () => files["a.js"]!.replace("MIIEOW word", "word") };
    expect(servedWords(onlyInKey, "a.js", ["miieow", "word"])).toEqual(new Set(["word"]));
  });

  it("answers an empty set for a path without text", () => {
    expect(servedWords(snapshot, "none.js", ["x"])).toEqual(new Set());
  });

  it("does not hold a value whose name is lines above it, and holds it where it is written again outside", () => {
    const t = 'const a = 1;\nconst password =\n\n  "Hunter2Hunter2";\nnext();\n';
    for (const content of [t, padded(t)]) {
      const one = { read: () => content };
      expect(servedWords(one, "c.js", ["hunter2hunter2", "password", "next"])).toEqual(new Set(["password", "next"]));
      const again = { read: () => `${content}// hunter2hunter2 was the old one\n` };
      expect(servedWords(again, "c.js", ["hunter2hunter2"])).toEqual(new Set(["hunter2hunter2"]));
    }
  });

  it("holds exactly the words found outside the whole text's secrets (2,000 generated texts)", () => {
    const words = ["password", "hunter2hunter2", "wjalrxutnfemi", "abcd1234efgh5678", "s3cr3tp4ss", "admin"];
    const extra = ["token", "secret", "example", "akia", "redacted", "x", "const", "eyj"];
    /** The definition: an occurrence (any case) that overlaps no span of the whole text's secrets. */
    const expected = (t: string, word: string) => {
      const spans = scanSecrets(t);
      const lower = t.toLowerCase();
      for (let at = lower.indexOf(word); at !== -1; at = lower.indexOf(word, at + 1)) {
        if (spans.every((s) => s.end <= at || s.start >= at + word.length)) return true;
      }
      return false;
    };
    const next = random(7);
    let onlyInSecret = 0;
    for (let k = 0; k < 2000; k++) {
      // Padded, so that only the lines around a word are scanned (a short file is scanned whole).
      const t = k % 2 === 0 ? padded(text(next)) : text(next);
      const asked = [...words, ...extra];
      const want = new Set(asked.filter((w) => expected(t, w)));
      expect(servedWords({ read: () => t }, "g.js", asked), JSON.stringify(t)).toEqual(want);
      if (words.some((w) => t.toLowerCase().includes(w) && !want.has(w))) onlyInSecret++;
    }
    expect(onlyInSecret).toBeGreaterThan(200);
  });
});
