import { describe, expect, it } from "vitest";
import { syntaxLanguage } from "../../src/review/rules/syntax.js";

describe("syntaxLanguage: which parser the syntax rule uses for a path", () => {
  it.each([
    ["src/a.ts", "ts"],
    ["src/A.MTS", "ts"],
    ["src/view.tsx", "tsx"],
    ["lib/a.cjs", "js"],
    ["lib/view.jsx", "jsx"],
    ["package.json", "json"],
    ["tsconfig.build.json", "jsonc"],
    [".vscode/settings.json", "jsonc"],
    ["conf/app.jsonc", "jsonc"],
    [".github/workflows/ci.yml", "yaml"],
    ["pkg/mod.py", "python"],
    ["stubs/mod.pyi", "python"],
    ["cmd/main.go", "go"],
  ])("%s is parsed as %s", (path, lang) => {
    expect(syntaxLanguage(path)).toBe(lang);
  });

  it.each(["README.md", "Makefile", "src/Main.java", "a.tsx.orig", "go"])("%s is not checked", (path) => {
    expect(syntaxLanguage(path)).toBeUndefined();
  });
});
