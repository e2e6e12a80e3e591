/**
 * Writing the clarifying addition in the file's own style: its logger when it has one, else the language's plain
 * stderr/console print; the anchor line's indentation; a comment that names the problem; the function name and the
 * values involved. Problem text is untrusted: it only ever lands inside an escaped string literal or a comment.
 */
import type { CodeLanguage, Enclosing } from "./code.js";
import { cutAtWord } from "./problem.js";

/** How the file logs: the receiver expression (`logger`, `this.log`, `Rails.logger`, `LOG`) and the method to call. */
export interface LogStyle {
  receiver: string;
  method: string;
  /**
   * `printf`: a format string with `%v`/`%r` verbs and arguments; `concat`: one string built with `+`/interpolation;
   * `args`: message then values.
   */
  form: "printf" | "concat" | "args";
}

const JS_LEVELS = ["warn", "error", "info", "debug", "log"];

/** The first of `preferred` that the file calls on `receiver`, else null. */
function levelSeen(content: string, receiver: string, preferred: readonly string[]): string | null {
  const esc = receiver.replace(/[.$@]/g, (c) => `\\${c}`);
  for (const level of preferred) {
    if (new RegExp(`(?:^|[^\\w.$@])${esc}\\.${level}\\s*\\(`, "m").test(content)) return level;
  }
  return null;
}

/**
 * The logging call the file already uses, in order of preference: a project logger (JS `logger.`/`log.`, Python
 * `logger.`/`log.`/`logging.`, Go `log.`/`logger.` with a printf method, Ruby `Rails.logger`/`logger`/`@logger`,
 * Java/Kotlin `LOG`/`LOGGER`/`logger`/`log`, C# `_logger`/`logger` with `Log*`), else the plain print of the language
 * (`console.warn|error`, `print(..., file=sys.stderr)` or `print`, `fmt.Fprintf(os.Stderr, …)` or `println`,
 * `warn`, `System.err.println`, `System.Console.Error.WriteLine`). Instance receivers (`this.`, `self.`, `@`) are
 * used only when `instance` is true (the addition lands in an instance method).
 *
 * @param content the lines of the file the tools showed, joined with `\n`
 */
export function detectLogStyle(
  content: string,
  lang: CodeLanguage,
  instance: boolean,
  severity: "warn" | "error",
): LogStyle {
  const pref = severity === "warn" ? ["warn", "warning", "error"] : ["error", "warn", "warning"];
  const tryReceivers = (
    receivers: readonly string[],
    levels: readonly string[],
    form: LogStyle["form"],
  ): LogStyle | null => {
    for (const receiver of receivers) {
      if (!instance && /^(?:this\.|self\.|@)/.test(receiver)) continue;
      const method = levelSeen(content, receiver, levels);
      if (method) return { receiver, method, form };
    }
    return null;
  };
  switch (lang) {
    case "javascript":
    case "typescript": {
      const own = tryReceivers(["logger", "log", "this.logger", "this.log"], [...pref, ...JS_LEVELS], "args");
      // A well-known logging library has warn and error; a home-made logger only surely has what the file calls.
      if (own && /(?:require\(|from\s+)['"](?:winston|pino|bunyan|log4js|loglevel|@nestjs\/common)['"]/.test(content))
        return { ...own, method: severity };
      if (own) return own;
      return { receiver: "console", method: severity, form: "args" };
    }
    case "python": {
      // A module logger the file declares (`logger = logging.getLogger(__name__)`) has every level, called or not.
      const declared = /^(\w+)\s*=\s*logging\.getLogger\(/m.exec(content)?.[1];
      if (declared) return { receiver: declared, method: severity === "warn" ? "warning" : "error", form: "printf" };
      const own = tryReceivers(
        ["logger", "log", "LOGGER", "LOG", "self.logger", "self.log"],
        [...pref, "exception", "info", "debug"],
        "printf",
      );
      // A stdlib logger (`x = logging.getLogger(...)`) has every level: use the one the problem calls for.
      if (
        own &&
        new RegExp(`^\\s*${own.receiver.replace(".", "\\.")}\\s*=\\s*logging\\.getLogger\\(`, "m").test(content)
      ) {
        return { ...own, method: severity === "warn" ? "warning" : "error" };
      }
      if (own) return own;
      if (/^\s*import\s+logging\b/m.test(content))
        return { receiver: "logging", method: severity === "warn" ? "warning" : "error", form: "printf" };
      if (/^\s*import\s+(?:[\w, ]+,\s*)?sys\b/m.test(content))
        return { receiver: "print", method: "sys.stderr", form: "args" };
      return { receiver: "print", method: "", form: "args" };
    }
    case "go": {
      if (/^\s*(?:import\s+)?(?:\w+\s+)?"log"\s*$/m.test(content) || /^import\s+"log"/m.test(content))
        return { receiver: "log", method: "Printf", form: "printf" };
      const own = tryReceivers(
        ["logger", "s.logger", "s.log", "h.logger", "h.log"],
        ["Warnf", "Errorf", "Printf", "Infof"],
        "printf",
      );
      if (own) return own;
      if (/"fmt"/.test(content) && /"os"/.test(content)) return { receiver: "fmt", method: "Fprintf", form: "printf" };
      return { receiver: "println", method: "", form: "concat" };
    }
    case "ruby": {
      const own = tryReceivers(
        ["Rails.logger", "logger", "@logger", "self.logger"],
        [...pref, "info", "debug"],
        "concat",
      );
      // Rails.logger and Ruby's ::Logger have every level.
      if (own && (own.receiver === "Rails.logger" || /\bLogger\.new\b/.test(content)))
        return { ...own, method: severity };
      if (own) return own;
      return { receiver: "warn", method: "", form: "concat" };
    }
    case "java":
    case "kotlin": {
      const declared = /\bLogger\s+(\w+)\s*=|\b(?:val|var)\s+(\w+)\s*(?::\s*\w*Logger\b|=\s*\w*Logger)/.exec(content);
      const names = [declared?.[1] ?? declared?.[2], "LOG", "LOGGER", "logger", "log"].filter((n): n is string => !!n);
      // A declared SLF4J/Log4j/java.util.logging logger has every level, called or not.
      const factory = declared
        ? new RegExp(`\\b${declared[1] ?? declared[2]}\\s*=\\s*(LoggerFactory|LogManager|Logger)\\.getLogger\\(`).exec(
            content,
          )?.[1]
        : undefined;
      if (factory)
        return {
          receiver: declared?.[1] ?? declared?.[2] ?? "",
          method: factory === "Logger" ? (severity === "warn" ? "warning" : "severe") : severity,
          form: "concat",
        };
      const own = tryReceivers(names, [...pref, "severe", "info", "debug", "fine"], "concat");
      // SLF4J / Log4j loggers have warn and error; java.util.logging has warning and severe.
      if (own && /\b(?:LoggerFactory|LogManager)\.getLogger\(/.test(content)) return { ...own, method: severity };
      if (own && /\bLogger\.getLogger\(/.test(content))
        return { ...own, method: severity === "warn" ? "warning" : "severe" };
      if (own) return own;
      return { receiver: "System.err", method: "println", form: "concat" };
    }
    case "csharp": {
      const own = tryReceivers(
        ["_logger", "logger", "_log", "Logger"],
        severity === "warn"
          ? ["LogWarning", "LogError", "LogInformation"]
          : ["LogError", "LogWarning", "LogInformation", "LogDebug"],
        "concat",
      );
      // Microsoft.Extensions.Logging's ILogger has every Log* level.
      if (own && /\bILogger\b/.test(content))
        return { ...own, method: severity === "warn" ? "LogWarning" : "LogError" };
      if (own) return own;
      return { receiver: "System.Console.Error", method: "WriteLine", form: "concat" };
    }
  }
}

/** Untrusted text made safe for one line of code: printable, whitespace collapsed, trimmed unless `keepEnds`. */
function clean(text: string, keepEnds = false): string {
  const s = text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, " ").replace(/\s+/g, " ");
  return keepEnds ? s : s.trim();
}

/** `text` (already clean) cut at a word boundary to at most `max` characters, ending in "…" when cut. */
function fitWords(text: string, max: number): string {
  return text.length <= max ? text : cutAtWord(text, Math.max(max, 1));
}

/** A double-quoted string literal of `lang` holding `text` literally (no interpolation, no format verbs left raw). */
export function stringLiteral(text: string, lang: CodeLanguage, options: { printf?: boolean } = {}): string {
  let s = text.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  if (options.printf) s = s.replace(/%/g, "%%");
  if (lang === "ruby") s = s.replace(/#(?=[{$@])/g, "\\#");
  if (lang === "kotlin") s = s.replace(/\$/g, "\\$");
  return `"${s}"`;
}

/**
 * A line of text in three parts: `head` and `tail` are kept whole; `text` (the part quoted from the problem) is cut
 * at a word boundary so the finished line of code stays within {@link MAX_ADDED_LINE} characters. All three are
 * treated as untrusted (control characters removed, escaped for the literal or comment they land in).
 */
export interface FittedText {
  head: string;
  text: string;
  tail: string;
}

/** Longest added line, in characters after the indentation, that the heuristic aims for (comment and log line). */
export const MAX_ADDED_LINE = 120;

/**
 * One piece of cheap context for a log line: `label` is printed, `expr` (an expression of the file's language) is
 * evaluated. Only ids (their value), lengths and type names are ever logged, never whole objects (see `context.ts`).
 * `type`: Go prints it with `%T` (then `expr` is the variable itself); Python with `%s`.
 */
export interface ContextValue {
  label: string;
  expr: string;
  type?: boolean;
}

/**
 * The shape of the clarifying addition:
 * - `log`: a comment, then a log line (runs every time the statement below runs);
 * - `guard`: inside `if <condition>` (`open` … `close` lines; Ruby: a trailing `if <cond>`
 *   modifier in `suffix`), the {@link GuardExit}: it runs only when the value the crash needs is missing, and it
 *   leaves the function (never logs and runs on into the same crash);
 * - `comment`: comment lines only (the finding, then `fix` when given: what to change), no runtime change.
 */
export type AdditionShape =
  | { kind: "log" }
  | { kind: "guard"; open: string[]; close: string[]; inner: string; suffix?: string; exit: GuardExit }
  | { kind: "comment"; fix?: FittedText };

/**
 * How a guard leaves when the value is missing: `throw` an error whose message names the value, the function and
 * the cheap context in scope (the language's usual error type: JS `TypeError`, Python `ValueError` (`TypeError` for a
 * value of the wrong kind: `wrongType`), Go `panic` (through `fmt.Sprintf` or `log.Panicf` when the file imports
 * them) or, in a function whose last result is `error` (`goReturn`: the zero values returned before it),
 * `return …, fmt.Errorf(…)` (`goFmt`), else `return …, errors.New(…)` when the file uses package errors
 * (`goErrors`; the message only), Java `IllegalArgumentException` for a parameter else `IllegalStateException`,
 * Kotlin the same without `new`, C# `ArgumentNullException`/`InvalidOperationException`, Ruby `ArgumentError`); or
 * `return` the value the function's own guards return (`value` is that expression verbatim, "" for a bare return);
 * or `skip` the item of the loop around the guard (`continue`, Ruby `next`: see `loop-skip.ts`).
 */
export type GuardExit =
  | {
      kind: "throw";
      parameter: boolean;
      goReturn?: string[];
      goFmt?: boolean;
      goErrors?: boolean;
      goLog?: boolean;
      wrongType?: boolean;
    }
  | { kind: "return"; value: string }
  | { kind: "skip" };

/** Inputs of the clarifying addition. */
export interface AdditionInput {
  lang: CodeLanguage;
  indent: string;
  style: LogStyle;
  /** The comment after `groundfix: `: names the problem and the evidence that ties it to this place. */
  note: FittedText;
  /** The log message after `[groundfix] `: where it runs and what was reported. */
  message: FittedText;
  /** Cheap context to print (ids, lengths, type names), at most 3 used. */
  values: ContextValue[];
  /** Default `{ kind: "log" }`. */
  shape?: AdditionShape;
}

/** A JS template literal body: `text` literally (backslashes, backticks and `${` escaped). */
const templateText = (text: string) => text.replace(/\\/g, "\\\\").replace(/`/g, "\\`").replace(/\$\{/g, "\\${");

/** The statement (without indentation) that leaves a guard: see {@link GuardExit}. */
function exitStatement(lang: CodeLanguage, exit: GuardExit, message: string, values: readonly ContextValue[]): string {
  const semi = lang === "python" || lang === "ruby" || lang === "go" || lang === "kotlin" ? "" : ";";
  if (exit.kind === "return") return `return${exit.value ? ` ${exit.value}` : ""}${semi}`;
  if (exit.kind === "skip") return lang === "ruby" ? "next" : `continue${semi}`;
  switch (lang) {
    case "javascript":
    case "typescript": {
      const ctx = values.map((v) => `${templateText(v.label)}: \${${v.expr}}`).join(", ");
      return `throw new TypeError(\`${templateText(message)}${ctx ? ` (${ctx})` : ""}\`);`;
    }
    case "python": {
      const error = exit.wrongType ? "TypeError" : "ValueError";
      if (!values.length) return `raise ${error}(${stringLiteral(message, lang)})`;
      const brace = (t: string) => t.replace(/[{}]/g, (c) => c + c);
      const ctx = values.map((v) => `${brace(v.label)}={${v.expr}${v.type ? "" : "!r"}}`).join(", ");
      return `raise ${error}(f${stringLiteral(`${brace(message)} (`, lang).slice(0, -1)}${ctx})")`;
    }
    case "go": {
      const verbs = values.map((v) => ` ${v.label}=${v.type ? "%T" : "%v"}`).join("");
      const args = values.map((v) => `, ${v.expr}`).join("");
      const fmtLit = `${stringLiteral(message, lang, { printf: true }).slice(0, -1)}${verbs}"`;
      if (exit.goReturn && exit.goFmt) return `return ${[...exit.goReturn, `fmt.Errorf(${fmtLit}${args})`].join(", ")}`;
      if (exit.goReturn && exit.goErrors)
        return `return ${[...exit.goReturn, `errors.New(${stringLiteral(message, lang)})`].join(", ")}`;
      if (exit.goFmt && values.length) return `panic(fmt.Sprintf(${fmtLit}${args}))`;
      if (exit.goLog && values.length) return `log.Panicf(${fmtLit}${args})`;
      return `panic(${stringLiteral(message, lang)})`;
    }
    case "ruby": {
      const lit = stringLiteral(message, lang);
      const interp = values.map((v) => ` ${v.label}=#{${v.expr}}`).join("");
      return `raise ArgumentError, ${interp ? `${lit.slice(0, -1)}${interp}"` : lit}`;
    }
    case "java":
    case "kotlin":
    case "csharp": {
      const text = [
        stringLiteral(message, lang),
        ...values.map((v) => `${stringLiteral(` ${v.label}=`, lang)} + ${v.expr}`),
      ].join(" + ");
      const type =
        lang === "csharp"
          ? "InvalidOperationException"
          : exit.parameter
            ? "IllegalArgumentException"
            : "IllegalStateException";
      return `throw ${lang === "kotlin" ? "" : "new "}${type}(${text})${semi}`;
    }
  }
}

/** The logging statement (without indentation) printing `message` and `values` in `lang` and `style`. */
function logCall(lang: CodeLanguage, style: LogStyle, message: string, values: readonly ContextValue[]): string {
  const semi = lang === "python" || lang === "ruby" || lang === "go" || lang === "kotlin" ? "" : ";";
  let call: string;
  switch (lang) {
    case "javascript":
    case "typescript": {
      const obj = values.length
        ? `, { ${values.map((v) => (v.expr === v.label ? v.label : `${v.label}: ${v.expr}`)).join(", ")} }`
        : "";
      call = `${style.receiver}.${style.method}(${stringLiteral(message, lang)}${obj})`;
      break;
    }
    case "python": {
      if (style.receiver === "print") {
        const args = values
          .map((v) => `${stringLiteral(`${v.label}=`, lang)}, ${v.type ? v.expr : `repr(${v.expr})`}`)
          .join(", ");
        const file = style.method ? ", file=sys.stderr" : "";
        call = `print(${stringLiteral(message, lang)}${args ? `, ${args}` : ""}${file})`;
      } else {
        const fmt =
          `${message.replace(/%/g, "%%")}` + `${values.map((v) => ` ${v.label}=${v.type ? "%s" : "%r"}`).join("")}`;
        call =
          `${style.receiver}.${style.method}(${stringLiteral(fmt, lang)}` +
          `${values.map((v) => `, ${v.expr}`).join("")})`;
      }
      break;
    }
    case "go": {
      if (style.receiver === "println") {
        const shown = values.filter((v) => !v.type).map((v) => `${stringLiteral(` ${v.label}=`, lang)}, ${v.expr}`);
        call = `println(${[stringLiteral(message, lang), ...shown].join(", ")})`;
      } else {
        const fmt =
          stringLiteral(message, lang, { printf: true }).slice(0, -1) +
          values.map((v) => ` ${v.label}=${v.type ? "%T" : "%v"}`).join("");
        const lit = `${fmt}${style.receiver === "fmt" ? "\\n" : ""}"`;
        const head = style.receiver === "fmt" ? "fmt.Fprintf(os.Stderr, " : `${style.receiver}.${style.method}(`;
        call = `${head}${lit}${values.map((v) => `, ${v.expr}`).join("")})`;
      }
      break;
    }
    case "ruby": {
      const lit = stringLiteral(message, lang);
      const interp = values.map((v) => ` ${v.label}=#{${v.expr}}`).join("");
      const text = interp ? `${lit.slice(0, -1)}${interp}"` : lit;
      call = style.receiver === "warn" ? `warn ${text}` : `${style.receiver}.${style.method}(${text})`;
      break;
    }
    case "java":
    case "kotlin":
    case "csharp": {
      const parts = [
        stringLiteral(message, lang),
        ...values.map((v) => `${stringLiteral(` ${v.label}=`, lang)} + ${v.expr}`),
      ];
      call = `${style.receiver}.${style.method}(${parts.join(" + ")})`;
      break;
    }
  }
  return `${call}${semi}`;
}

/**
 * Build a line of at most {@link MAX_ADDED_LINE} characters from `make(text)`, with `text` cut at a word boundary
 * as little as possible (binary search on the room; never below `min` characters); null when even that does not fit.
 */
function fitLine(text: string, min: number, make: (text: string) => string): string | null {
  const whole = make(text);
  if (whole.length <= MAX_ADDED_LINE) return whole;
  let best: string | null = null;
  let lo = Math.min(min, text.length);
  let hi = text.length - 1;
  while (lo <= hi) {
    const room = Math.floor((lo + hi) / 2);
    const line = make(fitWords(text, room));
    if (line.length <= MAX_ADDED_LINE) {
      best = line;
      lo = room + 1;
    } else hi = room - 1;
  }
  return best;
}

/**
 * The lines of the clarifying addition (without line breaks), already indented, by {@link AdditionShape}: a guard
 * alone (its error message names the value and the function, so no comment restates it); else one comment naming
 * the problem (`groundfix: <note>`), then a logging statement that prints `[groundfix] <message>` and the cheap
 * context values, or a second comment line with the fix options.
 * Each line aims at {@link MAX_ADDED_LINE} characters after the indentation. The log line keeps the whole message
 * and drops values from the end (down to none) first; only a message too long even alone is cut at a word boundary
 * (with one value, then none). Comments cut their quoted text at a word boundary.
 */
export function buildAddition(input: AdditionInput): string[] {
  const { lang, indent, style } = input;
  const shape = input.shape ?? { kind: "log" };
  const marker = lang === "python" || lang === "ruby" ? "#" : "//";
  const commentLine = (head: string, raw: FittedText) => {
    const n = {
      head: clean(raw.head, true),
      text: clean(raw.text).replace(/[.,;:]+$/, ""),
      tail: clean(raw.tail, true),
    };
    return (
      fitLine(n.text, 24, (t) => `${marker} ${head}${n.head}${t}${n.tail}`.replace(/\*\//g, "* /")) ??
      `${marker} ${head}${n.head}${fitWords(n.text, 24)}${n.tail}`.replace(/\*\//g, "* /")
    );
  };
  const note = commentLine("groundfix: ", input.note);
  if (shape.kind === "comment")
    return shape.fix ? [`${indent}${note}`, `${indent}${commentLine("", shape.fix)}`] : [`${indent}${note}`];
  const m = {
    head: clean(input.message.head, true),
    text: clean(input.message.text),
    tail: clean(input.message.tail, true),
  };
  const values = input.values.slice(0, 3);
  const suffix = shape.kind === "guard" ? (shape.suffix ?? "") : "";
  const make = (keep: number) => (t: string) =>
    shape.kind === "guard"
      ? `${exitStatement(lang, shape.exit, `${m.head}${t}${m.tail}`, values.slice(0, keep))}${suffix}`
      : `${logCall(lang, style, `[groundfix] ${m.head}${t}${m.tail}`, values.slice(0, keep))}${suffix}`;
  // The whole message with as many values as fit (maybe none); else the message cut with one value; else none.
  let call: string | null = null;
  // The message says what went wrong: keep it whole, dropping values (down to none) first.
  for (let keep = values.length; keep >= 0 && call === null; keep--) {
    const whole = make(keep)(m.text);
    if (whole.length <= MAX_ADDED_LINE) call = whole;
  }
  call ??=
    fitLine(m.text, 32, make(Math.min(1, values.length))) ??
    fitLine(m.text, 32, make(0)) ??
    make(0)(fitWords(m.text, 32));
  // A guard says what went wrong in its own error message: no comment line restating it (a maintainer deletes it).
  if (shape.kind === "guard" && !shape.suffix) {
    return [
      ...shape.open.map((l) => `${indent}${l}`),
      `${indent}${shape.inner}${call}`,
      ...shape.close.map((l) => `${indent}${l}`),
    ];
  }
  if (shape.kind === "guard") return [`${indent}${call}`];
  return [`${indent}${note}`, `${indent}${call}`];
}
