/**
 * What the heuristic model writes for a reader: the comment and log message of the clarifying addition, and the
 * sentences of the diagnosis summary. Pure functions of the evidence; the problem text is untrusted data, only
 * quoted (shortened at word boundaries, see `headlineOf`), never interpreted.
 *
 * Rules: whole sentences, the problem's first message quoted at most ~120 characters with "…" where cut, no
 * doubled or dangling punctuation, and an addition that names the problem and the evidence that ties it to the place.
 */
import { baseName } from "./frames.js";
import { headlineOf } from "./problem.js";
import type { FittedText } from "./style.js";

/** The evidence that tied the problem to a file. */
export type EvidenceKind = "frame" | "alert" | "identifier" | "path" | "search";

/** A declaration of a quoted identifier that the diagnosis rests on. */
export interface DeclaredName {
  id: string;
  /** 1-based line of the declaration in the base file. */
  line: number;
  /** The error message that quotes the identifier, if one does. */
  message: string | null;
  /** Where the declaration is, seen from the insertion point: inside the statement below it, further below, above. */
  place: "statement" | "below" | "above";
}

/** Everything the wording depends on. */
export interface WordingInput {
  /** Task source (`issue`, `code_scanning`, `dispatch`, `local`). */
  source: string;
  /** The problem's first error or warning message, or null. */
  message: string | null;
  title: string;
  evidence: EvidenceKind;
  path: string;
  /** The frame or alert line, or the declaration line for identifier evidence. */
  line: number | null;
  /** The verified enclosing function, or null. */
  fn: string | null;
  /** The frame/alert line exists in the file. */
  lineInFile: boolean;
  /** Other files share the frame file's name equally well. */
  tied: boolean;
  identifier: string | null;
  decl: DeclaredName | null;
  /** Path evidence through a package the title names: the package's name (the file is its entry's source). */
  pkg?: string | null;
  /**
   * For a caller chosen over the frames that only received the value (`relayedFrom`, locate.ts): where the crash
   * is (`path:line`), its function, and the functions between that passed the value on (outermost first).
   */
  relayed?: { at: string; fn: string | null; via: string[] } | null;
}

/** `name` with the regular-expression characters an identifier or dotted name can hold (`.`, `$`) escaped. */
export const escapeRe = (name: string): string => name.replace(/[.$]/g, (c) => `\\${c}`);

/** A RegExp matching `name` as a whole word (not preceded or followed by a word character or `$`); no flags. */
export function wholeWord(name: string): RegExp {
  return new RegExp(`(^|[^\\w$])${escapeRe(name)}([^\\w$]|$)`);
}

/** "issue" or "alert" (code scanning): what the problem came from, for prose. */
export function sourceNoun(source: string): string {
  return source === "code_scanning" ? "alert" : "issue";
}

/** "warning" when the message is a warning, else "error". */
function kindOf(message: string): string {
  return /\bwarn/i.test(message) ? "warning" : "error";
}

/** The message without its tags: `(node:1)`, `[MONGOOSE]`, and a leading `Warning:` / `TypeError:` / `panic:`. */
function untagged(message: string): string {
  return message
    .replace(/^(?:\(node:\d+\)\s*)?(?:\[[^\]]*\]\s*)*/, "")
    .replace(/^(?:[\w.]*(?:Error|Exception|Warning)|Error|Warning|WARN(?:ING)?|ERROR|FATAL|CRITICAL|panic)\s*:\s*/, "");
}

/**
 * The clause of `message` about `id`: the sentence that names it, ended before the first ` and `, ` but `, `,` or
 * `;` that comes after the name (so "`errors` is a reserved schema pathname and may break …" gives
 * "`errors` is a reserved schema pathname"). Null when no sentence names it.
 */
export function clauseAbout(message: string, id: string): string | null {
  const last = id.split(".").pop() ?? id;
  const word = wholeWord(last);
  const sentence = untagged(message)
    .split(/(?<=[.!?])\s+/)
    .find((s) => word.test(s));
  if (!sentence) return null;
  const at = sentence.search(word) + last.length + 2;
  const stop = /\s+(?:and|but|so|which|because|although)\s+|[,;]\s+|\s+[-–—]\s+/g;
  stop.lastIndex = at;
  const m = stop.exec(sentence);
  return (m ? sentence.slice(0, m.index) : sentence).replace(/[\s.!?:]+$/, "") || null;
}

/** `reserved schema pathname` from "`errors` is a reserved schema pathname"; null when the clause has another form. */
export function nounPhrase(clause: string, id: string): string | null {
  const last = escapeRe(id.split(".").pop() ?? id);
  const m = new RegExp(`^["'\`‘“]?${last}["'\`’”]?\\s+is\\s+(?:a|an|the)\\s+([A-Za-z][\\w -]{2,60})$`).exec(clause);
  return m?.[1]?.trim() ?? null;
}

/**
 * An exception's namespace is noise in a one-line note: `System.NullReferenceException: x` → `NullReferenceException:
 * x`.
 */
function shortExceptionNames(message: string): string {
  return message.replace(/^(?:[A-Za-z_]\w*\.)+(?=[A-Z]\w*(?:Error|Exception|Warning)\b)/, "");
}

/** A short name for the file in a log line: its path when short, else its base name. */
function shortPath(path: string): string {
  return path.length <= 40 ? path : baseName(path);
}

/**
 * The comment (`groundfix: <note>`) and log message (`[groundfix] <message>`) of the clarifying addition.
 * With a declaration: the clause of the message about the name, and "<file> declares the <phrase> '<name>'".
 * Otherwise: the first message (or the title) and the evidence that points at the statement below.
 */
export function additionWording(w: WordingInput): { note: FittedText; message: FittedText } {
  const src = sourceNoun(w.source);
  const base = baseName(w.path);
  if (w.decl) {
    const { id, message } = w.decl;
    const where =
      w.decl.place === "statement"
        ? "the statement below"
        : w.decl.place === "below"
          ? "the code below"
          : "the code above";
    const found = message ? clauseAbout(message, id) : null;
    // A clause that is the bare name (`KeyError: 'fields'`) says nothing: quote the whole message instead.
    const clause =
      found !== null && found.replace(/["'`‘’“”]/g, "") === id ? shortExceptionNames(message ?? "") : found;
    const phrase = clause ? nounPhrase(clause, id) : null;
    const note: FittedText = clause
      ? { head: "", text: clause, tail: ` (see the ${kindOf(message ?? "")} in the ${src}); ${where} declares it.` }
      : { head: `the ${src} quotes \`${id}\`; ${where} declares it.`, text: "", tail: "" };
    const msg: FittedText = phrase
      ? { head: `${base} declares the `, text: phrase, tail: ` '${id}'` }
      : { head: `${base} declares '${id}', named in the ${message ? kindOf(message) : src}`, text: "", tail: "" };
    return { note, message: msg };
  }
  const quoted = shortExceptionNames(w.message ?? w.title);
  const tail =
    w.evidence === "frame"
      ? `; the ${src}'s trace points here.`
      : w.evidence === "alert"
        ? "; the alert points here."
        : w.evidence === "identifier" && w.identifier
          ? `; the ${src} quotes \`${w.identifier}\`.`
          : w.evidence === "path"
            ? w.pkg
              ? `; the ${src} names the package \`${w.pkg}\`, whose entry this is.`
              : `; the ${src} names this file.`
            : `; this code matches the ${src}'s words.`;
  return {
    note: { head: "", text: quoted, tail },
    message: { head: `${w.fn ? `${w.fn}()` : shortPath(w.path)}: `, text: quoted, tail: "" },
  };
}

/** What the heuristic says when the issue holds no stack trace (its steps and its summary alike). */
export const NO_TRACE = "The issue has no stack trace";

/**
 * The first sentences of the diagnosis summary: the problem quoted (≤ ~120 characters, cut at a word or sentence
 * boundary with "…"), then where it lives and why. Each element is one whole sentence.
 */
export function diagnosisSentences(w: WordingInput): string[] {
  const src = sourceNoun(w.source);
  const out: string[] = [];
  if (w.message) out.push(`The ${src} reports "${headlineOf(w.message, 120)}".`);
  else if (w.title.trim()) out.push(`The ${src} is titled "${headlineOf(w.title, 120)}".`);
  const at = w.line === null ? w.path : `${w.path}:${w.line}`;
  const inFn = w.fn ? ` in \`${w.fn}\`` : "";
  // No line: the frame's line number belongs to another file (compiled output, an installed copy), not to this one.
  const missing =
    w.line === null
      ? " (the frame's line number is not this file's)"
      : w.lineInFile
        ? ""
        : ", but the file has no such line";
  const relayed = w.relayed;
  const passedOn = relayed?.via.length ? ` through ${relayed.via.map((f) => `\`${f}\``).join(", ")}` : "";
  const located =
    w.evidence === "frame" && relayed
      ? `the crash is at ${relayed.at}${relayed.fn ? ` in \`${relayed.fn}\`` : ""}, on a value it was given; ` +
        `it comes from ${at}${inFn}${missing}${passedOn}`
      : w.evidence === "frame"
        ? `the stack trace enters the repository ${w.line === null ? "in" : "at"} ${at}${inFn}${missing}`
        : w.evidence === "alert"
          ? `the alert points ${w.line === null ? "into" : "at"} ${at}${inFn}${missing}`
          : "";
  if (w.decl) {
    const clause = w.decl.message ? clauseAbout(w.decl.message, w.decl.id) : null;
    const phrase = clause ? nounPhrase(clause, w.decl.id) : null;
    const why = phrase
      ? `, the ${phrase} the ${kindOf(w.decl.message ?? "")} names`
      : w.decl.message
        ? `, the name the ${kindOf(w.decl.message)} quotes`
        : `, the name the ${src} quotes`;
    out.push(`\`${w.path}\` declares \`${w.decl.id}\` (line ${w.decl.line})${why}${located ? `; ${located}` : ""}.`);
  } else if (located) {
    out.push(`${located.charAt(0).toUpperCase()}${located.slice(1)}.`);
  } else if (w.evidence === "identifier") {
    out.push(`\`${w.identifier ?? "the quoted name"}\` is declared in ${at}.`);
  } else if (w.evidence === "path") {
    out.push(
      w.pkg
        ? `The ${src}'s title names the package \`${w.pkg}\`; ${w.path} is the source of its entry file.`
        : `The ${src} names ${w.path}.`,
    );
  } else {
    out.push(`search_codebase ranked ${w.path} first for the ${src}'s words.`);
  }
  if (w.tied) out.push("Other files share its name; the one with the longest matching path was chosen.");
  if (w.fn && !located) out.push(`The code runs in \`${w.fn}\`.`);
  return out;
}
