import { describe, expect, it } from "vitest";
import { agentToolSpecs } from "../../src/agent/tool-specs.js";

/** Every schema node of a JSON Schema value. */
function nodes(schema: unknown, out: Record<string, unknown>[] = []): Record<string, unknown>[] {
  if (schema && typeof schema === "object") {
    if (!Array.isArray(schema)) out.push(schema as Record<string, unknown>);
    for (const v of Object.values(schema)) nodes(v, out);
  }
  return out;
}

describe("the tool schemas offered to models", () => {
  const specs = agentToolSpecs();

  it.each(specs.map((s) => [s.name, s] as const))("%s is valid for the providers' strict modes", (_name, spec) => {
    const p = spec.parameters as {
      type: string;
      properties: Record<string, { type: unknown }>;
      required: string[];
      additionalProperties: boolean;
    };
    expect(p.type).toBe("object");
    expect(p.additionalProperties).toBe(false);
    expect(p.required.sort()).toEqual(Object.keys(p.properties).sort());
    for (const node of nodes(p)) {
      for (const key of ["minimum", "maximum", "minLength", "maxLength", "$schema"])
        expect(node, key).not.toHaveProperty(key);
    }
    expect(JSON.stringify(p)).not.toContain("9007199254740991");
  });

  it("keeps the bounds and the default in words, and types an optional property as nullable", () => {
    const grep = specs.find((s) => s.name === "grep_codebase")!.parameters as any;
    expect(grep.properties.max_results).toEqual({
      type: ["integer", "null"],
      description: "Most hits to show. Default 50. Allowed: at least 1, at most 500. Send null for the default.",
    });
    expect(grep.properties.pattern.type).toBe("string");
    const answer = specs.find((s) => s.name === "submit_answer")!.parameters as any;
    expect(answer.properties.affected_file.type).toEqual(["string", "null"]);
    expect(answer.properties.confidence.description).toMatch(/Allowed: at least 0, at most 1\.$/);
  });

  it("describes each tool in three to five sentences, and says when not to use the read tools", () => {
    for (const s of specs) {
      const sentences = s.description
        .replace(/Example: \{.*\}$/s, "")
        .split(/(?<=[.!?])\s+(?=[A-Z])/)
        .filter(Boolean);
      expect(sentences.length, s.name).toBeGreaterThanOrEqual(3);
      expect(sentences.length, s.name).toBeLessThanOrEqual(5);
    }
    expect(specs.find((s) => s.name === "grep_codebase")!.description).toContain("never copy code_before from them");
  });

  it("shows one complete suggest_addition call whose code_after holds all of its code_before", () => {
    const d = specs.find((s) => s.name === "suggest_addition")!.description;
    const example = JSON.parse(d.slice(d.indexOf("Example: ") + "Example: ".length));
    expect(Object.keys(example).sort()).toEqual(["code_after", "code_before", "path", "rationale"]);
    const after: string[] = example.code_after.split("\n");
    let at = 0;
    for (const line of example.code_before.split("\n")) at = after.indexOf(line, at) + 1 || -1;
    expect(at).toBeGreaterThan(0);
  });
});
