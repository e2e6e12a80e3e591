import type { GroundfixConfig } from "../config/schema.js";
import { redact, redactDeep } from "../grounding/secrets.js";
import { createReadLog, readTools, runTool } from "../tools/index.js";
import { redactArguments } from "../tools/serve.js";
import { checkClaims, submitAnswerSchema } from "../tools/submit-answer.js";
import {
  changedFiles,
  createEditSession,
  prepareSuggestAddition,
  runSuggestAddition,
} from "../tools/suggest-addition.js";
import type {
  Citation,
  Diagnosis,
  GateName,
  GateRejection,
  Outcome,
  Snapshot,
  Task,
  ToolResult,
  Usage,
} from "../types.js";
import { parseArguments } from "./arguments.js";
import { answerGate, showedNoCode, type CallRecord } from "./gates.js";
import { estimateTokens, historyView } from "./history.js";
import { sanitizeProblemText, stripFakeToolResults } from "./hygiene.js";
import { costOf } from "./models/pricing.js";
import type { Message, Model, ToolCall } from "./models/types.js";
import type { Transcript } from "./models/transcript.js";
import { decideOutcome } from "./outcome.js";
import { readCommentOnly } from "./comment-only.js";
import { firstUserMessage, NO_TOOL_NUDGE, problemCutNote, systemPrompt } from "./prompt.js";
import { toolCallsFromText } from "./text-calls.js";
import { agentToolSpecs } from "./tool-specs.js";
import { firstLine, truncate, truncateDeep, type Trace, type TraceStep, type TraceToolCall } from "./trace.js";
import type { AppliedEdit, ChangedFile, ReadLog, ReadWindow } from "../types.js";
import type { InputRemoved } from "./hygiene.js";
import { zodIssueLines } from "../config/zod-issues.js";

/**
 * The bounds every run is held to, besides `config.agent` (times in milliseconds):
 * - `maxToolCallsPerTurn`: calls of one turn that are run; later ones are answered "NOT RUN" (default 8);
 * - `toolTimeoutMs`: one tool call; a call still running then is answered "TIMEOUT" and its reads are not recorded
 *   (default 30 s; a handler that never yields cannot be interrupted before it returns);
 * - `runTimeoutMs`: the whole run, model turns included (default: the model's own `runTimeoutMs`, else 15 min);
 * - `maxTokens`: tokens of the run when `config.agent.max_tokens` is unset (default 600,000), counted as reported:
 *   prompt plus output, prompt-cache reads at one tenth (they are billed at 0.1× the input price);
 * - `maxTurnsWithoutToolCall`: turns in a row without a tool call before the run ends (default 3);
 * - `keepFullTurns`: the tool results of at least this many recent turns stay whole in the history; older ones are
 *   shortened (default 3; see src/agent/history.ts).
 */
export interface RunLimits {
  maxToolCallsPerTurn: number;
  toolTimeoutMs: number;
  runTimeoutMs: number;
  maxTokens: number;
  maxTurnsWithoutToolCall: number;
  keepFullTurns: number;
}

/** The defaults of {@link RunLimits} (`runTimeoutMs` gives way to the model's own). */
export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({
  maxToolCallsPerTurn: 8,
  toolTimeoutMs: 30_000,
  runTimeoutMs: 15 * 60_000,
  maxTokens: 600_000,
  maxTurnsWithoutToolCall: 3,
  keepFullTurns: 3,
});

/**
 * A reported prompt below this share of groundfix's own estimate means the server cut the prompt (a context
 * window smaller than the request; Ollama's default 4096 tokens keeps the end and drops the start). Real tokenizers
 * give more tokens than characters / 4 for code, so an honest count is not below it.
 */
const CUT_PROMPT_RATIO = 0.7;

/** What one agent run needs. `onProgress` is told about each step (for status comments, CLI output). */
export interface AgentInput {
  task: Task;
  snapshot: Snapshot;
  model: Model;
  config: GroundfixConfig;
  onProgress?: (event: { step: number; message: string }) => void;
  /** Overrides of {@link DEFAULT_LIMITS}. */
  limits?: Partial<RunLimits>;
  /** A maintainer approved this run (`/groundfix approve`): edits that only add comments may be committed too. */
  approved?: boolean;
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
  /**
   * True when the run has edits and none of them changes code, as the outcome was decided (`readCommentOnly`,
   * src/agent/comment-only.ts): what the commit subject, the pull request title and the note in place of a fix say.
   * Absent in a result built by hand (then the edits' own hunks tell, `commentOnlyNote`).
   */
  commentOnly?: boolean;
  files: ChangedFile[];
  /** What the gates refused or removed; `input_cut`: characters of the problem text not shown (present when > 0). */
  gates: {
    rejections: GateRejection[];
    observations_stripped: number;
    input_removed: InputRemoved;
    input_cut?: number;
  };
  /** Reported tokens (estimated, chars / 4, when the model reported none), with cache tokens and cost when known. */
  usage: Usage;
  /** The token budget of the run and whether it could be enforced (not when the model reported no usage). */
  budget?: { max_tokens: number; used: number; enforced: boolean };
  trace: Trace;
  transcript: Transcript;
}

const READ_TOOLS = new Map(readTools.map((t) => [t.name as string, t]));
const TOOL_NAMES = [...READ_TOOLS.keys(), "suggest_addition", "submit_answer"];

/**
 * Run the clarity agent: the model calls tools until an answer passes the gates or a budget is spent.
 *
 * Per step: one `model.next` call (a turn) on the history, whose old tool results are shortened
 * (src/agent/history.ts); transcript hygiene on its text; when the turn has no native tool call, calls written as
 * text (src/agent/text-calls.ts) are taken as calls; a turn without any gets {@link NO_TOOL_NUDGE} and still counts.
 * The calls run in order, `submit_answer` after every other call of the turn (so an edit sent with the answer is
 * applied first), at most `limits.maxToolCallsPerTurn` of them, each within `limits.toolTimeoutMs`: read tools
 * through `runTool`, `suggest_addition` through the path, budget, read-before-edit and verbatim gates,
 * `submit_answer` through the tool-name and count-floor gates and the claims check. Arguments that are not a JSON
 * object are answered with what is wrong (src/agent/arguments.ts) and kept as `{}` in the history. Each rejection
 * is the tool result the model sees (marked as an error for providers that have the notion).
 *
 * Ends `failed_closed` (never throws for model or tool trouble) when: `max_steps` turns are spent;
 * `max_answer_attempts` answers were refused; the reported tokens pass `config.agent.max_tokens` (default
 * `limits.maxTokens`; not enforceable when the model reports no usage, which `budget.enforced` and the trace say);
 * the run's wall-clock limit is reached; `limits.maxTurnsWithoutToolCall` turns in a row have no tool call; the
 * server reports a prompt far smaller than groundfix's estimate (it cut the prompt); or the model/provider fails
 * (one-line message, no stack). After the last attempt, failing claims are set to null and confidence capped at
 * `unverified_confidence_cap` (outcome never `pr_ready`).
 */
export async function runAgent(input: AgentInput): Promise<RunResult> {
  const { task, snapshot, model, config } = input;
  const limits: RunLimits = {
    ...DEFAULT_LIMITS,
    ...(model.runTimeoutMs !== undefined ? { runTimeoutMs: model.runTimeoutMs } : {}),
    ...input.limits,
  };
  const maxTokens = config.agent.max_tokens ?? limits.maxTokens;
  const started = Date.now();
  const deadline = started + limits.runTimeoutMs;
  const first = firstUserMessage(task);
  const tools = agentToolSpecs();
  const messages: Message[] = [
    { role: "system", content: systemPrompt(config) },
    { role: "user", content: first.content },
  ];
  /** The turn that produced each message (0: the opening ones). */
  const turnOf: number[] = [0, 0];
  const reads = createReadLog();
  const session = createEditSession();
  const calls: CallRecord[] = [];
  const rejections: GateRejection[] = [];
  const steps: TraceStep[] = [];
  const notes: string[] = [];
  if (first.cut > 0) notes.push(problemCutNote(first.cut));
  const transcript: Transcript = { turns: [] };
  const usage: Usage = { model_calls: 0, tool_calls: 0, input_tokens: 0, output_tokens: 0 };
  const cache = { read: 0, write: 0 };
  let reported = false;
  let estimatedIn = 0;
  let estimatedOut = 0;
  let stripped = 0;
  let attempts = 0;
  let withoutCall = 0;
  let diagnosis: Diagnosis | null = null;
  let end: { outcome: Outcome; reason: string | null } | null = null;
  /** The comment-only reading the outcome was decided on (`commentOnlyOf`), for what the run's readers show. */
  let commentOnly = false;
  const progress = (step: number, message: string) => {
    try {
      input.onProgress?.({ step, message });
    } catch {
      // a progress listener never breaks a run
    }
  };
  const budgetUsed = () => Math.round(usage.input_tokens - 0.9 * cache.read + usage.output_tokens);
  const push = (message: Message, step: number) => {
    messages.push(message);
    turnOf.push(step);
  };
  const pushMissingResults = (toolCalls: readonly ToolCall[], from: number, step: number, text: string) => {
    // Every call of an assistant message needs a tool result, or the next request is refused by the provider.
    for (const call of toolCalls.slice(from))
      push({ role: "tool", tool_call_id: call.id, name: call.name, content: text, is_error: true }, step);
  };

  for (let step = 1; !end; step++) {
    if (step > config.agent.max_steps) {
      end = fail(`step budget spent: ${config.agent.max_steps} model turns without an accepted answer`);
      rejections.push({ gate: "budget", message: end.reason!, step: step - 1 });
      break;
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      end = fail(`wall-clock limit spent: the run took more than ${Math.round(limits.runTimeoutMs / 1000)} s`);
      rejections.push({ gate: "budget", message: end.reason!, step: step - 1 });
      break;
    }
    const t0 = Date.now();
    const view = historyView(messages, turnOf, step, limits.keepFullTurns);
    const estimate = estimateTokens(view, tools);
    let turn;
    try {
      estimatedIn += estimate;
      usage.model_calls++;
      const signal = AbortSignal.timeout(left);
      turn = await withTimeout(model.next({ messages: view, tools, signal }), left);
    } catch (err) {
      end =
        err instanceof TimeLimit || Date.now() >= deadline
          ? fail(
              `wall-clock limit spent: the run took more than ${Math.round(limits.runTimeoutMs / 1000)} s (the model ` +
                `had not answered)`,
            )
          : fail(`model error: ${firstLine(err instanceof Error ? err.message : String(err), 400) || "unknown error"}`);
      if (err instanceof TimeLimit || Date.now() >= deadline)
        rejections.push({ gate: "budget", message: end.reason!, step });
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
      cache.read += turn.usage.cache_read_tokens ?? 0;
      cache.write += turn.usage.cache_write_tokens ?? 0;
    }
    estimatedOut += Math.ceil((turn.text.length + JSON.stringify(turn.tool_calls).length) / 4);

    const clean = stripFakeToolResults(turn.text);
    stripped += clean.stripped;
    let text = clean.text;
    let written = false;
    let rawCalls: { id?: string; name: string; arguments: unknown }[] = turn.tool_calls;
    if (rawCalls.length === 0) {
      const found = toolCallsFromText(text, TOOL_NAMES);
      if (found.calls.length > 0) {
        rawCalls = found.calls;
        text = found.rest;
        written = true;
      }
    }
    const prefix = written ? "text" : "call";
    const toolCalls: ToolCall[] = rawCalls.map((c, i) => ({
      id: c.id || `${prefix}_${step}_${i + 1}`,
      name: c.name,
      arguments: c.arguments,
    }));
    const traceStep: TraceStep = {
      step,
      text: truncate(clean.text),
      observations_stripped: clean.stripped,
      tool_calls: [],
      model_ms: modelMs,
      ...(turn.usage ? { usage: { ...turn.usage } } : {}),
      ...(written ? { calls_from_text: toolCalls.length } : {}),
    };
    steps.push(traceStep);

    if (reported && budgetUsed() > maxTokens) {
      end = fail(`token budget spent: ${budgetUsed()} tokens used, limit ${maxTokens}`);
      rejections.push({ gate: "budget", message: end.reason!, step });
      break;
    }
    if (
      turn.usage &&
      estimate > 1500 &&
      turn.usage.input_tokens < CUT_PROMPT_RATIO * estimate &&
      estimate - turn.usage.input_tokens > 1000
    ) {
      end = fail(
        `the server cut the prompt: it reported ${turn.usage.input_tokens} prompt tokens for a request of about ` +
          `${estimate}, so the start (the rules and the task) was ` +
          `lost; raise the server's context length to at least ` +
          "16k tokens (Ollama: OLLAMA_CONTEXT_LENGTH=16384 or num_ctx)",
      );
      break;
    }

    // History keeps arguments as objects: servers such as Ollama refuse a history whose arguments are strings.
    const parsedArgs = toolCalls.map((c) => parseArguments(c.arguments));
    const ordered = toolCalls
      .map((call, i) => ({ call, args: parsedArgs[i]! }))
      .sort((a, b) => Number(a.call.name === "submit_answer") - Number(b.call.name === "submit_answer"));
    push(
      {
        role: "assistant",
        content: text,
        tool_calls: ordered.map(({ call, args }) => ({ ...call, arguments: args.ok ? args.value : {} })),
      },
      step,
    );
    if (ordered.length === 0) {
      withoutCall++;
      if (withoutCall >= limits.maxTurnsWithoutToolCall) {
        end = fail(
          `${withoutCall} turns in a row without a tool call: the model answers in plain text, which is not read as ` +
            "an answer (a model or server without native tool calls, or a prompt cut by a small context window)",
        );
        rejections.push({ gate: "budget", message: end.reason!, step });
        break;
      }
      push({ role: "user", content: NO_TOOL_NUDGE }, step);
      traceStep.nudge = NO_TOOL_NUDGE;
      progress(step, `step ${step}: no tool call`);
      continue;
    }
    withoutCall = 0;

    for (const [i, { call, args }] of ordered.entries()) {
      if (i >= limits.maxToolCallsPerTurn) {
        const text =
          `NOT RUN: at most ${limits.maxToolCallsPerTurn} tool calls are run per turn; ` +
          `call ${call.name} again in your next turn if you still need it.`;
        traceStep.tool_calls.push(traceEntry(call, { status: "invalid", text }, undefined, 0));
        push({ role: "tool", tool_call_id: call.id, name: call.name, content: text, is_error: true }, step);
        continue;
      }
      const c0 = Date.now();
      const { result, gate, accepted } = args.ok
        ? await runBounded({ ...call, arguments: args.value }, step)
        : {
            result: {
              status: "invalid" as const,
              text:
                `INVALID: the arguments of ${call.name} are not a JSON object: ${args.problem}. ` +
                `Call ${call.name} again with valid JSON arguments.`,
            },
          };
      usage.tool_calls++;
      if (gate) rejections.push({ gate, message: result.text, step });
      traceStep.tool_calls.push(traceEntry(call, result, gate, Date.now() - c0));
      const isError = result.status === "invalid" || result.status === "rejected";
      push(
        {
          role: "tool",
          tool_call_id: call.id,
          name: call.name,
          content: result.text,
          ...(isError ? { is_error: true } : {}),
          ...(result.data ? { data: result.data } : {}),
        },
        step,
      );
      progress(step, `step ${step}: ${call.name} → ${result.status}${gate ? ` (${gate})` : ""}`);
      if (accepted || end) {
        pushMissingResults(
          ordered.map((o) => o.call),
          i + 1,
          step,
          "NOT RUN: the run ended.",
        );
        break;
      }
    }
  }

  function traceEntry(call: ToolCall, result: ToolResult, gate: GateName | undefined, ms: number): TraceToolCall {
    return {
      id: call.id,
      name: call.name,
      arguments: truncateDeep(call.arguments),
      status: result.status,
      ...(gate ? { gate } : {}),
      result: truncate(result.text),
      result_chars: result.text.length,
      ms,
    };
  }

  /**
   * One call within `limits.toolTimeoutMs`. Read tools record their windows into a buffer that reaches the run's
   * read log only when the call finished in time, so a late answer the model never saw cannot open an edit; an
   * edit whose preparation outlived the limit is not applied.
   */
  async function runBounded(call: ToolCall, step: number): Promise<Dispatched> {
    const pending: ReadWindow[] = [];
    const buffered: ReadLog = {
      record: (w) => void pending.push({ ...w }),
      covers: (...a) => reads.covers(...a),
      windows: () => reads.windows(),
    };
    const guard = { expired: false };
    try {
      const out = await withTimeout(dispatch(call, buffered, guard), limits.toolTimeoutMs);
      for (const w of pending) reads.record(w);
      if (out.record) calls.push(out.record);
      return out;
    } catch (err) {
      if (!(err instanceof TimeLimit)) throw err;
      guard.expired = true;
      return {
        result: {
          status: "invalid",
          text:
            `TIMEOUT: ${call.name} did not finish within ${Math.round(limits.toolTimeoutMs / 1000)} s and was ` +
            `stopped; nothing it read counts. Try a narrower call (a more specific pattern, a smaller window, a ` +
            `path).`,
        },
      };
    }
  }

  /** Run one call; `record` is what the count-floor gate should remember of it (set by the caller when in time). */
  async function dispatch(call: ToolCall, log: ReadLog, guard: { expired: boolean }): Promise<Dispatched> {
    const readTool = READ_TOOLS.get(call.name);
    if (readTool) {
      // Strict-mode schemas list every property as required, so a model may send null for an option it skips.
      const args = Object.fromEntries(
        Object.entries(call.arguments as Record<string, unknown>).filter(([, v]) => v !== null),
      );
      const result = await runTool(readTool, args, { snapshot, reads: log });
      return {
        result,
        ...(result.status !== "invalid"
          ? {
              record: {
                name: call.name,
                status: result.status,
                readsCode: readTool.readsCode,
                ...(showedNoCode(result) ? { empty: true } : {}),
              },
            }
          : {}),
      };
    }
    if (call.name === "suggest_addition") {
      await prepareSuggestAddition(call.arguments);
      // The model was already told TIMEOUT: an edit applied now would be one it never saw.
      if (guard.expired) return { result: { status: "invalid", text: "TIMEOUT" } };
      const out = runSuggestAddition(call.arguments, { snapshot, reads, config, session });
      return {
        result: out.result,
        ...(out.gate ? { gate: out.gate } : {}),
        ...(out.result.status !== "invalid"
          ? { record: { name: call.name, status: out.result.status, readsCode: false } }
          : {}),
      };
    }
    if (call.name === "submit_answer") return submit(call);
    return {
      result: {
        status: "invalid",
        text: `INVALID: there is no tool "${call.name}". The tools are: ${TOOL_NAMES.join(", ")}.`,
      },
    };
  }

  function submit(call: ToolCall): { result: ToolResult; gate?: GateName; accepted?: boolean } {
    const parsed = submitAnswerSchema.safeParse(call.arguments);
    if (!parsed.success) {
      const issues = zodIssueLines(parsed.error, { root: "arguments" }).join("; ");
      return {
        result: {
          status: "invalid",
          text:
            `INVALID: submit_answer takes {summary: string, affected_file: string|null, affected_function: ` +
            `string|null, root_cause_snippet: string|null, confidence: number 0..1} (${issues}).`,
        },
      };
    }
    attempts++;
    const max = config.agent.max_answer_attempts;
    const last = attempts >= max;
    const attemptNote = ` (answer attempt ${attempts} of ${max})`;
    const claimsCode = [parsed.data.affected_file, parsed.data.affected_function, parsed.data.root_cause_snippet].some(
      (v) => v !== null && v !== undefined && v !== "",
    );
    const gated = answerGate(calls, config, claimsCode);
    if (gated) {
      if (last) {
        end = fail(
          `the answer was rejected ${max} time(s) by the ${gated.gate} gate: ` +
            `${gated.message.replace(/^REJECTED: /, "")}`,
        );
        return {
          result: {
            status: "rejected",
            text: `${gated.message}${attemptNote} No attempts left: the run fails closed.`,
          },
          gate: gated.gate,
        };
      }
      return { result: { status: "rejected", text: `${gated.message}${attemptNote}` }, gate: gated.gate };
    }
    const answer = parsed.data;
    const claims = checkClaims(answer, snapshot);
    if (claims.failures.length && !last) {
      return {
        result: {
          status: "rejected",
          text: `REJECTED: ${claims.failures.join(" ")} Fix the answer and call submit_answer again.${attemptNote}`,
        },
        gate: "claims",
      };
    }
    const verified = claims.failures.length === 0;
    const cap = config.agent.unverified_confidence_cap;
    const confidence = verified ? answer.confidence : Math.min(answer.confidence, cap);
    diagnosis = {
      // The model's own words are posted: the same hygiene as issue text (invisible characters out first, so a
      // token split by a zero-width space is whole again when it is redacted; hidden markup out).
      summary: sanitizeProblemText(answer.summary).text,
      affected_file: claims.affected_file,
      affected_function: claims.affected_function,
      root_cause_snippet: claims.root_cause_snippet,
      confidence,
      citations: citations(claims.citation),
    };
    const reading = commentOnlyOf(session.edits, session.contents, snapshot);
    commentOnly = reading.commentOnly && session.edits.length > 0;
    end = decideOutcome({
      diagnosis,
      claimsVerified: verified,
      editCount: session.edits.length,
      ...reading,
      approved: input.approved === true,
      config,
    });
    if (!verified) {
      const dropped = [
        answer.affected_file !== null && claims.affected_file === null ? "affected_file" : null,
        answer.affected_function !== null && claims.affected_function === null ? "affected_function" : null,
        answer.root_cause_snippet !== null && claims.root_cause_snippet === null ? "root_cause_snippet" : null,
      ].filter(Boolean);
      const text =
        `ACCEPTED WITH UNVERIFIED CLAIMS REMOVED: ${claims.failures.join(" ")} This was the last attempt: ` +
        `${dropped.join(", ")} set to null and confidence capped at ${cap}. Outcome: ${end.outcome}.`;
      return { result: { status: "rejected", text }, gate: "claims", accepted: true };
    }
    return {
      result: { status: "ok", text: `ACCEPTED: the answer's claims are verified. Outcome: ${end.outcome}.` },
      accepted: true,
    };
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
    usage.estimated = true;
    notes.push(
      `token budget not enforced: the model reported no token usage (${estimatedIn + estimatedOut} tokens estimated ` +
        `as characters / 4)`,
    );
  } else {
    if (cache.read || cache.write)
      Object.assign(usage, { cache_read_tokens: cache.read, cache_write_tokens: cache.write });
    if (model.pricing) {
      const cost = costOf(
        {
          input_tokens: usage.input_tokens,
          output_tokens: usage.output_tokens,
          cache_read_tokens: cache.read,
          cache_write_tokens: cache.write,
        },
        model.pricing,
      );
      usage.cost_usd = Math.round(cost * 10_000) / 10_000;
    }
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
    ...(notes.length ? { notes } : {}),
  };
  // Everything below leaves the run (status comment, PR body, --json, --trace, --record): secrets redacted.
  return {
    outcome: final.outcome,
    reason: final.reason === null ? null : redact(final.reason),
    diagnosis: failed ? null : diagnosis,
    edits: failed ? [] : session.edits,
    commentOnly: !failed && commentOnly,
    files: failed ? [] : changedFiles(session, snapshot),
    gates: {
      rejections: rejections.map((r) => ({ ...r, message: redact(r.message) })),
      observations_stripped: stripped,
      input_removed: first.removed,
      ...(first.cut > 0 ? { input_cut: first.cut } : {}),
    },
    usage,
    budget: {
      max_tokens: maxTokens,
      used: reported ? budgetUsed() : usage.input_tokens + usage.output_tokens,
      enforced: reported,
    },
    trace: redactDeep({
      ...trace,
      steps: steps.map((st) => ({
        ...st,
        tool_calls: st.tool_calls.map((c) => ({ ...c, arguments: redactArguments(c.arguments, snapshot) })),
      })),
    }),
    transcript: {
      turns: transcript.turns.map((t) => ({
        ...redactDeep(t),
        tool_calls: t.tool_calls.map((c) => ({ ...c, arguments: redactArguments(c.arguments, snapshot) })),
      })),
    },
  };
}

/** A dispatched call: the result the model sees, the refusing gate, whether it ended the run, what the gates count. */
interface Dispatched {
  result: ToolResult;
  gate?: GateName;
  accepted?: boolean;
  record?: CallRecord;
}

/** Thrown by {@link withTimeout} when the time is up. */
class TimeLimit extends Error {}

/** `promise`, or a {@link TimeLimit} rejection after `ms` milliseconds (the timer never keeps the process alive). */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeLimit(`time limit of ${ms} ms reached`)), Math.max(0, ms));
    timer.unref?.();
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function fail(reason: string): { outcome: Outcome; reason: string } {
  return { outcome: "failed_closed", reason };
}

/**
 * The comment-only reading of a run's applied edits for {@link decideOutcome} (`readCommentOnly` in
 * src/agent/comment-only.ts: by the whole files against the base, so an edit inside a block comment or docstring
 * opened far above its hunk is a comment, and a `# note` inside a string opened far above is code, never called a
 * comment). True for a run without edits, as `every` is.
 * @param contents each edited file's text after the run's edits (the session's), by path
 */
function commentOnlyOf(
  edits: readonly AppliedEdit[],
  contents: ReadonlyMap<string, string>,
  snapshot: Pick<Snapshot, "read">,
): { commentOnly: boolean; hiddenCode: boolean } {
  const reading = readCommentOnly(edits, (path) => snapshot.read(path), contents);
  return { commentOnly: reading.all, hiddenCode: reading.hidden };
}
