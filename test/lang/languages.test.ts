import { describe, expect, test } from "vitest";
import { languageOf as codeLanguage } from "../../src/agent/models/heuristic/code.js";
import { structureLanguage } from "../../src/grounding/structure.js";
import { symbolLanguage } from "../../src/grounding/symbols.js";
import { languageOfShebang } from "../../src/lang/languages.js";
import { languageOf as repoLanguage } from "../../src/tools/languages.js";

describe("one extension table, each caller's subset", () => {
  test("a .tsx file is TypeScript, shares JavaScript's symbol patterns and parses as TSX", () => {
    expect([
      repoLanguage("a/b.tsx"),
      codeLanguage("a/b.tsx"),
      symbolLanguage("a/b.tsx"),
      structureLanguage("a/b.tsx"),
    ]).toEqual(["TypeScript", "typescript", "js", "tsx"]);
  });
  test("type stubs and Gradle scripts are counted and scanned but the heuristic does not write them", () => {
    expect([repoLanguage("m.pyi"), symbolLanguage("m.pyi"), structureLanguage("m.pyi"), codeLanguage("m.pyi")]).toEqual(
      ["Python", "python", "python", null],
    );
    expect([repoLanguage("build.gradle.kts"), codeLanguage("build.gradle.kts"), codeLanguage("Main.kt")]).toEqual([
      "Kotlin",
      null,
      "kotlin",
    ]);
  });
  test("a Gemfile is Ruby by its name; a Dockerfile has no symbol patterns", () => {
    expect([repoLanguage("Gemfile"), symbolLanguage("x/Gemfile")]).toEqual(["Ruby", "ruby"]);
    expect([repoLanguage("Dockerfile"), symbolLanguage("Dockerfile")]).toEqual(["Dockerfile", null]);
  });
  test("an extension named like an Object property is no language", () => {
    expect([repoLanguage("x.constructor"), repoLanguage("x.__proto__"), symbolLanguage("x.toString")]).toEqual([
      "Other",
      "Other",
      null,
    ]);
  });
  test("build, ignore, requirements and .env files are named by their basename; a .txt file stays text", () => {
    const paths = ["CMakeLists.txt", ".gitignore", "requirements-dev.txt", "Dockerfile.dev", ".env.local", "notes.txt"];
    expect(paths.map(repoLanguage)).toEqual([
      "CMake",
      "Ignore List",
      "Pip Requirements",
      "Dockerfile",
      "Dotenv",
      "Text",
    ]);
    // a family name with a language's own extension keeps that language
    expect([repoLanguage(".env.json"), repoLanguage("Makefile.py"), repoLanguage("env.d.ts")]).toEqual([
      "JSON",
      "Python",
      "TypeScript",
    ]);
  });
  test("a shebang names the language of its interpreter, through env and its options", () => {
    const lines = [
      "#!/bin/sh",
      "#!/usr/bin/env python3.12",
      "#!/usr/bin/env -S deno run -A",
      "#! /usr/bin/node",
      "# x",
    ];
    expect(lines.map(languageOfShebang)).toEqual(["Shell", "Python", "TypeScript", "JavaScript", undefined]);
    expect(languageOfShebang("#!/usr/bin/env LANG=C awk -f")).toBeUndefined();
  });
});
