/**
 * The snapshot is the commit, byte for byte: a repository whose .gitattributes would make `git archive` hide files,
 * expand keywords, convert line endings or run a filter. Each attributed file is then edited through
 * `suggest_addition` and committed: the commit changes that file's added lines and no other byte of any blob.
 */
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { deliverWithPlumbing } from "../../src/host/local/commit.js";
import { snapshotFromGit } from "../../src/snapshot/index.js";
import { createReadLog } from "../../src/tools/index.js";
import { changedFiles, createEditSession, runSuggestAddition } from "../../src/tools/suggest-addition.js";
import { makeRepo, sh } from "../host/local/git-repo.js";

const ATTRIBUTES = [
  ".github/groundfix.yml export-ignore",
  "hidden.js export-ignore",
  "subst.js export-subst",
  "ident.js ident",
  "crlf.js text eol=crlf",
  "filtered.js filter=evil",
  "",
].join("\n");
const FILES: Record<string, string> = {
  ".gitattributes": ATTRIBUTES,
  ".github/groundfix.yml": "edits:\n  allow: additions\n",
  "hidden.js": "function hidden() {\n  return 1;\n}\n",
  "subst.js": "// built from $Format:%H$\nfunction subst() {\n  return 2;\n}\n",
  "ident.js": "// $Id$\nfunction ident() {\n  return 3;\n}\n",
  "crlf.js": "function crlf() {\n  return 4;\n}\n",
  "filtered.js": "function filtered() {\n  return 5;\n}\n",
};

function blob(dir: string, rev: string, path: string): Buffer {
  return execFileSync("git", ["-C", dir, "cat-file", "blob", `${rev}:${path}`]);
}

/**
 * What `git archive` makes of the commit: its file list and one file's bytes (the reference the snapshot must not be).
 */
function archived(dir: string, rev: string): { paths: string[]; file(path: string): string } {
  const tarball = execFileSync("git", ["-C", dir, "archive", "--format=tar", rev]);
  const paths = execFileSync("tar", ["-t"], { input: tarball })
    .toString("utf8")
    .split("\n")
    .filter((p) => p && !p.endsWith("/"));
  return { paths, file: (path) => execFileSync("tar", ["-xO", path], { input: tarball }).toString("utf8") };
}

describe("snapshotFromGit reads the committed blobs, not git archive's rendering", () => {
  it("every file is there with its exact bytes, and no filter ran", async () => {
    const { dir, base } = makeRepo(FILES);
    const marker = join(dir, "filter-ran");
    sh(dir, "config", "filter.evil.smudge", `sh -c 'touch ${marker}; cat'`);
    sh(dir, "config", "core.autocrlf", "true");
    const snapshot = await snapshotFromGit(dir, base);
    for (const path of Object.keys(FILES))
      expect(Buffer.from(snapshot.read(path)!, "utf8")).toEqual(blob(dir, base, path));
    expect(snapshot.read("subst.js")).toContain("$Format:%H$");
    expect(snapshot.read("ident.js")).toContain("// $Id$\n");
    expect(snapshot.read("crlf.js")).not.toContain("\r");
    expect(existsSync(marker)).toBe(false);
    // What git archive gives: the config and hidden.js left out, keywords expanded, line endings converted.
    const archive = archived(dir, base);
    expect(archive.paths).not.toContain("hidden.js");
    expect(archive.paths).not.toContain(".github/groundfix.yml");
    expect(archive.file("ident.js")).toMatch(/^\/\/ \$Id: [0-9a-f]{40} \$/);
    expect(archive.file("subst.js")).toContain(`built from ${base}`);
    expect(archive.file("crlf.js")).toContain("\r\n");
    // …and runs the repository's filter driver.
    expect(existsSync(marker)).toBe(true);
  });

  it.each(["subst.js", "ident.js", "crlf.js", "filtered.js", "hidden.js"])(
    "an addition to %s changes its added line and no other byte of the commit",
    async (path) => {
      const { dir, base } = makeRepo(FILES);
      const snapshot = await snapshotFromGit(dir, base);
      const reads = createReadLog();
      reads.record({ path, startLine: 1, endLine: 10 });
      const session = createEditSession();
      const name = path.replace(".js", "");
      const before = `function ${name}() {\n`;
      const out = runSuggestAddition(
        { path, code_before: before, code_after: `${before}  if (!this) throw new Error("x");\n`, rationale: "r" },
        { snapshot, reads, config: defaultConfig(), session },
      );
      expect(out.result.status).toBe("ok");
      const delivered = await deliverWithPlumbing(dir, {
        baseSha: base,
        branch: "groundfix/t",
        message: "t",
        files: changedFiles(session, snapshot),
      });
      const head = "headSha" in delivered ? delivered.headSha : sh(dir, "rev-parse", "groundfix/t");
      expect(sh(dir, "diff", "--name-only", base, head)).toBe(path);
      for (const other of Object.keys(FILES).filter((p) => p !== path))
        expect(blob(dir, head, other)).toEqual(blob(dir, base, other));
      const expected = Buffer.from(
        blob(dir, base, path).toString("utf8").replace(before, `${before}  if (!this) throw new Error("x");\n`),
      );
      expect(blob(dir, head, path)).toEqual(expected);
    },
  );
});
