import { Buffer } from "node:buffer";
import { describe, expect, it } from "vitest";
import { ASCII_BYTES, mayTouchSecret, UNIT_BYTES, UTF8_BYTES } from "../../src/grounding/secret-bytes.js";
import { scanSecrets } from "../../src/grounding/secrets.js";
import { PIECES, random } from "./secret-texts.js";

// Besides the shared pieces: every provider shape next to `$`/`_`/`-`/`.`, key blocks (real and escaped line breaks,
// headers, quoted lines), values past the patterns' limits, and characters past ASCII (white space, line separators).
const MORE = [
  "-----BEGIN RSA PRIVATE KEY-----",
  "-----END RSA PRIVATE KEY-----",
  "-----BEGIN OPENSSH PRIVATE KEY-----\n",
  "MIIEowIBAAKCAQEA7Vx9type",
  "abc+def/type=",
  "Qm9keXR5cGVz",
  "\\n",
  "\\r\\n",
  "Proc-Type: 4,ENCRYPTED",
  "DEK-Info: AES-128-CBC,3F17(é)",
  "Name: (type) ü",
  '",',
  "' +",
  '  "',
  "|",
  ">",
  "type",
  "Type",
  "héllo",
  "à",
  "\u3000",
  "\u2029",
  "𝒳",
  "$",
  "_",
  "-",
  ".",
  "/",
  ":",
  "@",
  "&",
  "(",
  "sk-ant-",
  "sk-",
  "abcdefghijklmnopqrstuvwxyz0123",
  "xoxb-",
  "1234567890",
  "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6",
  "SG.",
  "abcdefghijklmnopqrstuv",
  "eyJ",
  "https://hooks.slack.com/services/",
  "xhttps",
  "T000/B000/XXXXtype",
  "rk_live_" + "a1b2c3d4e5",
  "npm_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8",
  "github_pat_" + "a".repeat(22) + "_" + "b".repeat(59),
  "aws_secret_access_key",
  "API_TOKEN",
  "DB_PASSWORD=",
  "password=",
  "api_key=",
  "postgres://u:",
  "a1B2".repeat(70),
  "x".repeat(300),
  "key",
  "Key",
  "AUTH",
];
const POOL = [...PIECES, ...MORE];

function text(next: () => number): string {
  let out = "";
  const n = 1 + Math.floor(next() * 50);
  for (let i = 0; i < n; i++) out += POOL[Math.floor(next() * POOL.length)];
  return out;
}

/** The bytes a scan reads for `t` and the offset in them of each UTF-16 offset of `t` (0 … t.length). */
function asBytes(t: string, utf8: boolean): { bytes: Uint8Array; at: Int32Array } {
  const at = new Int32Array(t.length + 1);
  if (!utf8) {
    // Another snapshot's raw text: one byte per code unit, units past 0xFF written as NUL.
    const bytes = Uint8Array.from({ length: t.length }, (_, i) => (t.charCodeAt(i) > 0xff ? 0 : t.charCodeAt(i)));
    for (let i = 0; i <= t.length; i++) at[i] = i;
    return { bytes, at };
  }
  let offset = 0;
  for (let i = 0; i < t.length; i++) {
    at[i] = offset;
    const c = t.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      at[i + 1] = offset;
      offset += 4;
      i++;
    } else offset += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  at[t.length] = offset;
  return { bytes: Buffer.from(t, "utf8"), at };
}

/** Each maximal run of `[A-Za-z0-9_$]` bytes, as `[start, end)`. */
function words(bytes: Uint8Array): [number, number][] {
  const out: [number, number][] = [];
  const word = (c: number) => /[A-Za-z0-9_$]/.test(String.fromCharCode(c));
  for (let i = 0; i < bytes.length;) {
    if (!word(bytes[i] as number)) {
      i++;
      continue;
    }
    const s = i;
    while (i < bytes.length && word(bytes[i] as number)) i++;
    out.push([s, i]);
  }
  return out;
}

describe("mayTouchSecret", () => {
  for (const utf8 of [true, false]) {
    const kind = utf8 ? "UTF-8" : "one byte a code unit";
    it(`is true for every word a secret overlaps or borders (3,000 generated texts, ${kind})`, () => {
      const next = random(utf8 ? 21 : 22);
      let touched = 0;
      let cleared = 0;
      for (let k = 0; k < 3000; k++) {
        const t = text(next);
        const { bytes, at } = asBytes(t, utf8);
        const spans = scanSecrets(t).map((s) => [at[s.start] as number, at[s.end] as number] as const);
        for (const [s, e] of words(bytes)) {
          // The span holds a byte of the word or the byte just before or after it.
          const touches = spans.some(([a, b]) => a <= e && b >= s);
          const mode = !utf8 ? UNIT_BYTES : bytes.length === t.length ? ASCII_BYTES : UTF8_BYTES;
          const maybe = mayTouchSecret(bytes, bytes.length, s, e, mode);
          if (touches) {
            touched++;
            expect(maybe, JSON.stringify({ t, word: Buffer.from(bytes.subarray(s, e)).toString("latin1") })).toBe(true);
          } else if (!maybe) cleared++;
        }
      }
      expect(touched).toBeGreaterThan(5000);
      expect(cleared).toBeGreaterThan(5000);
    });
  }

  it("clears the words of ordinary code, also of a long minified line and a key block's neighbours", () => {
    const clear = (t: string, word: string, from = 0) => {
      const b = Buffer.from(t, "utf8");
      const s = b.indexOf(word, from);
      return !mayTouchSecret(b, b.length, s, s + word.length, b.length === t.length ? ASCII_BYTES : UTF8_BYTES);
    };
    expect(clear("const type = resolve(name);\n", "type")).toBe(true);
    expect(clear("  return x.type;\n", "type")).toBe(true);
    expect(clear(`${"function f(a){return a.type}".repeat(500)}\n`, "type", 9000)).toBe(true);
    expect(clear('{ "type": "module", "name": "x" }', "module")).toBe(true);
    expect(clear("const url = 'https://example.com/type/x';", "type")).toBe(true);
    // and says maybe next to secrets
    expect(clear('const password = "hunter2type";', "hunter2type")).toBe(false);
    expect(clear("x = sk-ant-abcdefghijklmnopqrstuv$type", "abcdefghijklmnopqrstuv$type")).toBe(false);
    expect(clear("API_TOKEN=Abc123Secret # type", "type")).toBe(false);
    expect(clear("-----BEGIN RSA PRIVATE KEY-----\nMIIE+type/abc=\n", "type")).toBe(false);
  });
});
