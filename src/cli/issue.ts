import { readFile } from "node:fs/promises";
import { UsageError } from "./errors.js";

/** The problem a local run works on: a title and the body the model receives (untrusted text). */
export interface LocalProblem {
  title: string;
  body: string;
}

/** Longest title taken from the first line of an issue, in characters. */
const MAX_TITLE = 200;

/**
 * Read the issue text from a file, or from stdin when `file` is `-`.
 * @throws UsageError (one line) when the file cannot be read or is empty.
 */
export async function readIssueText(file: string, stdin: NodeJS.ReadableStream = process.stdin): Promise<string> {
  let text: string;
  try {
    if (file === "-") {
      const chunks: Buffer[] = [];
      for await (const chunk of stdin) chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer));
      text = Buffer.concat(chunks).toString("utf8");
    } else {
      text = await readFile(file, "utf8");
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : code === "EACCES" ? "permission denied" : (code ?? "unreadable");
    throw new UsageError(`cannot read issue file ${file}: ${why}`);
  }
  if (text.trim() === "") throw new UsageError(file === "-" ? "the issue text on stdin is empty" : `issue file ${file} is empty`);
  return text;
}

/**
 * Split issue text into a title and a body. With `title` given, the whole text is the body. Otherwise the first
 * non-empty line (without a leading Markdown `#` heading mark) is the title, capped at 200 characters, and the
 * rest is the body (or the whole text when nothing follows the first line).
 */
export function toProblem(text: string, title?: string): LocalProblem {
  const normalized = text.replace(/^\uFEFF/, "");
  if (title && title.trim() !== "") return { title: title.trim(), body: normalized.trim() };
  const lines = normalized.split(/\r?\n/);
  const first = lines.findIndex((l) => l.trim() !== "");
  const firstLine = (lines[first] ?? "").replace(/^\s*#+\s*/, "").trim();
  const rest = lines.slice(first + 1).join("\n").trim();
  const cut = firstLine.length > MAX_TITLE ? `${firstLine.slice(0, MAX_TITLE - 1)}…` : firstLine;
  return { title: cut || "Untitled problem", body: rest || normalized.trim() };
}
