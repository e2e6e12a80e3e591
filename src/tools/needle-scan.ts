import { Buffer } from "node:buffer";

/**
 * The needle scan of `fileWords` (word-scan.ts) as a small WebAssembly function using 128-bit SIMD: where a text holds
 * the words that contain any of a few needles, ignoring ASCII case, found 16 bytes at a time. It finds exactly what
 * the regular expression of `scanPattern` finds with `test`/`lastIndex` (`(?:n1|n2|…)[\w$]*`, flags `gi`): the ends
 * of the words, left to right, each word holding a needle once (a scan resumes at the end of the word it found).
 * Measured on the bench's 108 MB repository (session 9, cold, one pass each, CPU): 113-137 ms for three needles and
 * 114-158 ms for five, against 216-234 ms and 350-394 ms for the regular expression, with the same hits (146,988 and
 * 281,576). Nothing here imports more than `node:buffer`, so the scan worker (scan-worker.ts) loads it too.
 *
 * How: per block of 16 bytes at `i`, the bytes at `i`, `i + 1` and `i + 2`, each OR 0x20 (ASCII letters lower-cased;
 * a few other bytes become letters too, so this only picks candidates), are compared with the first three characters
 * of each distinct needle opening (all needles have two characters or more; a two-character needle's opening takes
 * any third byte); the positions where all match are the candidates, checked exactly (the lower-cased byte against
 * each needle's bytes) from left to right. Three bytes rather than two: in code, the first two letters of a needle
 * ("re", "co", "na") start a word every few dozen bytes, and each such candidate cost a check of every needle.
 * Measured on the bench's 108 MB repository (session 13, the large section's two passes, 3 and 5 needles, the copy
 * into memory included, medians of 7): 151-155 ms with two bytes and the openings read from a table in a loop,
 * 116-125 ms with three bytes and the openings as constants of the code (a module compiled per set of openings,
 * kept: {@link MAX_FUNCTIONS}); same hits (428,564).
 *
 * A needle found at a candidate: the scan goes to the end of its word (bytes of `[A-Za-z0-9_$]`), records that end
 * and goes on from there; else the next candidate, then the next block. The 32 bytes after a text are zeros (0x20
 * after the OR, no needle character), so the last block finds no candidate past the text. Ends are written to an
 * array of {@link END_SLOTS}; a full array stops the call and the caller calls again from the last end.
 *
 * Why the regular expression finds the same: it reports the leftmost position where a needle starts (case-folded as
 * without the `u` flag: only ASCII letters fold, ES2023 22.2.2.7.3 Canonicalize), widened to its word's end; the scan
 * checks candidate positions in order, and every position where a needle starts is a candidate.
 */

/** Memory layout (byte offsets). */
const LOWER = 0; // 256 bytes: each byte lower-cased (A-Z to a-z, the others as they are)
const WORD = 256; // 256 bytes: 1 for a word byte [A-Za-z0-9_$], else 0
const NEEDLE_COUNT = 512; // i32: the number of needles at NEEDLES
const KEY_SEEN = 516; // i32: not 0 once a scan that watches for it met " KE" (see NeedleScanner.scan)
/**
 * Distinct needle openings the scan filters by at most: their first three characters, or their first two when the
 * needles have more distinct three-character openings than this; more two-character ones go to the regular expression.
 */
export const MAX_OPENINGS = 64;
const NEEDLES = 528; // per needle: its length (one byte), then its bytes
/** Bytes of the needles (one more each for its length) the scan takes at most. */
const NEEDLE_BYTES = 4096;
const ENDS = NEEDLES + NEEDLE_BYTES; // i32 ends of the words found by one call
/** Ends one call of the scan records at most. */
export const END_SLOTS = 16384;
const TEXT = ENDS + END_SLOTS * 4; // the text scanned, then 32 zero bytes
/** Zero bytes kept after a text (the scan reads 18 bytes from a block's start). */
const PAD = 32;
const PAGE = 65536;

/** A needle the scan takes: two characters or more of `[a-z0-9_$]` (lower case, as `scanPattern` is given them). */
const SCANNABLE = /^[a-z0-9_$]{2,255}$/;

/**
 * The WebAssembly code of `scan(from, n, cap) -> count` (see the module comment) for needles of these `openings`
 * (their first two or three characters, lower case), built by {@link assemble}: the openings are constants of the
 * code, one filter after the other (no loop over a table). `watch`: the scan also notes whether it meets " KE" (see
 * {@link NeedleScanner.scan}).
 */
function scanFunction(openings: readonly string[], watch: boolean): number[] {
  const code: number[] = [];
  const labels: string[] = [];
  /** Append instructions (each an array of bytes, or a byte). */
  const ops = (...parts: (number | number[])[]) => {
    for (const b of parts.flat()) code.push(b);
  };
  const open = (kind: "block" | "loop" | "if", name: string) => {
    ops(kind === "block" ? 0x02 : kind === "loop" ? 0x03 : 0x04, 0x40);
    labels.push(name);
  };
  const close = () => {
    ops(0x0b);
    labels.pop();
  };
  const depth = (name: string) => labels.length - 1 - labels.lastIndexOf(name);
  const br = (name: string) => [0x0c, depth(name)];
  const brIf = (name: string) => [0x0d, depth(name)];
  // Parameters 0-2, then the locals declared below.
  const L = { i: 0, n: 1, cap: 2, cnt: 3, mask: 4, pos: 5, p: 6, k: 7, len: 8, j: 9, v: 10, w: 11, x: 12 };
  const KEYS = 13; // v128: the lanes where " KE" was met, when watching
  type Local = keyof typeof L;
  const get = (l: Local) => [0x20, L[l]];
  const set = (l: Local) => [0x21, L[l]];
  const tee = (l: Local) => [0x22, L[l]];
  const i32 = (v: number) => [0x41, ...sleb(v)];
  const load8 = (offset: number) => [0x2d, 0, ...uleb(offset)];
  const load32 = (offset: number) => [0x28, 2, ...uleb(offset)];
  const store32 = (offset: number) => [0x36, 2, ...uleb(offset)];
  const vload = (offset: number) => [0xfd, 0x00, 0, ...uleb(offset)];
  const vconst = (byte: number) => [0xfd, 0x0c, ...new Array<number>(16).fill(byte)];
  const [ADD, SUB, AND, SHL, EQZ, EQ, NE, GEU, GTU, CTZ] = [0x6a, 0x6b, 0x71, 0x74, 0x45, 0x46, 0x47, 0x4f, 0x4b, 0x68];
  const [I8X16_EQ, V128_AND, V128_OR, I8X16_BITMASK] = [
    [0xfd, 35],
    [0xfd, 78],
    [0xfd, 80],
    [0xfd, 100],
  ];
  const inc = (l: Local, by: number) => [...get(l), ...i32(by), ADD, ...set(l)];
  ops(2, 7, 0x7f, 4, 0x7b); // locals: cnt mask pos p k len j (i32), v w x keys (v128)
  open("block", "done");
  open("loop", "block16");
  ops(get("i"), get("n"), GEU, brIf("done"));
  // The mask of the OR over the openings of (v == first) & (w == second) [& (x == third)], v, w and x the bytes at
  // i, i + 1 and i + 2 (OR 0x20), the openings' characters constants of the code.
  ops(get("i"), vload(TEXT), vconst(0x20), V128_OR, set("v"));
  ops(get("i"), vload(TEXT + 1), vconst(0x20), V128_OR, set("w"));
  if (openings.some((o) => o.length > 2)) ops(get("i"), vload(TEXT + 2), vconst(0x20), V128_OR, set("x"));
  openings.forEach((o, q) => {
    ops(get("v"), vconst(o.charCodeAt(0) | 0x20), I8X16_EQ, get("w"), vconst(o.charCodeAt(1) | 0x20), I8X16_EQ);
    ops(V128_AND);
    if (o.length > 2) ops(get("x"), vconst(o.charCodeAt(2) | 0x20), I8X16_EQ, V128_AND);
    if (q > 0) ops(V128_OR);
  });
  ops(I8X16_BITMASK, set("mask"));
  // Watching: keys |= (text[i] == " ") & (text[i + 1] == "K") & (text[i + 2] == "E"), the bytes as they are.
  if (watch) {
    ops([0x20, KEYS], get("i"), vload(TEXT), vconst(0x20), I8X16_EQ, get("i"), vload(TEXT + 1), vconst(0x4b));
    ops(I8X16_EQ, V128_AND, get("i"), vload(TEXT + 2), vconst(0x45), I8X16_EQ, V128_AND, V128_OR, [0x21, KEYS]);
  }
  open("block", "next16");
  open("loop", "candidate");
  // The lowest candidate left: pos; then each needle compared there.
  ops(get("mask"), EQZ, brIf("next16"));
  ops(get("i"), get("mask"), CTZ, ADD, set("pos"));
  ops(get("mask"), get("mask"), i32(1), SUB, AND, set("mask"));
  ops(i32(0), load32(NEEDLE_COUNT), set("k"), i32(NEEDLES), set("p"));
  open("block", "none");
  open("loop", "needle");
  ops(get("k"), EQZ, brIf("none"), get("p"), load8(0), set("len"));
  open("block", "other");
  ops(get("pos"), get("len"), ADD, get("n"), GTU, brIf("other"), i32(0), set("j"));
  open("loop", "compare");
  ops(get("j"), get("len"), EQ);
  open("if", "found");
  // The needle is at `pos`: to the end of its word, record it, go on from there.
  ops(get("pos"), get("len"), ADD, set("i"));
  open("block", "wordEnd");
  open("loop", "widen");
  ops(get("i"), get("n"), GEU, brIf("wordEnd"));
  ops(get("i"), load8(TEXT), load8(WORD), EQZ, brIf("wordEnd"), inc("i", 1), br("widen"));
  close();
  close();
  ops(get("cnt"), i32(2), SHL, get("i"), store32(ENDS));
  ops(get("cnt"), i32(1), ADD, tee("cnt"), get("cap"), EQ, brIf("done"), br("block16"));
  close(); // found
  // LOWER[text[pos + j]] != needle[j]: the next needle.
  ops(get("pos"), get("j"), ADD, load8(TEXT), load8(LOWER), get("p"), get("j"), ADD, load8(1), NE, brIf("other"));
  ops(inc("j", 1), br("compare"));
  close(); // compare
  close(); // other
  ops(get("p"), get("len"), ADD, i32(1), ADD, set("p"), inc("k", -1), br("needle"));
  close(); // needle
  close(); // none
  ops(br("candidate"));
  close(); // candidate
  close(); // next16
  ops(inc("i", 16), br("block16"));
  close(); // block16
  close(); // done
  // KEY_SEEN |= the lanes of keys.
  if (watch) ops(i32(0), i32(0), load32(KEY_SEEN), [0x20, KEYS], I8X16_BITMASK, 0x72, store32(KEY_SEEN));
  ops(get("cnt"), 0x0b);
  return code;
}

function uleb(v: number): number[] {
  const out: number[] = [];
  do {
    let b = v & 0x7f;
    v >>>= 7;
    if (v !== 0) b |= 0x80;
    out.push(b);
  } while (v !== 0);
  return out;
}

function sleb(v: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/**
 * The module's bytes for `openings` and `watch` (see {@link scanFunction}): one function "scan" (i32, i32, i32) ->
 * i32, on the memory it imports as "env" "mem".
 */
function assemble(openings: readonly string[], watch: boolean): Uint8Array {
  const body = scanFunction(openings, watch);
  const section = (id: number, bytes: number[]) => [id, ...uleb(bytes.length), ...bytes];
  const name = (s: string) => [s.length, ...Buffer.from(s, "latin1")];
  return new Uint8Array([
    ...[0x00, 0x61, 0x73, 0x6d, 1, 0, 0, 0],
    ...section(1, [1, 0x60, 3, 0x7f, 0x7f, 0x7f, 1, 0x7f]),
    ...section(2, [1, ...name("env"), ...name("mem"), 2, 0, 1]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...name("scan"), 0, 0]),
    ...section(10, [1, ...uleb(body.length), ...body]),
  ]);
}

/** The parts of the WebAssembly API used here (the project's TypeScript libraries do not declare it). */
interface WasmMemory {
  buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (
    module: object,
    imports: Record<string, Record<string, unknown>>,
  ) => { exports: Record<string, unknown> };
}

/** A compiled scan: `scan(from, n, cap) -> count`. */
type ScanFn = (from: number, n: number, cap: number) => number;

/** Scan functions kept per scanner, by openings and watching (a search's later passes often look for the same). */
const MAX_FUNCTIONS = 16;

/**
 * One thread's scanner: {@link NeedleScanner.text} is where a text goes (its Latin-1 bytes), {@link load} sets the
 * needles, {@link scan} finds word ends into {@link ends}.
 */
export class NeedleScanner {
  /** The text region: write a text's bytes at 0; valid until the next {@link reserve}. */
  text: Buffer;
  /** The ends one {@link scan} found (the first `count` of them); valid until the next {@link reserve}. */
  ends: Int32Array;
  /** The needles last given to {@link load} and taken (the caller's array, compared by identity). */
  loaded: readonly string[] | undefined;
  private readonly memory: WasmMemory;
  private run: ScanFn;
  /** The loaded needles' openings, and their watching scan once compiled (null: it could not be). */
  private openings: readonly string[] = ["ab"];
  private watching: ScanFn | null | undefined;
  /** The scan functions compiled so far, by whether they watch and their openings, oldest first. */
  private readonly functions = new Map<string, ScanFn>();
  private bytes: Uint8Array;

  /** @throws when WebAssembly or its SIMD instructions are not available (the module does not compile). */
  constructor() {
    this.memory = new (wasmApi().Memory)({ initial: Math.ceil((TEXT + PAD) / PAGE) });
    this.run = this.functionFor(this.openings, false);
    this.bytes = new Uint8Array(this.memory.buffer);
    this.text = Buffer.from(this.memory.buffer, TEXT);
    this.ends = new Int32Array(this.memory.buffer, ENDS, END_SLOTS);
    for (let b = 0; b < 256; b++) {
      this.bytes[LOWER + b] = b >= 65 && b <= 90 ? b + 32 : b;
      this.bytes[WORD + b] =
        (b >= 97 && b <= 122) || (b >= 65 && b <= 90) || (b >= 48 && b <= 57) || b === 95 || b === 36 ? 1 : 0;
    }
  }

  /** The scan function for `openings` (watching or not), on this scanner's memory: compiled, or kept from before. */
  private functionFor(openings: readonly string[], watch: boolean): ScanFn {
    const key = `${watch ? "watch" : "scan"} ${openings.join(" ")}`;
    let run = this.functions.get(key);
    if (run === undefined) {
      const wasm = wasmApi();
      const instance = new wasm.Instance(new wasm.Module(assemble(openings, watch)), { env: { mem: this.memory } });
      run = instance.exports.scan as ScanFn;
      if (this.functions.size >= MAX_FUNCTIONS) this.functions.delete(this.functions.keys().next().value as string);
      this.functions.set(key, run);
    }
    return run;
  }

  /** Make {@link text} hold a text of `length` bytes and the zeros after it (grows the memory; new views). */
  reserve(length: number): void {
    const needed = TEXT + length + PAD;
    if (needed <= this.memory.buffer.byteLength) return;
    this.memory.grow(Math.ceil((needed - this.memory.buffer.byteLength) / PAGE));
    this.bytes = new Uint8Array(this.memory.buffer);
    this.text = Buffer.from(this.memory.buffer, TEXT);
    this.ends = new Int32Array(this.memory.buffer, ENDS, END_SLOTS);
  }

  /**
   * Scan for `needles` from now on. @returns false, and nothing changed, when the scan cannot take them: a needle
   * that is not two to 255 characters of `[a-z0-9_$]`, more than {@link MAX_OPENINGS} distinct openings, or more
   * than {@link NEEDLE_BYTES} bytes of needles (the caller then uses the regular expression).
   */
  load(needles: readonly string[]): boolean {
    if (needles.length === 0 || !needles.every((n) => SCANNABLE.test(n))) return false;
    if (needles.reduce((s, n) => s + n.length + 1, 0) > NEEDLE_BYTES) return false;
    // Three characters per opening (two for a two-character needle); two for all when that makes too many.
    const opening = (n: string, k: number) => n.slice(0, Math.min(k, n.length));
    let openings = [...new Set(needles.map((n) => opening(n, 3)))];
    if (openings.length > MAX_OPENINGS) openings = [...new Set(needles.map((n) => opening(n, 2)))];
    if (openings.length > MAX_OPENINGS) return false;
    try {
      this.run = this.functionFor(openings, false);
    } catch {
      return false;
    }
    this.openings = openings;
    this.watching = undefined;
    const { bytes } = this;
    new DataView(this.memory.buffer).setInt32(NEEDLE_COUNT, needles.length, true);
    let at = NEEDLES;
    for (const n of needles) {
      bytes[at++] = n.length;
      for (let i = 0; i < n.length; i++) bytes[at++] = n.charCodeAt(i);
    }
    this.loaded = needles;
    return true;
  }

  /**
   * The ends of the words holding a needle in `text[from..n)` (the `n` bytes written there, `from` at a word's
   * start or between words), into {@link ends}. @returns how many; {@link END_SLOTS} when more may follow (call
   * again from the last end). With `watch`, the scan also notes whether the bytes from `from` on hold " KE" (a space,
   * "K", "E"), as {@link keySeen} then tells (cleared by a watching call from 0): every "PRIVATE KEY" holds it, and a
   * space is in no word, so the jumps to the end of a word found skip none. A watching scan is a second compiled
   * function (a few more SIMD instructions a block: ~10 ms a pass over 108 MB); the other has none of them.
   */
  scan(from: number, n: number, watch = false): number {
    this.bytes.fill(0, TEXT + n, TEXT + n + PAD);
    if (!watch) return this.run(from, n, END_SLOTS);
    if (from === 0) this.bytes.fill(0, KEY_SEEN, KEY_SEEN + 4);
    if (this.watching === undefined) {
      try {
        this.watching = this.functionFor(this.openings, true);
      } catch {
        this.watching = null;
      }
    }
    return (this.watching ?? this.run)(from, n, END_SLOTS);
  }

  /**
   * Whether the watching {@link scan} calls since the last one from 0 met " KE" (true also when the watching scan
   * could not be compiled: then nothing is known).
   */
  keySeen(): boolean {
    return this.watching === null || new DataView(this.memory.buffer).getInt32(KEY_SEEN, true) !== 0;
  }
}

/** The WebAssembly API (the project's TypeScript libraries do not declare it). */
function wasmApi(): WasmApi {
  return (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
}

let scanner: NeedleScanner | null | undefined;

/**
 * This thread's {@link NeedleScanner}, made on first use; null where WebAssembly or its SIMD instructions are not
 * available (e.g. `node --jitless`), and while {@link needleScanSettings}`.off`: callers then use the regular
 * expression.
 */
export function needleScanner(): NeedleScanner | null {
  if (needleScanSettings.off) return null;
  if (scanner === undefined) {
    try {
      scanner = new NeedleScanner();
    } catch {
      scanner = null;
    }
  }
  return scanner;
}

/** `off`: use the regular expression instead (tests compare the two). */
export const needleScanSettings = { off: false };
