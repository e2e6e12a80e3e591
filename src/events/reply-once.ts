import { LRUCache } from "lru-cache";

/** How many issues' replies {@link createReplyOnce} remembers before forgetting the least recent. */
export const REPLIED_LIMIT = 5000;

/** Logger subset used here (Probot's pino logger fits). */
interface ReplyLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/**
 * A per-process guard for replies to refused commands: `replyOnce(key, reply, text, log)` posts `text` through
 * `reply` the first time for `key` (an issue's task key) and only logs after that, so a stranger cannot make the app
 * comment without limit. A failed reply is logged, never thrown. Remembers at most {@link REPLIED_LIMIT} keys.
 */
export function createReplyOnce(): (
  key: string,
  reply: (text: string) => Promise<unknown>,
  text: string,
  log: ReplyLog,
) => Promise<void> {
  const replied = new LRUCache<string, true>({ max: REPLIED_LIMIT });
  return async (key, reply, text, log) => {
    if (replied.has(key)) return void log.info({ key }, "groundfix: refused command already answered on this issue");
    replied.set(key, true);
    await reply(text).catch((e: unknown) => log.warn({ err: e }, "could not reply to a refused command"));
  };
}
