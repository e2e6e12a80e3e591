import { describe, expect, it } from "vitest";
import { isCommentOnly, sameCode } from "../../src/lang/comments.js";
import tar from "tar-stream";
import { snapshotFromTar } from "../../src/snapshot/index.js";
import { defaultConfig } from "../../src/config/schema.js";
import { createEditSession, runSuggestAddition } from "../../src/tools/suggest-addition.js";
import { createReadLog } from "../../src/tools/read-log.js";
import { runOneEdit } from "../agent/helpers.js";

/**
 * `suggest_addition` (and the run around it) on files that start with a byte-order mark, and on models that try to
 * add, remove or move one. The BOM is the file's: lines go after it, it stays once at offset 0, and a U+FEFF a model
 * writes anywhere else is refused as an invisible character.
 */
const BOM = "\uFEFF";
const JS = `${BOM}const a = 1;\nrun(a);\n`;

async function run(path: string, content: string, before: string, after: string, config?: Record<string, unknown>) {
  return runOneEdit({ [path]: content, "README.md": "# x\n" }, path, before, after, {
    confidence: 0.95,
    ...(config ? { config } : {}),
  });
}

/** The rejections of a run's suggest_addition calls. */
const refusals = (r: Awaited<ReturnType<typeof run>>) =>
  r.gates.rejections.filter((g) => g.gate !== "claims").map((g) => g.message);

describe("suggest_addition on a file with a byte-order mark", () => {
  it("adds a line before line 1: the file keeps one BOM at offset 0, the diff shows only the added line", async () => {
    const r = await run("src/a.js", JS, "const a = 1;", "check(a);\nconst a = 1;");
    expect(refusals(r)).toEqual([]);
    expect(r.edits).toHaveLength(1);
    expect(r.files[0]?.content).toBe(`${BOM}check(a);\nconst a = 1;\nrun(a);\n`);
    const rows = r.edits[0]!.diff.split("\n").filter((l) => /^[+-](?![+-]{2} )/.test(l));
    expect(rows).toEqual(["+check(a);"]);
    expect(r.edits[0]!.kind).toBe("addition");
  });

  it("a model copying line 1 with the BOM (as get_file_contents shows it) moves nothing", async () => {
    // Neutral: the copy of the mark in code_before, and its one copy in code_after at the start of a line, are the
    // file's mark; the new line goes after the BOM, and the old line 1 does not get a BOM of its own on line 2.
    for (const after of [`check(a);\n${BOM}const a = 1;`, `${BOM}check(a);\nconst a = 1;`]) {
      const r = await run("src/a.js", JS, `${BOM}const a = 1;`, after);
      expect(refusals(r), after).toEqual([]);
      expect(r.files[0]?.content).toBe(`${BOM}check(a);\nconst a = 1;\nrun(a);\n`);
      // The record holds the edit as applied, so the review's evidence rule reads the same added line.
      expect(r.edits[0]!.code_before).toBe("const a = 1;");
      expect(r.edits[0]!.code_after).toBe("check(a);\nconst a = 1;");
    }
  });

  it("refuses a model removing the BOM (nothing changes)", async () => {
    const r = await run("src/a.js", JS, `${BOM}const a = 1;`, "const a = 1;", { edits: { allow: "modifications" } });
    expect(r.edits).toHaveLength(0);
    expect(refusals(r).join("\n")).toMatch(/no change|changes nothing|identical|same/i);
  });

  it("refuses a model adding a second BOM, or a U+FEFF inside an added line, in every edit mode", async () => {
    for (const allow of ["additions", "modifications"]) {
      for (const after of [`${BOM}check(a);\nconst a = 1;`, `check(${BOM}a);\nconst a = 1;`]) {
        const r = await run("src/a.js", JS, "const a = 1;", after, { edits: { allow } });
        expect(r.edits, `${allow}: ${after}`).toHaveLength(0);
        expect(refusals(r).join("\n")).toContain("U+FEFF");
      }
    }
  });

  it("refuses a model adding a BOM to a file without one", async () => {
    const plain = "const a = 1;\nrun(a);\n";
    for (const allow of ["additions", "modifications"]) {
      for (const after of [`${BOM}const a = 1;`, `${BOM}check(a);\nconst a = 1;`]) {
        const r = await run("src/a.js", plain, "const a = 1;", after, { edits: { allow } });
        expect(r.edits, `${allow}: ${after}`).toHaveLength(0);
      }
    }
  });

  it("a BOM plus CRLF file: the added line gets CRLF, after the BOM", async () => {
    const r = await run("src/a.js", `${BOM}const a = 1;\r\nrun(a);\r\n`, "const a = 1;", "check(a);\nconst a = 1;");
    expect(refusals(r)).toEqual([]);
    expect(r.files[0]?.content).toBe(`${BOM}check(a);\r\nconst a = 1;\r\nrun(a);\r\n`);
  });

  it("a BOM-only file cannot be edited (no line to anchor on) and is left as it is", async () => {
    const r = await run("src/a.js", BOM, BOM, `${BOM}run();`);
    expect(r.edits).toHaveLength(0);
    expect(r.files).toEqual([]);
  });

  it("a file with a UTF-16 BOM is binary to the snapshot, so it is never edited", async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("run(a);\n", "utf16le")]);
    const pack = tar.pack();
    pack.entry({ name: "src/a.js", mode: 0o644 }, utf16);
    pack.finalize();
    const chunks: Buffer[] = [];
    for await (const chunk of pack) chunks.push(chunk as Buffer);
    const snapshot = await snapshotFromTar(Buffer.concat(chunks), { sha: "a".repeat(40) });
    expect(snapshot.entry("src/a.js")?.kind).toBe("binary");
    const out = runSuggestAddition(
      { path: "src/a.js", code_before: "run(a);", code_after: "check(a);\nrun(a);", rationale: "r" },
      { snapshot, reads: createReadLog(), config: defaultConfig(), session: createEditSession() },
    );
    expect(out.result.text).toContain("binary");
    expect(out.edit).toBeUndefined();
  });
});

describe("comment-only detection on a file with a byte-order mark", () => {
  it("a comment added before line 1 of a Python file with a BOM is a comment, not code", async () => {
    expect(sameCode("a.py", `${BOM}run()\n`, `${BOM}# run may fail\nrun()\n`)).toBe(true);
    // The diff git shows for those bytes: the BOM moves from the old line 1 to the new one.
    const gitDiff = `--- a/a.py\n+++ b/a.py\n@@ -1 +1,2 @@\n-${BOM}run()\n+${BOM}# run may fail\n+run()\n`;
    expect(isCommentOnly({ path: "a.py", diff: gitDiff })).toBe(true);
    const r = await run("a.py", `${BOM}run()\n`, "run()", "# run may fail\nrun()");
    expect(r.edits).toHaveLength(1);
    expect(r.outcome).toBe("diagnosis_only");
  });

  it("code added before line 1 is still code, and a shebang after the BOM still names the language", async () => {
    expect(sameCode("a.py", `${BOM}run()\n`, `${BOM}check()\nrun()\n`)).toBe(false);
    expect(
      sameCode("tool", `${BOM}#!/usr/bin/env python3\nrun()\n`, `${BOM}#!/usr/bin/env python3\n# x\nrun()\n`),
    ).toBe(true);
    const r = await run("a.py", `${BOM}run()\n`, "run()", "check()\nrun()");
    expect(r.edits).toHaveLength(1);
    expect(r.outcome).toBe("pr_ready");
  });
});
