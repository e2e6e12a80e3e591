import { readFile } from "node:fs/promises";
import { UsageError } from "./errors.js";
import { isBlankText } from "./terminal.js";

/** The problem a local run works on: a title and the body the model receives (untrusted text). */
export interface LocalProblem {
  title: string;
  body: string;
}

/** Longest title taken from the first line of an issue, in characters. */
const MAX_TITLE = 200;

/**
 * Decode issue bytes as UTF-8 text; null when they are not text: a NUL byte, or a byte sequence that is not valid
 * UTF-8 (a binary file, or text in another encoding).
 */
export function decodeIssueText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * Read the issue text from a file, or from stdin when `file` is `-`.
 * @throws UsageError (one line) when the file cannot be read, is not UTF-8 text (see {@link decodeIssueText}), or
 *   shows nothing (see {@link assertIssueText}).
 */
export async function readIssueText(file: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  let bytes: Buffer;
  try {
    if (file === "-") {
      const chunks: Buffer[] = [];
      for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
      bytes = Buffer.concat(chunks);
    } else {
      bytes = await readFile(file);
    }
  } catch (error) {
    const { readFailure } = await import("../agent/models/replay.js"); // only on this path: it loads zod
    throw new UsageError(`cannot read issue file ${file}: ${readFailure(error)}`);
  }
  const where = file === "-" ? "the issue text on stdin" : `issue file ${file}`;
  const text = decodeIssueText(bytes);
  if (text === null) throw new UsageError(`${where} is not UTF-8 text (binary data or another encoding)`);
  assertIssueText(text, where);
  return text;
}

/**
 * @throws UsageError `<what> is empty` when `text` shows nothing: only whitespace, zero-width or bidirectional
 *   controls and other invisible characters (see {@link isBlankText}).
 */
export function assertIssueText(text: string, what: string): void {
  if (isBlankText(text)) throw new UsageError(`${what} is empty`);
}

/**
 * Split issue text into a title and a body. With a visible `title` given, the whole text is the body. Otherwise the
 * first visible line (see {@link isBlankText}), without a leading Markdown `#` heading mark, is the title, capped at
 * 200 characters, and the rest is the body (or the whole text when nothing follows the first line).
 */
export function toProblem(text: string, title?: string): LocalProblem {
  const normalized = text.replace(/^\uFEFF/, "");
  if (title !== undefined && !isBlankText(title)) return { title: title.trim(), body: normalized.trim() };
  const lines = normalized.split(/\r?\n/);
  const first = lines.findIndex((l) => !isBlankText(l));
  const firstLine = (lines[first] ?? "").replace(/^\s*#+\s*/, "").trim();
  const rest = lines
    .slice(first + 1)
    .join("\n")
    .trim();
  const cut = firstLine.length > MAX_TITLE ? `${firstLine.slice(0, MAX_TITLE - 1)}…` : firstLine;
  return { title: cut || "Untitled problem", body: rest || normalized.trim() };
}
