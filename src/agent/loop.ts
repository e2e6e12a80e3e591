import type { GroundfixConfig } from "../config/schema.js";
import { redact, redactDeep, redactSecrets } from "../grounding/secrets.js";
import { createReadLog, readTools, runTool } from "../tools/index.js";
import { redactArguments } from "../tools/serve.js";
import { checkClaims, submitAnswerSchema } from "../tools/submit-answer.js";
import { changedFiles, createEditSession, runSuggestAddition } from "../tools/suggest-addition.js";
import type { Citation, Diagnosis, GateName, GateRejection, Outcome, Snapshot, Task, ToolResult, Usage } from "../types.js";
import { answerGate, type CallRecord } from "./gates.js";
import { stripFakeToolResults } from "./hygiene.js";
import type { Message, Model, ToolCall } from "./models/types.js";
import type { Transcript } from "./models/transcript.js";
import { decideOutcome } from "./outcome.js";
import { firstUserMessage, NO_TOOL_NUDGE, systemPrompt } from "./prompt.js";
import { agentToolSpecs } from "./tool-specs.js";
import { firstLine, truncate, truncateDeep, type Trace, type TraceStep, type TraceToolCall } from "./trace.js";
import type { AppliedEdit, ChangedFile } from "../types.js";
import type { InputRemoved } from "./hygiene.js";

/** What one agent run needs. `onProgress` is told about each step (for status comments, CLI output). */
export interface AgentInput {
  task: Task;
  snapshot: Snapshot;
  model: Model;
  config: GroundfixConfig;
  onProgress?: (event: { step: number; message: string }) => void;
}

/**
 * What one agent run produced. `diagnosis` is null unless an answer was accepted. `files` holds the final content
 * of each edited file (mode from the snapshot entry). `transcript` records the model's turns (raw text, before
 * hygiene) so `replay:<file>` reproduces the run.
 */
export interface RunResult {
  outcome: Outcome;
  reason: string | null;
  diagnosis: Diagnosis | null;
  edits: AppliedEdit[];
  files: ChangedFile[];
  gates: { rejections: GateRejection[]; observations_stripped: number; input_removed: InputRemoved };
  usage: Usage;
  trace: Trace;
  transcript: Transcript;
}

const READ_TOOLS = new Map(readTools.map((t) => [t.name as string, t]));
const TOOL_NAMES = [...READ_TOOLS.keys(), "suggest_addition", "submit_answer"];

/**
 * Run the clarity agent (issue 4): the model calls tools until an answer passes the gates or a budget is spent.
 *
 * Per step: one `model.next` call (a turn; a turn without a tool call gets {@link NO_TOOL_NUDGE} and still counts);
 * transcript hygiene on its text; each tool call dispatched in order — read tools through `runTool`,
 * `suggest_addition` through the path, budget, read-before-edit and verbatim gates, `submit_answer` through the
 * tool-name and count-floor gates and the claims check. Each rejection is the tool result the model sees.
 *
 * Budgets (config.agent): `max_steps` turns, `max_answer_attempts` submit_answer calls, `max_tokens` (reported
 * tokens). A spent budget, an answer the gates never let through, or a model/provider error (one-line message, no
 * stack) ends `failed_closed`. After the last attempt, failing claims are set to null and confidence capped at
 * `unverified_confidence_cap` (outcome never `pr_ready`). Never throws for model or tool trouble.
 */
export async function runAgent(input: AgentInput): Promise<RunResult> {
  const { task, snapshot, model, config } = input;
  const started = Date.now();
  const first = firstUserMessage(task);
  const tools = agentToolSpecs();
  const messages: Message[] = [
    { role: "system", content: systemPrompt(config) },
    { role: "user", content: first.content },
  ];
  const reads = createReadLog();
  const session = createEditSession();
  const calls: CallRecord[] = [];
  const rejections: GateRejection[] = [];
  const steps: TraceStep[] = [];
  const transcript: Transcript = { turns: [] };
  const usage: Usage = { model_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0 };
  let reported = false;
  let estimatedIn = 0;
  let estimatedOut = 0;
  let stripped = 0;
  let attempts = 0;
  let diagnosis: Diagnosis | null = null;
  let end: { outcome: Outcome; reason: string | null } | null = null;
  const progress = (step: number, message: string) => {
    try {
      input.onProgress?.({ step, message });
    } catch {
      // a progress listener never breaks a run
    }
  };

  for (let step = 1; !end; step++) {
    if (step > config.agent.max_steps) {
      end = fail(`step budget spent: ${config.agent.max_steps} model turns without an accepted answer`);
      rejections.push({ gate: "budget", message: end.reason!, step: step - 1 });
      break;
    }
    const t0 = Date.now();
    let turn;
    try {
      estimatedIn += Math.ceil(messages.reduce((n, m) => n + m.content.length, 0) / 4);
      usage.model_calls++;
      turn = await model.next({ messages: messages.map((m) => ({ ...m })), tools });
    } catch (err) {
      end = fail(`model error: ${firstLine(err instanceof Error ? err.message : String(err), 300) || "unknown error"}`);
      break;
    }
    const modelMs = Date.now() - t0;
    transcript.turns.push({
      ...(turn.text ? { text: turn.text } : {}),
      tool_calls: turn.tool_calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      ...(turn.usage ? { usage: { ...turn.usage } } : {}),
    });
    if (turn.usage) {
      reported = true;
      usage.input_tokens += turn.usage.input_tokens;
      usage.output_tokens += turn.usage.output_tokens;
    }
    estimatedOut += Math.ceil((turn.text.length + JSON.stringify(turn.tool_calls).length) / 4);

    const clean = stripFakeToolResults(turn.text);
    stripped += clean.stripped;
    const toolCalls: ToolCall[] = turn.tool_calls.map((c, i) => ({ id: c.id || `call_${step}_${i + 1}`, name: c.name, arguments: c.arguments }));
    const traceStep: TraceStep = {
      step,
      text: truncate(clean.text),
      observations_stripped: clean.stripped,
      tool_calls: [],
      model_ms: modelMs,
      ...(turn.usage ? { usage: { ...turn.usage } } : {}),
    };
    steps.push(traceStep);

    if (config.agent.max_tokens !== undefined && reported && usage.input_tokens + usage.output_tokens > config.agent.max_tokens) {
      end = fail(`token budget spent: ${usage.input_tokens + usage.output_tokens} tokens used, limit ${config.agent.max_tokens}`);
      rejections.push({ gate: "budget", message: end.reason!, step });
      break;
    }

    messages.push({ role: "assistant", content: clean.text, tool_calls: toolCalls });
    if (toolCalls.length === 0) {
      messages.push({ role: "user", content: NO_TOOL_NUDGE });
      traceStep.nudge = NO_TOOL_NUDGE;
      progress(step, `step ${step}: no tool call`);
      continue;
    }

    for (const call of toolCalls) {
      const c0 = Date.now();
      const { result, gate, accepted } = await dispatch(call, step);
      usage.tool_calls++;
      if (gate) rejections.push({ gate, message: result.text, step });
      const entry: TraceToolCall = {
        id: call.id,
        name: call.name,
        arguments: truncateDeep(call.arguments),
        status: result.status,
        ...(gate ? { gate } : {}),
        result: truncate(result.text),
        result_chars: result.text.length,
        ms: Date.now() - c0,
      };
      traceStep.tool_calls.push(entry);
      messages.push({ role: "tool", tool_call_id: call.id, name: call.name, content: result.text });
      progress(step, `step ${step}: ${call.name} → ${result.status}${gate ? ` (${gate})` : ""}`);
      if (accepted || end) break;
    }
  }

  async function dispatch(call: ToolCall, step: number): Promise<{ result: ToolResult; gate?: GateName; accepted?: boolean }> {
    const readTool = READ_TOOLS.get(call.name);
    if (readTool) {
      const result = await runTool(readTool, call.arguments, { snapshot, reads });
      if (result.status !== "invalid") calls.push({ name: call.name, status: result.status, readsCode: readTool.readsCode });
      return { result };
    }
    if (call.name === "suggest_addition") {
      const out = runSuggestAddition(call.arguments, { snapshot, reads, config, session });
      if (out.result.status !== "invalid") calls.push({ name: call.name, status: out.result.status, readsCode: false });
      return { result: out.result, ...(out.gate ? { gate: out.gate } : {}) };
    }
    if (call.name === "submit_answer") return submit(call, step);
    return {
      result: { status: "invalid", text: `INVALID: there is no tool "${call.name}". The tools are: ${TOOL_NAMES.join(", ")}.` },
    };
  }

  function submit(call: ToolCall, step: number): { result: ToolResult; gate?: GateName; accepted?: boolean } {
    const parsed = submitAnswerSchema.safeParse(call.arguments);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.join(".") || "arguments"}: ${i.message}`).join("; ");
      return {
        result: {
          status: "invalid",
          text: `INVALID: submit_answer takes {summary: string, affected_file: string|null, affected_function: string|null, root_cause_snippet: string|null, confidence: number 0..1} (${issues}).`,
        },
      };
    }
    attempts++;
    const max = config.agent.max_answer_attempts;
    const last = attempts >= max;
    const attemptNote = ` (answer attempt ${attempts} of ${max})`;
    const gated = answerGate(calls, config);
    if (gated) {
      if (last) {
        end = fail(`the answer was rejected ${max} time(s) by the ${gated.gate} gate: ${gated.message.replace(/^REJECTED: /, "")}`);
        return { result: { status: "rejected", text: `${gated.message}${attemptNote} No attempts left: the run fails closed.` }, gate: gated.gate };
      }
      return { result: { status: "rejected", text: `${gated.message}${attemptNote}` }, gate: gated.gate };
    }
    const answer = parsed.data;
    const claims = checkClaims(answer, snapshot);
    if (claims.failures.length && !last) {
      return {
        result: { status: "rejected", text: `REJECTED: ${claims.failures.join(" ")} Fix the answer and call submit_answer again.${attemptNote}` },
        gate: "claims",
      };
    }
    const verified = claims.failures.length === 0;
    const cap = config.agent.unverified_confidence_cap;
    const confidence = verified ? answer.confidence : Math.min(answer.confidence, cap);
    diagnosis = {
      summary: redactSecrets(answer.summary).text,
      affected_file: claims.affected_file,
      affected_function: claims.affected_function,
      root_cause_snippet: claims.root_cause_snippet,
      confidence,
      citations: citations(claims.citation),
    };
    end = decideOutcome({ diagnosis, claimsVerified: verified, editCount: session.edits.length, config });
    if (!verified) {
      const dropped = [
        answer.affected_file !== null && claims.affected_file === null ? "affected_file" : null,
        answer.affected_function !== null && claims.affected_function === null ? "affected_function" : null,
        answer.root_cause_snippet !== null && claims.root_cause_snippet === null ? "root_cause_snippet" : null,
      ].filter(Boolean);
      const text = `ACCEPTED WITH UNVERIFIED CLAIMS REMOVED: ${claims.failures.join(" ")} This was the last attempt: ${dropped.join(", ")} set to null and confidence capped at ${cap}. Outcome: ${end.outcome}.`;
      return { result: { status: "rejected", text }, gate: "claims", accepted: true };
    }
    return { result: { status: "ok", text: `ACCEPTED: the answer's claims are verified. Outcome: ${end.outcome}.` }, accepted: true };
  }

  /** The verified snippet's range, then each applied edit's anchor in the base file (deduplicated). */
  function citations(snippet: Citation | null): Citation[] {
    const list: Citation[] = snippet ? [snippet] : [];
    for (const e of session.edits) {
      if (e.baseStartLine === undefined || e.baseEndLine === undefined) continue;
      if (snapshot.read(e.path) === undefined) continue;
      list.push({ path: e.path, start_line: e.baseStartLine, end_line: e.baseEndLine });
    }
    const seen = new Set<string>();
    return list.filter((c) => {
      const key = `${c.path}:${c.start_line}-${c.end_line}`;
      return seen.has(key) ? false : (seen.add(key), true);
    });
  }

  const final = end ?? fail("the run ended without an answer");
  if (!reported) {
    usage.input_tokens = estimatedIn;
    usage.output_tokens = estimatedOut;
  }
  const failed = final.outcome === "failed_closed";
  const trace: Trace = {
    model: model.spec,
    started_at: new Date(started).toISOString(),
    steps,
    input_removed: first.removed,
    observations_stripped: stripped,
    outcome: final.outcome,
    reason: final.reason,
    total_ms: Date.now() - started,
  };
  // Everything below leaves the run (status comment, PR body, --json, --trace, --record): secrets redacted.
  return {
    outcome: final.outcome,
    reason: final.reason === null ? null : redact(final.reason),
    diagnosis: failed ? null : diagnosis,
    edits: failed ? [] : session.edits,
    files: failed ? [] : changedFiles(session, snapshot),
    gates: {
      rejections: rejections.map((r) => ({ ...r, message: redact(r.message) })),
      observations_stripped: stripped,
      input_removed: first.removed,
    },
    usage,
    trace: redactDeep({
      ...trace,
      steps: steps.map((st) => ({ ...st, tool_calls: st.tool_calls.map((c) => ({ ...c, arguments: redactArguments(c.arguments, snapshot) })) })),
    }),
    transcript: {
      turns: transcript.turns.map((t) => ({
        ...redactDeep(t),
        tool_calls: t.tool_calls.map((c) => ({ ...c, arguments: redactArguments(c.arguments, snapshot) })),
      })),
    },
  };
}

function fail(reason: string): { outcome: Outcome; reason: string } {
  return { outcome: "failed_closed", reason };
}
