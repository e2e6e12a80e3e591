import type { ReadLog, ReadWindow } from "../types.js";

/**
 * A fresh, empty read log for one run. `record` keeps each window (1-based inclusive lines); `covers(path, a, b)` is
 * true when the union of the windows of `path` includes every line from `a` to `b` (an empty range, b < a, is
 * covered once the file has any window); `windows()` returns the recorded windows in call order (copies).
 */
export function createReadLog(): ReadLog {
  const list: ReadWindow[] = [];
  return {
    record(window: ReadWindow): void {
      list.push({ path: window.path, startLine: window.startLine, endLine: window.endLine });
    },
    covers(path: string, startLine: number, endLine: number): boolean {
      const mine = list.filter((w) => w.path === path).sort((a, b) => a.startLine - b.startLine);
      if (mine.length === 0) return false;
      if (endLine < startLine) return true;
      let next = startLine;
      for (const w of mine) {
        if (w.startLine > next) break;
        next = Math.max(next, w.endLine + 1);
        if (next > endLine) return true;
      }
      return next > endLine;
    },
    windows(): ReadWindow[] {
      return list.map((w) => ({ ...w }));
    },
  };
}
