import { findSecrets } from "../../grounding/secrets.js";
import type { Finding } from "../../types.js";
import type { RuleContext } from "../types.js";

/**
 * Rule 7, secrets (issue 6): an added line holding a token-like string ({@link findSecrets}: the providers' published
 * key shapes) is a `failure`. The message names the kind and never repeats the secret.
 */
export function secretsRule(ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  for (const { patch, hunks } of ctx.parsed) {
    for (const hunk of hunks) {
      for (const line of hunk.lines) {
        if (line.kind !== "added") continue;
        const kinds = [...new Set(findSecrets(line.text).map((s) => s.kind))];
        if (kinds.length === 0) continue;
        const at = line.newLine ?? 1;
        findings.push({
          rule: "secrets",
          path: patch.path,
          start_line: at,
          end_line: at,
          level: "failure",
          message: `added line ${at} contains a ${kinds.join(" and a ")}-like string; remove it and rotate the credential if it is real`,
        });
      }
    }
  }
  return findings;
}
