import { describe, expect, it } from "vitest";
import { unreadableFrameNotes } from "../../src/pipeline/unreadable.js";
import type { EntryKind, Snapshot } from "../../src/types.js";

/** A snapshot of `entries` (path → kind), as the pipeline has it. */
function snapshot(entries: Record<string, EntryKind>): Pick<Snapshot, "sha" | "paths" | "entry"> {
  return {
    sha: "f".repeat(40),
    paths: Object.keys(entries).sort(),
    entry: (path) => (entries[path] ? { path, kind: entries[path]!, size: 10, mode: "100644" } : undefined),
  };
}

const TRACE = [
  "TypeError: Cannot read properties of undefined (reading 'toUpperCase')",
  "    at encode (/app/lib/legacy.js:3:12)",
  "    at encode (/app/lib/legacy.js:9:3)",
  "    at run (/app/index.js:3:10)",
].join("\n");

describe("unreadableFrameNotes", () => {
  it("names a binary file the trace points at, once, and says it could not be read or edited", () => {
    const notes = unreadableFrameNotes(TRACE, snapshot({ "lib/legacy.js": "binary", "index.js": "text" }));
    expect(notes).toEqual([
      `lib/legacy.js, named in the issue's stack trace, is a binary file at ${"f".repeat(12)} (a NUL byte, or ` +
        "bytes that are not UTF-8): groundfix can neither read nor edit it, so nothing in it was checked",
    ]);
  });

  it("names a Git LFS pointer; says nothing of text files, files not in the repository, or an unclear match", () => {
    const lfs = unreadableFrameNotes(TRACE, snapshot({ "lib/legacy.js": "lfs_pointer" }));
    expect(lfs).toEqual([expect.stringMatching(/^lib\/legacy\.js, named in the issue's stack trace, is a Git LFS/)]);
    expect(unreadableFrameNotes(TRACE, snapshot({ "lib/legacy.js": "text", "index.js": "text" }))).toEqual([]);
    expect(unreadableFrameNotes(TRACE, snapshot({ "other/legacy.js": "binary" }))).toEqual([]); // not a suffix
    expect(unreadableFrameNotes("no trace here: lib/legacy.js", snapshot({ "lib/legacy.js": "binary" }))).toEqual([]);
    // Two repository files end the frame's path equally well (`legacy.js` alone): neither is named.
    const short = "TypeError: x\n    at encode (legacy.js:3:12)";
    expect(unreadableFrameNotes(short, snapshot({ "a/legacy.js": "binary", "b/legacy.js": "binary" }))).toEqual([]);
    // The longer match wins: the text file at lib/legacy.js is the frame's file, not the binary one elsewhere.
    expect(unreadableFrameNotes(TRACE, snapshot({ "lib/legacy.js": "text", "legacy.js": "binary" }))).toEqual([]);
  });

  it("matches a Java frame's package path to the file under src/main/java", () => {
    const java = "java.lang.NullPointerException\n\tat com.acme.Codec.decode(Codec.java:12)";
    const notes = unreadableFrameNotes(java, snapshot({ "src/main/java/com/acme/Codec.java": "binary" }));
    expect(notes).toEqual([expect.stringMatching(/^src\/main\/java\/com\/acme\/Codec\.java, named in the issue's/)]);
  });
});
