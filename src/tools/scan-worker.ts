import { Buffer } from "node:buffer";
import { createRequire } from "node:module";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { isMainThread, MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";
import { workerData as startData, parentPort } from "node:worker_threads";
import {
  fileWords,
  IntList,
  isWordCode,
  MAX_WORD,
  MAX_WORDS_PER_FILE,
  reserveLatin1,
  scanPattern,
  WordTable,
} from "./word-scan.js";

/** Cores from which the worker is used by default. */
export const MIN_CORES = 4;

/**
 * The default `minChars` for a machine of `cores` cores: 32 Mi characters, or Infinity (no worker) below
 * {@link MIN_CORES}. Measured on the bench's 2-core machine (108 MB repository, `fix` with two `search_codebase`
 * calls, 10 interleaved runs, medians, session 8): with the worker 1880 ms wall and 3000 ms CPU, without 1810 ms
 * and 2620 ms, the main thread 250 ms less busy: V8's own background threads (garbage collection, compilation)
 * already keep the second core about a third busy, and the worker competes with them; its ring and heap also raised
 * the run's peak memory from 2.2x to 2.4-2.5x the source. With more cores it should pay; not measured here.
 */
export function defaultMinChars(cores: number): number {
  return cores >= MIN_CORES ? 32 * 2 ** 20 : Infinity;
}

/**
 * The scan worker: a second thread that runs `scanWords`' fresh pass (search-index.ts) over a share of a large
 * snapshot's text files (the last files, `WORKER_SHARE` of the text) while the main thread scans the rest, with the
 * same {@link fileWords} (word-scan.ts): the machine's second core takes over half of the pass. `scanWords` stays
 * synchronous: it posts the request ({@link startShare}), scans its own files, then blocks in `Atomics.wait` until
 * the worker is done ({@link PendingShare.result}) and appends the worker's words in file order, interned into its
 * own word table: what it reports, keeps and merges is exactly what one thread gives.
 *
 * - When: only for snapshots whose scannable raw text is at least {@link scanWorkerSettings}`.minChars` characters
 *   (32 Mi by default; below it the pass is short and the worker's start-up would not pay), and by default only on
 *   machines with at least {@link MIN_CORES} cores ({@link defaultMinChars}).
 * - Texts: the worker keeps none. Each call, the main thread copies the share's raw texts (their Latin-1 bytes, a
 *   native copy) into a ring of {@link RING_SLOTS} shared buffers of `slotBytes` (2 MiB; larger when one file is)
 *   between its own files, a slot as soon as the worker has scanned the one in it; the worker scans each file as
 *   strings of at most {@link PIECE_CHARS} characters, which die young. Memory: the ring, the worker's isolate
 *   (~10 MB) and young generation ({@link YOUNG_MB}), and its word table (words copied, not slices of the pieces).
 *   A copy of the share held by the worker would take half the source again (measured: 3.0x the source at peak
 *   instead of 2.4x on the bench's 108 MB repository).
 * - Fallback: a worker that cannot start, throws, exits, answers wrongly or does not answer within `timeoutMs`
 *   (10 s) is terminated and its share scanned on the main thread: the answer is never lost or different, only
 *   later. After a timeout no worker is started again in this process (each call would wait that long).
 * - Lifetime: one worker per process, started when a large snapshot's scannable files are first worked out
 *   ({@link warmScanWorker}), `unref`'d: it never keeps the process alive. From dist/ it loads this compiled module;
 *   from TypeScript sources (tsx, vitest) this `.ts` module through tsx.
 */
export const scanWorkerSettings: {
  /** Scannable raw text (characters) from which a pass is shared with the worker. */
  minChars: number;
  /** How long either thread waits for the other (ms) before giving the share up. */
  timeoutMs: number;
  /**
   * How long a worker may take to start serving (ms), at most `timeoutMs`: one that cannot load its module never
   * does. Tests raise it: on a loaded machine a thread's start can take longer than 2 s.
   */
  startupMs: number;
  /** Bytes of each slot of the ring the texts go through (a slot is made larger for a larger file). */
  slotBytes: number;
  /** Tests only: make the worker fail ("throw", "exit", "hang": no answer, "garble": a wrong answer). */
  fault?: "throw" | "exit" | "hang" | "garble";
} = { minChars: defaultMinChars(availableParallelism()), timeoutMs: 10_000, startupMs: 2000, slotBytes: 2 * 2 ** 20 };

/**
 * What the scan worker did in this process (for tests and diagnostics): shares it answered, shares the main thread
 * scanned itself after a failure, and the bytes of raw text copied to it.
 */
export const scanWorkerStats = { answered: 0, failed: 0, bytes: 0 };

/** Shared buffers of the ring the texts go to the worker through. */
const RING_SLOTS = 2;

/** A code unit past 0xFF. */
const WIDE = /[^\x00-\xff]/;
const WIDE_ALL = /[^\x00-\xff]/g;

/** The worker's young generation (MB): V8's default grows to 32 MB of short-lived pieces between collections. */
const YOUNG_MB = 8;

/** Slots of the control array shared with the worker. */
const ANSWERED = 0; // the serial of the last request answered, -1 once the worker exited
const READY = 1; // 1 once the worker serves
const PRODUCED = 2; // chunks of the request under way in the ring
const CONSUMED = 3; // chunks of it the worker has taken out of the ring

/**
 * What the worker is asked to scan: `files` (ascending file indices) of the snapshot known as `key`, their texts
 * `lengths` long (bytes), coming through the ring in chunks: chunk c is `files[bounds[c]..bounds[c + 1]]`, in slot
 * c % RING_SLOTS.
 */
interface ScanRequest {
  serial: number;
  key: number;
  alternatives: readonly string[];
  files: Int32Array;
  lengths: Int32Array;
  bounds: Int32Array;
  ring: SharedArrayBuffer;
  slotBytes: number;
  timeoutMs: number;
  fault?: string;
}

/**
 * The worker's words for a share: `entries` four integers per distinct word per file — file index, the index of the
 * word in `words` (first met first), the offset just past its first occurrence in the file, 0 — by file and then
 * offset, as `fileWords` gives them; `capped` the files stopped at the per-file cap, ascending.
 */
export interface ShareResult {
  entries: Int32Array;
  words: string[];
  capped: Int32Array;
}

interface ScanReply extends Partial<ShareResult> {
  serial: number;
  error?: string;
}

/** The main thread's end of the worker. */
interface Helper {
  worker: Worker;
  port: MessagePort;
  /** The control array (see {@link ANSWERED} and the next ones). */
  control: Int32Array;
  ring: SharedArrayBuffer;
  slotBytes: number;
  failed: boolean;
}

let helper: Helper | undefined;
/** Whether a share is under way (a scan started from inside another's callback scans alone). */
let busy = false;
let serials = 0;
/** No worker is started again once one did not answer in time. */
let disabled = false;

const keys = new WeakMap<object, number>();
let nextKey = 1;

/** Tests only: stop the worker and forget a timeout, so the next large scan starts a new one. */
export function resetScanWorker(): void {
  if (helper !== undefined) void helper.worker.terminate().catch(() => undefined);
  helper = undefined;
  disabled = false;
}

/** Start the worker unless it runs: a caller that will share a scan soon lets it start while doing other work. */
export function warmScanWorker(): void {
  if (helper === undefined || helper.failed) helper = spawn();
}

/** Start the worker (undefined when it cannot be). */
function spawn(): Helper | undefined {
  if (disabled) return undefined;
  try {
    const url = new URL(import.meta.url);
    const controlBuffer = new SharedArrayBuffer(16);
    const { port1, port2 } = new MessageChannel();
    const options = {
      workerData: { groundfixScanWorker: true, control: controlBuffer, port: port2 },
      transferList: [port2],
      // Its strings die young (see PIECE_CHARS): a small young generation is all it needs.
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB },
    };
    const worker = url.pathname.endsWith(".ts")
      ? new Worker(throughTsx(url), { ...options, eval: true })
      : new Worker(url, options);
    worker.unref();
    port1.unref();
    const h: Helper = {
      worker,
      port: port1,
      control: new Int32Array(controlBuffer),
      ring: new SharedArrayBuffer(0),
      slotBytes: 0,
      failed: false,
    };
    // An error event nobody listens to would throw in the main thread; a request under way times out.
    worker.on("error", () => (h.failed = true));
    worker.on("exit", () => (h.failed = true));
    return h;
  } catch {
    return undefined;
  }
}

/**
 * The source of a worker that loads the TypeScript module `url` through tsx's loader (a devDependency; a vitest
 * fork's own transform does not reach a worker, and `--import tsx` registers its hooks on the main thread only).
 */
function throughTsx(url: URL): string {
  const tsx = dirname(createRequire(url).resolve("tsx/package.json"));
  const api = JSON.stringify(pathToFileURL(join(tsx, "dist", "esm", "api", "index.mjs")).href);
  return `import(${api}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}); });`;
}

/** Stop the worker after a failure (a later scan starts a new one unless it timed out). */
function drop(h: Helper, timedOut: boolean): void {
  scanWorkerStats.failed++;
  if (helper === h) helper = undefined;
  if (timedOut) disabled = true;
  h.failed = true;
  void h.worker.terminate().catch(() => undefined);
}

/** A share posted to the worker. */
export interface PendingShare {
  /** Copy into the ring what fits now (never waits); the main thread calls it between its own files. */
  pump(): void;
  /** Wait for the worker's words for the share; undefined when it failed (the caller scans the share itself). */
  result(): ShareResult | undefined;
  /** Give the share up (the caller does not want the result; the worker is stopped). */
  cancel(): void;
}

/**
 * Post `files` (ascending indices into the paths of `snapshot`, whose raw texts are `text(i)` for `files[i]`, of
 * `lengths[i]` characters) to the worker for a scan for `alternatives`, and copy the first texts into the ring.
 * Returns at once; undefined when no worker can be had. Unless `narrow` (see `latin1Bytes`, word-scan.ts), code
 * units past 0xFF (only in snapshots not built by the snapshot builder) go as NUL, which, like them, is in no word
 * and matches no needle: the worker finds the same words at the same offsets.
 */
export function startShare(
  snapshot: object,
  alternatives: readonly string[],
  files: Int32Array,
  lengths: Int32Array,
  text: (i: number) => string,
  narrow: boolean,
): PendingShare | undefined {
  if (busy) return undefined;
  let h = helper;
  if (h === undefined || h.failed) h = helper = spawn();
  if (h === undefined) return undefined;
  let key = keys.get(snapshot);
  if (key === undefined) keys.set(snapshot, (key = nextKey++));
  let longest = 0;
  for (const length of lengths) longest = Math.max(longest, length);
  const slotBytes = Math.max(scanWorkerSettings.slotBytes, longest, 1);
  if (h.slotBytes !== slotBytes) {
    h.slotBytes = slotBytes;
    h.ring = new SharedArrayBuffer(h.slotBytes * RING_SLOTS);
  }
  // Chunks: consecutive files filling a slot.
  const bounds: number[] = [0];
  let used = 0;
  for (let i = 0; i < lengths.length; i++) {
    const length = lengths[i] as number;
    if (used + length > h.slotBytes) {
      bounds.push(i);
      used = 0;
    }
    used += length;
  }
  if (lengths.length > 0) bounds.push(lengths.length);
  const serial = ++serials;
  const request: ScanRequest = {
    serial,
    key,
    alternatives,
    files,
    lengths,
    bounds: Int32Array.from(bounds),
    ring: h.ring,
    slotBytes: h.slotBytes,
    timeoutMs: scanWorkerSettings.timeoutMs,
  };
  if (scanWorkerSettings.fault !== undefined) request.fault = scanWorkerSettings.fault;
  const { control } = h;
  Atomics.store(control, PRODUCED, 0);
  Atomics.store(control, CONSUMED, 0);
  try {
    h.worker.postMessage(request);
  } catch {
    drop(h, false);
    return undefined;
  }
  const worker = h;
  busy = true;
  const ring = Buffer.from(h.ring);
  const chunks = bounds.length - 1;
  let next = 0;
  let done = false;
  const fill = () => {
    let at = (next % RING_SLOTS) * worker.slotBytes;
    for (let i = bounds[next] as number; i < (bounds[next + 1] as number); i++) {
      const t = text(i);
      at += ring.write(narrow || !WIDE.test(t) ? t : t.replace(WIDE_ALL, "\0"), at, "latin1");
    }
    scanWorkerStats.bytes += at - (next % RING_SLOTS) * worker.slotBytes;
    next++;
    Atomics.store(control, PRODUCED, next);
    Atomics.notify(control, PRODUCED);
  };
  const pump = () => {
    while (!done && next < chunks && next - Atomics.load(control, CONSUMED) < RING_SLOTS) fill();
  };
  pump();
  return {
    pump,
    result() {
      if (done) return undefined;
      done = true;
      busy = false;
      // The rest of the texts, a slot as soon as the worker frees one.
      const start = Date.now();
      while (next < chunks) {
        const consumed = Atomics.load(control, CONSUMED);
        if (next - consumed < RING_SLOTS) {
          fill();
          continue;
        }
        const left = start + waitLimit(worker) - Date.now();
        const state = Atomics.load(control, ANSWERED);
        // The worker answered before taking every chunk: an error reply (read by `answer`), not a timeout.
        if (state === serial) break;
        if (left <= 0 || state === -1) {
          drop(worker, left <= 0);
          return undefined;
        }
        Atomics.wait(control, CONSUMED, consumed, left);
      }
      return answer(worker, serial, files);
    },
    cancel() {
      if (done) return;
      done = true;
      busy = false;
      drop(worker, false);
    },
  };
}

/** How long the main thread waits for the worker: less while it has not started serving. */
function waitLimit(h: Helper): number {
  const limit = Atomics.load(h.control, READY) === 1 ? scanWorkerSettings.timeoutMs : scanWorkerSettings.startupMs;
  return Math.min(limit, scanWorkerSettings.timeoutMs);
}

/** Block until the worker answers request `serial` for `files`; undefined (and the worker dropped) on failure. */
function answer(h: Helper, serial: number, files: Int32Array): ShareResult | undefined {
  // ANSWERED holds the serial of the last request answered, or -1 once the worker exited: replies come in order,
  // so ours is in the port once it is `serial`.
  const start = Date.now();
  for (;;) {
    const state = Atomics.load(h.control, ANSWERED);
    if (state === serial || state === -1) break;
    const left = start + waitLimit(h) - Date.now();
    if (left <= 0) {
      drop(h, true);
      return undefined;
    }
    Atomics.wait(h.control, ANSWERED, state, left);
  }
  for (;;) {
    const message = receiveMessageOnPort(h.port)?.message as ScanReply | undefined;
    if (message === undefined) break;
    if (message.serial !== serial) continue;
    if (message.error === undefined && valid(message, files)) {
      scanWorkerStats.answered++;
      return message as ShareResult;
    }
    break;
  }
  drop(h, false);
  return undefined;
}

/** Whether `r` is an answer for `files`: entries of those files in order, word indices in range, capped among them. */
function valid(r: ScanReply, files: Int32Array): boolean {
  const { entries, words, capped } = r;
  if (!(entries instanceof Int32Array) || !Array.isArray(words) || !(capped instanceof Int32Array)) return false;
  // Words are checked for what interning needs (a string of 2 to MAX_WORD characters), not read again.
  if (entries.length % 4 !== 0) return false;
  const first = files.length > 0 ? (files[0] as number) : 0;
  const last = files.length > 0 ? (files[files.length - 1] as number) : -1;
  let previous = -1;
  for (let k = 0; k < entries.length; k += 4) {
    const file = entries[k] as number;
    const word = entries[k + 1] as number;
    if (file < previous || file < first || file > last || word < 0 || word >= words.length) return false;
    previous = file;
  }
  for (const file of capped) if (file < first || file > last) return false;
  for (const w of words) if (typeof w !== "string" || w.length < 2 || w.length > MAX_WORD) return false;
  return true;
}

/** The worker's side: answer scan requests. */
function serve(port: MessagePort, control: Int32Array): void {
  let table = new WordTable(true);
  let tableKey = -1;
  process.on("exit", () => {
    Atomics.store(control, ANSWERED, -1);
    Atomics.notify(control, ANSWERED);
    Atomics.notify(control, CONSUMED);
  });
  Atomics.store(control, READY, 1);
  Atomics.notify(control, ANSWERED);
  parentPort?.on("message", (request: ScanRequest) => {
    const { serial, fault } = request;
    if (fault === "hang") return;
    if (fault === "exit") process.exit(1);
    let reply: ScanReply;
    const transfer: ArrayBuffer[] = [];
    try {
      if (fault === "throw") throw new Error("scan worker: injected failure");
      // The table lives on with the snapshot: its words are not made again in later calls.
      if (tableKey !== request.key || table.words.length > 1 << 20) {
        table = new WordTable(true);
        tableKey = request.key;
      }
      reply = { serial, ...scanShare(request, control, table) };
      if (fault === "garble" && reply.entries !== undefined && reply.entries.length > 0) reply.entries[1] = -1;
      transfer.push(
        (reply.entries as Int32Array).buffer as ArrayBuffer,
        (reply.capped as Int32Array).buffer as ArrayBuffer,
      );
    } catch (error) {
      // A pass cut short leaves marks in the table's `seen`: the next request starts a new table.
      tableKey = -1;
      reply = { serial, error: String(error) };
    }
    port.postMessage(reply, transfer);
    Atomics.store(control, ANSWERED, serial);
    Atomics.notify(control, ANSWERED);
    // The main thread may be waiting for a free slot of the ring (an error reply frees none).
    Atomics.notify(control, CONSUMED);
  });
}

/**
 * The words of `request.files` for its alternatives, their texts taken out of the ring chunk by chunk (a slot is
 * given back once its chunk is scanned), each file as strings of at most about {@link PIECE_CHARS} characters.
 */
function scanShare(request: ScanRequest, control: Int32Array, table: WordTable): ShareResult {
  const { files, lengths, bounds, slotBytes } = request;
  const ring = Buffer.from(request.ring);
  const pattern = scanPattern(request.alternatives);
  reserveLatin1(PIECE_CHARS);
  table.begin();
  const entries = new IntList();
  const words: string[] = [];
  const capped: number[] = [];
  for (let c = 0; c + 1 < bounds.length; c++) {
    const start = Date.now();
    for (;;) {
      const produced = Atomics.load(control, PRODUCED);
      if (produced > c) break;
      const left = start + request.timeoutMs - Date.now();
      if (left <= 0) throw new Error("scan worker: no texts came");
      Atomics.wait(control, PRODUCED, produced, left);
    }
    let at = (c % RING_SLOTS) * slotBytes;
    for (let i = bounds[c] as number; i < (bounds[c + 1] as number); i++) {
      const file = files[i] as number;
      const from = entries.length;
      const end = at + (lengths[i] as number);
      let taken = 0;
      for (let piece = at; piece < end && taken < MAX_WORDS_PER_FILE;) {
        const cut = cutAt(ring, piece, end);
        reserveLatin1(cut - piece);
        taken = fileWords(ring.toString("latin1", piece, cut), true, file, pattern, table, entries, piece - at, taken);
        piece = cut;
      }
      if (taken >= MAX_WORDS_PER_FILE) capped.push(file);
      at = end;
      for (let k = from; k < entries.length; k += 4) {
        const id = entries.data[k + 1] as number;
        const local = table.localId(id);
        if (local === words.length) words.push(table.words[id] as string);
        entries.data[k + 1] = local;
      }
    }
    Atomics.store(control, CONSUMED, c + 1);
    Atomics.notify(control, CONSUMED);
  }
  table.seen.fill(-1);
  return { entries: entries.data.slice(0, entries.length), words, capped: Int32Array.from(capped) };
}

/**
 * Characters of the strings the worker makes of a file's text, at most (but for a word character run longer than
 * that): below V8's large-object size (128 KiB), so they are made in the young generation and die there, young
 * collections being cheap and frequent; a whole large file would be a large object, kept until a full collection.
 */
const PIECE_CHARS = 1 << 16;

/**
 * Where the piece of the text `bytes[from..end)` that starts at `from` ends: `end`, or a non-word byte (the first of
 * the next piece) at most {@link PIECE_CHARS} after `from` — the last one before that mark, else the first after it.
 */
function cutAt(bytes: Uint8Array, from: number, end: number): number {
  if (end - from <= PIECE_CHARS) return end;
  const mark = from + PIECE_CHARS;
  for (let at = mark; at > from; at--) if (!isWordCode(bytes[at] as number)) return at;
  for (let at = mark + 1; at < end; at++) if (!isWordCode(bytes[at] as number)) return at;
  return end;
}

if (!isMainThread && (startData as { groundfixScanWorker?: boolean } | null)?.groundfixScanWorker === true) {
  const data = startData as { control: SharedArrayBuffer; port: MessagePort };
  serve(data.port, new Int32Array(data.control));
}
