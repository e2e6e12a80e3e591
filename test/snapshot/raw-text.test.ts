import { describe, expect, it } from "vitest";
import { rawText, snapshotFromTar } from "../../src/snapshot/index.js";
import { createReadLog, grepCodebase, runTool, searchCodebase, verifySymbolInRepo } from "../../src/tools/index.js";
import { makeGitHubTarball } from "./build-repo.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";
const FILES = {
  "src/ascii.js": "export function plain() { return 1; }\n",
  "src/greet.js": "\uFEFF// Grüße → 👋\nexport function sayHello(name) {\n  return `Привет, ${name} 👋`;\n}\n",
  "src/latin.txt": "caf\u00e9 cr\u00e8me\n",
  "src/keys.js": `// Schlüssel für die API\nconst token = "ghp_${"a1B2".repeat(9)}"; // gültig\n`,
  "bin/bad.dat": new Uint8Array([0x61, 0xff, 0xfe, 0x62]),
};

async function load() {
  return snapshotFromTar(await makeGitHubTarball(FILES, SHA), { sha: SHA, stripTopFolder: true });
}

describe("text kept as bytes", () => {
  it("reads back every text file exactly (BOM, non-Latin-1, emoji), and again from the cache", async () => {
    const snap = await load();
    for (const path of ["src/ascii.js", "src/greet.js", "src/latin.txt"]) {
      expect(snap.read(path)).toBe(FILES[path as keyof typeof FILES]);
      expect(snap.read(path)).toBe(FILES[path as keyof typeof FILES]);
    }
    expect(snap.entry("bin/bad.dat")?.kind).toBe("binary");
    expect(snap.read("bin/bad.dat")).toBeUndefined();
    expect(snap.stats.textFiles).toBe(4);
  });

  it("gives the raw text one character per byte, ASCII where the file has ASCII", async () => {
    const snap = await load();
    const raw = rawText(snap, "src/greet.js") as string;
    expect(raw.length).toBe(Buffer.byteLength(FILES["src/greet.js"]));
    expect(Buffer.from(raw, "latin1").toString("utf8")).toBe(FILES["src/greet.js"]);
    expect(raw).toContain("export function sayHello(name) {");
    expect(rawText(snap, "src/ascii.js")).toBe(FILES["src/ascii.js"]);
    expect(rawText(snap, "bin/bad.dat")).toBeUndefined();
  });

  it("lets grep, search and verify find text in non-ASCII files with the decoded lines", async () => {
    const ctx = { snapshot: await load(), reads: createReadLog() };
    const ascii = await runTool(grepCodebase, { pattern: "return `" }, ctx);
    expect(ascii.text).toContain("src/greet.js:3: return `Привет, ${name} 👋`;");
    const wide = await runTool(grepCodebase, { pattern: "Привет" }, ctx);
    expect(wide.text).toContain("src/greet.js:3: return `Привет, ${name} 👋`;");
    const regex = await runTool(grepCodebase, { pattern: "Grü(ß|ss)e → ", regex: true }, ctx);
    expect(regex.text).toContain("src/greet.js:1:");
    const search = await runTool(searchCodebase, { query: "say hello" }, ctx);
    expect(search.text).toContain("function sayHello src/greet.js:2");
    const verify = await runTool(verifySymbolInRepo, { name: "sayHello" }, ctx);
    expect(verify.text).toBe("FOUND: sayHello is defined 1 time(s):\nsrc/greet.js:2-4 function sayHello");
  });

  it("tests a regex with ASCII literals on the decoded line: a non-ASCII character is one character", async () => {
    const ctx = { snapshot: await load(), reads: createReadLog() };
    const six = await runTool(grepCodebase, { pattern: "return `.{6}, ", regex: true }, ctx);
    expect(six.text).toContain("1 matching line(s) in 1 file(s)");
    expect(six.text).toContain("src/greet.js:3: return `Привет, ${name} 👋`;");
    const twelve = await runTool(grepCodebase, { pattern: "return `.{12}, ", regex: true }, ctx);
    expect(twelve.text).toMatch(/^0 matches/);
    const cafe = await runTool(grepCodebase, { pattern: "caf. cr.me$", regex: true }, ctx);
    expect(cafe.text).toContain("src/latin.txt:1: café crème");
  });

  it("never matches a secret in a non-ASCII file, and shows its line redacted", async () => {
    const ctx = { snapshot: await load(), reads: createReadLog() };
    const secret = await runTool(grepCodebase, { pattern: "ghp_a1B2" }, ctx);
    expect(secret.text).toMatch(/^0 matches/);
    const line = await runTool(grepCodebase, { pattern: "const token = .*gültig", regex: true }, ctx);
    expect(line.text).toContain('src/keys.js:2: const token = "[redacted]"; // gültig');
  });
});
