/**
 * Literal strings that every match of a regular expression contains, so a search can look for them with `indexOf`
 * and run the (slow, linear-time) regex engine only on the lines that hold one — the idea of RE2's FilteredRE2 and
 * of Cox, "Regular Expression Matching with a Trigram Index" (2012), here without an index.
 *
 * Only a conservative subset of RE2 syntax is understood: literal characters, escaped punctuation, `\n \t \r \f \v`,
 * the classes `\d \w \s` (and negations) and `.`, bracket classes of plain characters and ranges, groups `( )`,
 * `(?: )`, `(?P<n> )`, `(?<n> )`, alternation, `* + ?` and `{n}`, `{n,}`, `{n,m}` (also lazy), anchors `^ $ \b \B \A
 * \z`. Anything else (flags such as `(?i)`, `\p{…}`, `\Q…\E`, `[[:alpha:]]`, octal or hex escapes) gives `null`:
 * then there is no prefilter and every line is tested, which is always correct.
 */

/**
 * What a node of the pattern tells: `exact` = the strings it matches (when few), `any` = one of them is in every match.
 */
interface Info {
  exact: string[] | null;
  any: string[] | null;
}

/** Most alternatives an exact set keeps before it is dropped (cross products grow fast). */
const MAX_EXACT = 16;
/** The shortest literal worth a prefilter: shorter ones are in almost every line. */
const MIN_LITERAL = 3;

class Bail extends Error {}

const PUNCT = new Set("\\.+*?()|[]{}^$-/#&~!@%=<>,;:'\"`_ ".split(""));
const CONTROL: Record<string, string> = { n: "\n", t: "\t", r: "\r", f: "\f", v: "\v" };

/** The weakest useful required set: the one whose shortest string is longest. */
function better(a: string[] | null, b: string[] | null): string[] | null {
  if (a === null) return b;
  if (b === null) return a;
  const minA = Math.min(...a.map((s) => s.length));
  const minB = Math.min(...b.map((s) => s.length));
  return minB > minA ? b : a;
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}

/** Parser over one pattern; each method returns the {@link Info} of what it parsed. */
class Parser {
  private i = 0;
  constructor(private readonly src: string) {}

  parse(): Info {
    const info = this.alternation();
    if (this.i !== this.src.length) throw new Bail();
    return info;
  }

  private peek(): string | undefined {
    return this.src[this.i];
  }

  private alternation(): Info {
    const branches = [this.concatenation()];
    while (this.peek() === "|") {
      this.i++;
      branches.push(this.concatenation());
    }
    if (branches.length === 1) return branches[0] as Info;
    const exact = branches.every((b) => b.exact !== null) ? dedupe(branches.flatMap((b) => b.exact as string[])) : null;
    const any = branches.every((b) => b.any !== null) ? dedupe(branches.flatMap((b) => b.any as string[])) : null;
    return { exact: exact !== null && exact.length <= MAX_EXACT ? exact : null, any };
  }

  private concatenation(): Info {
    let run: string[] | null = [""];
    let best: string[] | null = null;
    let allExact = true;
    const endRun = () => {
      if (run !== null && run.some((s) => s !== "")) best = better(best, run);
      run = [""];
    };
    while (this.i < this.src.length && this.peek() !== "|" && this.peek() !== ")") {
      const item = this.repeat(this.atom());
      best = better(best, item.any);
      if (item.exact !== null && run !== null && run.length * item.exact.length <= MAX_EXACT) {
        const next: string[] = [];
        for (const a of run) for (const b of item.exact) next.push(a + b);
        run = dedupe(next);
      } else {
        allExact = false;
        endRun();
        if (item.exact !== null && item.exact.length <= MAX_EXACT) run = [...item.exact];
      }
    }
    const exact = allExact ? run : null;
    endRun();
    return { exact, any: best };
  }

  private repeat(atom: Info): Info {
    let info = atom;
    for (;;) {
      const c = this.peek();
      let min: number;
      let max: number;
      if (c === "*" || c === "+" || c === "?") {
        this.i++;
        min = c === "+" ? 1 : 0;
        max = c === "?" ? 1 : Infinity;
      } else if (c === "{") {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.i));
        if (m === null) throw new Bail();
        this.i += m[0].length;
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === "" ? Infinity : Number(m[3]);
      } else return info;
      if (this.peek() === "?") this.i++;
      if (min === 0) info = { exact: max === 1 && info.exact !== null ? dedupe(["", ...info.exact]) : null, any: null };
      else if (min === 1 && max === 1) continue;
      else info = { exact: null, any: info.any ?? info.exact };
    }
  }

  private atom(): Info {
    const c = this.src[this.i++];
    switch (c) {
      case "(": {
        if (this.peek() === "?") {
          const rest = this.src.slice(this.i);
          const m = /^\?(?::|P?<[A-Za-z_][A-Za-z0-9_]*>)/.exec(rest);
          if (m === null) throw new Bail();
          this.i += m[0].length;
        }
        const inner = this.alternation();
        if (this.src[this.i++] !== ")") throw new Bail();
        return inner;
      }
      case "[":
        return this.bracket();
      case ".":
        return { exact: null, any: null };
      case "^":
      case "$":
        return { exact: [""], any: null };
      case "\\":
        return this.escape();
      case "*":
      case "+":
      case "?":
      case "{":
      case ")":
      case "|":
      case undefined:
        throw new Bail();
      default:
        return { exact: [c], any: null };
    }
  }

  private escape(): Info {
    const e = this.src[this.i++];
    if (e === undefined) throw new Bail();
    if ("bBAz".includes(e)) return { exact: [""], any: null };
    if ("dDwWsS".includes(e)) return { exact: null, any: null };
    const control = CONTROL[e];
    if (control !== undefined) return { exact: [control], any: null };
    if (PUNCT.has(e)) return { exact: [e], any: null };
    throw new Bail();
  }

  /** A bracket class: exact when it holds a few plain characters, else nothing known. */
  private bracket(): Info {
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.i++;
    }
    const chars = new Set<string>();
    let wide = false;
    let first = true;
    for (;;) {
      let c = this.src[this.i++];
      if (c === undefined) throw new Bail();
      if (c === "]" && !first) break;
      first = false;
      if (c === "[") throw new Bail();
      if (c === "\\") {
        const e = this.src[this.i++];
        if (e === undefined) throw new Bail();
        if ("dDwWsS".includes(e)) {
          wide = true;
          continue;
        }
        const control = CONTROL[e];
        if (control !== undefined) c = control;
        else if (PUNCT.has(e)) c = e;
        else throw new Bail();
      }
      if (this.peek() === "-" && this.src[this.i + 1] !== "]" && this.src[this.i + 1] !== undefined) {
        this.i++;
        let hi = this.src[this.i++] as string;
        if (hi === "\\") {
          const e = this.src[this.i++];
          if (e === undefined || !PUNCT.has(e)) throw new Bail();
          hi = e;
        }
        if (hi === "[") throw new Bail();
        const from = c.charCodeAt(0);
        const to = hi.charCodeAt(0);
        if (to < from) throw new Bail();
        if (to - from > MAX_EXACT) wide = true;
        else for (let code = from; code <= to; code++) chars.add(String.fromCharCode(code));
        continue;
      }
      chars.add(c);
    }
    if (negated || wide || chars.size > 4) return { exact: null, any: null };
    return { exact: [...chars], any: null };
  }
}

/**
 * Literals one of which every match of the RE2 `pattern` contains (case-sensitive matching), each at least 3
 * characters and none holding a line break; `null` when the pattern has no such set or uses syntax outside the
 * subset this module understands. Pure; never throws.
 */
export function requiredLiterals(pattern: string): string[] | null {
  let info: Info;
  try {
    info = new Parser(pattern).parse();
  } catch (err) {
    if (err instanceof Bail) return null;
    throw err;
  }
  const set = better(info.any, info.exact);
  if (set === null || set.length === 0) return null;
  if (set.some((s) => s.length < MIN_LITERAL || s.includes("\n") || s.includes("\r"))) return null;
  return set;
}
