import { describe, expect, it } from "vitest";
import { mayHoldSecret, maybeInSecret, redact, scanSecrets, secretFreeRange } from "../../src/grounding/secrets.js";
import { PIECES, random } from "./secret-texts.js";

// Besides the shared pieces: names and values at the length limits of the patterns, and long runs of code.
const LONG = ["_abcdefghij".repeat(4), "a1B2".repeat(128), "f(x).y+z*w/v".repeat(40), "    ", "\n", "\u2029", "\r"];

function longText(next: () => number): string {
  let out = "";
  const n = 1 + Math.floor(next() * 80);
  for (let i = 0; i < n; i++) {
    const pool = next() < 0.2 ? LONG : PIECES;
    out += pool[Math.floor(next() * pool.length)];
  }
  return out;
}

/** Every run of word characters of `t`, and every 13th character that is no white space, as `[start, end)`. */
function ranges(t: string): [number, number][] {
  const out: [number, number][] = [];
  for (const m of t.matchAll(/[\w$]+/g)) out.push([m.index, m.index + m[0].length]);
  for (let i = 0; i < t.length; i += 13) if (!/\s/.test(t[i] as string)) out.push([i, i + 1]);
  return out;
}

describe("maybeInSecret", () => {
  it("is true wherever a secret of the whole text overlaps the range (400 generated texts)", () => {
    const next = random(11);
    let inside = 0;
    let cleared = 0;
    for (let k = 0; k < 400; k++) {
      const t = longText(next);
      const spans = scanSecrets(t);
      for (const [a, b] of ranges(t)) {
        const overlaps = spans.some((s) => s.start < b && s.end > a);
        const maybe = maybeInSecret(t, a, b);
        if (overlaps) {
          inside++;
          expect(maybe, JSON.stringify({ t, a, b })).toBe(true);
        } else if (!maybe) cleared++;
      }
    }
    expect(inside).toBeGreaterThan(1000);
    expect(cleared).toBeGreaterThan(1000);
  });

  it("finds a value far along a long line, and values at the patterns' longest reach from their names", () => {
    const inside = (t: string, word: string) => {
      const at = t.lastIndexOf(word);
      expect(
        scanSecrets(t).some((s) => s.start <= at && s.end >= at + word.length),
        t,
      ).toBe(true);
      return maybeInSecret(t, at, at + word.length);
    };
    expect(inside(`${"x = f(y); ".repeat(2000)}const password = "Hunter2Hunter2";`, "Hunter2")).toBe(true);
    // A credential assignment's name 61 characters before its value, with white space between them, far along a line.
    const far = "f(x); ".repeat(200);
    expect(inside(`${far}credential${"abcdefghij".repeat(4)}"    :    "Hunter2Hunter2";\n`, "Hunter2")).toBe(true);
    // A .env value reaching 671 characters from its line's start, its name separated by white space.
    const name = `${"A".repeat(60)}CREDENTIALS${"B".repeat(60)}`;
    const env = `a\n        export    ${name}    =    "${"a1B2".repeat(127)}end9"\n`;
    expect(inside(env, "end9")).toBe(true);
    // Its line begun by any line terminator `^` knows.
    for (const nl of ["\r", "\u2028", "\u2029"]) expect(inside(`${far}${nl}${name} = a1B2end9\n`, "end9")).toBe(true);
  });

  it("clears a word of ordinary code, also on a long minified line", () => {
    const code = `${"function f(a){return a.type}".repeat(500)}\n`;
    const at = code.indexOf("type", 10_000);
    expect(maybeInSecret(code, at, at + 4)).toBe(false);
    expect(maybeInSecret("const type = x;\n", 6, 10)).toBe(false);
    expect(maybeInSecret("const type=x.token;\n", 6, 10)).toBe(true);
  });
});

describe("secretFreeRange", () => {
  it("finds the same secrets in its range as the whole text does (3,000 generated texts)", () => {
    const next = random(12);
    for (let k = 0; k < 3000; k++) {
      const t = longText(next);
      const spans = scanSecrets(t);
      const words = [...t.matchAll(/[\w$]+/g)];
      const m = words[Math.floor(next() * words.length)];
      if (m === undefined) continue;
      const { from, to } = secretFreeRange(t, m.index, m.index + m[0].length);
      const local = scanSecrets(t.slice(from, to)).map((s) => [s.start + from, s.end + from]);
      const within = spans.filter((s) => s.start >= from && s.end <= to).map((s) => [s.start, s.end]);
      expect(local, JSON.stringify({ t, from, to })).toEqual(within);
      expect(spans.some((s) => s.start < to && s.end > to)).toBe(false);
    }
  });
});

describe("mayHoldSecret", () => {
  it("lists every text redact changes, and every one the pre-test does not clear (500 generated lists)", () => {
    const next = random(13);
    let changed = 0;
    let cleared = 0;
    for (let k = 0; k < 500; k++) {
      const texts = Array.from({ length: 1 + Math.floor(next() * 12) }, () => longText(next).slice(0, 120));
      const listed = mayHoldSecret(texts);
      expect([...listed].sort((a, b) => a - b)).toEqual(listed);
      texts.forEach((t, i) => {
        const label = /pass|pwd|secret|token|key|credential|auth/i.test(t) && /[:=]/.test(t);
        const maybe = scanSecrets(t).length > 0 || label || /eyJ|sk-|gh[pousr]_|AKIA|npm_/i.test(t);
        if (redact(t) !== t) changed++;
        if (!listed.includes(i)) cleared++;
        if (redact(t) !== t || maybe) expect(listed, JSON.stringify({ t, texts })).toContain(i);
      });
    }
    expect(changed).toBeGreaterThan(100);
    expect(cleared).toBeGreaterThan(100);
  });

  it("does not read a trigger across two texts, and names the right text of a long list", () => {
    expect(mayHoldSecret(["pa", "ss", "to", "ken", "parse"])).toEqual([]);
    const names = Array.from({ length: 3000 }, (_, i) => `name${i}`);
    names[1234] = "authToken=";
    names[2999] = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";
    expect(mayHoldSecret(names)).toEqual([1234, 2999]);
    expect(mayHoldSecret([])).toEqual([]);
  });

  it("clears names that say token, key or password but hold no ':' or '=' and no token's shape", () => {
    const names = ["getCancellationToken", "KeywordToken", "passThrough", "apiKey", "sk_live_", "npm_x", "eyJhbG"];
    expect(mayHoldSecret(names)).toEqual([4, 5, 6]);
    // With ':' or '=' (a quoted property name, `"password:x"`), the name is listed and redact decides.
    expect(mayHoldSecret(["token:", "x=password", "a:b"])).toEqual([0, 1]);
    const secret = `password = "hunter2hunter2"`;
    expect(redact(secret)).not.toBe(secret);
    expect(mayHoldSecret(["parse", secret])).toEqual([1]);
  });
});
