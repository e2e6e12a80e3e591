import { readFileSync } from "node:fs";
import type { Model, ModelTurn } from "./types.js";
import { parseTranscript, type Transcript } from "./transcript.js";

/** The error a replay model throws when the run asks for more turns than were recorded. */
export const REPLAY_EXHAUSTED = "replay transcript exhausted";

/**
 * A model that replays recorded turns in order, ignoring what the tools answer (spec `replay:<file>`).
 * Tool call ids are `call_<turn>_<index>`. When the turns run out, `next` throws {@link REPLAY_EXHAUSTED}
 * (the loop ends `failed_closed` with that reason).
 *
 * @throws Error when `transcript` is not a valid transcript (checked with the same schema as files)
 */
export function createReplayModel(transcript: Transcript, spec = "replay"): Model {
  const { turns } = parseTranscript(transcript);
  let i = 0;
  return {
    spec,
    async next(): Promise<ModelTurn> {
      const turn = turns[i];
      if (!turn) throw new Error(REPLAY_EXHAUSTED);
      i++;
      return {
        text: turn.text ?? "",
        tool_calls: turn.tool_calls.map((c, j) => ({ id: `call_${i}_${j + 1}`, name: c.name, arguments: c.arguments })),
        ...(turn.usage ? { usage: { ...turn.usage } } : {}),
      };
    },
  };
}

/**
 * Why a file could not be read, in a few words for a one-line error: "no such file", "is a directory",
 * "permission denied", else the Node error code (or the message when there is none). Used for every file a user
 * names on the command line (issue files, replay transcripts).
 */
export function readFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOENT") return "no such file";
  if (code === "EISDIR") return "is a directory";
  if (code === "EACCES") return "permission denied";
  return code ?? (err instanceof Error ? err.message : "unreadable");
}

/**
 * Read and validate a transcript file (JSON, the format of `transcript.ts`).
 * @throws Error naming the file: unreadable, not JSON, or not a transcript (with the zod issues)
 */
export function loadTranscriptFile(file: string): Transcript {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    throw new Error(`cannot read replay transcript ${file}: ${readFailure(err)}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`replay transcript ${file} is not JSON: ${(err as Error).message}`);
  }
  try {
    return parseTranscript(raw);
  } catch (err) {
    throw new Error(`replay transcript ${file}: ${(err as Error).message}`);
  }
}
