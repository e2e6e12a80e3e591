import { describe, expect, it } from "vitest";
import { splitLines } from "../../src/grounding/lines.js";
import { redact, redactLines } from "../../src/grounding/secrets.js";
import { random, text } from "./secret-texts.js";

describe("redactLines", () => {
  it(
    "gives every line exactly as redacting the whole text " +
      "does (3,000 generated texts, all lines and single lines)",
    () => {
      const next = random(16);
      let multiLine = 0;
      for (let k = 0; k < 3000; k++) {
        const t = text(next);
        const whole = splitLines(redact(t));
        const all = whole.map((_, i) => i + 1);
        expect(redactLines(t, all), JSON.stringify(t)).toEqual(whole);
        const one = 1 + Math.floor(next() * (whole.length + 1));
        expect(redactLines(t, [one]), JSON.stringify(t)).toEqual([whole[one - 1] ?? ""]);
        // Texts where a secret's match crosses a line break (its value is on a later line than its name).
        if (whole.some((l, i) => l.includes("[redacted]") && !splitLines(t)[i]?.includes("[redacted]"))) multiLine++;
      }
      expect(multiLine).toBeGreaterThan(100);
    },
  );

  it("redacts a value whose name is lines above it, also when only the value's line is asked for", () => {
    const t = 'const a = 1;\nconst password =\n\n  "hunter2hunter2";\nnext();';
    expect(redactLines(t, [4])).toEqual(['  "[redacted]";']);
    expect(redactLines(t, [5, 1])).toEqual(["next();", "const a = 1;"]);
  });

  it.each([" ", "\t", "\u00a0", "\v", "\f", "\u2028", "\ufeff"])(
    "finds the name of a value across a line break next to white space %j, before or after the = or :",
    (ws) => {
      for (const t of [
        `x();\npassword =${ws}\n${ws}"hunter2hunter2"`,
        `x();\npassword${ws}\n${ws}: "hunter2hunter2"`,
        `x();\naws_secret_access_key${ws}\n= wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`,
      ]) {
        const whole = splitLines(redact(t));
        expect(whole[2], JSON.stringify(t)).toContain("[redacted]");
        expect(redactLines(t, [3]), JSON.stringify(t)).toEqual([whole[2]]);
      }
    },
  );

  it("redacts a line inside a private key block whose BEGIN line is not asked for", () => {
    const t =
      "a\n-----BEGIN RSA PRIVATE " +
      "KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo\nabc4/+Qw==\n-----END RSA PRIVATE KEY-----\nb";
    expect(redactLines(t, [4, 6])).toEqual(["[redacted]", "b"]);
  });

  it("answers lines past the end, repeated and unordered numbers, CRLF and a text starting with line breaks", () => {
    const t = "\n\nx = 'hunter2hunter2'\r\ntoken: 'ab12cd34ef56'\r\n";
    expect(redactLines(t, [9, 4, 1, 4, 3])).toEqual([
      "",
      "token: '[redacted]'",
      "",
      "token: '[redacted]'",
      "x = 'hunter2hunter2'",
    ]);
    expect(redactLines("", [1])).toEqual([""]);
  });
});
