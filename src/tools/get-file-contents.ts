import { z } from "zod";
import type { ToolDefinition } from "./types.js";
import { splitLines } from "../grounding/lines.js";
import { renderWindowLines, type WindowLine } from "./results.js";
import { clipLine, finish, MAX_LINE_CHARS } from "./output.js";
import { resolveTextFile } from "./serve.js";

/** Most lines one `get_file_contents` call returns. */
export const MAX_WINDOW_LINES = 400;

const schema = z.object({
  path: z.string().min(1).max(4096).describe("Repository-relative file path, e.g. src/app.ts"),
  start_line: z.number().int().min(1).optional().describe("First line to show (1-based). Default 1."),
  end_line: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(`Last line to show (inclusive). Default start_line + ${MAX_WINDOW_LINES - 1}.`),
});

/**
 * `get_file_contents({ path, start_line?, end_line? })`: the lines of a window of a text file, formatted
 * `  12| text`, at most {@link MAX_WINDOW_LINES} lines, with the total line count. CRLF files are shown without the
 * CRs (the header says the file uses CRLF). The window returned is recorded in `ctx.reads`. Missing paths answer
 * `not_found` with the nearest real paths; binary, too-large, symlink, submodule, LFS and secret files say why they
 * are not served.
 */
export const getFileContents: ToolDefinition<z.infer<typeof schema>> = {
  name: "get_file_contents",
  description:
    `Read a text file of the repository at the pinned commit, as numbered ` +
    `lines "  12| text" (the number and "| " are not part of the file). ` +
    `At most ${MAX_WINDOW_LINES} lines per call; use start_line/end_line to page, and ` +
    `read the window around the lines you care about rather than whole large files. ` +
    "Read before you edit: suggest_addition accepts code_before only from lines read with this tool in this run, " +
    "copied exactly without the prefixes.",
  schema,
  readsCode: true,
  run(args, ctx) {
    const file = resolveTextFile(ctx.snapshot, args.path, "get_file_contents");
    if (!file.ok) return finish(ctx.snapshot, file.result);
    const lines = splitLines(file.content);
    const total = lines.length;
    const crlf = file.content.includes("\r\n") ? ", CRLF line endings" : "";
    if (total === 0) {
      return finish(ctx.snapshot, {
        status: "ok",
        text: `${file.path}: empty file (0 lines)`,
        data: { tool: "get_file_contents", path: file.path, startLine: 1, endLine: 0, totalLines: 0, lines: [] },
      });
    }
    const start = args.start_line ?? 1;
    if (start > total) {
      return finish(ctx.snapshot, {
        status: "invalid",
        text:
          `INVALID: ${file.path} has ${total} lines; start_line ${start} is past the end. Call again with ` +
          `start_line between 1 and ${total}.`,
      });
    }
    if (args.end_line !== undefined && args.end_line < start) {
      return finish(ctx.snapshot, {
        status: "invalid",
        text:
          `INVALID: end_line ${args.end_line} is before start_line ${start}. Call again with end_line ≥ ` +
          `start_line.`,
      });
    }
    const wantedEnd = Math.min(args.end_line ?? start + MAX_WINDOW_LINES - 1, total);
    const end = Math.min(wantedEnd, start + MAX_WINDOW_LINES - 1);
    const window: WindowLine[] = lines
      .slice(start - 1, end)
      .map((line, i) => ({ line: start + i, text: clipLine(line), clipped: line.length > MAX_LINE_CHARS }));
    const header = `${file.path} (lines ${start}-${end} of ${total}${crlf})`;
    const more =
      end < total
        ? [
            `… ${total - end} more lines not ` +
              `shown${end < wantedEnd ? ` (window capped at ${MAX_WINDOW_LINES} lines)` : ""}; ` +
              `call again with start_line=${end + 1}`,
          ]
        : [];
    ctx.reads.record({ path: file.path, startLine: start, endLine: end });
    return finish(ctx.snapshot, {
      status: "ok",
      text: [header, ...renderWindowLines(window), ...more].join("\n"),
      data: {
        tool: "get_file_contents",
        path: file.path,
        startLine: start,
        endLine: end,
        totalLines: total,
        lines: window,
      },
    });
  },
};
