import { describe, expect, it } from "vitest";
import { servedText, servedWords } from "../../src/tools/serve.js";

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
});
