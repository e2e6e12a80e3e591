/**
 * The review: pure rules over a diff plus its base and head snapshots, turned into a check run report.
 * Wiring to GitHub lives in `host/github`; the local `groundfix review` command lives in `cli/`.
 */
export { REVIEW_CHECK_NAME } from "./types.js";
export type { CheckAnnotation, ReviewInput, Hunk, HunkLine } from "./types.js";
export { reviewChange } from "./report.js";
export { reviewCommit } from "./commit.js";
export { parseUnifiedDiff } from "./diff-parse.js";
export { parseHunks } from "./hunks.js";
export { toCheckRunOutputs, ANNOTATIONS_PER_REQUEST, MAX_ANNOTATIONS } from "./output.js";
export type { CheckRunOutput } from "./output.js";
export { encodeRunRecord, decodeRunRecord } from "./record.js";
export { loadPythonGrammar } from "./sitter-syntax.js";
