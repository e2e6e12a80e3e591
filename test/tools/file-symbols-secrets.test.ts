import { describe, expect, it } from "vitest";
import { extractSymbols } from "../../src/grounding/symbols.js";
import { redact } from "../../src/grounding/secrets.js";
import { fileSymbols } from "../../src/tools/symbol-index.js";
import { buildSnapshot } from "../agent/helpers.js";

// Definition names that hold a secret, as string keys of an object (any text but a quote) and as identifiers.
const SECRET_KEYS = [
  "postgres://admin:hunter2@db",
  "password=hunter22x",
  "ab://a:bcd@c",
  "token: 'a1B2c3D4e5'",
  "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  "AKIA" + "ABCDEFGHIJKLMNOP",
  "sk-" + "abcdefghij0123456789xyz",
];
const SECRET_IDENTIFIERS = [
  "ghp_" + "Z1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
];
// Names whose pre-test triggers straddle two neighbouring names, or that hold a trigger but no secret.
const NEAR = ["pa", "ss", "x:", "//y:", "AK", "IAABCDEFGHIJKLMNOP", "getAuthToken", "keyOf", "sk", "-abc"];

describe("fileSymbols never names a definition whose name holds a secret (no oracle)", () => {
  it("drops exactly the names redact changes, first, last and among 3,000 others", async () => {
    const lines = ["const table = {"];
    const key = (k: string) => (k.includes('"') ? `  '${k}': () => 1,` : `  "${k}": () => 1,`);
    lines.push(key(SECRET_KEYS[0] as string));
    for (let i = 0; i < 3000; i++) {
      lines.push(key(NEAR[i % NEAR.length] as string));
      if (i % 400 === 7) lines.push(key(SECRET_KEYS[((i / 400) | 0) % SECRET_KEYS.length] as string));
      lines.push(`  plain${i}: () => ${i},`);
    }
    lines.push(key(SECRET_KEYS[SECRET_KEYS.length - 1] as string), "};");
    for (const id of SECRET_IDENTIFIERS) lines.push(`function ${id}() {}`);
    lines.push("function last() {}", "");
    const content = lines.join("\n");
    const snapshot = await buildSnapshot({ "src/table.js": content });
    const all = extractSymbols("src/table.js", content).map((d) => d.name);
    for (const s of [...SECRET_KEYS, ...SECRET_IDENTIFIERS]) expect(all).toContain(s);
    const kept = fileSymbols(snapshot, "src/table.js").map((d) => d.name);
    expect(kept).toEqual(all.filter((n) => redact(n) === n));
    for (const s of [...SECRET_KEYS, ...SECRET_IDENTIFIERS]) expect(kept).not.toContain(s);
    for (const n of [...NEAR, "plain0", "plain2999", "last"]) expect(kept).toContain(n);
  });
});
