import picomatch from "picomatch";
import { describe, expect, it } from "vitest";
import { compileGlob, GlobError, MAX_GLOB_LENGTH } from "../../src/grounding/glob.js";
import { makeContext } from "../tools/fixture.js";
import { grepCodebase, listFiles, runTool } from "../../src/tools/index.js";

const PATHS = [
  "a",
  "a/b",
  "a/b/c.js",
  "src/index.ts",
  "src/models/cart.js",
  "src/models/.hidden.js",
  ".github/workflows/ci.yml",
  ".env",
  "test/a.test.ts",
  "test/deep/b.spec.ts",
  "docs/README.md",
  "x.zz",
  "lib/x.zz",
  "Makefile",
  "pkg/go.mod",
];

describe("compileGlob matches like picomatch (dot: true) on ordinary globs", () => {
  const globs = [
    "**",
    "*",
    "**/*.js",
    "src/**",
    "src/**/*.js",
    "src/*.ts",
    "**/*.{js,ts}",
    "test/**/*.@(test|spec).ts",
    "{src,test}/**",
    "**/.hidden.js",
    ".github/**",
    "a/?",
    "a/[b-c]",
    "**/x.zz",
    "**/go.mod",
    "a/**/c.js",
    "!**/*.js",
  ];
  it.each(globs)("%s", (glob) => {
    const ours = compileGlob(glob);
    const theirs = picomatch(glob, { dot: true });
    expect(PATHS.filter(ours)).toEqual(PATHS.filter((p) => theirs(p)));
  });

  it("a trailing / means the folder's files; basename mode matches a glob without / at any depth", () => {
    expect(PATHS.filter(compileGlob("src/"))).toEqual(["src/index.ts", "src/models/cart.js", "src/models/.hidden.js"]);
    expect(PATHS.filter(compileGlob("*.zz", { basename: true }))).toEqual(["x.zz", "lib/x.zz"]);
  });

  it("[!x] and [^x] negate a class (bash semantics; picomatch reads ! literally there) and never match /", () => {
    expect(PATHS.filter(compileGlob("a/[!c]"))).toEqual(["a/b"]);
    expect(compileGlob("a[^x]b")("a/b")).toBe(false);
  });

  it("nocase matches letters regardless of case", () => {
    expect(compileGlob(".github/**", { nocase: true })(".GitHub/Workflows/x.yml")).toBe(true);
    expect(compileGlob(".github/**")(".GitHub/Workflows/x.yml")).toBe(false);
  });

  it("refuses what it cannot do in linear time or at all, with a reason", () => {
    expect(() => compileGlob("!(a)")).toThrow(GlobError);
    expect(() => compileGlob("@(a")).toThrow(/never closed/);
    expect(() => compileGlob("*".repeat(MAX_GLOB_LENGTH + 1))).toThrow(/at most/);
    expect(() => compileGlob("{a,".repeat(20) + "b" + "}".repeat(20))).toThrow(/nests/);
    // An unclosed [ or { is a literal character, as in picomatch.
    expect(compileGlob("a[b")("a[b")).toBe(true);
    expect(compileGlob("a{b")("a{b")).toBe(true);
  });
});

describe("a pathological glob from a model answers promptly (the attacker's glob of the issue)", () => {
  const evil = "**/*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*?*.zz";
  const files = Object.fromEntries(
    Array.from({ length: 300 }, (_, i) => [`${"d".repeat(60)}/${"a".repeat(150 + (i % 50))}${i}.txt`, "x\n"]),
  );

  it("list_files matches nothing among 300 long paths, and picomatch would have hung", async () => {
    const ctx = await makeContext(files);
    const result = await runTool(listFiles, { glob: evil }, ctx);
    expect(result.status).toBe("ok");
    expect(result.text).toMatch(/^0 paths match/);
    // The same glob still matches what it should.
    expect(compileGlob(evil)(`${"a".repeat(40)}/${"b".repeat(19)}.zz`)).toBe(true);
  });

  it("grep_codebase's path_glob uses the same matcher", async () => {
    const ctx = await makeContext(files);
    const result = await runTool(grepCodebase, { pattern: "x", path_glob: evil }, ctx);
    expect(result.text).toMatch(/^0 matches/);
  });

  it("an unusable glob is a clear INVALID answer", async () => {
    const ctx = await makeContext(files);
    const result = await runTool(listFiles, { glob: "src/!(x)" }, ctx);
    expect(result).toMatchObject({ status: "invalid" });
    expect(result.text).toContain("negated extglobs");
  });
});
