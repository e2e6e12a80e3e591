import { describe, expect, test } from "vitest";
import { parseHunks, parseUnifiedDiff } from "../../src/review/index.js";
import { gitChange } from "./helpers.js";

describe("parseUnifiedDiff on real git diff --full-index -M output", () => {
  test("reads added, removed, renamed, mode-changed and binary files", () => {
    const shared = Array.from({ length: 20 }, (_, k) => `line ${k}`).join("\n") + "\n";
    const { patches } = gitChange(
      {
        "old/name.txt": shared,
        "gone.txt": "bye\n",
        "run.sh": "echo hi\n",
        "img.bin": { content: "a", binary: true },
        "keep.ts": "a\n",
      },
      {
        "new/name.txt": shared + "line 20\n",
        "fresh.ts": "export {};\n",
        "run.sh": { content: "echo hi\n", mode: "100755" },
        "img.bin": { content: "b", binary: true },
        "keep.ts": "a\n",
      },
    );
    const by = Object.fromEntries(patches.map((p) => [p.path, p]));
    expect(Object.keys(by).sort()).toEqual(["fresh.ts", "gone.txt", "img.bin", "new/name.txt", "run.sh"]);
    expect(by["new/name.txt"]).toMatchObject({ status: "renamed", oldPath: "old/name.txt", binary: false });
    expect(by["new/name.txt"]!.patch.startsWith("@@ ")).toBe(true);
    expect(by["new/name.txt"]!.patch).toContain("+line 20\n");
    expect(by["gone.txt"]).toMatchObject({ status: "removed", oldMode: "100644" });
    expect(by["fresh.ts"]).toMatchObject({ status: "added", newMode: "100644", patch: "@@ -0,0 +1 @@\n+export {};\n" });
    expect(by["run.sh"]).toMatchObject({ status: "modified", oldMode: "100644", newMode: "100755", patch: "" });
    expect(by["img.bin"]).toMatchObject({ status: "modified", binary: true, patch: "" });
  });

  test("unquotes paths with spaces and non-ASCII characters", () => {
    const { patches } = gitChange({ "dir with space/café.txt": "a\n" }, { "dir with space/café.txt": "a\nb\n" });
    expect(patches.map((p) => p.path)).toEqual(["dir with space/café.txt"]);
  });

  test("keeps CRLF and the no-newline marker in hunks", () => {
    const { patches } = gitChange({ "w.txt": "a\r\nb\r\nc" }, { "w.txt": "a\r\nb\r\nc\r\nd" });
    const hunks = parseHunks(patches[0]!.patch);
    const removed = hunks[0]!.lines.find((l) => l.kind === "removed")!;
    expect(removed).toMatchObject({ text: "c", oldLine: 3, noNewline: true });
    expect(hunks[0]!.lines.filter((l) => l.kind === "context").map((l) => l.text)).toContain("b\r");
    const last = hunks[0]!.lines[hunks[0]!.lines.length - 1]!;
    expect(last).toMatchObject({ kind: "added", text: "d", newLine: 4, noNewline: true });
  });

  test("ignores text outside diff sections", () => {
    expect(parseUnifiedDiff("commit abc\nAuthor: x\n\n    message\n")).toEqual([]);
  });
});

describe("parseHunks", () => {
  test("a hunk shorter than its header is an error", () => {
    expect(() => parseHunks("@@ -1,3 +1,3 @@\n a\n b\n")).toThrow(/2 of 3 base lines/);
  });
  test("text before, between or after hunks is outside any hunk, even a file header", () => {
    expect(() => parseHunks("junk\n@@ -1 +1 @@\n-a\n+b\n")).toThrow(/line 1 of the patch is outside any hunk/);
    expect(() => parseHunks("@@ -1 +1 @@\n-a\n+b\njunk\n")).toThrow(/line 4 of the patch is outside any hunk/);
    const twoFiles = "@@ -1 +1 @@\n-a\n+b\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n";
    expect(() => parseHunks(twoFiles)).toThrow(/line 4 .* "--- a\/x"/);
  });
  test("a hunk longer on one side than its header says is an error", () => {
    expect(() => parseHunks("@@ -1 +1 @@\n-a\n-b\n+c\n")).toThrow(/1 of 1 base lines and 0 of 1 head lines/);
  });
  test("a line counted by the header but starting with --- is content", () => {
    const [h] = parseHunks("@@ -1,2 +1,1 @@\n--- a\n a\n");
    expect(h!.lines.map((l) => [l.kind, l.text])).toEqual([
      ["removed", "-- a"],
      ["context", "a"],
    ]);
  });
  test("numbers lines on both sides", () => {
    const [h] = parseHunks("@@ -10,2 +10,3 @@ fn\n x\n+y\n z\n");
    expect(h!.lines.map((l) => [l.kind, l.oldLine, l.newLine])).toEqual([
      ["context", 10, 10],
      ["added", undefined, 11],
      ["context", 11, 12],
    ]);
  });
});
