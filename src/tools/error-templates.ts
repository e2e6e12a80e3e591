/**
 * The fixed text of common runtime error messages, for `search_codebase`: in "TypeError: Cannot read properties of
 * undefined (reading 'user')" only `user` says where the failure is; "type", "error", "read", "properties" and
 * "undefined" are words of the runtime's message template that thousands of files of any JavaScript repository hold,
 * so ranked as query words they put the largest files first (and a scan for them costs most of a search). Each
 * template keeps the names it quotes. The templates are the messages as the runtimes print them: V8 (Node, Chrome),
 * SpiderMonkey (Firefox), JavaScriptCore (Safari), CPython, Go's runtime and the JVM's helpful NullPointerException.
 */

/** One template: where it is in a query (global, ignoring case) and what of it stays (`$n` are quoted names). */
interface Template {
  pattern: RegExp;
  keep: string;
}

const QUOTED = String.raw`(['"\u2018\u201c][^'"\u2019\u201d\n]{1,200}['"\u2019\u201d])`;

const TEMPLATES: readonly Template[] = [
  // The label of a runtime's own error class before its message ("TypeError:", "panic: runtime error:", or without
  // the colon before "cannot"); a class of the repository's own ("ValidationError:") is a name of its code and stays.
  {
    pattern: new RegExp(
      String.raw`\b(?:uncaught\s+)?(?:TypeError|ReferenceError|RangeError|SyntaxError|AttributeError|KeyError|` +
        String.raw`IndexError|ValueError|NameError|ZeroDivisionError|(?:java\.lang\.)?NullPointerException|` +
        String.raw`panic: runtime error|runtime error|panic)(?:\s*:|(?=\s+(?:cannot|can't)\b))`,
      "gi",
    ),
    keep: "",
  },
  // V8: Cannot read properties of undefined (reading 'x') / Cannot set properties of null (setting 'x')
  {
    pattern: /\bcannot (?:read|set) properties of (?:undefined|null)(?:\s*\(?\s*(?:reading|setting)\b)?/gi,
    keep: "",
  },
  // older V8: Cannot read property 'x' of undefined
  {
    pattern: new RegExp(String.raw`\bcannot (?:read|set) property\s+${QUOTED}\s+of (?:undefined|null)\b`, "gi"),
    keep: "$1",
  },
  // V8: Cannot destructure property 'x' of 'y' as it is undefined.
  {
    pattern: new RegExp(
      String.raw`\bcannot destructure property\s+${QUOTED}\s+of\s+${QUOTED}\s+as it is (?:undefined|null)\b`,
      "gi",
    ),
    keep: "$1 $2",
  },
  // V8: x is not a function / a constructor / iterable / defined
  { pattern: /\bis not (?:a function|a constructor|iterable|defined)\b/gi, keep: "" },
  // SpiderMonkey: can't access property "x", y is undefined
  {
    pattern: new RegExp(String.raw`\bcan't access property\s+${QUOTED},\s*(\S+) is (?:undefined|null)\b`, "gi"),
    keep: "$1 $2",
  },
  // JavaScriptCore: undefined is not an object (evaluating 'x.y')
  { pattern: /\b(?:undefined|null) is not an object \(evaluating\b/gi, keep: "" },
  // CPython: 'NoneType' object has no attribute 'x' / 'NoneType' object is not subscriptable; 'T' object … keeps T
  { pattern: /'NoneType' object (?:has no attribute|is not (?:subscriptable|iterable|callable))\b/gi, keep: "" },
  { pattern: /\bobject (?:has no attribute|is not (?:subscriptable|iterable|callable))\b/gi, keep: "" },
  // Go: runtime error: invalid memory address or nil pointer dereference / index out of range [5] with length 3
  { pattern: /\binvalid memory address or nil pointer dereference\b/gi, keep: "" },
  { pattern: /\bindex out of range(?: \[-?\d+\] with length \d+)?/gi, keep: "" },
  // JVM: Cannot invoke "x.y()" because "z" is null
  {
    pattern: new RegExp(String.raw`\bcannot invoke\s+${QUOTED}\s+because\s+${QUOTED}\s+is null\b`, "gi"),
    keep: "$1 $2",
  },
];

/** What {@link withoutErrorTemplates} made of a query. */
export interface TemplateFree {
  /** The query with the templates' fixed words left out (the query itself when nothing else would be left). */
  query: string;
  /** The fixed text left out, in the order found, each once (empty when nothing was). */
  removed: string[];
}

/**
 * `query` without the fixed words of the runtime error messages in {@link TEMPLATES}; the names a message quotes
 * stay. When only such words would be left (`hasWords` false for the rest), the query is kept whole: a search for a
 * template itself still runs.
 * @param hasWords whether a text still holds a word worth searching (search_codebase's own tokenizer and stop words).
 */
export function withoutErrorTemplates(query: string, hasWords: (text: string) => boolean): TemplateFree {
  const removed: string[] = [];
  let rest = query;
  for (const { pattern, keep } of TEMPLATES) {
    rest = rest.replace(pattern, (...args: unknown[]) => {
      const match = args[0] as string;
      const groups = args.slice(1, -2) as (string | undefined)[];
      const kept = keep.replace(/\$(\d)/g, (_, n: string) => groups[Number(n) - 1] ?? "");
      const fixed = groups.reduce<string>((s, g) => (g === undefined ? s : s.replace(g, " ")), match);
      const words = fixed.replace(/\s+/g, " ").trim();
      if (words !== "" && !removed.includes(words)) removed.push(words);
      return ` ${kept} `;
    });
  }
  if (removed.length === 0 || !hasWords(rest)) return { query, removed: [] };
  return { query: rest.replace(/\s+/g, " ").trim(), removed };
}
