/**
 * The clarity agent: the tool loop, its gates, input and transcript hygiene, the trace, and the models.
 * Callers: `runAgent` with a model from `createModel`, then `renderTraceMarkdown(result.trace)` for PR bodies and
 * comments.
 */
export { runAgent, type AgentInput, type RunResult } from "./loop.js";
export { renderTraceMarkdown, type Trace, type TraceStep, type TraceToolCall } from "./trace.js";
export { createModel, ModelSpecError, MODEL_SPECS } from "./models/index.js";
export type { Message, Model, ModelTurn, ToolCall, ToolSpec } from "./models/types.js";
export type { Transcript, TranscriptTurn } from "./models/transcript.js";
export { sanitizeProblemText, stripFakeToolResults, type InputRemoved } from "./hygiene.js";
export { systemPrompt, firstUserMessage } from "./prompt.js";
export { decideOutcome } from "./outcome.js";
