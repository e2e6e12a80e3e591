import { describe, expect, it } from "vitest";
import { slugFor } from "../../src/cli/slug.js";
import { toProblem } from "../../src/cli/issue.js";

describe("slugFor", () => {
  it("makes a git-safe slug of at most 40 title characters plus a short hash of the problem", () => {
    const s = slugFor("`errors` is a reserved schema pathname and may break some functionality", "body");
    expect(s).toMatch(/^[a-z0-9-]+-[0-9a-f]{7}$/);
    expect(s.slice(0, -8).length).toBeLessThanOrEqual(40);
    expect(s.startsWith("errors-is-a-reserved-schema-pathname")).toBe(true);
  });
  it("is stable for the same problem and differs for another problem with the same title", () => {
    expect(slugFor("Crash", "a")).toBe(slugFor("Crash", "a"));
    expect(slugFor("Crash", "a")).not.toBe(slugFor("Crash", "b"));
  });
  it("falls back to problem-<hash> for a title with no usable character", () => {
    expect(slugFor("ошибка!!!", "x")).toMatch(/^problem-[0-9a-f]{7}$/);
  });
});

describe("toProblem", () => {
  it("takes the first non-empty line (without a # heading mark) as the title and the rest as the body", () => {
    expect(toProblem("\n# Boom at start\n\nstack trace here\n")).toEqual({
      title: "Boom at start",
      body: "stack trace here",
    });
  });
  it("keeps the whole text as the body when a title is given", () => {
    expect(toProblem("line one\nline two", "T")).toEqual({ title: "T", body: "line one\nline two" });
  });
});
