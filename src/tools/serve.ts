import { mapStrings } from "../grounding/map-strings.js";
import {
  isSecretPath,
  redact,
  redactLines,
  redactQuoted,
  maybeInSecret,
  scanSecrets,
  secretFreeRange,
  type SecretSpan,
} from "../grounding/secrets.js";
import type { Snapshot, ToolResult } from "../types.js";
import { nearestPaths } from "./nearest.js";
import { formatBytes, shortSha } from "./output.js";
import { folderSet, normalizeRepoPath } from "./paths.js";

/** Per snapshot, the served text of each file read so far (the snapshot itself is immutable). */
const served = new WeakMap<object, Map<string, string>>();

/**
 * The text of a file as a tool may show or search it: the snapshot content with every secret redacted
 * (src/grounding/secrets.ts), one `[redacted]` per line of a private key block, so the line count and every other line
 * are unchanged and a numbered window or a grep hit that starts inside a key block shows no key line. Searching this
 * text (not the raw content) keeps grep from answering "is the secret ghp_a…?" by its hit count.
 *
 * @param snapshot any object with `read(path)`; results are cached per snapshot object and path
 * @returns `undefined` where `snapshot.read` has no text
 */
export function servedText(snapshot: { read(path: string): string | undefined }, path: string): string | undefined {
  let cache = served.get(snapshot);
  const hit = cache?.get(path);
  if (hit !== undefined) return hit;
  const content = snapshot.read(path);
  if (content === undefined) return undefined;
  const text = redact(content);
  if (cache === undefined) served.set(snapshot, (cache = new Map()));
  cache.set(path, text);
  return text;
}

/**
 * Lines of {@link servedText} (1-based `lineNumbers`, in the order given; "" past the last line) without redacting
 * the whole file: `redactLines` over the snapshot content, each line the same as the whole served text has. For a
 * tool that shows a few lines of many files (grep hits); nothing is cached. `content`: the file's text when the
 * caller has read it already (`snapshot.read(path)`), so a large file is not decoded twice.
 * @returns `undefined` where `snapshot.read` has no text
 */
export function servedLines(
  snapshot: { read(path: string): string | undefined },
  path: string,
  lineNumbers: readonly number[],
  content?: string,
): string[] | undefined {
  const whole = served.get(snapshot)?.get(path);
  if (whole !== undefined) return redactLines(whole, lineNumbers);
  const text = content ?? snapshot.read(path);
  return text === undefined ? undefined : redactLines(text, lineNumbers);
}

/** Per snapshot, the secrets of each file {@link servedWords} scanned whole: spans only, no text. */
const secretSpans = new WeakMap<object, Map<string, readonly SecretSpan[]>>();

/** Lines around a word {@link servedWords} scans for secrets at most (characters); a longer range is the file's. */
const MAX_RANGE = 1 << 16;

/** Whether `[at, end)` overlaps none of `spans` (sorted by start, disjoint). */
function outsideSpans(spans: readonly SecretSpan[], at: number, end: number): boolean {
  for (const s of spans) {
    if (s.end <= at) continue;
    return s.start >= end;
  }
  return true;
}

/**
 * Which of `words` (lower-case, no line breaks) the {@link servedText} of `path` holds, ignoring case, without making
 * the served text: a word is held when the content holds it somewhere outside every secret (`scanSecrets`, the
 * spans redaction replaces). A word that is only inside a secret is not held; one that appears only through the
 * `[redacted]` marker is not held either. An occurrence that no secret can overlap (`maybeInSecret`, a test of the
 * text around it) holds the word; for another, the lines around it are scanned for secrets (`secretFreeRange`, each
 * range once per call). A file with a private key block (a secret of any number of lines), or whose range is long
 * (over {@link MAX_RANGE} characters or a quarter of the file: minified code), is scanned whole once per snapshot
 * and path, its spans kept (a few numbers).
 * @returns the words held, a subset of `words`; empty where `snapshot.read` has no text
 */
export function servedWords(
  snapshot: { read(path: string): string | undefined },
  path: string,
  words: readonly string[],
): Set<string> {
  const held = new Set<string>();
  const content = snapshot.read(path);
  if (content === undefined) return held;
  let whole: readonly SecretSpan[] | undefined;
  const scanWhole = (): readonly SecretSpan[] => {
    let perFile = secretSpans.get(snapshot);
    if (perFile === undefined) secretSpans.set(snapshot, (perFile = new Map()));
    let spans = perFile.get(path);
    if (spans === undefined) perFile.set(path, (spans = scanSecrets(content)));
    return spans;
  };
  if (content.includes("PRIVATE KEY") || secretSpans.get(snapshot)?.has(path) === true) whole = scanWhole();
  /** The ranges scanned so far, each with its secrets in its own offsets. */
  const ranges: { from: number; to: number; spans: readonly SecretSpan[] }[] = [];
  const outside = (at: number, end: number): boolean => {
    if (whole !== undefined) return outsideSpans(whole, at, end);
    let range = ranges.find((r) => r.from <= at && at < r.to);
    if (range === undefined) {
      const { from, to } = secretFreeRange(content, at, end);
      if (to - from > MAX_RANGE || (to - from) * 4 > content.length) {
        whole = scanWhole();
        return outsideSpans(whole, at, end);
      }
      ranges.push((range = { from, to, spans: scanSecrets(content.slice(from, to)) }));
    }
    return outsideSpans(range.spans, at - range.from, end - range.from);
  };
  for (const word of new Set(words)) {
    if (word === "") continue;
    const re = new RegExp(word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"), "gi");
    // First an occurrence no secret can be near (nothing scanned); failing that, each occurrence exactly.
    const clear = (at: number, end: number) => !maybeInSecret(content, at, end);
    let seen = false;
    for (const test of whole === undefined ? [clear, outside] : [outside]) {
      re.lastIndex = 0;
      for (let m = re.exec(content); m !== null; m = re.exec(content)) {
        seen = true;
        if (test(m.index, m.index + word.length)) {
          held.add(word);
          break;
        }
      }
      if (!seen || held.has(word)) break;
    }
  }
  return held;
}

/**
 * For a path the snapshot's total caps left out (it exists at the commit, but is not loaded): the sentence that says
 * so — never "no such file". `null` for any other path.
 */
export function notLoaded(snapshot: Snapshot, path: string): string | null {
  const left = snapshot.stats.leftOut.find((l) => l.path === path);
  if (left === undefined) return null;
  return (
    `${path} exists at ${shortSha(snapshot.sha)} but is too large for the ` +
    `snapshot (${left.reason}); its content is not loaded, served or searched.`
  );
}

/**
 * A copy of a tool call's arguments fit to be recorded (trace, transcript): every string redacted, and when the
 * arguments name a file (`path` or `affected_file`), redacted against that whole file too (`redactQuoted`), so a
 * key line the model quoted without its BEGIN line is caught.
 */
export function redactArguments(args: unknown, snapshot: { read(path: string): string | undefined }): unknown {
  const fields = args !== null && typeof args === "object" ? (args as Record<string, unknown>) : {};
  const named = fields.path ?? fields.affected_file;
  const norm = typeof named === "string" ? normalizeRepoPath(named) : null;
  const source = norm?.ok ? (snapshot.read(norm.path) ?? "") : "";
  return mapStrings(args, (text) => redactQuoted(text, source));
}

/**
 * Resolve a model-given file path to servable text content, or to the answer saying why there is none:
 * `not_found` (with up to 5 nearest real paths) for a missing path, a folder, or a path leaving the repository;
 * `not_found` with the reason for binary, too-large, LFS pointer, submodule and symlink entries (a symlink names its
 * target); `rejected` for secret files (`.env*`, `*.pem`, `id_rsa*`: listed, never served). `content` is the
 * {@link servedText} (secrets redacted, line count kept), never the raw bytes.
 */
export function resolveTextFile(
  snapshot: Snapshot,
  rawPath: string,
  tool: string,
): { ok: true; path: string; content: string } | { ok: false; result: ToolResult } {
  const norm = normalizeRepoPath(rawPath);
  if (!norm.ok) return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${norm.message}` } };
  const path = norm.path;
  if (path === "") {
    return {
      ok: false,
      result: {
        status: "not_found",
        text: `NOT_FOUND: give a file path; use describe_repo or list_files to see the files`,
      },
    };
  }
  const entry = snapshot.entry(path);
  if (entry === undefined) {
    const left = notLoaded(snapshot, path);
    if (left) {
      return {
        ok: false,
        result: { status: "not_found", text: `NOT_FOUND: ${left} Look at the code that reads or generates it.` },
      };
    }
    if (folderSet(snapshot.paths).has(path)) {
      return {
        ok: false,
        result: {
          status: "not_found",
          text:
            `NOT_FOUND: ${path} is a folder, not a file; call list_files ` +
            `with glob "${path}/**" or describe_repo with path "${path}"`,
        },
      };
    }
    const near = nearestPaths(
      path,
      snapshot.paths.filter((p) => snapshot.entry(p)?.kind === "text"),
    );
    const hint =
      near.length > 0
        ? ` Nearest real paths: ${near.join(", ")}. Call ${tool} with one of them.`
        : " Use list_files or search_codebase to find the right path.";
    return {
      ok: false,
      result: { status: "not_found", text: `NOT_FOUND: no file '${path}' at ${shortSha(snapshot.sha)}.${hint}` },
    };
  }
  if (isSecretPath(path)) {
    return {
      ok: false,
      result: {
        status: "rejected",
        text:
          `REJECTED: ${path} looks like a secrets file (env file or key); ` +
          `it is listed but never served. Read the code that uses it instead.`,
      },
    };
  }
  const size = formatBytes(entry.size);
  switch (entry.kind) {
    case "text": {
      const content = servedText(snapshot, path);
      if (content !== undefined) return { ok: true, path, content };
      break;
    }
    case "binary":
      return {
        ok: false,
        result: {
          status: "not_found",
          text: `NOT_FOUND: ${path} is a binary file (${size}); its content is not served.`,
        },
      };
    case "too_large":
      return {
        ok: false,
        result: {
          status: "not_found",
          text:
            `NOT_FOUND: ${path} is too large to serve (${size}, over the per-file cap); its content ` +
            `is not in the snapshot and not searchable. Look at the code that reads or generates it.`,
        },
      };
    case "lfs_pointer":
      return {
        ok: false,
        result: {
          status: "not_found",
          text:
            `NOT_FOUND: ${path} is a Git LFS pointer; the real content ` +
            `is stored outside the repository and is not served.`,
        },
      };
    case "submodule":
      return {
        ok: false,
        result: {
          status: "not_found",
          text: `NOT_FOUND: ${path} is a git submodule (another repository); its files are not in this snapshot.`,
        },
      };
    case "symlink": {
      const target = resolveLinkTarget(path, entry.target ?? "");
      const servable = target !== null && snapshot.entry(target)?.kind === "text";
      const next = servable
        ? ` Call ${tool} with path "${target}".`
        : " Its target is not a text file of this snapshot.";
      return {
        ok: false,
        result: {
          status: "not_found",
          text: `NOT_FOUND: ${path} is a symbolic link to '${entry.target ?? ""}' (not followed).${next}`,
        },
      };
    }
  }
  return { ok: false, result: { status: "not_found", text: `NOT_FOUND: ${path} has no servable text.` } };
}

/** The repository path a relative symlink target points at, or `null` when it leaves the repository or is absolute. */
export function resolveLinkTarget(linkPath: string, target: string): string | null {
  if (target.startsWith("/")) return null;
  const parts = linkPath.split("/").slice(0, -1);
  for (const seg of target.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.length === 0 ? null : parts.join("/");
}
