import { describe, expect, it } from "vitest";
import { searchCodebase } from "../../src/tools/search.js";
import { makeContext } from "./fixture.js";

/** search_codebase's answer text for `query` over `files`. */
async function answer(files: Record<string, string>, query: string): Promise<string> {
  const ctx = await makeContext(files);
  return (await searchCodebase.run({ query }, ctx)).text;
}

describe("search_codebase finds a query word that only paths hold", () => {
  const files = {
    "src/parsers/json.js": "module.exports = function read(text) { return JSON.parse(text); };\n",
    "src/parsers/yaml.js": "module.exports = function load(text) { return text; };\n",
    "src/util.js": "module.exports = { noop() {} };\n",
  };

  it("lists the files whose path holds the word, saying it matched in the path", async () => {
    const text = await answer(files, "parsers");
    expect(text).toContain("Files (2 of 2 matching)");
    expect(text).toContain('src/parsers/json.js — "parsers" in path');
    expect(text).toContain('src/parsers/yaml.js — "parsers" in path');
    expect(text).not.toContain("src/util.js");
  });

  it("a path-only word adds to a word the text holds: the file holding both ranks first", async () => {
    // "load" is text in yaml.js only; "parsers" is in both parsers' paths; util.js has neither.
    const text = await answer(files, "parsers load");
    expect(text).toMatch(/1\. src\/parsers\/yaml\.js — .*"parsers" in path/);
    expect(text).toContain("2. src/parsers/json.js");
    expect(text).not.toContain("src/util.js");
  });

  it("a word in no path and no text still answers no match", async () => {
    expect(await answer(files, "zebrafish")).toMatch(/^No file or symbol matches/);
  });
});
