/** Text styling for terminal output: ANSI codes only when the stream is a TTY and NO_COLOR is unset. */
export interface Style {
  bold(text: string): string;
  dim(text: string): string;
  green(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/** A {@link Style} for `stream` (colour only on a TTY, and never when NO_COLOR is set: https://no-color.org). */
export function styleFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): Style {
  const on = Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== "dumb";
  const wrap = (open: number, close: number) => (text: string) =>
    on ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    green: wrap(32, 39),
    red: wrap(31, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}

/** Colour the lines of a unified diff (+ green, - red, @@ cyan). */
export function colorDiff(diff: string, style: Style): string {
  return diff
    .split("\n")
    .map((line) =>
      line.startsWith("+++") || line.startsWith("---")
        ? style.bold(line)
        : line.startsWith("+")
          ? style.green(line)
          : line.startsWith("-")
            ? style.red(line)
            : line.startsWith("@@")
              ? style.cyan(line)
              : line,
    )
    .join("\n");
}
