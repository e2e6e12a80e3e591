import { LRUCache } from "lru-cache";

/** How many issues' replies {@link createReplyOnce} remembers before forgetting the least recent. */
export const REPLIED_LIMIT = 5000;

/** Logger subset used here (Probot's pino logger fits). */
interface ReplyLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/**
 * Claims `key` once: true the first time, false after (for every process sharing the store). May reject when the
 * store (Redis) is unreachable.
 */
export type ClaimOnce = (key: string) => Promise<boolean>;

/**
 * A guard for replies to refused commands: `replyOnce(key, reply, text, log)` posts `text` through `reply` the first
 * time for `key` (an issue's task key) and only logs after that, so a stranger cannot make the app comment without
 * limit. `claim` holds the keys where every replica sees them (the job queue's Redis, `JobQueue.claimOnce`); without
 * it, per process, at most {@link REPLIED_LIMIT} keys. A claim that fails (Redis away) posts nothing: silence is the
 * safe side of a limit. A failed reply is logged, never thrown.
 */
export function createReplyOnce(
  claim?: ClaimOnce,
): (key: string, reply: (text: string) => Promise<unknown>, text: string, log: ReplyLog) => Promise<void> {
  const replied = new LRUCache<string, true>({ max: REPLIED_LIMIT });
  const first: ClaimOnce =
    claim ??
    (async (key) => {
      if (replied.has(key)) return false;
      replied.set(key, true);
      return true;
    });
  return async (key, reply, text, log) => {
    let fresh: boolean;
    try {
      fresh = await first(key);
    } catch (error) {
      return void log.warn({ err: error, key }, "groundfix: could not claim the reply to a refused command; none sent");
    }
    if (!fresh) return void log.info({ key }, "groundfix: refused command already answered on this issue");
    await reply(text).catch((e: unknown) => log.warn({ err: e }, "could not reply to a refused command"));
  };
}
