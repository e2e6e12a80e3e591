import { snapshotFromTar } from "../../src/snapshot/index.js";
import { createReadLog } from "../../src/tools/index.js";
import type { ToolContext } from "../../src/tools/index.js";
import type { Snapshot } from "../../src/types.js";
import { makeGitHubTarball, type TestFile } from "../snapshot/build-repo.js";

export const SHA = "0123456789abcdef0123456789abcdef01234567";

/** A small mixed repository, built as a GitHub tarball in the test. */
export const FILES: Record<string, TestFile> = {
  "package.json": JSON.stringify(
    { name: "shop", main: "src/index.js", dependencies: { express: "^4.0.0" }, devDependencies: { vitest: "1" } },
    null,
    2,
  ),
  "requirements.txt": "requests>=2.0\nflask[async]==2.3 # web\n",
  "go.mod": "module example.com/shop\n\ngo 1.22\n\nrequire (\n\tgithub.com/pkg/errors v0.9.1\n)\n",
  "src/index.js": "const { Cart } = require('./models/cart');\nfunction main() {\n  return new Cart();\n}\nmain();\n",
  "src/models/cart.js":
    "class Cart {\n  constructor() {\n    this.items = [];\n  }\n\n  addItem(item) " +
    "{\n    this.items.push(item);\n  }\n\n  totalPrice() {\n    return " +
    "this.items.reduce((s, i) => s + i.price, 0);\n  }\n}\n\nmodule.exports = { Cart };\n",
  "src/util/format_price.py": 'def format_price(cents):\n    return f"{cents / 100:.2f}"\n',
  "src/windows.txt": "alpha\r\nbeta needle\r\ngamma\r\n",
  "src/run.sh": { content: "#!/bin/sh\nnode src/index.js\n", executable: true },
  "src/config.js": "export const token = 'ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8';\n",
  ".env": "SECRET=hunter2\n",
  "assets/logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]),
  "data/huge.json": "[" + "1,".repeat(10000) + "1]",
  "docs/link.md": { symlink: "../README.md" },
  "README.md": "# Shop\nA tiny shop.\n",
  "long.txt": Array.from({ length: 1000 }, (_, i) => `line ${i + 1}`).join("\n") + "\n",
};

/** A fresh tool context over a snapshot of FILES (max file size 16 KB so data/huge.json is too large). */
export async function makeContext(
  files: Record<string, TestFile> = FILES,
  limits = {},
): Promise<ToolContext & { snapshot: Snapshot }> {
  const tgz = await makeGitHubTarball(files, SHA);
  const snapshot = await snapshotFromTar(tgz, {
    sha: SHA,
    stripTopFolder: true,
    limits: { maxFileBytes: 16384, ...limits },
  });
  return { snapshot, reads: createReadLog() };
}
