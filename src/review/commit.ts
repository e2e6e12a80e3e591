import type { GroundfixConfig } from "../config/schema.js";
import type { Host } from "../host/types.js";
import type { ReviewReport, RunRecord } from "../types.js";
import { loadPythonGrammar } from "./python-parser.js";
import { reviewChange } from "./report.js";

/**
 * Review the commit range `baseSha..headSha` through a host: `host.diff` plus both snapshots (`host.loadSnapshot`,
 * loaded in parallel, with the Python grammar for the syntax rule), then {@link reviewChange}. When `record.head_sha` names an earlier commit than `headSha`
 * (someone pushed on top of the app's commit), the evidence rule checks only the app's own diff
 * `record.base_sha..record.head_sha`; the other rules always see the whole range.
 *
 * @throws whatever the host throws (unknown SHA, network); the rules themselves never throw.
 */
export async function reviewCommit(
  host: Host,
  input: { baseSha: string; headSha: string; config: GroundfixConfig; record?: RunRecord | null },
): Promise<ReviewReport> {
  const record = input.record ?? null;
  const ownRange = record?.head_sha && record.head_sha !== input.headSha ? { base: record.base_sha, head: record.head_sha } : null;
  const [patches, base, head, ownPatches] = await Promise.all([
    host.diff(input.baseSha, input.headSha),
    host.loadSnapshot(input.baseSha),
    host.loadSnapshot(input.headSha),
    ownRange ? host.diff(ownRange.base, ownRange.head) : Promise.resolve(undefined),
    loadPythonGrammar(),
  ]);
  return reviewChange({ patches, base, head, config: input.config, record, ...(ownPatches ? { ownPatches } : {}) });
}
