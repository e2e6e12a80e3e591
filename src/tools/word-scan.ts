import { Buffer } from "node:buffer";
import { END_SLOTS, needleScanner, type NeedleScanner } from "./needle-scan.js";

/**
 * The scan of one file for the words holding a scan's needles ({@link fileWords}) and the word table it interns
 * them in, shared by `scanWords` (search-index.ts) on the main thread and by the scan worker (scan-worker.ts), which
 * runs the same code over its share of the files. Nothing here imports more than `node:buffer` and needle-scan.ts, so
 * the worker starts without loading the rest of groundfix.
 */

/** True for `[A-Za-z0-9_$]`, the characters of an identifier (a UTF-16 code unit). */
export function isWordCode(code: number): boolean {
  return (
    (code >= 97 && code <= 122) ||
    (code >= 65 && code <= 90) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 36
  );
}

/** Distinct words of one file that are ranked; the rest of a huge file is not. */
export const MAX_WORDS_PER_FILE = 5000;
/** Words longer than this (hashes, minified runs, data) are not ranked. */
export const MAX_WORD = 80;

/** A growable array of 32-bit integers. */
export class IntList {
  data = new Int32Array(1024);
  length = 0;

  /** Append four values (one entry of a scan: `ScanRecord`, search-index.ts). */
  push4(a: number, b: number, c: number, d: number): void {
    if (this.length + 4 > this.data.length) {
      const data = new Int32Array(this.data.length * 2);
      data.set(this.data);
      this.data = data;
    }
    const { data, length } = this;
    data[length] = a;
    data[length + 1] = b;
    data[length + 2] = c;
    data[length + 3] = d;
    this.length = length + 4;
  }
}

/**
 * The distinct words the `scanWords` passes (search-index.ts) of one snapshot met (or, in the scan worker, those of
 * its share), interned without slicing the text per hit:
 * an open-addressing table of word ids keyed by a hash of the word's characters, so a word seen before (in this
 * file or another, in this call or an earlier one) costs a hash and a comparison of its characters, not a new
 * string. The characters are read from the file's {@link latin1Bytes} (one native copy per file with a hit), not
 * with `charCodeAt` on the snapshot's strings (slices of large external strings, several times slower a character).
 * Shapes: `slots` holds id + 1 (0 = empty), its length a power of two kept at most half full; `words[id]` the word,
 * `hashes[id]` its hash (FNV-1a, 32-bit, of its code units from the last to the first: the order in which
 * {@link fileWords} meets them as it widens a hit to the left), `lengths[id]` its length and its characters
 * `chars[starts[id] ..][..lengths[id]]` (word characters are ASCII, one byte each). Per id, for the call under way
 * (`serial`): `seen` the last file it was met in during the pass (−1 between passes), `local` the id
 * `scanWords` reports (from 0, first reported first), `bits` the pass's needles it holds; `local` and `bits`
 * are valid when their `…Serial` entry is the call's serial.
 */
export class WordTable {
  // Small at first on purpose: the first files of the first scan grow every array and probe past collisions, so
  // those paths have run before the optimizing compiler takes the scan loop (a path that has never run when it
  // compiles is compiled as a deoptimization, and the loop would fall back to slow code mid-scan).
  slots = new Int32Array(16);
  words: string[] = [];
  hashes = new Int32Array(8);
  starts = new Int32Array(8);
  lengths = new Uint8Array(8);
  chars = new Uint8Array(64);
  /** Bytes of `chars` in use. */
  private used = 0;
  seen = new Int32Array(8);
  local = new Int32Array(8);
  localSerial = new Int32Array(8);
  bits = new Int32Array(8);
  bitsSerial = new Int32Array(8);
  serial = 0;
  private nextLocal = 0;

  /** `copies`: keep each word as a string of its own rather than a slice of the text it was met in. */
  constructor(private readonly copies = false) {}

  /** Start a call: local ids from 0 again, bits to be worked out again. */
  begin(): void {
    this.serial++;
    this.nextLocal = 0;
  }

  /** The bits of `fresh` (the needles of this call's pass, at most 31) that word `id` holds, worked out once a call. */
  bitsOf(id: number, fresh: readonly string[]): number {
    if (this.bitsSerial[id] !== this.serial) {
      this.bitsSerial[id] = this.serial;
      const lower = (this.words[id] as string).toLowerCase();
      let bits = 0;
      for (let i = 0; i < fresh.length; i++) if (lower.includes(fresh[i] as string)) bits |= 1 << i;
      this.bits[id] = bits;
    }
    return this.bits[id] as number;
  }

  /** The id `scanWords` reports for `id` in this call. */
  localId(id: number): number {
    if (this.localSerial[id] !== this.serial) {
      this.localSerial[id] = this.serial;
      this.local[id] = this.nextLocal++;
    }
    return this.local[id] as number;
  }

  /**
   * The id of the word `text.slice(start, end)`, added if new: `bytes` holds the Latin-1 bytes of `text` (at least
   * to `end`) and `hash` is the word's hash (see {@link WordTable}).
   */
  id(text: string, bytes: Uint8Array, start: number, end: number, hash: number): number {
    const { slots, hashes, lengths } = this;
    const mask = slots.length - 1;
    const length = end - start;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = slots[slot] as number;
      if (entry === 0) return this.add(text, bytes, start, end, hash, slot);
      const id = entry - 1;
      if (hashes[id] !== hash || lengths[id] !== length) continue;
      const { chars } = this;
      const offset = (this.starts[id] as number) - start;
      let i = start;
      while (i < end && chars[offset + i] === bytes[i]) i++;
      if (i === end) return id;
    }
  }

  /**
   * The id of `word` (2 to {@link MAX_WORD} characters of `[A-Za-z0-9_$]`, as {@link fileWords} takes them), added
   * if new: how the scan worker's words (scan-worker.ts) join the main thread's table.
   */
  intern(word: string): number {
    const bytes = WORD_SCRATCH;
    const end = word.length;
    let h = FNV_BASIS;
    for (let i = end - 1; i >= 0; i--) {
      const c = word.charCodeAt(i);
      bytes[i] = c;
      h = Math.imul(h ^ c, FNV_PRIME);
    }
    return this.id(word, bytes, 0, end, h | 0);
  }

  /** Add the word `text.slice(start, end)` (`bytes` as for {@link id}) at the empty `slot`. */
  private add(text: string, bytes: Uint8Array, start: number, end: number, hash: number, slot: number): number {
    const id = this.words.length;
    const length = end - start;
    // A slice keeps its whole text alive: fine for a snapshot's texts, not for the worker's short-lived pieces.
    this.words.push(this.copies ? String.fromCharCode(...bytes.subarray(start, end)) : text.slice(start, end));
    if (id >= this.seen.length) this.widen();
    while (this.used + length > this.chars.length) this.chars = twice(this.chars);
    this.chars.set(bytes.subarray(start, end), this.used);
    this.starts[id] = this.used;
    this.lengths[id] = length;
    this.used += length;
    this.hashes[id] = hash;
    this.seen[id] = -1;
    this.slots[slot] = id + 1;
    if (this.words.length * 2 > this.slots.length) this.grow();
    return id;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let id = 0; id < this.words.length; id++) {
      let slot = (this.hashes[id] as number) & mask;
      while (slots[slot] !== 0) slot = (slot + 1) & mask;
      slots[slot] = id + 1;
    }
    this.slots = slots;
  }

  /** Double the per-id arrays. */
  private widen(): void {
    this.hashes = twice(this.hashes);
    this.starts = twice(this.starts);
    this.lengths = twice(this.lengths);
    this.seen = twice(this.seen);
    this.local = twice(this.local);
    this.localSerial = twice(this.localSerial);
    this.bits = twice(this.bits);
    this.bitsSerial = twice(this.bitsSerial);
  }
}

/** A copy of `a` twice as long (the rest zero). */
function twice<T extends Int32Array | Uint8Array>(a: T): T {
  const b = new (a.constructor as new (length: number) => T)(a.length * 2);
  b.set(a);
  return b;
}

/** FNV-1a offset basis and prime (32-bit; Fowler, Noll, Vo, IETF draft-eastlake-fnv). */
const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 16777619;

/** The bytes of a word being interned by {@link WordTable.intern}. */
const WORD_SCRATCH = new Uint8Array(MAX_WORD);

/** Per byte, 1 for a word character (`[A-Za-z0-9_$]`, see `isWordCode`), else 0. */
const WORD_BYTE = new Uint8Array(256);
for (let c = 0; c < 256; c++) WORD_BYTE[c] = isWordCode(c) ? 1 : 0;

/**
 * The Latin-1 bytes of the file being scanned, reused by every scan: {@link reserveLatin1} sizes it for the longest
 * text file of a snapshot before a pass, so the hit loop never grows it (a growth first met after the loop is
 * optimized would deoptimize it). With the needle scan (needle-scan.ts), the text region of its memory.
 */
let latin1: Buffer = Buffer.allocUnsafeSlow(1 << 10);

/** Make {@link latin1} hold at least `length` bytes. */
export function reserveLatin1(length: number): void {
  const scanner = needleScanner();
  if (scanner !== null) {
    // A power of two, so that a pass reserves once and the views stay.
    scanner.reserve(2 ** Math.ceil(Math.log2(Math.max(length, 1 << 10))));
    latin1 = scanner.text;
  } else if (length > latin1.length) latin1 = Buffer.allocUnsafeSlow(2 ** Math.ceil(Math.log2(length)));
}

/**
 * The bytes of the text {@link fileWords} (or {@link latin1Bytes}) wrote last, as it wrote them: valid until the next
 * such call, so a caller may test a file's words against them right after its scan without copying the text again.
 */
export function scannedBytes(): Uint8Array {
  return latin1;
}

/** A code unit past 0xFF (only in the raw text of snapshots not built by the snapshot builder). */
const WIDE = /[^\x00-\xff]/;
const WIDE_ALL = /[^\x00-\xff]/g;

/**
 * `text` as bytes, one per code unit, in the shared {@link latin1} buffer (reserved for it; valid until the next
 * call): a native copy (~0.1 ns a byte) after which a character costs a typed-array read. Exact when `narrow` (every
 * code unit at most 0xFF, see `rawIsLatin1`); otherwise each code unit past 0xFF is written as NUL, which is no word
 * character either (a plain Latin-1 write would keep its low byte, and U+0161 would read as "a").
 */
export function latin1Bytes(text: string, narrow: boolean): Uint8Array {
  latin1.write(narrow || !WIDE.test(text) ? text : text.replace(WIDE_ALL, "\0"), 0, "latin1");
  return latin1;
}

/**
 * What a scan looks for: `re`, the needles as alternatives of a regular expression, each hit widened to the end of
 * its word; `needles`, the same for the needle scan (needle-scan.ts), which finds the same hits faster.
 */
export interface ScanPattern {
  re: RegExp;
  needles: readonly string[];
}

/** The {@link ScanPattern} of a scan for `alternatives` (strings of word characters). */
export function scanPattern(alternatives: readonly string[]): ScanPattern {
  // The rest of the word is matched by the expression itself (`[\w$]` is `isWordCode`): a hit ends at its word's end.
  const re = new RegExp(`(?:${alternatives.map((n) => n.replace(/\$/g, "\\$")).join("|")})[\\w$]*`, "gi");
  return { re, needles: [...alternatives] };
}

/**
 * The needle scanner to scan for `pattern` with, its needles loaded; null when there is none or it cannot take
 * them (then the regular expression scans).
 */
function scannerFor(pattern: ScanPattern): NeedleScanner | null {
  const scanner = needleScanner();
  if (scanner === null || scanner.loaded === pattern.needles) return scanner;
  return scanner.load(pattern.needles) ? scanner : null;
}

/**
 * What {@link fileWords} notes of whether its text may hold "PRIVATE KEY" (the secret filter's key-block test needs
 * to know, secret-words.ts): the caller sets `watch` before the call; `seen` is then 1 when the needle scan went
 * through the whole text without meeting " KE" (so the text holds no "PRIVATE KEY"), 2 when it met it, 0 when not
 * known (not watched, the regular expression scanned, or the per-file cap stopped the scan before the text's end).
 * One native search less per file for the first pass over it: ~37 ms for the bench's 108 MB.
 */
export const keyTextWatch = { watch: false, seen: 0 };

/**
 * Append to `out` an entry (file, id, end, 0) for each distinct word (2 to {@link MAX_WORD} characters) of `content`,
 * the raw text of file number `file` (`narrow`: see {@link latin1Bytes}), that `pattern` finds, in order, at most
 * {@link MAX_WORDS_PER_FILE}; `end` is the offset just past its first occurrence. Words met are marked in
 * `table.seen` with `file` (so `seen` must hold no `file` before). No callback per word: the caller walks the
 * entries after the file, so this loop, which runs once per hit, stays small and sees one shape of everything.
 * `content` may also be a piece of the file's text that starts and ends by a non-word character or the file's
 * start or end (the scan worker cuts long files so): it starts at offset `base` of the file, and `taken` words of the
 * file were taken from its pieces before; no word and no hit spans such a cut, so the pieces give what the whole does.
 * The hits are found by the needle scan (needle-scan.ts) when it takes the pattern's needles, else by its regular
 * expression: the same hits either way.
 * @returns the number of the file's words taken so far: {@link MAX_WORDS_PER_FILE} when the cap stopped the file.
 */
export function fileWords(
  content: string,
  narrow: boolean,
  file: number,
  pattern: ScanPattern,
  table: WordTable,
  out: IntList,
  base = 0,
  taken = 0,
): number {
  const scanner = scannerFor(pattern);
  keyTextWatch.seen = 0;
  if (scanner === null) {
    const { re } = pattern;
    re.lastIndex = 0;
    // `test` rather than `exec`: no match array per hit (a search makes hundreds of thousands).
    if (!re.test(content)) return taken;
    const bytes = latin1Bytes(content, narrow);
    do {
      taken = takeWord(content, bytes, re.lastIndex, file, table, out, base, taken);
      if (taken >= MAX_WORDS_PER_FILE) return taken;
    } while (re.test(content));
    return taken;
  }
  scanner.reserve(content.length);
  latin1 = scanner.text;
  const bytes = latin1Bytes(content, narrow);
  const watch = keyTextWatch.watch;
  for (let from = 0; ;) {
    const count = scanner.scan(from, content.length, watch);
    const { ends } = scanner;
    for (let k = 0; k < count; k++) {
      taken = takeWord(content, bytes, ends[k] as number, file, table, out, base, taken);
      if (taken >= MAX_WORDS_PER_FILE) return taken;
    }
    if (count < END_SLOTS) {
      if (watch) keyTextWatch.seen = scanner.keySeen() ? 2 : 1;
      return taken;
    }
    from = ends[count - 1] as number;
  }
}

/**
 * The hit of {@link fileWords} that ends at `e`, the end of its word in `content` (`bytes` its Latin-1): the word is
 * the run of word characters before `e`, hashed as it is widened to the left (a word longer than MAX_WORD is given
 * up as soon as it is); a word not met in `file` yet gets its entry. @returns `taken`, plus one for a new word.
 */
function takeWord(
  content: string,
  bytes: Uint8Array,
  e: number,
  file: number,
  table: WordTable,
  out: IntList,
  base: number,
  taken: number,
): number {
  const word = WORD_BYTE;
  let s = e - 1;
  let h = Math.imul(FNV_BASIS ^ (bytes[s] as number), FNV_PRIME);
  while (s > 0) {
    const c = bytes[s - 1] as number;
    if (word[c] === 0) break;
    if (e - s === MAX_WORD) return taken;
    h = Math.imul(h ^ c, FNV_PRIME);
    s--;
  }
  if (e - s < 2) return taken;
  const id = table.id(content, bytes, s, e, h | 0);
  if (table.seen[id] === file) return taken;
  table.seen[id] = file;
  out.push4(file, id, base + e, 0);
  return taken + 1;
}
