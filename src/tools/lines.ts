/**
 * The lines of `content` as an editor shows them: split at LF, a CR before the LF dropped (CRLF files), and no extra
 * empty line after a final line break. "" has no lines.
 */
export function splitLines(content: string): string[] {
  if (content === "") return [];
  const lines = content.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
}

/** `  12| text`: the line number right-aligned to `width` (at least 4), `| `, then the line. */
export function numberLine(lineNumber: number, text: string, width: number): string {
  return `${String(lineNumber).padStart(Math.max(4, width))}| ${text}`;
}
