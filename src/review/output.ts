import { mapStrings } from "../grounding/map-strings.js";
import { redact } from "../grounding/secrets.js";
import type { Finding, ReviewReport } from "../types.js";
import type { CheckAnnotation } from "./types.js";
import { SUMMARY_MAX_CHARS, truncateText } from "./truncate.js";
import { codePath, findingText } from "./report.js";

/**
 * GitHub accepts at most 50 annotations per check run create/update request; each update appends (GitHub docs, "Update
 * a check run").
 */
export const ANNOTATIONS_PER_REQUEST = 50;
/** Annotations sent at most for one review (20 requests); the rest are counted in the text. */
export const MAX_ANNOTATIONS = 1000;
const TITLE_MAX = 255;
const MESSAGE_MAX = 4000;

/** One `output` object of a check run create or update request. */
export interface CheckRunOutput {
  title: string;
  summary: string;
  text?: string;
  annotations: CheckAnnotation[];
}

/**
 * Shape a review report into check run `output` objects: the first is for the create (or completing update) request,
 * each further one for an update that appends the next batch of at most 50 annotations. Every element carries the
 * same title and summary (GitHub requires both on each output). Summary and text are cut to 65,535 characters with a
 * visible note; titles to 255 and messages to 4,000 characters; at most 1,000 annotations, none for a finding whose
 * path is empty (it names no file). Never throws.
 * Levels map one to one: finding `failure|warning|notice` → `annotation_level`. Every text has secrets redacted
 * (findings quote diff lines, and a check run is public on the pull request).
 */
export function toCheckRunOutputs(report: ReviewReport): CheckRunOutput[] {
  return mapStrings(shape(report), redact);
}

function shape(report: ReviewReport): CheckRunOutput[] {
  const title = clip(report.title, TITLE_MAX) || "groundfix review";
  const summary = truncateText(report.summary, SUMMARY_MAX_CHARS);
  // An annotation names a file (the Checks API requires its `path`): a finding about the pull request as a whole
  // (path "", e.g. evidence on a pull request with no changed file and no run record) is in the summary and text only.
  const onFiles = report.findings.filter((f) => f.path !== "");
  const annotations = onFiles.slice(0, MAX_ANNOTATIONS).map(toAnnotation);
  const left = onFiles.length - annotations.length;
  const text = report.findings.length === 0 ? undefined : findingsText(report.findings, left);
  const outputs: CheckRunOutput[] = [];
  for (let k = 0; k === 0 || k < annotations.length; k += ANNOTATIONS_PER_REQUEST) {
    const out: CheckRunOutput = { title, summary, annotations: annotations.slice(k, k + ANNOTATIONS_PER_REQUEST) };
    if (text !== undefined) out.text = text;
    outputs.push(out);
  }
  return outputs;
}

/** The `text` of the output: every finding on one line, built only up to just past the cap, then truncated. */
function findingsText(findings: Finding[], notAnnotated: number): string {
  const rows = ["### All findings", ""];
  let size = 0;
  for (const f of findings) {
    const row = `- ${f.level} · ${f.rule} · ${codePath(f.path, lines(f))} — ${findingText(f.message, MESSAGE_MAX)}`;
    rows.push(row);
    size += row.length + 1;
    if (size > SUMMARY_MAX_CHARS) break;
  }
  const tail: string[] = [];
  const shown = rows.length - 2;
  if (shown < findings.length) tail.push(`- … and ${findings.length - shown} more findings, not listed here.`);
  if (notAnnotated > 0) tail.push(`${notAnnotated} findings beyond the first ${MAX_ANNOTATIONS} are not annotated.`);
  const end = tail.length ? `\n\n${tail.join("\n")}` : "";
  return truncateText(rows.join("\n"), SUMMARY_MAX_CHARS - end.length) + end;
}

function toAnnotation(f: Finding): CheckAnnotation {
  const start = Math.max(1, Math.floor(f.start_line) || 1);
  const end = Math.max(start, Math.floor(f.end_line) || start);
  return {
    path: f.path,
    start_line: start,
    end_line: end,
    annotation_level: f.level,
    title: clip(`groundfix/${f.rule}`, TITLE_MAX),
    message: clip(f.message, MESSAGE_MAX) || f.rule,
  };
}

function lines(f: Finding): string {
  return f.end_line > f.start_line ? `${f.start_line}-${f.end_line}` : String(f.start_line);
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 3)}...`;
}
