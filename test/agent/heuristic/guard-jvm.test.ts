import { describe, expect, it } from "vitest";
import {
  csharpPropertyOn,
  kotlinReturnsUnit,
  lateinitProperty,
  lateinitRead,
} from "../../../src/agent/models/heuristic/guard-jvm.js";
import { addedLines, runHeuristic } from "./readable.js";

const lines = (text: string) => new Map(text.split("\n").map((t, i) => [i + 1, t] as const));

const ROUNDER = [
  "package com.acme.round",
  "",
  "import android.graphics.Path",
  "import android.graphics.RectF",
  "",
  "internal class Rounder(radius: Float) {",
  "    private val path = Path()",
  "    private lateinit var rect: RectF",
  "    var radius: Float = radius",
  "        set(value) {",
  "            field = value",
  "            rebuild()",
  "        }",
  "",
  "    fun resize(width: Int, height: Int) {",
  "        rect = RectF(0f, 0f, width.toFloat(), height.toFloat())",
  "        rebuild()",
  "    }",
  "",
  "    private fun rebuild() {",
  "        path.reset()",
  "        path.addRoundRect(rect, radius, radius, Path.Direction.CW)",
  "    }",
  "",
  "    fun area(): Float {",
  "        return rect.width() * rect.height()",
  "    }",
  "}",
  "",
].join("\n");

const REPORT = "kotlin.UninitializedPropertyAccessException: lateinit property rect has not been initialized";

describe("Kotlin: a lateinit property read before it was set", () => {
  it("lateinitProperty and lateinitRead: the first bare read in a function, never the assignment or `other.x`", () => {
    expect(lateinitProperty(REPORT)).toBe("rect");
    expect(lateinitProperty("lateinit property a.b has not been initialized")).toBeNull();
    expect(lateinitRead(lines(ROUNDER), "rect")).toBe(22);
    // not declared lateinit in this file: no read to guard
    expect(lateinitRead(lines(ROUNDER), "path")).toBeNull();
    const other = ROUNDER.replace("path.addRoundRect(rect,", "path.addRoundRect(owner.rect,").replace(
      "return rect.width() * rect.height()",
      'return 0f // rect "rect"',
    );
    expect(lateinitRead(lines(other), "rect")).toBeNull();
  });

  it("a read inside a string template is the first read; an escaped `\\$` or plain text is none", async () => {
    const logged = (text: string) => ROUNDER.replace("        path.reset()", `        Log.d("round", "${text}")`);
    expect(lateinitRead(lines(logged("reset $rect")), "rect")).toBe(21);
    expect(lateinitRead(lines(logged("reset ${rect.width()}")), "rect")).toBe(21);
    expect(lateinitRead(lines(logged("reset \\$rect")), "rect")).toBe(22);
    expect(lateinitRead(lines(logged("reset rect")), "rect")).toBe(22);
    const result = await runHeuristic(
      { "lib/src/main/java/com/acme/round/Rounder.kt": logged("reset $rect"), "README.md": "# round\n" },
      "lateinit property has not been initialized",
      REPORT,
    );
    expect(result.files[0]?.content ?? "").toContain(
      '        if (!::rect.isInitialized) {\n            return\n        }\n        Log.d("round", "reset $rect")',
    );
  });

  it("kotlinReturnsUnit: no result or `: Unit`, with a block body", () => {
    expect(kotlinReturnsUnit("    private fun rebuild() {")).toBe(true);
    expect(kotlinReturnsUnit("    fun run(a: Int): Unit {")).toBe(true);
    expect(kotlinReturnsUnit("    fun area(): Float {")).toBe(false);
    expect(kotlinReturnsUnit("    fun area() = 1f")).toBe(false);
  });

  it("the run: an isInitialized check returning early from a Unit function, below the threshold", async () => {
    const result = await runHeuristic(
      { "lib/src/main/java/com/acme/round/Rounder.kt": ROUNDER, "README.md": "# round\n" },
      "lateinit property has not been initialized",
      `I get this error when I call setRadius from Java:\n\n${REPORT}`,
    );
    expect(addedLines(result)).toEqual(["        if (!::rect.isInitialized) {", "            return", "        }"]);
    const after = result.files[0]?.content ?? "";
    expect(after).toContain(
      "        if (!::rect.isInitialized) {\n            return\n        }\n        path.addRoundRect(rect,",
    );
    expect(result.outcome).not.toBe("pr_ready");
  });

  it("a read in a function with a result fails with IllegalStateException naming the property", async () => {
    const src = ROUNDER.replace("        path.addRoundRect(rect, radius, radius, Path.Direction.CW)\n", "");
    const result = await runHeuristic(
      { "lib/src/main/java/com/acme/round/Rounder.kt": src, "README.md": "# round\n" },
      "lateinit property has not been initialized",
      REPORT,
    );
    expect(addedLines(result)).toEqual([
      "        if (!::rect.isInitialized) {",
      '            throw IllegalStateException("area(): rect is not initialized yet; set it before this is called")',
      "        }",
    ]);
  });

  it("attacker: a property the file does not declare lateinit, or smuggled code: no check", async () => {
    for (const body of [
      "kotlin.UninitializedPropertyAccessException: lateinit property path has not been initialized",
      "kotlin.UninitializedPropertyAccessException: lateinit property " +
        'rect.isInitialized) { System.exit(0) } //"rect has not been initialized',
      "kotlin.UninitializedPropertyAccessException: lateinit property rect$ has not been initialized",
    ]) {
      const result = await runHeuristic(
        { "lib/src/main/java/com/acme/round/Rounder.kt": ROUNDER, "README.md": "# round\n" },
        "lateinit property has not been initialized",
        body,
      );
      const code = addedLines(result).filter((l) => !/^\s*\/\//.test(l));
      expect(code, body).toEqual([]);
    }
  });
});

const READER = [
  "using System;",
  "",
  "namespace Acme.Csv",
  "{",
  "\tpublic class DataReader",
  "\t{",
  "\t\tprivate readonly CsvReader csv;",
  "",
  "\t\tpublic int FieldCount",
  "\t\t{",
  "\t\t\tget",
  "\t\t\t{",
  "\t\t\t\treturn csv.Context.Record.Length;",
  "\t\t\t}",
  "\t\t}",
  "",
  "\t\tpublic DataReader(CsvReader csv)",
  "\t\t{",
  "\t\t\tthis.csv = csv;",
  "\t\t}",
  "\t}",
  "}",
  "",
].join("\n");

describe("C#: a report naming a property, no trace", () => {
  it("csharpPropertyOn: a property or indexer with accessors below; never a field, method, event or statement", () => {
    expect(csharpPropertyOn("\t\tpublic int FieldCount")).toBe("FieldCount");
    expect(csharpPropertyOn("    protected override string Name {")).toBe("Name");
    expect(csharpPropertyOn("    public object this[int i]")).toBe("this");
    expect(csharpPropertyOn("    private readonly CsvReader csv;")).toBeNull();
    expect(csharpPropertyOn("    public int Count()")).toBeNull();
    expect(csharpPropertyOn("    public event EventHandler Changed;")).toBeNull();
    expect(csharpPropertyOn("            return value")).toBeNull();
  });

  it("the guard goes in the getter the report names, on the chain it reads, below the threshold", async () => {
    const result = await runHeuristic(
      { "src/Acme.Csv/DataReader.cs": READER, "README.md": "# csv\n" },
      "Empty CSV file passed to DataReader",
      "- `Acme.Csv.DataReader.get_FieldCount()` is throwing `System.NullReferenceException` if you read an empty file.",
    );
    expect(addedLines(result)).toEqual([
      "\t\t\t\tif (csv?.Context?.Record == null)",
      "\t\t\t\t{",
      '\t\t\t\t\tthrow new InvalidOperationException("FieldCount(): csv.Context.Record is null");',
      "\t\t\t\t}",
    ]);
    expect(result.diagnosis?.affected_function).toBe("FieldCount");
    expect(result.outcome).not.toBe("pr_ready");
  });

  it("attacker: a member the file does not define, or code in the member's name, writes no guard", async () => {
    for (const body of [
      "- `Acme.Csv.DataReader.get_RowCount()` is throwing `System.NullReferenceException`.",
      '- `Acme.Csv.DataReader.get_FieldCount"); Environment.Exit(0); //()` is throwing ' +
        "`System.NullReferenceException`.",
      "- `Other.Thing.FieldCount` is throwing `System.NullReferenceException`.",
    ]) {
      const result = await runHeuristic(
        { "src/Acme.Csv/DataReader.cs": READER, "README.md": "# csv\n" },
        "Empty CSV file passed to DataReader",
        body,
      );
      const code = addedLines(result).filter((l) => !/^\s*\/\//.test(l));
      expect(code.join("\n"), body).not.toMatch(/Exit|RowCount/);
      if (!/get_FieldCount"/.test(body)) expect(code, body).toEqual([]);
    }
  });
});

describe("Java: what is in scope for the guard", () => {
  const src = (field: string) =>
    [
      "package org.acme;",
      "",
      "class Builder {",
      field,
      "    private Token.StartTag start; // the start tag to process",
      "",
      "    void other() {",
      "        final Token stray = null;",
      "    }",
      "",
      "    void track(Node node) {",
      "        // a comment above the frame line hides nothing below it",
      "        if (!tracking) return;",
      "        int startPos = current.startPos();",
      "        node.attr(startPos);",
      "    }",
      "}",
      "",
    ].join("\n");
  const body = [
    'java.lang.NullPointerException: Cannot invoke "org.acme.Token.startPos()" because "this.current" is null',
    "\tat org.acme.Builder.track(Builder.java:14)",
  ].join("\n");

  it("a field read without `this.`, a comment above: a guard, returning as the method's guard does", async () => {
    const result = await runHeuristic(
      { "src/main/java/org/acme/Builder.java": src("    private Token current;\n    private boolean tracking;") },
      "NPE in track",
      body.replace("this.current", "current"),
    );
    expect(addedLines(result)).toEqual(["        if (current == null) {", "            return;", "        }"]);
  });

  it("attacker: a local of another method, or a name declared nowhere, is not in scope: no guard", async () => {
    for (const name of ["stray", "ghost"]) {
      const result = await runHeuristic(
        {
          "src/main/java/org/acme/Builder.java": src("    private boolean tracking;").replace(
            "current.startPos()",
            `${name}.startPos()`,
          ),
        },
        "NPE in track",
        body.replace('"this.current"', `"${name}"`),
      );
      expect(
        addedLines(result).some((l) => /== null/.test(l)),
        name,
      ).toBe(false);
    }
  });
});
