/** Logger subset used here (Probot's pino logger fits). */
interface WarnLog {
  warn(obj: object, msg?: string): void;
}

/**
 * True (and logged with the delivery id and the missing keys) when a webhook payload lacks `repository` or one of
 * `needs` as an object: such a delivery is dropped before any call (never a TypeError, never a half-built request).
 */
export function malformedPayload(
  context: { id: string; log: WarnLog; payload: unknown },
  needs: readonly ("issue" | "sender" | "comment")[],
): boolean {
  const payload = (context.payload ?? {}) as Record<string, unknown>;
  const missing = ["repository", ...needs].filter((key) => !payload[key] || typeof payload[key] !== "object");
  if (missing.length) context.log.warn({ id: context.id, missing }, "groundfix: malformed payload dropped");
  return missing.length > 0;
}
