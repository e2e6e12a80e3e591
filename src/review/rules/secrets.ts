import { findSecrets, multiLineSecretLines, withArticle } from "../../grounding/secrets.js";
import type { Finding } from "../../types.js";
import type { RuleContext } from "../types.js";

/**
 * Rule 7, secrets: an added line holding a secret ({@link findSecrets}, the same pattern set that redacts every text
 * groundfix sends out) is a `failure`. An added line inside a private key block of the head file fails too, even when
 * the block's BEGIN line is not part of the change ({@link multiLineSecretLines} over the whole head file). The
 * message names the kind and never repeats the secret.
 */
export function secretsRule(ctx: RuleContext): Finding[] {
  const findings: Finding[] = [];
  for (const { patch, hunks } of ctx.parsed) {
    let blockLines: Set<number> | undefined;
    const inBlock = (line: number): boolean => {
      blockLines ??= multiLineSecretLines(patch.status === "removed" ? "" : (ctx.head.read(patch.path) ?? ""));
      return blockLines.has(line);
    };
    for (const hunk of hunks) {
      for (const line of hunk.lines) {
        if (line.kind !== "added") continue;
        const at = line.newLine ?? 1;
        const kinds = [...new Set(findSecrets(line.text).map((s) => s.kind))];
        if (kinds.length === 0 && inBlock(at)) kinds.push("private key block");
        if (kinds.length === 0) continue;
        findings.push({
          rule: "secrets",
          path: patch.path,
          start_line: at,
          end_line: at,
          level: "failure",
          message:
            `added line ${at} contains ${kinds.map(withArticle).join(" and ")}-like string; remove it and ` +
            `rotate the credential if it is real`,
        });
      }
    }
  }
  return findings;
}
