/**
 * What the heuristic model learns from the task message (the first user message, `agent/prompt.ts` `firstUserMessage`):
 *
 * ```
 * Problem title: <title>
 * Source: <issue|code_scanning|dispatch|local>
 * Alert location: <path>:<startLine>        ← only when the task has a location
 * <problem>
 * <sanitized body>
 * </problem>
 * ```
 *
 * Everything here is pure: the text is untrusted data, only read, never acted on beyond choosing tool arguments.
 */
import { parseStackFrames, type StackFrame } from "./frames.js";
import { crashOf, mismatchOf } from "./proportion.js";

/** The facts the heuristic extracts from a problem statement. */
export interface ProblemFacts {
  title: string;
  source: string;
  /** `Alert location: path:line`, when present. */
  alert: { path: string; line: number } | null;
  /** The text between `<problem>` and `</problem>` (or everything after the header lines). */
  body: string;
  /** Stack frames of the body, innermost first (see `parseStackFrames`). */
  frames: StackFrame[];
  /**
   * Error and warning messages, most specific first, each one line (exception first lines, `Error:` / `Warning:` lines,
   * Go `panic:`).
   */
  errorMessages: string[];
  /** Identifiers quoted in the text (backticks first, then single/double quotes), in order of first appearance. */
  identifiers: string[];
  /** File paths mentioned in prose (not inside stack frames), in order. */
  paths: string[];
  /** Distinct words for a ranked search (identifier-like, ≥ 3 characters, no stop words), at most 12. */
  searchWords: string[];
}

const STOP_WORDS = new Set(
  (
    "the and for with that this from when then than into not but are was were has have had " +
    "can could should would will error errors warning exception failed fails failing cannot " +
    "undefined null nil none true false line file files function method class object value " +
    "values reading property properties type types some any all its use used using may might " +
    "also only just get set new see our your you they them there here what which while after " +
    "before because about issue bug crash crashes problem app application code please thanks"
  ).split(" "),
);

const IDENT = /^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*$/;
const FILE_EXT =
  /\.(?:js|mjs|cjs|jsx|ts|tsx|mts|cts|py|go|java|kt|rb|cs|php|rs|c|h|cc|cpp|hpp|swift|scala|json|ya?ml|toml|md)$/i;

/** Split the task message into title, source, alert location and body. */
function splitTask(content: string): { title: string; source: string; alert: ProblemFacts["alert"]; body: string } {
  const text = content.replace(/\r\n?/g, "\n");
  const title = /^Problem title:[ \t]*(.*)$/m.exec(text)?.[1]?.trim() ?? "";
  const source = /^Source:[ \t]*(.*)$/m.exec(text)?.[1]?.trim() ?? "";
  const loc = /^Alert location:[ \t]*(.+?):(\d+)\s*$/m.exec(text);
  const alert = loc?.[1] ? { path: loc[1].trim().replace(/^\.\//, ""), line: Number(loc[2]) } : null;
  const open = text.indexOf("<problem>");
  const close = text.lastIndexOf("</problem>");
  let body: string;
  if (open >= 0) body = text.slice(open + "<problem>".length, close > open ? close : undefined);
  else body = text.replace(/^(?:Problem title|Source|Alert location):.*$/gm, "");
  return { title, source, alert, body: body.replace(/^\n+|\n+$/g, "") };
}

/**
 * Cut one line of text to at most `max` characters at a word boundary, ending in "…" (trailing punctuation before
 * the cut dropped, so no ",…" or ".…"). A word longer than a third of `max` is cut inside. Text that fits is unchanged.
 */
export function cutAtWord(text: string, max: number): string {
  if (text.length <= max) return text;
  const room = text.slice(0, Math.max(1, max - 1));
  const space = room.lastIndexOf(" ");
  const head =
    space >= (max - 1) / 3 && text[room.length] !== undefined && text[room.length] !== " "
      ? room.slice(0, space)
      : room;
  return `${head.trimEnd().replace(/[\s.,;:!?…\-–—(\[{]+$/, "")}…`;
}

/** Collapse whitespace, trim, cut at `max` characters at a word boundary with "…" (see {@link cutAtWord}). */
export function oneLine(text: string, max = 160): string {
  return cutAtWord(text.replace(/\s+/g, " ").trim(), max);
}

/**
 * A message shortened for a reader (≤ `max` characters, default 120): unchanged when it fits; else cut after its
 * last whole sentence when that keeps at least 40% of the room, otherwise at a word boundary; the cut ends in "…"
 * (the sentence's own full stop dropped).
 */
export function headlineOf(text: string, max = 120): string {
  const s = text.replace(/\s+/g, " ").trim();
  if (s.length <= max) return s;
  let end = -1;
  for (const m of s.slice(0, max).matchAll(/[.!?](?=\s)/g)) end = m.index;
  if (end >= max * 0.4) return `${s.slice(0, end)}…`;
  return cutAtWord(s, max);
}

/** The end of a line of code rather than of a message: a list item, an opened block or call, a statement. */
const CODE_END = /(?:[,{(;[]|=>)\s*$/;

/**
 * Error and warning messages of `text`, one line each, in order of appearance, without duplicates:
 * exception first lines (`TypeError: …`, `java.lang.IllegalStateException: …`, `ValueError: …`, `NoMethodError`),
 * `Error:` / `Warning:` / `WARN` lines (also after a `(node:123)` or `[TAG]` prefix), Go `panic: …`,
 * a Ruby first frame line's message (`x.rb:3:in 'm': msg (NoMethodError)`), and a crash message quoted inside a
 * sentence (`… fails with TypeError: Cannot read properties of undefined (reading 'x') when …`, see
 * {@link quotedCrashes}).
 */
export function extractErrorMessages(text: string): string[] {
  const out: string[] = [];
  const add = (s: string | undefined) => {
    const v = oneLine(s ?? "", 400);
    if (v.length >= 3 && !out.includes(v)) out.push(v);
  };
  for (const raw of text.replace(/\r\n?/g, "\n").split("\n")) {
    // quote, list and table markers, and a tool's log prefix (`🦋  error TypeError: …`, `npm ERR! Error: …`)
    const line = raw
      .trim()
      .replace(/^(?:[>*|-]\s+)+/, "")
      .replace(
        new RegExp(
          String.raw`^(?:[^\w\s(\[]{1,4}\s+)?(?:npm ERR!|error|ERR!|` +
            String.raw`err)\s+(?=(?:[A-Za-z_][\w]*\.)*[A-Z][\w$]*(?:Error|Exception)\b)`,
        ),
        "",
      );
    if (line === "" || /^at\s/.test(line) || /^File "/.test(line)) continue;
    const ruby = /^\S+\.rb:\d+:in [`'][^']+':\s*(.+)$/.exec(line);
    if (ruby) {
      add(ruby[1]);
      continue;
    }
    const exception = new RegExp(
      String.raw`^(?:Uncaught\s+|Exception in thread "[^"]*"\s+|Unhandled exception\.\s+)?((?:` +
        String.raw`[A-Za-z_][\w]*\.)*[A-Z][\w$]*(?:Error|Exception|Warning|Fault|Panic))(?::\s*(.*))?$`,
    ).exec(line);
    if (exception) {
      // `OnUsageError: UsageError,` is a line of code (a struct field), not a message
      if (!CODE_END.test(exception[2] ?? "")) add(exception[2] ? `${exception[1]}: ${exception[2]}` : exception[1]);
      continue;
    }
    const rails = /^([A-Z][\w:]*(?:Error|Exception))\s+\((.+)\):?$/.exec(line);
    if (rails) {
      add(`${rails[1]}: ${rails[2]}`);
      continue;
    }
    // A capitalised word needs its colon (`Error: x`; "Error when trying to generate types:" is prose); a log level
    // tag does not (`WARN x`). A line ending in `:` introduces what follows; one ending in `,`/`{` is code.
    const tagged = new RegExp(
      String.raw`^(?:\(node:\d+\)\s*)?(?:\[[^\]]+\]\s*)?(?:\d{4}-\d\d-\d\d[T ][\d:.,Z+-]+\s*)?(?:(?:Error|` +
        String.raw`Warning|panic|fatal error)\s*:|(?:ERROR|WARN(?:ING)?|FATAL|CRITICAL)\s*:?)\s+(.+)$`,
    ).exec(line);
    if (tagged && !/:$/.test(tagged[1] ?? "") && !CODE_END.test(tagged[1] ?? "")) {
      add(tagged[0].replace(/^\(node:\d+\)\s*/, ""));
      continue;
    }
    for (const m of quotedCrashes(line)) add(m);
  }
  return out;
}

/** Where a message quoted in a sentence may end: a clause after it, a sentence's or clause's end, a dash. */
const CLAUSE_AFTER = new RegExp(
  String.raw`\s+(?:when(?:ever)?|if|unless|until|after|before|while|once|since|because|whereas|(?:al)?though|` +
    String.raw`and|but|so|then)\s|[.!?;,](?:\s|$)|\s+[-–—]\s`,
  "g",
);

/**
 * The crash messages quoted inside a sentence of `line` ("it fails with TypeError: Cannot read properties of
 * undefined (reading 'x') when the user is deleted"): an exception name not at the line's start, a colon and its
 * message. The message ends at a backtick that closes its quote, else at the first place the sentence goes on
 * ("when"/"if"/"and"/"because"/…, `. `, `, `, `; `, a dash) where the message still says all it says up to the
 * last such place (a Java `… because "x" is null` keeps its `because`). Only a message the heuristic reads as a
 * missing value ({@link crashOf}) or a value of the wrong kind ({@link mismatchOf}) counts, so a sentence that names
 * an error in passing ("fails with ValueError: bad input") stays prose. A message at the line's start is
 * {@link extractErrorMessages}' own.
 */
function quotedCrashes(line: string): string[] {
  const out: string[] = [];
  const named = /(?<=[\s(`"[])((?:[A-Za-z_]\w*\.)*[A-Z][\w$]*(?:Error|Exception)):\s+(\S.*)$/g;
  const reading = (message: string) => JSON.stringify(crashOf(message) ?? mismatchOf(message));
  for (const m of line.matchAll(named)) {
    const rest = m[2] ?? "";
    const closing = line[m.index - 1] === "`" ? rest.indexOf("`") : -1;
    const cuts =
      closing >= 0
        ? [rest.slice(0, closing)]
        : [...[...rest.matchAll(CLAUSE_AFTER)].map((c) => rest.slice(0, c.index)), rest];
    const messages = cuts.map((c) => `${m[1]}: ${c.trim()}`);
    const readings = messages.map(reading);
    const said = readings.filter((r) => r !== "null").pop();
    if (said !== undefined) out.push(messages[readings.indexOf(said)] as string);
  }
  return out;
}

/** Names of runtime values and types an error message quotes (`of 'undefined'`, `'int' object`): never code names. */
const RUNTIME_TYPES = new Set(
  (
    "undefined null None nil NoneType NilClass int str float bool bytes " +
    "list dict tuple set object string number boolean bigint symbol function"
  ).split(" "),
);

/**
 * The text quoted identifiers are read from: fenced code blocks (a reproduction's code, a shell session, a config)
 * are left out — their quotes are the user's string values, not names of this repository's code — except the lines
 * of a block that carry an error message.
 */
function proseAndMessages(text: string): string {
  const out: string[] = [];
  let fenced = false;
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (/^\s*(?:```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    if (!fenced || extractErrorMessages(line).length > 0) out.push(line);
  }
  return out.join("\n");
}

/**
 * Identifiers quoted in `text`: backtick spans first (`` `errors` ``), then single- and double-quoted tokens
 * (`'map'`, `"userId"`), each kept when it looks like an identifier or a dotted name (≥ 2 characters, not a
 * file path). Order of first appearance; no duplicates.
 */
export function extractQuotedIdentifiers(text: string): string[] {
  const backtick: string[] = [];
  const quoted: string[] = [];
  const keep = (list: string[], s: string | undefined) => {
    // a call as written (`CsvDataReader.get_FieldCount()`) names its function; `get_X`/`set_X` is C#'s accessor of X
    const v = (s ?? "")
      .trim()
      .replace(/\(\)$/, "")
      .replace(/(^|\.)[gs]et_(?=[A-Z])/, "$1");
    if (v.length < 2 || !IDENT.test(v) || FILE_EXT.test(v) || RUNTIME_TYPES.has(v)) return;
    if (!backtick.includes(v) && !quoted.includes(v)) list.push(v);
  };
  for (const m of text.matchAll(/`([^`\n]{1,80})`/g)) keep(backtick, m[1]);
  for (const m of text.matchAll(
    /(?<![\w`])'([^'\n]{1,80})'(?!\w)|(?<![\w`])"([^"\n]{1,80})"(?!\w)|‘([^’\n]{1,80})’|“([^”\n]{1,80})”/g,
  )) {
    keep(quoted, m[1] ?? m[2] ?? m[3] ?? m[4]);
  }
  return [...backtick, ...quoted];
}

/** File paths mentioned in prose (`src/models/user.js`, `app.py`), in order; frames' lines are skipped. */
export function extractMentionedPaths(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    if (/^\s*(?:at\s|File "|from\s)/.test(raw) || /\.go:\d+\s+\+0x/.test(raw)) continue;
    for (const m of raw.matchAll(
      /(?:^|[\s(`'"[])((?:[\w.@-]+\/)*[\w.@-]+\.[A-Za-z]{1,5})(?::\d+)?(?=$|[\s)`'",:;!?\]]|\.(?:\s|$))/g,
    )) {
      const p = (m[1] ?? "").replace(/^\.\//, "");
      if (FILE_EXT.test(p) && !/^\d/.test(p) && !out.includes(p) && !/^(?:e\.g|i\.e)\./.test(p)) out.push(p);
    }
  }
  return out;
}

/**
 * Words for `search_codebase`: identifiers first, then the prose's words shaped like code names (`getUserName`,
 * `get_user`, `load()`: {@link codeShapedWords}, unquoted), then words of the messages and the title.
 */
function searchWordsOf(identifiers: string[], shaped: string[], messages: string[], title: string): string[] {
  const words: string[] = [];
  const add = (w: string) => {
    const v = w.replace(/^[^\w$]+|[^\w$]+$/g, "");
    if (v.length >= 3 && !STOP_WORDS.has(v.toLowerCase()) && !/^\d+$/.test(v) && !words.includes(v)) words.push(v);
  };
  for (const id of identifiers) for (const part of id.split(".")) add(part);
  for (const w of shaped) add(w);
  for (const text of [...messages, title]) for (const w of text.split(/[^\w$]+/)) add(w);
  return words.slice(0, 12);
}

/**
 * The words of `text` shaped like a function's name, in order, each once: camelCase or PascalCase with a lower-case
 * letter before an upper-case one (`getUserName`), snake_case (`get_user`), or a word written as a call (`load()`).
 * Plain words ("crash", "name") are left out: an issue's prose names a function in the shape of code.
 */
export function codeShapedWords(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)(\s*\()?/g)) {
    const w = m[1] as string;
    if (/[a-z][A-Z]/.test(w) || /[A-Za-z0-9]_[A-Za-z0-9]/.test(w) || (m[2] !== undefined && w.length >= 3)) out.add(w);
  }
  return [...out];
}

/**
 * The messages with the primary one first: the exception line next to the frames (the line just before a trace's
 * first frame, or just after a Python traceback's last), not a log line printed before it. Order otherwise kept.
 */
function primaryFirst(text: string, messages: string[]): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const isFrame = (i: number) => i >= 0 && i < lines.length && parseStackFrames(lines[i] ?? "").length > 0;
  const near = (i: number) =>
    isFrame(i + 1) || (/^\s*(?:[>|]\s*)*\S/.test(lines[i] ?? "") && [1, 2, 3].some((d) => isFrame(i - d)));
  const primary = messages.filter((m) =>
    lines.some((l, i) => oneLine(l, 400).includes(m.replace(/^.*?:\s/, "").slice(0, 60)) && near(i)),
  );
  return [...primary, ...messages.filter((m) => !primary.includes(m))];
}

/**
 * Parse the task message into {@link ProblemFacts}. Title, error messages and identifiers come from the title
 * and the body; frames only from the body. Never throws; unknown formats give empty lists.
 */
export function parseProblem(content: string): ProblemFacts {
  const { title, source, alert, body } = splitTask(content);
  // A title may quote the top frame (`NoMethodError … (from gems/x-1.0/lib/x.rb:3:in 'm')`): used when the body has
  // none.
  const bodyFrames = parseStackFrames(body);
  const frames = bodyFrames.length ? bodyFrames : parseStackFrames(title);
  const errorMessages = primaryFirst(body, extractErrorMessages(body));
  for (const m of extractErrorMessages(title)) if (!errorMessages.includes(m)) errorMessages.push(m);
  const prose = proseAndMessages(`${title}\n${body}`);
  const identifiers = extractQuotedIdentifiers(prose);
  const paths = extractMentionedPaths(`${title}\n${body}`);
  return {
    title,
    source,
    alert,
    body,
    frames,
    errorMessages,
    identifiers,
    paths,
    searchWords: searchWordsOf(identifiers, codeShapedWords(prose), errorMessages, title),
  };
}
