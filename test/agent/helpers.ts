import tar from "tar-stream";
import { defaultConfig, parseConfig, type GroundfixConfig } from "../../src/config/schema.js";
import { snapshotFromTar } from "../../src/snapshot/index.js";
import type { Message, Model, ModelTurn, ToolSpec } from "../../src/agent/models/types.js";
import type { Snapshot, Task } from "../../src/types.js";
import { runAgent } from "../../src/agent/index.js";
import type { RunResult } from "../../src/agent/loop.js";
import { createReplayModel } from "../../src/agent/models/index.js";
import { fileURLToPath } from "node:url";

/** The pinned commit of the test repository. */
export const SHA = "0123456789abcdef0123456789abcdef01234567";

/** A small JavaScript project with decoys of similar names (src/util/ vs the nonexistent src/utils/). */
export const REPO: Record<string, string> = {
  "package.json": '{\n  "name": "logdemo",\n  "version": "1.0.0",\n  "main": "src/index.js"\n}\n',
  "README.md": "# logdemo\n\nWrites log entries.\n",
  "src/index.js":
    'const { writeLog } = require("./models/log");\n\nwriteLog([{ user: { name: "ada" }, message: "hi" }]);\n',
  "src/models/log.js": [
    'const logger = require("../util/logger");',
    'const { formatDate } = require("../util/formatter");',
    "",
    "function formatEntry(entry) {",
    "  const when = formatDate(entry.at);",
    "  return `${when} ${entry.user.name}: ${entry.message}`;",
    "}",
    "",
    "function writeLog(entries) {",
    "  for (const entry of entries) {",
    "    logger.info(formatEntry(entry));",
    "  }",
    "}",
    "",
    "module.exports = { formatEntry, writeLog };",
    "",
  ].join("\n"),
  "src/util/logger.js": "module.exports = {\n  info(msg) {\n    console.log(msg);\n  },\n};\n",
  "src/util/formatter.js":
    "function formatDate(d) {\n  return new Date(d).toISOString();\n}\n\nmodule.exports = { formatDate };\n",
  ".github/workflows/ci.yml": "on: push\njobs: {}\n",
  ".env": "TOKEN=abc\n",
};

/** Build a snapshot of `files` through a real tar stream (tar-stream → snapshotFromTar). */
export async function buildSnapshot(files: Record<string, string> = REPO): Promise<Snapshot> {
  const pack = tar.pack();
  for (const [name, content] of Object.entries(files)) pack.entry({ name, mode: 0o644 }, content);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack) chunks.push(chunk as Buffer);
  return snapshotFromTar(Buffer.concat(chunks), { sha: SHA });
}

/** The task the transcripts were written for. */
export function task(overrides: Partial<Task> = {}): Task {
  return {
    source: "issue",
    key: "acme/logdemo#issue-7",
    title: "Crash when writing a log entry",
    body:
      "TypeError: Cannot read properties of undefined (reading 'name')\n    at formatEntry " +
      "(/app/src/models/log.js:6:34)\n    at writeLog (/app/src/models/log.js:11:17)",
    repo: { owner: "acme", name: "logdemo" },
    baseSha: SHA,
    number: 7,
    ...overrides,
  };
}

/** Default config with overrides (validated like a repository's .github/groundfix.yml). */
export function config(raw: Record<string, unknown> = {}): GroundfixConfig {
  return Object.keys(raw).length ? parseConfig(raw) : defaultConfig();
}

/** Absolute path of a transcript fixture. */
export function transcriptPath(name: string): string {
  return fileURLToPath(new URL(`../fixtures/transcripts/${name}`, import.meta.url));
}

/** Wrap a model and keep a copy of the conversation it was given at each turn. */
export function spy(model: Model): Model & { seen: Message[][]; tools: ToolSpec[][] } {
  const seen: Message[][] = [];
  const tools: ToolSpec[][] = [];
  return {
    spec: model.spec,
    seen,
    tools,
    async next(input): Promise<ModelTurn> {
      seen.push(structuredClone(input.messages));
      tools.push(input.tools);
      return model.next(input);
    },
  };
}

/** `submit_answer` arguments about src/models/log.js of {@link REPO}, no claims but the file, with `over` applied. */
export function claimAnswer(over: Record<string, unknown> = {}) {
  return {
    summary: "s",
    affected_file: "src/models/log.js",
    affected_function: null,
    root_cause_snippet: null,
    confidence: 0.5,
    ...over,
  };
}

/**
 * A whole run (`runAgent` with a replayed model) on a snapshot of `files`, whose model reads `path`, calls
 * `suggest_addition` once with `before` → `after` and answers about `path` at `confidence` (default 0.5): what a
 * user of a model making that one edit gets. `config` is a raw `.github/groundfix.yml` object; `approved` as a
 * maintainer's `/groundfix approve`.
 */
export async function runOneEdit(
  files: Record<string, string>,
  path: string,
  before: string,
  after: string,
  options: { confidence?: number; config?: Record<string, unknown>; approved?: boolean } = {},
): Promise<RunResult> {
  const turns = [
    {
      tool_calls: [
        { name: "get_file_contents", arguments: { path } },
        { name: "suggest_addition", arguments: { path, code_before: before, code_after: after, rationale: "r" } },
        {
          name: "submit_answer",
          arguments: claimAnswer({ affected_file: path, confidence: options.confidence ?? 0.5 }),
        },
      ],
    },
  ];
  return runAgent({
    task: task(),
    snapshot: await buildSnapshot(files),
    model: createReplayModel({ turns }),
    config: config(options.config),
    ...(options.approved === undefined ? {} : { approved: options.approved }),
  });
}
