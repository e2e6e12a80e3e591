import type { FilePatch } from "../types.js";

/**
 * Parse the output of `git diff --full-index -M BASE HEAD` into one {@link FilePatch} per file.
 *
 * Reads git's extended headers (git-diff(1), "Generating patch text with -p"): `old mode`/`new mode`,
 * `new file mode`, `deleted file mode`, `rename from`/`rename to` (and `copy from`/`copy to`, reported as added),
 * `index <a>..<b> <mode>` (an unchanged mode sets both modes), `Binary files … differ` and `GIT binary patch`.
 * Paths come from `rename to`, `+++ b/…`/`--- a/…` or, failing those, the `diff --git a/X b/X` line; git's C-style
 * quoted paths (`"a/caf\303\251.txt"`) are unquoted. `patch` is the file's text from its first `@@` line on.
 * Text that is not part of any `diff --git` section (a commit message, for example) is ignored; never throws.
 *
 * Only the headers are read here; `parseHunks` (src/review/hunks.ts) reads the hunks with jsdiff. jsdiff's
 * `parsePatch` (package `diff` 8) cannot read these headers: it skips `diff --git` and the extended headers, joins a
 * section that has no `---` line (a mode change, a binary file, a pure rename) to the next file, and keeps git's octal
 * escapes in quoted `---`/`+++` names.
 */
export function parseUnifiedDiff(text: string): FilePatch[] {
  const rows = text.split("\n");
  if (rows[rows.length - 1] === "") rows.pop();
  const out: FilePatch[] = [];
  let i = 0;
  while (i < rows.length) {
    if (!rows[i]!.startsWith("diff --git ")) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < rows.length && !rows[end]!.startsWith("diff --git ")) end++;
    out.push(parseSection(rows.slice(i, end)));
    i = end;
  }
  return out;
}

function parseSection(rows: string[]): FilePatch {
  const first = rows[0]!.replace(/\r$/, "");
  const fromGitLine = gitLinePaths(first.slice("diff --git ".length));
  let oldPath = fromGitLine?.[0];
  let newPath = fromGitLine?.[1];
  let oldMode: string | undefined;
  let newMode: string | undefined;
  let status: FilePatch["status"] = "modified";
  let binary = false;
  let hunkStart = -1;
  for (let j = 1; j < rows.length; j++) {
    const row = rows[j]!.replace(/\r$/, "");
    if (row.startsWith("@@")) {
      hunkStart = j;
      break;
    }
    let m: RegExpExecArray | null;
    if ((m = /^old mode (\d+)$/.exec(row))) oldMode = m[1];
    else if ((m = /^new mode (\d+)$/.exec(row))) newMode = m[1];
    else if ((m = /^new file mode (\d+)$/.exec(row))) {
      status = "added";
      newMode = m[1];
    } else if ((m = /^deleted file mode (\d+)$/.exec(row))) {
      status = "removed";
      oldMode = m[1];
    } else if ((m = /^rename from (.+)$/.exec(row))) {
      status = "renamed";
      oldPath = unquote(m[1]!);
    } else if ((m = /^rename to (.+)$/.exec(row))) {
      status = "renamed";
      newPath = unquote(m[1]!);
    } else if ((m = /^copy to (.+)$/.exec(row))) {
      status = "added";
      newPath = unquote(m[1]!);
    } else if ((m = /^index [0-9a-f]+\.\.[0-9a-f]+ (\d+)$/.exec(row))) {
      oldMode ??= m[1];
      newMode ??= m[1];
    } else if (/^Binary files .* differ$/.test(row) || row === "GIT binary patch") binary = true;
    else if ((m = /^--- (.+)$/.exec(row))) {
      const p = stripPrefix(m[1]!, "a/");
      if (p !== null && status !== "renamed") oldPath = p;
    } else if ((m = /^\+\+\+ (.+)$/.exec(row))) {
      const p = stripPrefix(m[1]!, "b/");
      if (p !== null && status !== "renamed") newPath = p;
    }
  }
  const path = status === "removed" ? (oldPath ?? newPath ?? "") : (newPath ?? oldPath ?? "");
  const patch = hunkStart < 0 || binary ? "" : rows.slice(hunkStart).join("\n") + "\n";
  const result: FilePatch = { path, status, binary, patch };
  if (status === "renamed" && oldPath !== undefined && oldPath !== path) result.oldPath = oldPath;
  if (oldMode !== undefined && status !== "added") result.oldMode = oldMode;
  if (newMode !== undefined && status !== "removed") result.newMode = newMode;
  return result;
}

/** `a/X b/Y` → [X, Y]; handles quoted names and, for unquoted names with spaces, the `a/P b/P` symmetry. */
function gitLinePaths(rest: string): [string, string] | undefined {
  if (rest.startsWith('"')) {
    const end = quotedEnd(rest, 0);
    const a = unquote(rest.slice(0, end));
    const b = unquote(rest.slice(end + 1));
    return [a.replace(/^a\//, ""), b.replace(/^b\//, "")];
  }
  if (rest.endsWith('"')) {
    const start = rest.lastIndexOf(' "');
    if (start > 0)
      return [rest.slice(0, start).replace(/^a\//, ""), unquote(rest.slice(start + 1)).replace(/^b\//, "")];
  }
  if ((rest.length - 5) % 2 === 0) {
    const half = (rest.length - 5) / 2;
    const a = rest.slice(2, 2 + half);
    if (rest.startsWith("a/") && rest.slice(2 + half) === ` b/${a}`) return [a, a];
  }
  const m = /^a\/(.+?) b\/(.+)$/.exec(rest);
  return m ? [m[1]!, m[2]!] : undefined;
}

function quotedEnd(s: string, start: number): number {
  for (let k = start + 1; k < s.length; k++) {
    if (s[k] === "\\") k++;
    else if (s[k] === '"') return k + 1;
  }
  return s.length;
}

function stripPrefix(raw: string, prefix: string): string | null {
  const name = unquote(raw.replace(/\t$/, ""));
  if (name === "/dev/null") return null;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

const ESCAPES: Record<string, number> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 34, "\\": 92 };

/**
 * Undo git's C-style quoting of a path (core.quotePath): escapes and octal UTF-8 bytes. Unquoted input is returned as
 * is.
 */
function unquote(s: string): string {
  if (!(s.length >= 2 && s.startsWith('"') && s.endsWith('"'))) return s;
  const bytes: number[] = [];
  const body = s.slice(1, -1);
  for (let k = 0; k < body.length; k++) {
    const c = body[k]!;
    if (c !== "\\") {
      bytes.push(...Buffer.from(c, "utf8"));
      continue;
    }
    const next = body[k + 1] ?? "";
    const oct = /^[0-7]{3}/.exec(body.slice(k + 1));
    if (oct) {
      bytes.push(parseInt(oct[0], 8));
      k += 3;
    } else {
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      k += 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}
