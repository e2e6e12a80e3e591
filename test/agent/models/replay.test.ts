import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createModel, ModelSpecError } from "../../../src/agent/models/index.js";

function file(content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), "gf-replay-")), "t.json");
  writeFileSync(path, content);
  return path;
}

describe("replay:<file>", () => {
  it("replays turns in order with call ids, then reports exhaustion", async () => {
    const model = createModel(
      `replay:${file('{"turns":[{"text":"hi","tool_calls":[{"name":"list_files","arguments":{}}]}]}')}`,
    );
    await expect(model.next({ messages: [], tools: [] })).resolves.toEqual({
      text: "hi",
      tool_calls: [{ id: "call_1_1", name: "list_files", arguments: {} }],
    });
    await expect(model.next({ messages: [], tools: [] })).rejects.toThrow("replay transcript exhausted");
  });

  it.each([
    ["a missing file", null, /cannot read replay transcript .*: no such file$/],
    ["a file that is not JSON", "{turns:", /is not JSON/],
    [
      "a turn whose tool call has no name",
      '{"turns":[{"tool_calls":[{"arguments":{}}]}]}',
      /turns\.0\.tool_calls\.0\.name/,
    ],
    ["a misspelled key", '{"turns":[{"tool_call":[]}]}', /turns\.0: Unrecognized key/],
  ])("refuses %s with a ModelSpecError that says what is wrong", (_, content, message) => {
    const path = content === null ? join(tmpdir(), "gf-no-such-transcript.json") : file(content);
    expect(() => createModel(`replay:${path}`)).toThrow(ModelSpecError);
    expect(() => createModel(`replay:${path}`)).toThrow(message);
  });
});
