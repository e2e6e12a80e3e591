import type * as TS from "typescript";
import type { Language as TSLanguage, Node as SitterNode, Parser as SitterParser, Tree } from "web-tree-sitter";
import { languageOfExtension } from "../lang/languages.js";
import { firstErrorNode, treeSitterParser } from "../lang/tree-sitter.js";
import { typescript } from "../lang/typescript.js";
import {
  addedCodeProblems,
  sitterAddedFacts,
  sitterHolds,
  tsAddedFacts,
  tsHolds,
  tsNames,
  type AddedFacts,
} from "./added-code.js";
import { linesAt } from "./lines.js";

/**
 * The languages whose structure {@link structureProblems} compares: TS/JS through TypeScript, Python and Go through
 * tree-sitter.
 */
export type StructureLanguage = "ts" | "tsx" | "js" | "jsx" | "python" | "go";

/** One reason an addition changes existing code: the 1-based line of the file after the addition, and a sentence. */
export interface AdditionProblem {
  line: number;
  message: string;
}

/**
 * The parse of one file as flat preorder arrays: node `kind` (a number per language), `start`/`end` offsets (UTF-16,
 * leading trivia excluded), `parent` index (-1 for the root). `containers` maps a statement-list node to its
 * statement children (comments excluded); `stmt` gives the language adapter's node for a statement index.
 */
interface Flat {
  kind: number[];
  start: number[];
  end: number[];
  parent: number[];
  containers: Map<number, number[]>;
  hasError: boolean;
  errorAt: number;
}

/** A {@link Flat} with no nodes yet; `errorAt` is the offset of the first parse error (0 when there is none). */
function emptyFlat(hasError: boolean, errorAt: number): Flat {
  return { kind: [], start: [], end: [], parent: [], containers: new Map(), hasError, errorAt };
}

/** What the comparison needs from a language: its parse, names, and the control-flow facts of its statements. */
interface Adapter {
  flat: Flat;
  kindName(kind: number): string;
  /** True when the statement at `index` always leaves its statement list (return, throw, break, …). */
  terminates(index: number): boolean;
  /** Statements that run even when not reached in order (hoisted declarations, jump labels). */
  alwaysReached(index: number): boolean;
  /** For a conditional statement: true when its condition is a constant (tests no value); undefined otherwise. */
  constantCondition(index: number): boolean | undefined;
  /**
   * True when the node at `index` is a loop whose body holds no statement (`while (u != null) {}`, `for (;;);`,
   * Python's `while x: pass`, Go's `for x != nil {}`): it only waits, and never ends once its condition holds.
   */
  emptyLoop(index: number): boolean;
  /** True when the node at `index` is a decorator or modifier (`@Foo()`, `export`, `static`, Python's `@x`). */
  modifies(index: number): boolean;
  /**
   * True when the node at `index` adds to what the module exports (`export {…}`, `export default`, `module.exports =`).
   */
  exports(index: number): boolean;
  /** The names the node at `index` declares in its parent's scope (a function, class, variable, member, key). */
  declares(index: number): string[];
  /** True when an added node `child` may sit directly in the existing node `parent` (see `tsHolds`, `sitterHolds`). */
  holds(parent: number, child: number): boolean;
  /** True for nodes that are not code: a comment, punctuation. */
  ignorable(index: number): boolean;
  /** True for a string literal or a literal part of a template (whose text is a value, unlike a comment's). */
  isString(index: number): boolean;
  /** What the added node at `index`, held by the existing node `parent`, does to the code around it. */
  addedFacts(index: number, parent: number): AddedFacts;
  dispose(): void;
}

// ───────────────────────────── the offset map ─────────────────────────────

/**
 * Where the added lines sit in the text after the addition: sorted, merged `[from, to)` ranges (line breaks included)
 * and, for each, how many added characters came before it. Built from the 1-based added line numbers.
 */
class Insertions {
  readonly from: number[] = [];
  readonly to: number[] = [];
  /** Added characters before range k. */
  readonly shift: number[] = [];

  constructor(after: string, addedLines: readonly number[]) {
    const sorted = [...new Set(addedLines)].sort((a, b) => a - b);
    let line = 1;
    let pos = 0;
    let total = 0;
    for (const n of sorted) {
      while (line < n && pos !== -1) {
        const nl = after.indexOf("\n", pos);
        pos = nl === -1 ? -1 : nl + 1;
        line++;
      }
      if (pos === -1 || pos > after.length) break;
      const nl = after.indexOf("\n", pos);
      const end = nl === -1 ? after.length : nl + 1;
      const k = this.from.length - 1;
      if (k >= 0 && this.to[k] === pos) {
        this.to[k] = end;
      } else {
        this.from.push(pos);
        this.to.push(end);
        this.shift.push(total);
      }
      total += end - pos;
      pos = end;
      line++;
    }
    // An added last line without a final newline: the line break before it belongs to the addition.
    const k = this.from.length - 1;
    if (
      k >= 0 &&
      this.to[k] === after.length &&
      !after.endsWith("\n") &&
      this.from[k]! > 0 &&
      after[this.from[k]! - 1] === "\n"
    ) {
      const cut = after[this.from[k]! - 2] === "\r" ? 2 : 1;
      this.from[k] = this.from[k]! - cut;
    }
  }

  /** The text after the addition with the added ranges cut out: what the file was before, if this is an addition. */
  original(after: string): string {
    let out = "";
    let at = 0;
    for (let k = 0; k < this.from.length; k++) {
      out += after.slice(at, this.from[k]);
      at = this.to[k]!;
    }
    return out + after.slice(at);
  }

  /**
   * The offset in the original text of an offset of the text after (an offset inside added text maps to where it was
   * added).
   */
  back(offset: number): number {
    let lo = 0;
    let hi = this.from.length - 1;
    let k = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (this.from[mid]! <= offset) {
        k = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    if (k < 0) return offset;
    if (offset < this.to[k]!) return this.from[k]! - this.shift[k]!;
    return offset - this.shift[k]! - (this.to[k]! - this.from[k]!);
  }

  /** The offset in the text after of an offset of the original text (added lines at that point come before it). */
  forward(offset: number): number {
    let moved = offset;
    for (let k = 0; k < this.from.length; k++) {
      if (this.from[k]! - this.shift[k]! > offset) break;
      moved += this.to[k]! - this.from[k]!;
    }
    return moved;
  }

  /** True when `offset` of the text after lies in added text. */
  inside(offset: number): boolean {
    return this.touches(offset, offset + 1);
  }

  /** True when `[start, end)` of the text after overlaps an added range. */
  touches(start: number, end: number): boolean {
    for (let k = 0; k < this.from.length; k++) if (this.from[k]! < end && this.to[k]! > start) return true;
    return false;
  }
}

/** `offset` moved past whitespace of `text`: node boundaries that differ only by whitespace (and added lines) agree. */
function skipSpace(text: string, offset: number): number {
  let k = offset;
  while (k < text.length) {
    const c = text.charCodeAt(k);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13 && c !== 12 && c !== 11) break;
    k++;
  }
  return k;
}

// ───────────────────────────── text rules ─────────────────────────────

/** Characters that end a line for some parser but not for `git diff` or a reader: lone CR, NEL, U+2028, U+2029. */
const HIDDEN_BREAK = /\r(?!$)|[\u0085\u2028\u2029]/;
/**
 * Bidirectional controls (Unicode TR9: ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI — the "Trojan
 * Source" characters, CVE-2021-42574) and characters that render as nothing: soft hyphen, combining grapheme joiner,
 * Hangul fillers, Khmer inherent vowels, Mongolian vowel separator, zero-width space/joiners, word joiner and
 * invisible operators, deprecated format controls, BOM, variation selectors, Braille blank, tag characters.
 */
const HIDDEN_CHAR = new RegExp(
  String.raw`[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u00AD\u034F\u115F\u1160\u17B4\u17B5\u180E\u200B-` +
    String.raw`\u200D\u2060-\u2064\u206A-\u206F\u2800\u3164\uFE00-\uFE0F\uFEFF\uFFA0]|\uDB40[\uDC00-\uDDEF]`,
);

/**
 * Problems of the added lines' own text, in any file: a hidden line break (a lone `\r`, U+0085, U+2028, U+2029 —
 * JavaScript and Python end a line or a comment there while `git diff` shows one line) or a bidirectional control or
 * invisible character (see HIDDEN_CHAR). A `\r` that ends a CRLF line is fine. `lines` are the added lines, without
 * their `\n`.
 */
export function addedTextProblems(lines: readonly { line: number; text: string }[]): AdditionProblem[] {
  const out: AdditionProblem[] = [];
  for (const { line, text } of lines) {
    const brk = HIDDEN_BREAK.exec(text);
    if (brk) {
      out.push({
        line,
        message:
          `added line ${line} holds a hidden line break (${codePoint(brk[0])}): ` +
          `parsers split the line there, git and readers do not`,
      });
      continue;
    }
    const hidden = HIDDEN_CHAR.exec(text);
    if (hidden) {
      out.push({
        line,
        message:
          `added line ${line} holds an invisible or bidirectional control ` +
          `character (${codePoint(hidden[0])}); write it as an escape if it is meant`,
      });
    }
  }
  return out;
}

function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}

// ───────────────────────────── the comparison ─────────────────────────────

/** The language {@link structureProblems} parses `path` as, by extension; undefined for other files. */
export function structureLanguage(path: string): StructureLanguage | undefined {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase() ?? "";
  switch (languageOfExtension(ext)) {
    case "TypeScript":
      return ext === "tsx" ? "tsx" : "ts";
    case "JavaScript":
      return ext === "jsx" ? "jsx" : "js";
    case "Python":
      return "python";
    case "Go":
      return "go";
    default:
      return undefined;
  }
}

/**
 * Whether adding lines to a file leaves every existing piece of code as it was. `after` is the whole file after the
 * addition, `addedLines` the 1-based lines of `after` that are new; removing them must give `before` exactly (else one
 * problem says so). Both texts are parsed (TypeScript's parser for JS/TS, tree-sitter for Python and Go) and compared
 * node by node through the offset map of the added lines. A problem is reported when
 * - an existing node is gone or changed kind (it became part of a comment, a string, or another construct),
 * - existing text parses as a node it was not before (code brought out of a comment or string),
 * - an existing node has a different parent (wrapped by an added `if`, joined onto an added line),
 * - an existing statement that ran is no longer reached (an added `return`, `throw`, `break`, an infinite loop),
 * - an added `if`/`while` tests a constant (`if (false)`, `while True`): a guard must test a value,
 * - added text attaches to an existing declaration: an existing node now starts in added text (a decorator, `export`,
 *   `export default`, `static`, `declare` put on its own line before it), or an added decorator or modifier sits on
 *   an existing node (between its decorators and its keyword),
 * - an added statement changes what the module exports (`export { x as y }`, `export … from`, `export default`,
 *   `module.exports =`, `exports.x =`): an export can replace what an existing name means to importers,
 * - an added declaration reuses a name an existing sibling declares (a second `function helper`, a second method or
 *   object key `total`, a Python `def` of an existing name): the later one replaces the existing one,
 * - the file parsed before and does not parse after.
 * When `before` does not parse, only the offset-map check runs (its structure cannot be trusted). Node boundaries
 * compare modulo whitespace and added text, so a block that grows by an added statement is the same block.
 *
 * @returns the problems, first per kind, in line order; `undefined` when the Python or Go grammar is not loaded
 *   (see `loadGrammar` in src/lang/tree-sitter.ts), so the caller can fail closed.
 */
export function structureProblems(
  language: StructureLanguage,
  before: string,
  after: string,
  addedLines: readonly number[],
): AdditionProblem[] | undefined {
  const ins = new Insertions(after, addedLines);
  if (ins.original(after) !== before) {
    return [{ line: 1, message: "the file after the change is not the file before plus the added lines" }];
  }
  if (ins.from.length === 0) return [];
  if (language === "python" || language === "go") {
    const pair = sitterPair(language, before, after, ins);
    if (!pair) return undefined;
    try {
      return compare(pair[0], pair[1], before, after, ins);
    } finally {
      pair[0].dispose();
      pair[1].dispose();
    }
  }
  const ts = typescript();
  const kind = { ts: ts.ScriptKind.TS, tsx: ts.ScriptKind.TSX, js: ts.ScriptKind.JS, jsx: ts.ScriptKind.JSX }[language];
  const sfBefore = ts.createSourceFile(`file.${language}`, before, ts.ScriptTarget.Latest, false, kind);
  // The flat view of `before` is taken before the incremental parse, which reuses (and moves) the old tree's nodes.
  const a = tsAdapter(sfBefore);
  const first = ins.from[0]!;
  const last = ins.back(ins.to[ins.to.length - 1]!);
  const span = ts.createTextChangeRange(
    ts.createTextSpan(first, last - first),
    last - first + (after.length - before.length),
  );
  const b = tsAdapter(ts.updateSourceFile(sfBefore, after, span));
  return compare(a, b, before, after, ins);
}

function compare(A: Adapter, B: Adapter, before: string, after: string, ins: Insertions): AdditionProblem[] {
  const a = A.flat;
  const b = B.flat;
  const problems: { offset: number; message: string }[] = [];
  if (b.hasError && !a.hasError) {
    problems.push({ offset: b.errorAt, message: "the file parsed before the addition and does not parse after it" });
  }
  if (a.hasError) return finish(problems, after);

  // 1. Nodes: every node of `before` has an image of the same kind and boundaries in `after`; a node of `after` that
  //    is not an image lies (at least partly) in added text.
  const keyA = (o: number) => skipSpace(before, o);
  const keyB = (o: number) => skipSpace(before, ins.back(o));
  const image = new Int32Array(a.kind.length).fill(-1);
  const pre = new Int32Array(b.kind.length).fill(-1);
  let j = 0;
  let reinterpreted: number | undefined;
  for (let i = 0; i < b.kind.length; i++) {
    if (
      j < a.kind.length &&
      a.kind[j] === b.kind[i] &&
      keyA(a.start[j]!) === keyB(b.start[i]!) &&
      keyA(a.end[j]!) === keyB(b.end[i]!)
    ) {
      image[j] = i;
      pre[i] = j;
      j++;
      continue;
    }
    if (reinterpreted === undefined && b.end[i]! > b.start[i]! && !ins.touches(b.start[i]!, b.end[i]!))
      reinterpreted = i;
  }
  if (j < a.kind.length) {
    const at = ins.forward(a.start[j]!);
    // the nearest added line above it, else the first
    const cause = ins.from.filter((f) => f <= at).pop() ?? ins.from[0]!;
    problems.push({
      offset: cause,
      message:
        `the added line ${lineIn(after, cause)} changes how the existing ${A.kindName(a.kind[j]!)} at ` +
        `line ${lineIn(after, at)} parses: it would become part of a comment, a string or another construct`,
    });
    return finish(problems, after);
  }
  if (reinterpreted !== undefined) {
    problems.push({
      offset: b.start[reinterpreted]!,
      message:
        `existing text parses as a new ${B.kindName(b.kind[reinterpreted]!)} after the ` +
        `addition (code brought out of a comment or string, or joined with added text)`,
    });
  }

  // 2. Parents: the image of a node's parent is the parent of its image.
  for (let k = 1; k < a.kind.length; k++) {
    const p = a.parent[k]!;
    const img = image[k]!;
    if (p < 0 || b.parent[img] === image[p]) continue;
    const newParent = b.parent[img]!;
    problems.push({
      offset: b.start[img]!,
      message:
        `the existing ${A.kindName(a.kind[k]!)} at line ${lineIn(before, a.start[k]!)} ` +
        `would sit inside ` +
        (newParent >= 0 && pre[newParent]! < 0 ? `the added ${B.kindName(b.kind[newParent]!)}` : "another construct") +
        ` instead of where it was`,
    });
    break;
  }

  // 3. Constant conditions of added conditionals.
  for (let i = 0; i < b.kind.length; i++) {
    if (pre[i]! >= 0 || B.constantCondition(i) !== true) continue;
    problems.push({
      offset: b.start[i]!,
      message:
        `the added ${B.kindName(b.kind[i]!)} tests a constant; a ` +
        `guard must test a value (for example a parameter or a result)`,
    });
    break;
  }
  for (let i = 0; i < b.kind.length; i++) {
    if (pre[i]! >= 0 || !B.emptyLoop(i)) continue;
    problems.push({
      offset: b.start[i]!,
      message: emptyLoopMessage(B.kindName(b.kind[i]!), lineIn(after, b.start[i]!)),
    });
    break;
  }

  // 4. Attachment: added text may not become part of an existing declaration (decorators, modifiers, exports), nor
  //    redeclare a name an existing sibling declares. A statement list (a Python block, a Go statement list) starts
  //    at its first statement, so one that starts with an added guard is not attached to.
  const attached = attachment(A, B, image, pre, ins, before, after);
  if (attached) problems.push(attached);

  // 5. Placement and effect of added code: added nodes sit only where statements or members go, and do not change
  //    what existing code means (directives, side-effect imports, implicit members, rebinding, assignments).
  if (problems.length === 0) problems.push(...placement(A, B, pre, ins, before, after));

  // 6. Reachability: a statement that ran before must still be reached after.
  for (const [c, stmts] of b.containers) {
    const pc = pre[c]!;
    if (pc < 0 || !ins.touches(b.start[c]!, b.end[c]!)) continue;
    const stop = stmts.findIndex((s) => B.terminates(s));
    if (stop < 0) continue;
    const cut = stmts.slice(stop + 1).find((s) => pre[s]! >= 0 && !B.alwaysReached(s));
    if (cut === undefined) continue;
    const beforeStmts = a.containers.get(pc) ?? [];
    const was = beforeStmts.indexOf(pre[cut]!);
    if (beforeStmts.slice(0, was).some((s) => A.terminates(s))) continue; // it was not reached before either
    problems.push({
      offset: b.start[cut]!,
      message:
        `the ${pre[stmts[stop]!]! < 0 ? "added" : "changed"} ${B.kindName(b.kind[stmts[stop]!]!)} ` +
        `at line ${lineIn(after, b.start[stmts[stop]!]!)} ends the block, so the existing ` +
        `code from line ${lineIn(after, b.start[cut]!)} would no longer run`,
    });
    break;
  }
  return finish(problems, after);
}

/**
 * The refusal of an added loop with an empty body (`Adapter.emptyLoop`; the lexical rule of src/grounding/lexical.ts
 * words it the same): `kind` names the loop, `line` is its line in the file after the addition.
 */
export function emptyLoopMessage(kind: string, line: number): string {
  return (
    `the added ${kind} at line ${line} has an empty body: it does nothing but wait, and never ends once its ` +
    `condition holds; a guard must test a value and return or throw`
  );
}

/** The first attachment problem of {@link compare} step 4, or undefined. */
function attachment(
  A: Adapter,
  B: Adapter,
  image: Int32Array,
  pre: Int32Array,
  ins: Insertions,
  before: string,
  after: string,
): { offset: number; message: string } | undefined {
  const a = A.flat;
  const b = B.flat;
  for (let k = 1; k < a.kind.length; k++) {
    const img = image[k]!;
    if (a.containers.has(k) || !ins.inside(b.start[img]!)) continue;
    return {
      offset: b.start[img]!,
      message:
        `the added line ${lineIn(after, b.start[img]!)} attaches to the existing ` +
        `${A.kindName(a.kind[k]!)} at line ${lineIn(before, a.start[k]!)}: a ` +
        `decorator, modifier or export on existing code changes how it runs`,
    };
  }
  for (let i = 1; i < b.kind.length; i++) {
    if (pre[i]! >= 0) continue;
    const parent = b.parent[i]!;
    if (pre[parent]! >= 0 && B.modifies(i)) {
      return {
        offset: b.start[i]!,
        message:
          `the added ${B.kindName(b.kind[i]!)} at line ${lineIn(after, b.start[i]!)} changes ` +
          `the existing ${B.kindName(b.kind[parent]!)} at line ${lineIn(before, a.start[pre[parent]!]!)}: ` +
          `a decorator or modifier on existing code changes how it runs`,
      };
    }
    if (B.exports(i)) {
      return {
        offset: b.start[i]!,
        message:
          `the added ${B.kindName(b.kind[i]!)} at line ${lineIn(after, b.start[i]!)} changes ` +
          `what the module exports, which can replace what an existing name means to its importers`,
      };
    }
    const names = B.declares(i);
    if (names.length === 0) continue;
    for (let s = 1; s < b.kind.length; s++) {
      if (b.parent[s] !== parent || pre[s]! < 0) continue;
      const name = B.declares(s).find((n) => names.includes(n));
      if (name === undefined) continue;
      return {
        offset: b.start[i]!,
        message:
          `the added ${B.kindName(b.kind[i]!)} at line ${lineIn(after, b.start[i]!)} declares ` +
          `${JSON.stringify(name)}, which the existing ${B.kindName(b.kind[s]!)} at line ` +
          `${lineIn(before, a.start[pre[s]!]!)} declares: the later one would replace it`,
      };
    }
  }
  return undefined;
}

/** The problems of {@link compare} step 5: each topmost added node's place ({@link Adapter.holds}) and facts. */
function placement(
  A: Adapter,
  B: Adapter,
  pre: Int32Array,
  ins: Insertions,
  before: string,
  after: string,
): { offset: number; message: string }[] {
  const b = B.flat;
  const nodes: { index: number; parent: number }[] = [];
  for (let i = 1; i < b.kind.length; i++) {
    const parent = b.parent[i]!;
    if (pre[i]! >= 0 || parent < 0 || pre[parent]! < 0 || B.ignorable(i)) continue;
    // A statement list that is new as a whole (Go's first statement in an empty block): its statements are held.
    if (b.containers.has(i) && B.holds(parent, i)) {
      for (const s of b.containers.get(i)!) if (!B.ignorable(s)) nodes.push({ index: s, parent: i });
      continue;
    }
    nodes.push({ index: i, parent });
  }
  // Lines added inside an existing string (a multi-line template, a triple-quoted or raw string) change its value:
  // `OR 1=1` in a query, a flag in a command line.
  for (let i = 1; i < b.kind.length; i++) {
    if (pre[i]! < 0 || !B.isString(i) || !ins.touches(b.start[i]!, b.end[i]!)) continue;
    const at = ins.from.find((f) => f >= b.start[i]! && f < b.end[i]!) ?? b.start[i]!;
    return [
      {
        offset: at,
        message:
          `the added line ${lineIn(after, at)} lies inside the existing ${B.kindName(b.kind[i]!)} at line ` +
          `${lineIn(before, A.flat.start[pre[i]!]!)}, which changes its value (a query, a message, a command); add ` +
          `a statement of its own instead`,
      },
    ];
  }
  const misplaced = nodes.find((n) => !B.holds(n.parent, n.index));
  if (misplaced) {
    const { index, parent } = misplaced;
    return [
      {
        offset: b.start[index]!,
        message:
          `the added ${B.kindName(b.kind[index]!)} at line ${lineIn(after, b.start[index]!)} goes inside the ` +
          `existing ${B.kindName(b.kind[parent]!)} at line ${lineIn(before, A.flat.start[pre[parent]!]!)} (an ` +
          `argument, parameter, element, key, field or clause of it), which changes what that existing code does; ` +
          `add a statement of its own instead`,
      },
    ];
  }
  return addedCodeProblems(
    nodes.map(({ index, parent }) => ({
      facts: B.addedFacts(index, parent),
      kind: B.kindName(b.kind[index]!),
      line: lineIn(after, b.start[index]!),
      offset: b.start[index]!,
    })),
    before,
  );
}

function lineIn(text: string, offset: number): number {
  return linesAt(text, [offset])[0]!;
}

function finish(problems: { offset: number; message: string }[], after: string): AdditionProblem[] {
  const sorted = [...problems].sort((x, y) => x.offset - y.offset);
  const lines = linesAt(
    after,
    sorted.map((p) => p.offset),
  );
  return sorted.map((p, k) => ({ line: lines[k]!, message: p.message }));
}

// ───────────────────────────── TypeScript ─────────────────────────────

function tsAdapter(sf: TS.SourceFile): Adapter {
  const ts = typescript();
  const K = ts.SyntaxKind;
  const diags = (sf as unknown as { parseDiagnostics?: readonly TS.Diagnostic[] }).parseDiagnostics ?? [];
  const flat = emptyFlat(diags.length > 0, diags[0]?.start ?? 0);
  const nodes: TS.Node[] = [];
  const visit = (node: TS.Node, parent: number): void => {
    const index = nodes.length;
    nodes.push(node);
    flat.kind.push(node.kind);
    flat.start.push(node.kind === K.SourceFile ? 0 : node.getStart(sf));
    flat.end.push(node.end);
    flat.parent.push(parent);
    const statements = (node as { statements?: TS.NodeArray<TS.Statement> }).statements;
    if (
      statements !== undefined &&
      (ts.isBlock(node) || ts.isSourceFile(node) || ts.isModuleBlock(node) || ts.isCaseOrDefaultClause(node))
    ) {
      const children: number[] = [];
      const isStatement = new Set<TS.Node>(statements);
      ts.forEachChild(node, (child) => {
        if (isStatement.has(child)) children.push(nodes.length);
        visit(child, index);
      });
      flat.containers.set(index, children);
    } else {
      ts.forEachChild(node, (child) => visit(child, index));
    }
  };
  visit(sf, -1);

  const constant = (e: TS.Expression): boolean | null | undefined => {
    switch (e.kind) {
      case K.TrueKeyword:
        return true;
      case K.FalseKeyword:
      case K.NullKeyword:
        return false;
      case K.NumericLiteral:
        return Number((e as TS.NumericLiteral).text) !== 0;
      case K.BigIntLiteral:
        return !/^0+n$/.test((e as TS.BigIntLiteral).text);
      case K.StringLiteral:
      case K.NoSubstitutionTemplateLiteral:
        return (e as TS.StringLiteral).text !== "";
      case K.Identifier:
        return (e as TS.Identifier).text === "undefined" || (e as TS.Identifier).text === "NaN" ? false : undefined;
      case K.ArrayLiteralExpression:
      case K.ObjectLiteralExpression:
      case K.ArrowFunction:
      case K.FunctionExpression:
        return true;
      case K.ParenthesizedExpression:
        return constant((e as TS.ParenthesizedExpression).expression);
      case K.VoidExpression:
        return constant((e as TS.VoidExpression).expression) === undefined ? undefined : false;
      case K.PrefixUnaryExpression: {
        const u = e as TS.PrefixUnaryExpression;
        const v = constant(u.operand);
        if (v === undefined) return undefined;
        return u.operator === K.ExclamationToken && v !== null ? !v : null;
      }
      case K.BinaryExpression: {
        const x = e as TS.BinaryExpression;
        const l = constant(x.left);
        const r = constant(x.right);
        if (x.operatorToken.kind === K.AmpersandAmpersandToken && (l === false || r === false)) return false;
        if (x.operatorToken.kind === K.BarBarToken && (l === true || r === true)) return true;
        return l === undefined || r === undefined ? undefined : null;
      }
      default:
        return undefined;
    }
  };
  const hasBreak = (n: TS.Node): boolean => {
    let found = false;
    const walk = (x: TS.Node): void => {
      if (found) return;
      if (x.kind === K.BreakStatement) found = true;
      else if (!ts.isFunctionLike(x)) ts.forEachChild(x, walk);
    };
    walk(n);
    return found;
  };
  const ends = (n: TS.Node): boolean => {
    switch (n.kind) {
      case K.ReturnStatement:
      case K.ThrowStatement:
      case K.BreakStatement:
      case K.ContinueStatement:
        return true;
      case K.Block:
        return (n as TS.Block).statements.some(ends);
      case K.IfStatement: {
        const s = n as TS.IfStatement;
        const c = constant(s.expression);
        if (c === true) return ends(s.thenStatement);
        if (c === false) return s.elseStatement !== undefined && ends(s.elseStatement);
        return s.elseStatement !== undefined && ends(s.thenStatement) && ends(s.elseStatement);
      }
      case K.WhileStatement:
      case K.DoStatement:
        return constant((n as TS.WhileStatement).expression) === true && !hasBreak((n as TS.WhileStatement).statement);
      case K.ForStatement: {
        const s = n as TS.ForStatement;
        return (s.condition === undefined || constant(s.condition) === true) && !hasBreak(s.statement);
      }
      case K.LabeledStatement:
        return ends((n as TS.LabeledStatement).statement) && !hasBreak((n as TS.LabeledStatement).statement);
      case K.TryStatement: {
        const s = n as TS.TryStatement;
        if (s.finallyBlock && ends(s.finallyBlock)) return true;
        return ends(s.tryBlock) && (s.catchClause === undefined || ends(s.catchClause.block));
      }
      default:
        return false;
    }
  };
  return {
    flat,
    kindName: (kind) => tsKindName(ts, kind),
    terminates: (i) => ends(nodes[i]!),
    alwaysReached: (i) => {
      const k = nodes[i]!.kind;
      return (
        k === K.FunctionDeclaration ||
        k === K.InterfaceDeclaration ||
        k === K.TypeAliasDeclaration ||
        k === K.EmptyStatement
      );
    },
    constantCondition: (i) => {
      const n = nodes[i]!;
      if (ts.isIfStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n))
        return constant(n.expression) !== undefined;
      if (ts.isForStatement(n) && n.condition) return constant(n.condition) !== undefined;
      return undefined;
    },
    emptyLoop: (i) => {
      const n = nodes[i]!;
      if (!ts.isIterationStatement(n, false)) return false;
      return ts.isEmptyStatement(n.statement) || (ts.isBlock(n.statement) && n.statement.statements.length === 0);
    },
    modifies: (i) => ts.isDecorator(nodes[i]!) || ts.isModifier(nodes[i]!),
    exports: (i) => {
      const n = nodes[i]!;
      if (ts.isExportDeclaration(n) || ts.isExportAssignment(n)) return true;
      if (!ts.isExpressionStatement(n) || !ts.isBinaryExpression(n.expression)) return false;
      if (n.expression.operatorToken.kind !== K.EqualsToken) return false;
      // `module.exports = …`, `module.exports.x = …`, `exports.x = …`: the target's leftmost names.
      let target: TS.Expression = n.expression.left;
      const names: string[] = [];
      while (ts.isPropertyAccessExpression(target) || ts.isElementAccessExpression(target)) {
        if (ts.isPropertyAccessExpression(target)) names.unshift(target.name.text);
        target = target.expression;
      }
      if (!ts.isIdentifier(target)) return false;
      return target.text === "exports" || (target.text === "module" && names[0] === "exports");
    },
    declares: (i) => tsDeclaredNames(ts, nodes[i]!),
    holds: (p, c) => tsHolds(ts, nodes[p]!, nodes[c]!),
    ignorable: () => false,
    isString: (i) =>
      [K.StringLiteral, K.NoSubstitutionTemplateLiteral, K.TemplateHead, K.TemplateMiddle, K.TemplateTail].includes(
        nodes[i]!.kind,
      ),
    addedFacts: (i, p) => tsAddedFacts(ts, sf, nodes[i]!, nodes[p]!),
    dispose: () => {},
  };
}

/** The names `node` declares in the scope of its parent: see `Adapter.declares`. */
function tsDeclaredNames(ts: typeof TS, node: TS.Node): string[] {
  const nameOf = (name: TS.Node | undefined) => tsNames(ts, name);
  if (ts.isVariableStatement(node)) return node.declarationList.declarations.flatMap((d) => nameOf(d.name));
  if (
    ts.isFunctionDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isEnumDeclaration(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isTypeAliasDeclaration(node) ||
    ts.isModuleDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isPropertyDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isPropertyAssignment(node) ||
    ts.isShorthandPropertyAssignment(node)
  )
    return nameOf(node.name);
  return [];
}

/** SyntaxKind names by value without the `First…`/`Last…` range markers (`SyntaxKind[243]` is "FirstStatement"). */
let kindNames: Map<number, string> | undefined;

/** `IfStatement` → "if statement"; `VariableStatement` → "variable statement". */
function tsKindName(ts: typeof TS, kind: number): string {
  if (kindNames === undefined) {
    kindNames = new Map();
    for (const [name, value] of Object.entries(ts.SyntaxKind))
      if (typeof value === "number" && !/^(First|Last)[A-Z]/.test(name) && !kindNames.has(value))
        kindNames.set(value, name);
  }
  return (kindNames.get(kind) ?? ts.SyntaxKind[kind] ?? "node")
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .replace(/ keyword$/, "");
}

// ───────────────────────────── tree-sitter (Python, Go) ─────────────────────────────

/** Node types per tree-sitter grammar that the control-flow facts use. */
const SITTER: Record<
  "python" | "go",
  {
    containers: string[];
    jumps: string[];
    conditionals: string[];
    loops: string[];
    alwaysReached: string[];
    constants: string[];
  }
> = {
  python: {
    containers: ["module", "block"],
    jumps: ["return_statement", "raise_statement", "break_statement", "continue_statement"],
    conditionals: ["if_statement", "elif_clause", "while_statement"],
    loops: ["while_statement", "for_statement"],
    alwaysReached: [],
    constants: ["true", "false", "none", "integer", "float", "string", "ellipsis"],
  },
  go: {
    containers: ["statement_list"],
    jumps: ["return_statement", "break_statement", "continue_statement", "goto_statement", "fallthrough_statement"],
    conditionals: ["if_statement"],
    loops: ["for_statement"],
    alwaysReached: ["labeled_statement"],
    constants: [
      "true",
      "false",
      "nil",
      "int_literal",
      "float_literal",
      "imaginary_literal",
      "rune_literal",
      "interpreted_string_literal",
      "raw_string_literal",
    ],
  },
};

/**
 * Parse `before` and then `after` incrementally (the old tree, edited by the insertions, guides the new parse), and
 * return both adapters. Only the nodes that tree-sitter's changed ranges or the added lines touch are walked in full;
 * a node outside them is recorded but not descended into, in both trees alike (tree-sitter guarantees its subtree
 * is the same), which keeps the walk of a large file small.
 */
function sitterPair(
  language: "python" | "go",
  before: string,
  after: string,
  ins: Insertions,
): [Adapter, Adapter] | undefined {
  const parser: SitterParser | undefined = treeSitterParser(language);
  if (!parser) return undefined;
  const treeA = parser.parse(before);
  if (!treeA) return undefined;
  const edited = treeA.copy();
  for (let k = 0; k < ins.from.length; k++) {
    const at = pointAt(after, ins.from[k]!);
    edited.edit({
      startIndex: ins.from[k]!,
      oldEndIndex: ins.from[k]!,
      newEndIndex: ins.to[k]!,
      startPosition: at,
      oldEndPosition: at,
      newEndPosition: pointAt(after, ins.to[k]!),
    });
  }
  const treeB = parser.parse(after, edited);
  if (!treeB) {
    edited.delete();
    treeA.delete();
    return undefined;
  }
  // Affected ranges in the coordinates of `before`: what tree-sitter says changed, plus each insertion point.
  const affected: [number, number][] = edited
    .getChangedRanges(treeB)
    .map((r) => [ins.back(r.startIndex), ins.back(r.endIndex)]);
  edited.delete();
  for (let k = 0; k < ins.from.length; k++) {
    // The insertion point, widened over the whitespace around it: a node that ends or starts there may grow.
    const o = ins.back(ins.from[k]!);
    let x = o;
    while (x > 0 && /\s/.test(before[x - 1]!)) x--;
    affected.push([x, skipSpace(before, o)]);
  }
  const hit = (s: number, e: number) => affected.some(([x, y]) => x <= e && y >= s);
  return [
    sitterAdapter(language, parser.language!, treeA, (s, e) => !hit(s, e)),
    sitterAdapter(
      language,
      parser.language!,
      treeB,
      (s, e) => !ins.touches(s, e + 1) && !hit(ins.back(s), ins.back(e)),
    ),
  ];
}

/** The tree-sitter point (row, UTF-16 column) of an offset. */
function pointAt(text: string, offset: number): { row: number; column: number } {
  let row = 0;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) {
    row++;
    lineStart = i + 1;
  }
  return { row, column: offset - lineStart };
}

function sitterAdapter(
  language: "python" | "go",
  lang: TSLanguage,
  tree: Tree,
  skip: (start: number, end: number) => boolean,
): Adapter {
  const facts = SITTER[language];
  const containerIds = new Set(facts.containers.flatMap((t) => lang.idForNodeType(t, true) ?? []));
  const commentId = lang.idForNodeType("comment", true);
  const named = (id: number) => lang.nodeTypeIsNamed(id);
  const hasError = tree.rootNode.hasError;
  const flat = emptyFlat(hasError, hasError ? (firstErrorNode(tree.rootNode)?.startIndex ?? 0) : 0);
  const cursor = tree.walk();
  const stack: number[] = [];
  try {
    walk: for (;;) {
      const index = flat.kind.length;
      const id = cursor.nodeTypeId;
      const parent = stack.length ? stack[stack.length - 1]! : -1;
      flat.kind.push(id);
      flat.start.push(cursor.startIndex);
      flat.end.push(cursor.endIndex);
      flat.parent.push(parent);
      if (parent >= 0 && flat.containers.has(parent) && named(id) && id !== commentId)
        flat.containers.get(parent)!.push(index);
      if (containerIds.has(id)) flat.containers.set(index, []);
      if (!(index > 0 && skip(flat.start[index]!, flat.end[index]!)) && cursor.gotoFirstChild()) {
        stack.push(index);
        continue;
      }
      for (;;) {
        if (cursor.gotoNextSibling()) continue walk;
        if (!cursor.gotoParent()) break walk;
        stack.pop();
      }
    }
  } finally {
    cursor.delete();
  }

  const constant = (n: SitterNode | null): boolean | null | undefined => {
    if (!n) return undefined;
    if (n.type === "true" || n.type === "True") return true;
    if (n.type === "false" || n.type === "False" || n.type === "none" || n.type === "nil") return false;
    if (n.type === "string") return n.namedChildren.some((c) => c?.type === "interpolation") ? undefined : null;
    if (facts.constants.includes(n.type)) return null;
    if (n.type === "parenthesized_expression") return constant(n.namedChildren[0] ?? null);
    if (n.type === "not_operator") {
      const v = constant(n.childForFieldName("argument"));
      return v === undefined ? undefined : v === null ? null : !v;
    }
    if (n.type === "unary_expression" || n.type === "unary_operator") {
      const v = constant(n.childForFieldName("operand") ?? n.childForFieldName("argument"));
      if (v === undefined) return undefined;
      return n.child(0)?.type === "!" && v !== null ? !v : null;
    }
    if (["binary_expression", "binary_operator", "boolean_operator", "comparison_operator"].includes(n.type)) {
      const parts = n.namedChildren.filter((c): c is SitterNode => c !== null);
      const values = parts.map(constant);
      return values.every((v) => v !== undefined) ? null : undefined;
    }
    return undefined;
  };
  const hasBreak = (n: SitterNode): boolean =>
    n.type === "break_statement" ||
    n.namedChildren.some(
      (c) => c !== null && c.type !== "function_definition" && c.type !== "func_literal" && hasBreak(c),
    );
  const isPanic = (n: SitterNode): boolean => {
    if (language !== "go" || n.type !== "expression_statement") return false;
    const call = n.namedChildren[0];
    if (call?.type !== "call_expression") return false;
    const fn = call.childForFieldName("function")?.text;
    return fn === "panic" || fn === "os.Exit" || fn === "log.Fatal" || fn === "log.Fatalf" || fn === "log.Fatalln";
  };
  const ends = (n: SitterNode | null): boolean => {
    if (!n) return false;
    if (facts.jumps.includes(n.type) || isPanic(n)) return true;
    switch (n.type) {
      case "block":
      case "statement_list":
      case "else_clause":
        return n.namedChildren.some((c) => c !== null && c.type !== "comment" && ends(c));
      case "if_statement": {
        const c = constant(n.childForFieldName("condition"));
        const then = n.childForFieldName("consequence");
        const alternatives = n.childrenForFieldName("alternative").filter((x): x is SitterNode => x !== null);
        if (c === true) return ends(then);
        if (language === "python") {
          const hasElse = alternatives.some((x) => x.type === "else_clause");
          return (
            hasElse &&
            ends(then) &&
            alternatives.every((x) => ends(x.childForFieldName("body") ?? x.childForFieldName("consequence") ?? x))
          );
        }
        return alternatives.length > 0 && ends(then) && alternatives.every(ends);
      }
      case "while_statement":
        return constant(n.childForFieldName("condition")) === true && !hasBreak(n.childForFieldName("body") ?? n);
      case "for_statement": {
        const body = n.childForFieldName("body");
        const clauses = n.namedChildren.filter((c) => c !== null && c.type !== "block" && c.type !== "comment");
        return language === "go" && clauses.length === 0 && body !== null && !hasBreak(body);
      }
      case "labeled_statement":
        return n.namedChildren.some((c) => c !== null && c.type !== "label_name" && ends(c));
      default:
        return false;
    }
  };
  const nodeAt = (i: number): SitterNode | undefined => descend(tree.rootNode, flat, i);
  const mayEnd = new Set([
    ...facts.jumps,
    "if_statement",
    "while_statement",
    "for_statement",
    "labeled_statement",
    "block",
    "statement_list",
    "expression_statement",
  ]);
  return {
    flat,
    kindName: (kind) => (lang.types[kind] ?? "node").replace(/_/g, " "),
    terminates: (i) => mayEnd.has(lang.types[flat.kind[i]!] ?? "") && ends(nodeAt(i) ?? null),
    alwaysReached: (i) => facts.alwaysReached.includes(lang.types[flat.kind[i]!] ?? ""),
    constantCondition: (i) => {
      if (!facts.conditionals.includes(lang.types[flat.kind[i]!] ?? "")) return undefined;
      const n = nodeAt(i);
      return n ? constant(n.childForFieldName("condition")) !== undefined : undefined;
    },
    emptyLoop: (i) => {
      if (!facts.loops.includes(lang.types[flat.kind[i]!] ?? "")) return false;
      const body = nodeAt(i)?.childForFieldName("body");
      return body != null && !holdsStatement(body);
    },
    modifies: (i) => lang.types[flat.kind[i]!] === "decorator",
    exports: () => false,
    declares: (i) => {
      // Python: a `def` or `class` (also decorated) binds its name in the enclosing block; a second one replaces it.
      const type = lang.types[flat.kind[i]!] ?? "";
      if (language !== "python" || !DEFINITIONS.has(type)) return [];
      let n = nodeAt(i);
      if (n?.type === "decorated_definition") n = n.childForFieldName("definition") ?? undefined;
      const name = n?.childForFieldName("name")?.text;
      return name ? [name] : [];
    },
    holds: (p, c) => sitterHolds(language, lang.types[flat.kind[p]!] ?? "", lang.types[flat.kind[c]!] ?? ""),
    ignorable: (i) => flat.kind[i] === commentId || !named(flat.kind[i]!),
    isString: (i) => STRINGS.has(lang.types[flat.kind[i]!] ?? ""),
    addedFacts: (i) => {
      const n = nodeAt(i);
      return n ? sitterAddedFacts(language, n) : { binds: [], locals: [], assigns: [] };
    },
    dispose: () => tree.delete(),
  };
}

/**
 * True when a tree-sitter loop body holds a statement that does something: not only comments, Python's `pass` or a
 * bare `...` (Go's body is a block around a statement list).
 */
function holdsStatement(body: SitterNode): boolean {
  return body.namedChildren.some((c) => {
    if (c === null || c.type === "comment" || c.type === "pass_statement") return false;
    if (c.type === "statement_list") return holdsStatement(c);
    if (c.type === "expression_statement" && c.namedChildren.every((x) => x?.type === "ellipsis")) return false;
    return true;
  });
}

/** tree-sitter string nodes of Python and Go (see `Adapter.isString`). */
const STRINGS = new Set(["string", "raw_string_literal", "interpreted_string_literal"]);

/** Python statements that bind a name: see `Adapter.declares`. */
const DEFINITIONS = new Set(["function_definition", "class_definition", "decorated_definition"]);

/** The node of flat index `i`, found by its offsets and kind (for nodes that are not statements). */
function descend(root: SitterNode, flat: Flat, i: number): SitterNode | undefined {
  let node: SitterNode | null = root.descendantForIndex(flat.start[i]!, Math.max(flat.start[i]!, flat.end[i]! - 1));
  while (node && !(node.typeId === flat.kind[i] && node.startIndex === flat.start[i] && node.endIndex === flat.end[i]))
    node = node.parent;
  return node ?? undefined;
}
