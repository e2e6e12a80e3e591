import { describe, expect, it } from "vitest";
import { scanSecrets } from "../../src/grounding/secrets.js";
import { anyWordMayTouchSecret, blankSecrets, secretSpans } from "../../src/tools/secret-words.js";
import { isWordCode, latin1Bytes, reserveLatin1 } from "../../src/tools/word-scan.js";

// The shared byte buffer holds the longest generated text whole (a scan reserves it for a snapshot's longest file).
reserveLatin1(1 << 16);

/** A small deterministic generator (mulberry32), so a failure names its seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const B62 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
const chars = (next: () => number, n: number, set = B62) =>
  Array.from({ length: n }, () => set[Math.floor(next() * set.length)]).join("");

/** Pieces of text near every SECRET_PATTERNS entry, and the white space, quotes and characters around them. */
function pieces(next: () => number): string[] {
  const v = chars(next, 8 + Math.floor(next() * 8));
  return [
    "password",
    "api_key",
    "secretToken",
    "aws_secret_access_key",
    "API_TOKEN",
    "AUTH_KEY",
    "export ",
    " = ",
    "=",
    ": ",
    ":",
    '"',
    "'",
    "`",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "\\n",
    "# ",
    "#",
    ",",
    ";",
    "(",
    ".",
    "-",
    "_",
    "$",
    "é",
    "\u3000",
    "\u00a0",
    "\u2028",
    "hunter",
    "Xq_hunter_9Z",
    v,
    v,
    `ghp_${chars(next, 36)}`,
    `AKIA${chars(next, 16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")}`,
    `sk-${chars(next, 20, `${B62}_-`)}`,
    `sk_live_${chars(next, 12)}`,
    `xoxb-${chars(next, 12)}`,
    `AIza${chars(next, 35)}`,
    `SG.${chars(next, 22)}.${chars(next, 43)}`,
    `npm_${chars(next, 36)}`,
    `eyJ${chars(next, 10)}.eyJ${chars(next, 10)}.${chars(next, 10)}`,
    "https://hooks.slack.com/services/T0/B1/x",
    "postgres://admin:",
    "@db:5432",
    "-----BEGIN RSA PRIVATE KEY-----",
    "-----END RSA PRIVATE KEY-----",
    "Proc-Type: 4,ENCRYPTED",
    `MIIE${chars(next, 20, `${B62}+/`)}`,
    "foo",
    "getUser",
    "return",
    // Minified code: runs without white space longer than every reach of the byte tests.
    "E.isDeclareKeyword=zK;".repeat(60),
    "ü".repeat(300),
  ];
}

/** A text of `n` random pieces. */
function text(next: () => number, n: number): string {
  const ps = pieces(next);
  let out = "";
  for (let i = 0; i < n; i++) out += ps[Math.floor(next() * ps.length)];
  return out;
}

/** Every run of word characters of `s`: [start, end). */
function words(s: string): [number, number][] {
  const out: [number, number][] = [];
  for (let i = 0; i < s.length;) {
    if (!isWordCode(s.charCodeAt(i))) {
      i++;
      continue;
    }
    let j = i;
    while (j < s.length && isWordCode(s.charCodeAt(j))) j++;
    out.push([i, j]);
    i = j;
  }
  return out;
}

/**
 * Whether the cheap tests can say "maybe" for the word [start, end), as the search asks them: anyWordMayTouchSecret
 * on one scan entry (file, id, end, bits), told whether the text holds "PRIVATE KEY".
 */
function maybe(content: string, bytes: Uint8Array, start: number, end: number): boolean {
  const entry = Int32Array.of(0, 0, end, 0);
  const keyText = content.includes("PRIVATE KEY");
  return anyWordMayTouchSecret(content, bytes, entry, 0, 4, () => end - start, keyText);
}

/**
 * The words of `content` that a span of `spans` overlaps or touches, and the cheap tests call safe: alone, and after
 * the (eight) words before it that they call safe, in one call, as a file's words come (what the call keeps from one
 * word to the next must not hide the next).
 */
function missed(content: string, bytes: Uint8Array, spans: readonly { start: number; end: number }[]): string[] {
  const out: string[] = [];
  // Scan entries (file, id, end, bits) of the words called safe so far; an entry's id is its word's index in `lengths`.
  const clear: number[] = [];
  const lengths: number[] = [];
  for (const [s, e] of words(content)) {
    const alone = maybe(content, bytes, s, e);
    lengths.push(e - s);
    // The eight words before it are enough: the call keeps only what holds at the last word's offset.
    const entries = Int32Array.from([...clear.slice(-32), 0, lengths.length - 1, e, 0]);
    const keyText = content.includes("PRIVATE KEY");
    const lengthOf = (id: number) => lengths[id]!;
    const inOrder = anyWordMayTouchSecret(content, bytes, entries, 0, entries.length, lengthOf, keyText);
    const touched = spans.some((sp) => s <= sp.end && e >= sp.start);
    if (touched && (!alone || !inOrder)) out.push(JSON.stringify(content.slice(Math.max(0, s - 60), e + 20)));
    if (!alone) clear.push(0, lengths.length - 1, e, 0);
  }
  return out;
}

// The cheap tests must never call a word safe that a secret touches: each is a necessary condition of one pattern.
// Compared with scanSecrets (what redaction replaces) on generated texts, in both byte forms search reads.
describe("mayTouchSecret and mayBeInKeyBlock: no word a secret touches is missed", () => {
  it("raw text (UTF-8 bytes as Latin-1), secrets found in the decoded text", () => {
    for (let seed = 1; seed <= 2000; seed++) {
      const next = random(seed);
      const decoded = text(next, 4 + Math.floor(next() * 24));
      const raw = Buffer.from(decoded, "utf8").toString("latin1");
      const spans = secretSpans(raw, raw === decoded ? undefined : decoded);
      const bytes = latin1Bytes(raw, true).subarray(0, raw.length);
      expect(missed(raw, new Uint8Array(bytes), spans), `seed ${seed}: ${JSON.stringify(decoded)}`).toEqual([]);
    }
  });

  it("decoded text, one byte per code unit (units past 0xFF as NUL)", () => {
    for (let seed = 5001; seed <= 7000; seed++) {
      const next = random(seed);
      const decoded = text(next, 4 + Math.floor(next() * 24));
      const bytes = new Uint8Array(latin1Bytes(decoded, false).subarray(0, decoded.length));
      expect(missed(decoded, bytes, scanSecrets(decoded)), `seed ${seed}: ${JSON.stringify(decoded)}`).toEqual([]);
    }
  });

  it("says no for ordinary code (the point of it): a word's first occurrence in a line of code", () => {
    const code = "function loadUser(id) {\n  const user = db.find(id);\n  return user.name;\n}\n";
    const bytes = new Uint8Array(latin1Bytes(code, true).subarray(0, code.length));
    for (const [s, e] of words(code)) expect(maybe(code, bytes, s, e), code.slice(s, e)).toBe(false);
  });
});

describe("named values with the white space, quotes and case their patterns allow", () => {
  // Each value is a secret (scanSecrets) and every word of it is "maybe": the byte tests that spare the regular
  // expressions (an `=` or `:` before a quote, "aws", a `.env` line's `=`) must let each form through.
  const value = "Xq7hunter9Zabc";
  const aws = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
  const forms = [
    `password = "${value}"`,
    `password:\t'${value}'`,
    `"api_key" :  "${value}"`,
    `token =\u3000"${value}"`,
    `secret =\u00a0"${value}"`,
    `private_key\t\t\t=\t\t\t\t"${value}"`,
    `aws_secret_access_key = "${aws}"`,
    `AWS_SECRET_ACCESS_KEY: ${aws}`,
    `AwS_SeCrEt_AcCeSs_KeY=${aws}`,
    `url?password=${value}&x=1`,
    `API_TOKEN = ${value}`,
    `API_TOKEN=\t"${value}"`,
    `export API_TOKEN=    '${value}'`,
    `  API_KEY    =    ${value}`,
    `API_KEY=${value}`,
    // names only the .env pattern takes (not a credential assignment's): its quote after the `=`
    `GITHUB_AUTH=\t"${value}"`,
    `export SIGNING_KEY=  '${value}'`,
  ];
  it.each(forms)("%s", (form) => {
    for (const decoded of [form, `x\n${form}\n`, `const a = 1;\n  ${form}\n`]) {
      const raw = Buffer.from(decoded, "utf8").toString("latin1");
      const spans = secretSpans(raw, raw === decoded ? undefined : decoded);
      expect(spans.length, `a secret in ${JSON.stringify(decoded)}`).toBeGreaterThan(0);
      for (const [text, bytes, found] of [
        [raw, new Uint8Array(latin1Bytes(raw, true).subarray(0, raw.length)), spans],
        [decoded, new Uint8Array(latin1Bytes(decoded, false).subarray(0, decoded.length)), scanSecrets(decoded)],
      ] as const)
        expect(missed(text, bytes, found), JSON.stringify(decoded)).toEqual([]);
    }
  });
});

describe("mayTouchSecret on minified code", () => {
  it("says no for a word of a long line without white space when no `@` ends its run", () => {
    const code = `${"E.isDeclareKeyword=zK;".repeat(100)}E.getUser=function(e){return e.id};${"a.b=c;".repeat(200)}`;
    const bytes = new Uint8Array(latin1Bytes(code, true).subarray(0, code.length));
    const at = code.indexOf("getUser");
    expect(maybe(code, bytes, at, at + "getUser".length)).toBe(false);
  });

  it("says maybe for a word of a URL's password in such a line, which redaction replaces", () => {
    const url = 'u="postgres://admin:Xq_hunter_9Z@db:5432";';
    const code = `${"E.isDeclareKeyword=zK;".repeat(100)}${url}${"a.b=c;".repeat(9)}`;
    const bytes = new Uint8Array(latin1Bytes(code, true).subarray(0, code.length));
    const at = code.indexOf("hunter");
    expect(scanSecrets(code).some((s) => s.start <= at && s.end >= at)).toBe(true);
    expect(maybe(code, bytes, at - 3, at + "hunter_9Z".length)).toBe(true);
  });
});

describe("secretSpans and blankSecrets", () => {
  it("gives a non-ASCII file's secrets in byte offsets of its raw text", () => {
    const decoded = 'const é = 1;\nconst password = "Xq7hünter9Z";\n';
    const raw = Buffer.from(decoded, "utf8").toString("latin1");
    const [span] = secretSpans(raw, decoded);
    expect(Buffer.from(raw.slice(span?.start, span?.end), "latin1").toString("utf8")).toBe("Xq7hünter9Z");
  });

  it("blanks each secret and the word characters next to it, keeping the length", () => {
    const raw = 'x = "sk-abcdefghijklmnopqrstu$hunter" + foo;';
    const blank = blankSecrets(raw, scanSecrets(raw), isWordCode);
    expect(blank).toHaveLength(raw.length);
    expect(blank).toBe(`x = "${" ".repeat(31)}" + foo;`);
  });
});

describe("the copies of a .env value in its line's comment", () => {
  it("are maybe for a word after other words of the comment, in one call as in a file", () => {
    const value = "Xq7hunter9Zabc";
    const content = `PORT=80\nAPI_TOKEN=${value} # was ${"note ".repeat(30)}${value}\nNEXT=1\n`;
    const copy = content.lastIndexOf(value);
    expect(scanSecrets(content).some((s) => s.start === copy)).toBe(true);
    const bytes = new Uint8Array(latin1Bytes(content, true).subarray(0, content.length));
    expect(missed(content, bytes, scanSecrets(content))).toEqual([]);
  });

  it("are maybe past a long stretch without a word (read by native searches), whatever ends a line in it", () => {
    const value = "Xq7hunter9Zabc";
    const stretch = "\u00fc".repeat(300);
    const cases = [
      // a word ("note") before the stretch and the `#`; the `#` before the stretch, after other lines or not
      `PORT=80\nAPI_TOKEN=${value} note ${stretch} # ${value}\nNEXT=1\n`,
      `PORT=80\nAPI_TOKEN=${value} # ${stretch}${value}\n`,
      `API_TOKEN=${value} #${stretch}${value}`,
      // line breaks in the stretch: LF, CR, U+2028 (the copy's line is then no .env line: nothing to find, no error)
      `API_TOKEN=${value} note ${stretch}\r# ${value}\n`,
      `API_TOKEN=${value} note ${stretch}\u2028API_KEY=${value}2 # ${stretch}${value}2\n`,
      `API_TOKEN=${value} note ${stretch}\n${stretch}API_KEY=${value}3 note ${stretch}#${stretch} ${value}3`,
      // a word at the end of a line longer than the comment's reach, then the .env line: its start is in the stretch
      ...["\n", "\r", "\u2028"].map(
        (br) => `${"ab ".repeat(800)}note ${stretch}${br}API_KEY=${value} # ${stretch}${value}`,
      ),
    ];
    for (const decoded of cases) {
      const raw = Buffer.from(decoded, "utf8").toString("latin1");
      const spans = secretSpans(raw, decoded);
      const bytes = new Uint8Array(latin1Bytes(raw, true).subarray(0, raw.length));
      expect(missed(raw, bytes, spans), JSON.stringify(decoded)).toEqual([]);
    }
    // Where a `#` follows the value, its copy past the stretch is a secret: those cases test the comment rule.
    for (const decoded of [...cases.slice(1, 3), ...cases.slice(-3)])
      expect(scanSecrets(decoded).filter((s) => decoded.slice(s.start, s.end) === value)).toHaveLength(2);
  });

  it("are maybe on a line a real U+2028/U+2029 starts in a decoded text (the separator a NUL byte)", () => {
    // The line before the .env line is longer than the comment's reach, so only the separator starts the line:
    // scanSecrets redacts the copy (here inside a longer word of the comment), and that word must be maybe.
    const value = "Xq7hunter9Zabc";
    for (const br of ["\u2028", "\u2029"])
      for (const before of ["ab ".repeat(800), `${"ab ".repeat(800)}note${"\u00fc".repeat(300)}`, "ab ".repeat(40)]) {
        const decoded = `${before}${br}API_KEY=${value} # zz${value} ${"\u00fc".repeat(200)} yy${value}`;
        const found = scanSecrets(decoded);
        expect(found.filter((s) => decoded.slice(s.start, s.end) === value)).toHaveLength(3);
        const bytes = new Uint8Array(latin1Bytes(decoded, false).subarray(0, decoded.length));
        expect(missed(decoded, bytes, found), JSON.stringify(decoded.slice(-80))).toEqual([]);
      }
  });
});
