/**
 * The grounding core: pure functions, no I/O. Verbatim locate/apply with mismatch diagnosis, snippet checks, line
 * arithmetic, permalinks, and secret redaction. Everything public of `src/grounding/` except `symbols.ts` is here.
 */
export { locateVerbatim, type VerbatimMatch } from "./verbatim.js";
export {
  applyVerbatimEdit,
  type VerbatimEditOptions,
  type VerbatimEditResult,
  type VerbatimRejection,
} from "./apply.js";
export { nearestRegion, regionText, type NearestRegion } from "./diagnose.js";
export { verifySnippet, type SnippetCheck } from "./snippet.js";
export { lostLines, type LostLine } from "./additive.js";
export { spanDiff } from "./unified-diff.js";
export { numberLines } from "./messages.js";
export { isAllCrlf, lineAt, lineCount, lineEndingStyle, offsetOfLine } from "./lines.js";
export { githubWebUrl, permalink } from "./permalink.js";
export * from "./secrets.js";
