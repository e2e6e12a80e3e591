import { describe, expect, it } from "vitest";
import { postedLine } from "../../src/grounding/posted.js";
import { redact } from "../../src/grounding/secrets.js";

const TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8";

describe("secrets that become whole only when a posted line is cleaned are redacted", () => {
  it("a zero-width space inside a token", () => {
    const split = TOKEN.slice(0, 10) + "\u200b" + TOKEN.slice(10);
    const title = postedLine(`The crash logs ${split} to stdout`, 100);
    expect(title).not.toContain(TOKEN);
    expect(redact(title)).toBe(title);
  });
  it("a control character inside an AWS key id", () => {
    const line = postedLine("key AKIA\u0007IOSFODNN7EXAMPLE leaked", 100);
    expect(line).not.toContain("AKIAIOSFODNN7EXAMPLE");
  });
  it("a whitespace run longer than the credential pattern's \\s{0,4}", () => {
    const line = postedLine('Sets password =      "Sup3rS3cretValue" in config', 100);
    expect(redact(line)).toBe(line);
  });
});
