/** `  12| text`: the line number right-aligned to `width` (at least 4), `| `, then the line. */
export function numberLine(lineNumber: number, text: string, width: number): string {
  return `${String(lineNumber).padStart(Math.max(4, width))}| ${text}`;
}
