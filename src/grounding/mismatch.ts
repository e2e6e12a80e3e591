/**
 * Naming why a snippet does not match a region it almost matches. Each known cause is a normaliser applied to both the
 * snippet and the region; the cause is named when normalising makes the snippet occur in the region. The causes are
 * the usual ways a model's copy of code drifts from the file: tabs vs spaces, trailing whitespace, a non-breaking or
 * other unicode space, curly vs straight quotes, a literal "\n" typed where a line break was meant, a byte-order mark.
 * Line endings are told apart before this step (see `diagnose.ts`). Pure; works on small strings only.
 */

/** Unicode characters that look like (or hide as) a space: NBSP, Ogham, en/em/thin/hair spaces, narrow NBSP, etc. */
const UNICODE_SPACES = /[\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000]/g;
/** Characters that show as nothing: zero-width space/joiners, word joiner, BOM used as ZWNBSP. */
const INVISIBLES = /[\u200B-\u200D\u2060\uFEFF]/g;
const CURLY_SINGLE = /[\u2018\u2019\u201A\u201B\u2032]/g;
const CURLY_DOUBLE = /[\u201C\u201D\u201E\u201F\u2033]/g;

/** A literal backslash-n (or backslash-r-backslash-n) typed where a line break was meant. */
const LITERAL_NEWLINE = /\\r\\n|\\n/g;

/** `text` with each literal "\n" (and "\r\n") written as a real line break. */
export function unescapeNewlines(text: string): string {
  return text.replace(LITERAL_NEWLINE, "\n");
}

/** The cause named when code_before has a literal "\n" where the file has a line break. */
export const LITERAL_NEWLINE_CAUSE =
  'a literal "\\n" (code_before has backslash + n where the file has a line break; send real line breaks)';
/** The cause named when code_before holds a byte-order mark the file does not have there. */
export const SNIPPET_BOM_CAUSE = "a byte-order mark (code_before contains U+FEFF, which the file does not have there)";

const SPACE_NAMES: Record<string, string> = {
  "\u00A0": "NO-BREAK SPACE",
  "\u202F": "NARROW NO-BREAK SPACE",
  "\u2007": "FIGURE SPACE",
  "\u2009": "THIN SPACE",
  "\u3000": "IDEOGRAPHIC SPACE",
  "\u200B": "ZERO WIDTH SPACE",
  "\u200C": "ZERO WIDTH NON-JOINER",
  "\u200D": "ZERO WIDTH JOINER",
  "\u2060": "WORD JOINER",
  "\uFEFF": "ZERO WIDTH NO-BREAK SPACE (BOM)",
};

/**
 * Normalise one line for the nearest-region search: unicode spaces and quotes made plain, whitespace collapsed,
 * trimmed.
 */
export function looseText(text: string): string {
  return text
    .replace(UNICODE_SPACES, " ")
    .replace(INVISIBLES, "")
    .replace(CURLY_SINGLE, "'")
    .replace(CURLY_DOUBLE, '"')
    .replace(/[ \t\r\f\v]+/g, " ");
}

interface Normaliser {
  id: string;
  apply(text: string): string;
  /** The cause as a noun phrase, with a detail taken from the region (`firstLine` is the region's first line). */
  describe(snippet: string, region: string, firstLine: number): string;
}

const codePoint = (ch: string) => "U+" + ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
const spaceName = (ch: string) => `${codePoint(ch)} ${SPACE_NAMES[ch] ?? "SPACE"}`;

/** 1-based line (counted from `firstLine`) of the first match of `re` in `text`, and the matched text. */
function firstHit(text: string, re: RegExp, firstLine: number): { line: number; hit: string } | null {
  const m = new RegExp(re.source, re.flags.replace("g", "")).exec(text);
  if (!m) return null;
  let line = firstLine;
  for (let i = text.indexOf("\n"); i !== -1 && i < m.index; i = text.indexOf("\n", i + 1)) line++;
  return { line, hit: m[0] };
}

const NORMALISERS: readonly Normaliser[] = [
  {
    id: "literal-newline",
    apply: unescapeNewlines,
    describe: () => LITERAL_NEWLINE_CAUSE,
  },
  {
    id: "bom",
    apply: (t) => t.replaceAll("\uFEFF", ""),
    describe: (s) => (s.includes("\uFEFF") ? SNIPPET_BOM_CAUSE : "a byte-order mark (the file has U+FEFF there)"),
  },
  {
    id: "indentation",
    apply: (t) => t.replace(/^[ \t]+/gm, ""),
    describe: (s, r) => {
      // Compare the indentation of the lines that differ (line i of the snippet with line i of the region; a first
      // snippet line without indentation may be a partial line and is skipped).
      const indent = (l: string) => /^[ \t]*/.exec(l)![0];
      const rl = r.split("\n");
      const pairs = s
        .split("\n")
        .map((l, i) => [indent(l), indent(rl[i] ?? "")] as const)
        .filter(([a, b], i) => a !== b && (i > 0 || a !== ""));
      if (pairs.length > 0 && pairs.every(([a, b]) => b.includes("\t") && !a.includes("\t")))
        return "indentation (the file uses tabs)";
      if (pairs.length > 0 && pairs.every(([a, b]) => a.includes("\t") && !b.includes("\t")))
        return "indentation (the file uses spaces)";
      return "indentation (the file indents these lines by a different amount)";
    },
  },
  {
    id: "trailing-whitespace",
    apply: (t) => t.replace(/[ \t]+$/gm, ""),
    describe: (_s, r, firstLine) => {
      const hit = firstHit(r, /[ \t]+$/m, firstLine);
      return hit
        ? `trailing whitespace (the file has trailing whitespace on line ${hit.line})`
        : "trailing whitespace (code_before has trailing whitespace that the file does not have)";
    },
  },
  {
    id: "unicode-space",
    apply: (t) => t.replace(UNICODE_SPACES, " ").replace(INVISIBLES, ""),
    describe: (s, r, firstLine) => {
      const both = new RegExp(`${UNICODE_SPACES.source}|${INVISIBLES.source}`);
      const inFile = firstHit(r, both, firstLine);
      if (inFile)
        return (
          `a unicode space (the file has ${spaceName(inFile.hit)} on line ${inFile.line} where code_before has ` +
          `a plain space or nothing)`
        );
      const inSnippet = firstHit(s, both, 1);
      return (
        `a unicode space (code_before has ${spaceName(inSnippet?.hit ?? "\u00A0")} where the file has a plain ` +
        `space or nothing)`
      );
    },
  },
  {
    id: "quotes",
    apply: (t) => t.replace(CURLY_SINGLE, "'").replace(CURLY_DOUBLE, '"'),
    describe: (s, r, firstLine) => {
      const curly = new RegExp(`${CURLY_SINGLE.source}|${CURLY_DOUBLE.source}`);
      const inFile = firstHit(r, curly, firstLine);
      if (inFile)
        return (
          `curly vs straight quotes (the file has ${inFile.hit} on line ${inFile.line}; code_before has a ` +
          `straight quote)`
        );
      const inSnippet = firstHit(s, curly, 1);
      return (
        `curly vs straight quotes (code_before has ${inSnippet?.hit ?? "a curly quote"}; the file has a ` +
        `straight quote)`
      );
    },
  },
  {
    id: "inner-whitespace",
    apply: (t) => t.replace(/[ \t]+/g, " "),
    describe: () => "spacing inside a line (spaces or tabs between tokens)",
  },
];

/**
 * Why `snippet` does not occur in `region` (both LF, the region being the real text of lines `firstLine`…), as a list
 * of noun phrases ("indentation (the file uses tabs)"), or `[]` when no known cause explains the difference.
 * A single normaliser that explains it wins (in the order of the list above); otherwise all are combined and then
 * each is dropped again (broadest first) if the match holds without it, so only causes that matter are named.
 * Line breaks at the ends of `snippet` must be mirrored in `region` by the caller.
 */
export function nameMismatch(snippet: string, region: string, firstLine: number): string[] {
  const matches = (set: readonly Normaliser[]) => {
    let s = snippet;
    let r = region;
    for (const n of set) {
      s = n.apply(s);
      r = n.apply(r);
    }
    return s.length > 0 && r.includes(s);
  };
  if (matches([])) return [];
  for (const n of NORMALISERS) if (matches([n])) return [n.describe(snippet, region, firstLine)];
  let set = [...NORMALISERS];
  if (!matches(set)) return [];
  // Drop the broadest causes first, so "indentation" is kept rather than explained away by "spacing inside a line".
  for (const n of [...NORMALISERS].reverse()) {
    const without = set.filter((x) => x !== n);
    if (matches(without)) set = without;
  }
  return set.map((n) => n.describe(snippet, region, firstLine));
}
