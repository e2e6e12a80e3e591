import { describe, expect, it } from "vitest";
import { withoutErrorTemplates } from "../../src/tools/error-templates.js";
import { runTool, searchCodebase } from "../../src/tools/index.js";
import { makeContext } from "./fixture.js";

/** Whether a text holds a word of 2+ characters (search_codebase passes its own tokenizer and stop words). */
const anyWord = (text: string) => /\w{2}/.test(text.replace(/\b(?:in|at|of|the)\b/gi, ""));
const words = (q: string) =>
  withoutErrorTemplates(q, anyWord)
    .query.split(/[^\w$.]+/)
    .map((w) => w.replace(/^\.+|\.+$/g, ""))
    .filter(Boolean);

describe("withoutErrorTemplates", () => {
  it("keeps the names a runtime's message quotes and leaves out its fixed words", () => {
    expect(
      words("TypeError: Cannot read properties of undefined (reading 'resolvedModule') in resolveModuleName"),
    ).toEqual(["resolvedModule", "in", "resolveModuleName"]);
    // search_codebase's own example of a query, as a model copies an error message without its punctuation
    expect(words("TypeError cannot read properties of undefined reading 'user' getUserName")).toEqual([
      "user",
      "getUserName",
    ]);
    expect(words("Uncaught TypeError: Cannot set properties of null (setting 'innerHTML')")).toEqual(["innerHTML"]);
    expect(words("TypeError: Cannot read property 'user' of undefined at getName")).toEqual(["user", "at", "getName"]);
    expect(words("TypeError: Cannot destructure property 'id' of 'options' as it is undefined.")).toEqual([
      "id",
      "options",
    ]);
    expect(words("TypeError: this.client.send is not a function")).toEqual(["this.client.send"]);
    expect(words("ReferenceError: fetchUser is not defined")).toEqual(["fetchUser"]);
    expect(words(`TypeError: can't access property "name", user is undefined`)).toEqual(["name", "user"]);
    expect(words("TypeError: undefined is not an object (evaluating 'cfg.root')")).toEqual(["cfg.root"]);
    expect(words("AttributeError: 'NoneType' object has no attribute 'group'")).toEqual(["group"]);
    expect(words("TypeError: 'Response' object is not subscriptable")).toEqual(["Response"]);
    expect(words("panic: runtime error: invalid memory address or nil pointer dereference in deploy.Run")).toEqual([
      "in",
      "deploy.Run",
    ]);
    expect(words("panic: runtime error: index out of range [3] with length 3 parseArgs")).toEqual(["parseArgs"]);
    expect(words(`java.lang.NullPointerException: Cannot invoke "Repo.save()" because "store" is null`)).toEqual([
      "Repo.save",
      "store",
    ]);
  });

  it("says which fixed text it left out, each once", () => {
    const r = withoutErrorTemplates(
      "TypeError: Cannot read properties of undefined (reading 'alpha') " +
        "TypeError: Cannot read properties of undefined (reading 'beta')",
      anyWord,
    );
    expect(r.removed).toEqual(["TypeError:", "Cannot read properties of undefined (reading"]);
  });

  it("keeps a query that is only a template, a query without one, and an error class of the repository's own", () => {
    for (const q of ["Cannot read properties of undefined", "TypeError: is not a function", "read properties type"]) {
      expect(withoutErrorTemplates(q, anyWord)).toEqual({ query: q, removed: [] });
    }
    expect(words("ValidationError: missing field email")).toEqual(["ValidationError", "missing", "field", "email"]);
    // The words alone, not in the template's order, are ordinary query words.
    expect(words("undefined properties reading")).toEqual(["undefined", "properties", "reading"]);
  });
});

describe("search_codebase and error messages", () => {
  it("ranks the file holding the message's name first, not the files full of the template's words", async () => {
    const noise = "// TypeError: cannot read the properties of an undefined type; error reading\n".repeat(30);
    const files: Record<string, string> = { "src/user.js": "export function getUser(id) { return users[id].user; }\n" };
    for (let i = 0; i < 8; i++) files[`src/noise${i}.js`] = noise + `export const n${i} = ${i};\n`;
    const ctx = await makeContext(files);
    const r = await runTool(
      searchCodebase,
      { query: "TypeError: Cannot read properties of undefined (reading 'user')" },
      ctx,
    );
    expect(r.data).toEqual({ tool: "search_codebase", files: ["src/user.js"] });
    expect(r.text.split("\n")[0]).toBe(
      "Ranked by the names in the error message, not by its fixed words " +
        '("TypeError:", "Cannot read properties of undefined (reading").',
    );
  });

  it("still searches a template the query holds and nothing else", async () => {
    const ctx = await makeContext({ "src/errors.js": "throw new TypeError('Cannot read properties of undefined');\n" });
    const r = await runTool(searchCodebase, { query: "Cannot read properties of undefined" }, ctx);
    expect(r.data).toEqual({ tool: "search_codebase", files: ["src/errors.js"] });
    expect(r.text).not.toContain("fixed words");
  });
});
