import { beforeAll, describe, expect, test } from "vitest";
import { defaultConfig, parseConfig } from "../../src/config/schema.js";
import { loadGrammars } from "../../src/lang/tree-sitter.js";
import { reviewChange } from "../../src/review/index.js";
import type { FilePatch, Finding, Snapshot } from "../../src/types.js";
import { gitChange, memSnapshot, type TestTree } from "./helpers.js";

beforeAll(async () => {
  expect(await loadGrammars()).toBe(true);
});

const mods = parseConfig({ edits: { allow: "modifications" } });

function found(base: TestTree, head: TestTree, rule: Finding["rule"], config = mods): Finding[] {
  return reviewChange({ ...gitChange(base, head), config }).findings.filter((f) => f.rule === rule);
}

/**
 * `snapshot` with `path` recorded as over the per-file cap (no content), as the snapshot builder leaves such a file.
 */
function tooLarge(snapshot: Snapshot, path: string): Snapshot {
  return {
    ...snapshot,
    entry: (p) => (p === path ? { path, kind: "too_large", size: 50_000_000, mode: "100644" } : snapshot.entry(p)),
    read: (p) => (p === path ? undefined : snapshot.read(p)),
  };
}

describe("files the review cannot read fail closed", () => {
  test("a changed file over the snapshot cap at head fails instead of being skipped", () => {
    const change = gitChange({ "src/big.js": "a();\n" }, { "src/big.js": "a();\nreturn;\n" });
    const report = reviewChange({ ...change, head: tooLarge(change.head, "src/big.js"), config: defaultConfig() });
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        rule: "paths",
        path: "src/big.js",
        message: expect.stringContaining("over the snapshot's per-file size cap"),
      }),
    );
    expect(report.conclusion).toBe("failure");
  });
  test("a file left out by a total cap at base fails too", () => {
    const change = gitChange({ "a.txt": "1\n" }, { "a.txt": "1\n2\n" });
    const base = {
      ...change.base,
      read: () => undefined,
      entry: () => undefined,
      stats: {
        ...change.base.stats,
        leftOut: [{ path: "a.txt", reason: "total size cap (100 MB) reached" }],
        truncated: true,
      },
    };
    const report = reviewChange({ ...change, base, config: mods });
    expect(report.findings.filter((f) => f.rule === "paths")).toEqual([
      expect.objectContaining({ message: expect.stringContaining("left out of the snapshot") }),
    ]);
  });
});

describe("gitlinks and submodules", () => {
  const head = memSnapshot("h".repeat(40), { "README.md": "x\n" });
  test.each([
    [
      "an added bare gitlink (no .gitmodules entry)",
      {
        path: "vendor/lib",
        status: "added",
        newMode: "160000",
        binary: false,
        patch: "@@ -0,0 +1 @@\n+Subproject commit 1234567890123456789012345678901234567890\n",
      },
    ],
    [
      "a gitlink moved to another commit",
      {
        path: "vendor/lib",
        status: "modified",
        oldMode: "160000",
        newMode: "160000",
        binary: false,
        patch:
          "@@ -1 +1 @@\n-Subproject commit 1111111111111111111111111111111111111111\n+Subproject " +
          "commit 2222222222222222222222222222222222222222\n",
      },
    ],
  ] as [string, FilePatch][])("%s fails", (_n, patch) => {
    const report = reviewChange({
      patches: [patch],
      base: memSnapshot("b".repeat(40), { "README.md": "x\n" }),
      head,
      config: mods,
    });
    expect(report.findings).toContainEqual(
      expect.objectContaining({ rule: "paths", path: "vendor/lib", message: expect.stringContaining("gitlink") }),
    );
  });
  test("a submodule URL change in .gitmodules fails", () => {
    const gm = '[submodule "lib"]\n\tpath = lib\n\turl = https://github.com/good/lib\n';
    const f = found({ ".gitmodules": gm }, { ".gitmodules": gm.replace("good", "evil") }, "paths");
    expect(f.map((x) => x.message)).toContainEqual(expect.stringContaining("submodule URL"));
  });
});

describe("size counts bytes as well as lines", () => {
  test("one added line of 20 KB passes the line limit and fails the byte limit", () => {
    const f = found({ "a.js": "x();\n" }, { "a.js": `x();\nconst blob = "${"A".repeat(20_000)}";\n` }, "size");
    expect(f).toEqual([
      expect.objectContaining({
        start_line: 2,
        message: expect.stringContaining("adds 20017 bytes; at most 16000 are allowed"),
      }),
    ]);
  });
  test("ordinary additions stay under the byte limit", () => {
    expect(found({ "a.js": "x();\n" }, { "a.js": "x();\ny();\n" }, "size")).toEqual([]);
  });
});

describe("Go", () => {
  const GOMOD = "module example.com/shop\n\ngo 1.22\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n)\n";
  const MAIN = 'package main\n\nimport (\n\t"fmt"\n)\n\nfunc main() { fmt.Println(1) }\n';
  const base = { "go.mod": GOMOD, "cmd/main.go": MAIN, "internal/cart/cart.go": "package cart\n" };
  test("a Go file that parsed at base and not at head fails syntax", () => {
    const f = found(base, { ...base, "cmd/main.go": MAIN + "func broken( {\n" }, "syntax");
    expect(f).toEqual([
      expect.objectContaining({ path: "cmd/main.go", level: "failure", message: expect.stringContaining("(go)") }),
    ]);
  });
  test("stdlib, this module's packages and required modules pass; a made-up module and a missing package fail", () => {
    const head = MAIN.replace(
      '\t"fmt"\n',
      '\t"fmt"\n\t"net/http"\n\t"example.com/shop/internal/cart"\n\t"github.com/pkg/errors"\n' +
        '\t"github.com/evil/thing"\n\t"example.com/shop/internal/nothere"\n',
    );
    const f = found(base, { ...base, "cmd/main.go": head }, "imports").map((x) => [x.start_line, x.message]);
    expect(f).toEqual([
      [8, expect.stringContaining('import "github.com/evil/thing": no module in go.mod provides it')],
      [9, expect.stringContaining("internal/nothere holds no .go file")],
    ]);
  });
  test("a module required by the same change as its import is a finding for a human", () => {
    const head = MAIN.replace('\t"fmt"\n', '\t"fmt"\n\t"github.com/new/dep"\n');
    const f = found(
      base,
      { ...base, "go.mod": GOMOD.replace(")", "\tgithub.com/new/dep v1.0.0\n)"), "cmd/main.go": head },
      "imports",
    );
    expect(f).toEqual([
      expect.objectContaining({
        level: "failure",
        message: expect.stringContaining("required by this same change; a new dependency needs a human"),
      }),
    ]);
  });
});

describe("Python imports", () => {
  const base = {
    "requirements.txt": "requests==2.31\n",
    "app/__init__.py": "",
    "app/other.py": "import leftpad_py\n",
    "app/main.py": "import os\n",
    "docs/yaml/index.md": "# yaml\n",
  };
  test("a module another file imports but nothing declares fails (no 'used at base' escape)", () => {
    const f = found(base, { ...base, "app/main.py": "import os\nimport leftpad_py\n" }, "imports");
    expect(f).toEqual([
      expect.objectContaining({
        start_line: 2,
        message: expect.stringContaining('"leftpad_py" is not in the standard library'),
      }),
    ]);
  });
  test("a folder of the same name without Python files is not a first-party package", () => {
    const f = found(base, { ...base, "app/main.py": "import os\nimport yaml\n" }, "imports");
    expect(f).toEqual([expect.objectContaining({ start_line: 2 })]);
  });
  test("a distribution declared by the same change is a finding for a human", () => {
    const f = found(
      base,
      { ...base, "requirements.txt": "requests==2.31\nPyYAML==6.0\n", "app/main.py": "import os\nimport yaml\n" },
      "imports",
    );
    expect(f).toEqual([
      expect.objectContaining({ message: expect.stringContaining('"pyyaml" is declared by this same change') }),
    ]);
  });
});

describe("JS/TS imports through TypeScript's module resolution", () => {
  const pkg = (deps: Record<string, string>) => JSON.stringify({ name: "app", dependencies: deps }) + "\n";
  const base = {
    "package.json": pkg({ zod: "4" }),
    "tsconfig.json": JSON.stringify({ compilerOptions: { baseUrl: ".", paths: { "@lib/*": ["src/lib/*"] } } }),
    "src/lib/math.ts": "export const one = 1;\n",
    "src/pkg/package.json": JSON.stringify({ main: "entry.js" }),
    "src/pkg/entry.js": "module.exports = 1;\n",
    "src/main.ts": "export {};\n",
  };
  test("paths aliases and package.json main resolve; an alias to no file fails", () => {
    const head = {
      ...base,
      "src/main.ts":
        'export {};\nimport { one } from "@lib/math";\nimport p from "./pkg";\nimport { two } from "@lib/nothing";\n',
    };
    const f = found(base, head, "imports").map((x) => [x.start_line, x.message]);
    expect(f).toEqual([[4, expect.stringContaining('package "@lib/nothing" is not declared')]]);
  });
  test("a package added to package.json in the same change as its import is a finding for a human", () => {
    const head = {
      ...base,
      "package.json": pkg({ zod: "4", "left-pad": "1" }),
      "src/main.ts": 'export {};\nimport lp from "left-pad";\n',
    };
    expect(found(base, head, "imports")).toEqual([
      expect.objectContaining({
        start_line: 2,
        message: expect.stringContaining('"left-pad" is declared by this same change'),
      }),
    ]);
  });
});
