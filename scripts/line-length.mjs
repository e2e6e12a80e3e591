// Fails (exit 1) when a line of a .ts or .js file under the given folders is longer than the limit, and lists each one as
// path:line: length. Prettier (printWidth 120) cannot break string literals, regular expressions or comments, so
// `npm run lint` runs this after it. Length counts Unicode code points, so "→" and "—" count as one character.
// Usage: node scripts/line-length.mjs [--max=120] folder-or-file...
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

const args = process.argv.slice(2);
const max = Number(args.find((a) => a.startsWith("--max="))?.slice(6) ?? 120);
const folders = args.filter((a) => !a.startsWith("--"));

function* files(dir) {
  if (!statSync(dir).isDirectory()) {
    yield dir;
    return;
  }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* files(path);
    else if (/\.[cm]?[jt]s$/.test(entry.name)) yield path;
  }
}

let over = 0;
for (const folder of folders) {
  for (const path of files(folder)) {
    readFileSync(path, "utf8")
      .split("\n")
      .forEach((line, i) => {
        const length = [...line].length;
        if (length > max) {
          over++;
          console.error(`${path}:${i + 1}: ${length} characters (at most ${max})`);
        }
      });
  }
}
if (over > 0) {
  console.error(`${over} line${over === 1 ? "" : "s"} over ${max} characters`);
  process.exit(1);
}
