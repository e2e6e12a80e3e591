import { z } from "zod";
import type { RunRecord } from "../types.js";

const MARKER = "groundfix:run";

const runRecordSchema = z
  .object({
    version: z.literal(1),
    run_id: z.string().min(1).max(200),
    base_sha: z.string().min(1).max(200),
    head_sha: z.string().min(1).max(200).optional(),
    edits: z
      .array(
        z
          .object({
            path: z.string().min(1).max(4096),
            start_line: z.number().int().min(1),
            end_line: z.number().int().min(1),
            code_before: z.string(),
            code_after: z.string(),
          })
          .refine((e) => e.end_line >= e.start_line, "end_line is before start_line"),
      )
      .max(500),
  })
  .strict();

/**
 * Encode a run record as a hidden HTML comment for a pull request body: `<!-- groundfix:run BASE64 -->`, where BASE64
 * is the standard base64 of the record's UTF-8 JSON (its alphabet cannot contain `--` or `>`, so the comment cannot be
 * closed early). GitHub renders nothing for it. A PR body is at most 65,536 characters; the caller keeps records small.
 */
export function encodeRunRecord(record: RunRecord): string {
  const json = JSON.stringify(record);
  return `<!-- ${MARKER} ${Buffer.from(json, "utf8").toString("base64")} -->`;
}

/**
 * Find and decode the first run record comment in a pull request body.
 *
 * @returns the record, validated with zod, or `null` when there is none or it is malformed in any way (bad base64,
 *   bad JSON, wrong shape or version): a human may have edited the body, and a broken record must never throw.
 */
export function decodeRunRecord(body: string): RunRecord | null {
  if (typeof body !== "string") return null;
  const m = /<!--\s*groundfix:run\s+([A-Za-z0-9+/=\s]+?)\s*-->/.exec(body);
  if (!m || !m[1]) return null;
  const b64 = m[1].replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return null;
  try {
    const json: unknown = JSON.parse(Buffer.from(b64, "base64").toString("utf8"));
    const parsed = runRecordSchema.safeParse(json);
    return parsed.success ? (parsed.data as RunRecord) : null;
  } catch {
    return null;
  }
}
