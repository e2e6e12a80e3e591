import { expect, test } from "vitest";
import { defaultConfig } from "../../src/config/schema.js";
import { createEditSession, runSuggestAddition } from "../../src/tools/suggest-addition.js";
import { makeContext } from "./fixture.js";

// Its own module state: no grammar is loaded here, as when a caller skips prepareSuggestAddition.
test("without the grammar loaded, a Python addition is refused rather than applied unchecked", async () => {
  const ctx = await makeContext({ "app/v.py": "def v(r):\n    u = load(r)\n    return u\n" });
  ctx.reads.record({ path: "app/v.py", startLine: 1, endLine: 3 });
  const session = createEditSession();
  const args = {
    path: "app/v.py",
    code_before: "    u = load(r)\n",
    code_after: "    u = load(r)\n    return None\n",
    rationale: "x",
  };
  const out = runSuggestAddition(args, { snapshot: ctx.snapshot, reads: ctx.reads, config: defaultConfig(), session });
  expect(out.result.text).toContain("the python grammar is not loaded");
  expect(session.edits).toEqual([]);
});
