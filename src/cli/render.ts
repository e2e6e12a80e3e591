import type { GateRejection, ReviewReport } from "../types.js";
import { plainDiff } from "../grounding/unified-diff.js";
import { editBaseLines } from "../pipeline/record.js";
import { RULES } from "../review/rules/index.js";
import type { FixReport } from "./fix.js";
import { colorDiff, type Style } from "./style.js";
import { terminalSafe } from "./terminal.js";

const LABEL = 10;
const label = (name: string, style: Style) => style.bold(name.padEnd(LABEL));
const indent = (text: string, by = "  ") =>
  text
    .split("\n")
    .map((l) => (l ? by + l : l))
    .join("\n");
const range = (start: number, end: number) => (end > start ? `${start}-${end}` : `${start}`);
/** A commit id as the CLI's reports show it: its first 12 hex digits. */
export const short = (sha: string): string => sha.slice(0, 12);

/** One line for an outcome, coloured by how good it is. */
function outcomeLine(report: FixReport, style: Style): string {
  const { diagnosis } = report.result;
  const outcome = report.status;
  const colour =
    outcome === "pr_ready"
      ? style.green
      : outcome === "failed_closed" || outcome === "review_failed"
        ? style.red
        : style.yellow;
  const conf = diagnosis ? ` (confidence ${diagnosis.confidence.toFixed(2)})` : "";
  return `${label("Outcome", style)}${colour(outcome)}${conf}`;
}

/**
 * The review conclusion and its findings, one line each (`level rule path:line message`); a message's further
 * lines follow, indented, with their own spacing kept. Control characters are shown escaped. The rules that ran are
 * listed, then every other rule of `RULES` (src/review/rules/index.ts) as not checked (`evidence` with why: it needs a
 * groundfix run's record, which `fix` has and a plain branch given to `review` does not), so `review` and `fix` list
 * the same rules.
 */
export function renderReview(unsafeReview: ReviewReport, style: Style): string {
  const review = terminalSafe({
    conclusion: unsafeReview.conclusion,
    rulesChecked: [...unsafeReview.rulesChecked],
    findings: unsafeReview.findings.map((f) => ({ ...f })),
  });
  const colour = review.conclusion === "success" ? style.green : style.red;
  const count = review.findings.length;
  // Every rule of the review (RULES) the report did not run, as the check run's summary lists them.
  const skipped = RULES.filter((r) => !review.rulesChecked.includes(r.name)).map((r) =>
    r.name === "evidence" ? "evidence, which needs a groundfix run's record" : r.name,
  );
  const notChecked = skipped.length === 0 ? "" : `; not checked: ${skipped.join(", ")}`;
  const lines = [
    `${label("Review", style)}${colour(review.conclusion)} — ` +
      `${count === 0 ? "no findings" : `${count} finding${count > 1 ? "s" : ""}`}` +
      style.dim(` (rules: ${review.rulesChecked.join(", ")}${notChecked})`),
  ];
  for (const f of review.findings) {
    const lvl = f.level === "failure" ? style.red(f.level) : f.level === "warning" ? style.yellow(f.level) : f.level;
    const [first = "", ...more] = f.message.replace(/\s+$/, "").split(/\r?\n/);
    lines.push(
      `  ${lvl} ${f.rule} ${f.path}:${range(f.start_line, f.end_line)} ${first}`,
      ...more.map((l) => `      ${l}`),
    );
  }
  return lines.join("\n");
}

/**
 * The gate rejections of a run: which gate stopped a call at which step, and what the model was told (escaped). The
 * message is addressed to the model ("REJECTED: … Copy the line(s) …"), so the header says whose words they are.
 */
export function renderRejections(rejections: readonly GateRejection[], style: Style): string {
  return terminalSafe(rejections.map((r) => ({ ...r })))
    .map(
      (r) =>
        `  ${style.yellow(r.gate)} ${style.dim(`(step ${r.step})`)} refused a call; the model was told:\n` +
        indent(r.message.trim(), "    "),
    )
    .join("\n");
}

/**
 * The human-readable report of `groundfix fix`: outcome, diagnosis with `path:line` citations and the verified
 * snippet, the unified diff of each edit, the branch and review conclusion, gate rejections and usage.
 * Every text in it (model output, file content, issue-derived names, commit subjects) is shown with control
 * characters escaped (see terminal.ts); only the styling adds escape sequences.
 */
export function renderFixReport(unsafeReport: FixReport, style: Style): string {
  const report = safeReport(unsafeReport);
  const { result } = report;
  const out: string[] = [];
  out.push(outcomeLine(report, style));
  // A comment-only proposal says why there is no fix in place of the bare reason (which it quotes).
  if (report.noFix) out.push(`${label("No fix", style)}${style.yellow(report.noFix)}`);
  else if (result.reason && result.outcome !== "pr_ready") out.push(`${label("Reason", style)}${result.reason}`);
  const moved = report.baseMoved ? `; moved from ${short(report.baseMoved.from)} during the run` : "";
  out.push(`${label("Base", style)}${short(report.baseSha)} (${report.ref}${moved})`);
  out.push(`${label("Model", style)}${report.model}`);

  const d = result.diagnosis;
  if (d) {
    out.push("", style.bold("Diagnosis"), indent(d.summary.trim()));
    if (d.affected_file) {
      out.push(
        `  ${style.dim("affected:")} ${d.affected_file}${d.affected_function ? ` (${d.affected_function})` : ""}`,
      );
    }
    for (const c of d.citations)
      out.push(`  ${style.dim("cites:")}    ${style.cyan(`${c.path}:${range(c.start_line, c.end_line)}`)}`);
    if (d.root_cause_snippet) {
      out.push(`  ${style.dim("verified snippet:")}`, indent(d.root_cause_snippet.replace(/\n$/, ""), "    │ "));
    }
  }

  if (result.edits.length > 0) {
    const heading = report.noFix
      ? "Note: the comment it would add (not a fix, not committed)"
      : report.delivery
        ? "Edits"
        : "Edits (not committed)";
    out.push("", style.bold(heading));
    for (const e of result.edits) {
      out.push(
        `  ${e.kind} in ${style.cyan(`${e.path}:${range(editBaseLines(e).start_line, editBaseLines(e).end_line)}`)}`,
      );
      const diff = plainDiff(e.diff).replace(/\n$/, "");
      out.push(indent(colorDiff(diff, style), "    "));
    }
  }

  if (report.delivery) {
    const { branch, headSha, reused, replaced } = report.delivery;
    const how = reused
      ? "(the branch already held exactly this commit: reused)"
      : replaced
        ? `(${report.deliveryNote ?? "replaced"}: one new commit, parent = base)`
        : "(one new commit, parent = base)";
    out.push("");
    out.push(`${label("Branch", style)}${branch} → ${short(headSha)} ${style.dim(how)}`);
    out.push(`${" ".repeat(LABEL)}${style.dim(`see it in the repository: git show ${branch}`)}`);
  } else if (report.deliveryNote) {
    out.push("", `${label("Branch", style)}${style.yellow("not written")}: ${report.deliveryNote}`);
  }
  if (report.review) out.push(renderReview(report.review, style));

  const { rejections, observations_stripped } = result.gates;
  out.push("");
  out.push(
    `${label("Gates", style)}${rejections.length} rejection${rejections.length === 1 ? "" : "s"}, ` +
      `${observations_stripped} self-written observation${observations_stripped === 1 ? "" : "s"} stripped`,
  );
  if (rejections.length > 0) out.push(renderRejections(rejections, style));
  const u = result.usage;
  out.push(
    `${label("Usage", style)}${u.model_calls} model calls, ${u.tool_calls} ` +
      `tool calls, ${u.input_tokens} input / ${u.output_tokens} output tokens` +
      (u.estimated === true ? " (estimated from characters: the model reported none)" : ""),
  );
  return out.join("\n");
}

/** The parts of a report the text shows, copied with every string escaped (the trace and transcript are left out). */
function safeReport(report: FixReport): FixReport {
  const { result } = report;
  const safe = terminalSafe({
    ref: report.ref,
    model: report.model,
    deliveryNote: report.deliveryNote,
    noFix: report.noFix,
    delivery: report.delivery ? { ...report.delivery } : null,
    result: {
      outcome: result.outcome,
      reason: result.reason,
      diagnosis: result.diagnosis
        ? { ...result.diagnosis, citations: result.diagnosis.citations.map((c) => ({ ...c })) }
        : null,
      edits: result.edits.map((e) => ({ ...e })),
      gates: { ...result.gates, rejections: result.gates.rejections.map((r) => ({ ...r })) },
      usage: { ...result.usage },
    },
  });
  return { ...report, ...safe, result: { ...result, ...safe.result } };
}
