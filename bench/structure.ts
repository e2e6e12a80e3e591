/**
 * Structure check: what the parse comparison of an addition (`structureProblems`, src/grounding/structure.ts) costs on
 * a 5 MB file, against `applyVerbatimEdit` of the same addition (the edit core it runs after) in the same run; for
 * JavaScript (TypeScript's parser) and Python (tree-sitter). Plus the module-load cost the lazy loading avoids:
 * `import("typescript")` and `createRequire(...)("typescript")` in fresh node processes, interleaved.
 */
import { execFileSync } from "node:child_process";
import { addedLinesBetween } from "../src/grounding/additive.js";
import { applyVerbatimEdit } from "../src/grounding/index.js";
import { structureProblems, type StructureLanguage } from "../src/grounding/structure.js";
import { loadGrammar } from "../src/lang/tree-sitter.js";
import { type BenchRow, median, timeMedian } from "./lib.js";

/** ~`bytes` of code in functions of 20 statements; the anchor is a statement 20 lines from the end. */
function bigFile(language: "js" | "python", bytes: number): { content: string; anchor: string; guard: string } {
  const lines: string[] = [];
  let size = 0;
  for (let f = 0; size < bytes; f++) {
    const head = language === "js" ? `function work${f}(input) {` : `def work${f}(input):`;
    lines.push(head);
    for (let i = 0; i < 20; i++) {
      const stmt =
        language === "js"
          ? `  const v${i} = compute(input, ${i}, "item-${f % 97}"); // keep`
          : `    v${i} = compute(input, ${i}, "item-${f % 97}")  # keep`;
      lines.push(stmt);
      size += stmt.length + 1;
    }
    if (language === "js") lines.push("}");
    lines.push("");
  }
  const at = lines.length - 20;
  lines[at] = language === "js" ? "  const anchor = loadAnchor(input);" : "    anchor = load_anchor(input)";
  const guard =
    language === "js"
      ? '  if (!anchor) throw new Error("no anchor");'
      : '    if anchor is None:\n        raise ValueError("no anchor")';
  return { content: lines.join("\n") + "\n", anchor: lines[at]!, guard };
}

async function oneLanguage(language: "js" | "python", runs: number): Promise<BenchRow> {
  if (language === "python" && !(await loadGrammar("python"))) throw new Error("the Python grammar did not load");
  const { content, anchor, guard } = bigFile(language, 5 * 1024 * 1024);
  const edit = { code_before: anchor, code_after: `${anchor}\n${guard}` };
  const applied = applyVerbatimEdit(content, edit);
  if (!applied.ok) throw new Error(`structure bench: the edit did not apply: ${applied.message}`);
  const added = addedLinesBetween(content, applied.content, applied.startLine, applied.endLine);
  const check = () => structureProblems(language as StructureLanguage, content, applied.content, added);
  const problems = check();
  if (problems === undefined || problems.length > 0)
    throw new Error(`structure bench: the guard was refused: ${JSON.stringify(problems)}`);
  const reference = await timeMedian(runs, () => applyVerbatimEdit(content, edit));
  const value = await timeMedian(runs, check);
  return {
    section: "structure",
    name: `structureProblems, 5 MB ${language === "js" ? "JavaScript (TypeScript parser)" : "Python (tree-sitter)"}`,
    value,
    unit: "ms",
    reference: { name: "applyVerbatimEdit", value: reference },
    ratio: value / reference,
    ratioMeaning: "slower",
  };
}

/** Wall time of a fresh `node` that loads typescript one way, A B A B interleaved; medians in ms. */
function moduleLoad(runs: number): BenchRow {
  const esm = "const t=performance.now();await import('typescript');console.log(performance.now()-t)";
  const cjs =
    "import{createRequire}from'node:module';const " +
    "t=performance.now();createRequire(import.meta.url)('typescript');console.log(performance.now()-t)";
  const time = (code: string) =>
    Number(execFileSync(process.execPath, ["--input-type=module", "-e", code], { encoding: "utf8" }).trim());
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < runs; i++) {
    a.push(time(esm));
    b.push(time(cjs));
  }
  const value = median(b);
  return {
    section: "structure",
    name: "load typescript with createRequire (fresh node)",
    value,
    unit: "ms",
    reference: { name: 'import("typescript")', value: median(a) },
    ratio: median(a) / value,
    ratioMeaning: "faster",
    note: "and not at all for a run without JS/TS files",
  };
}

/** The bench section `structure`. */
export async function benchStructure(runs: number): Promise<BenchRow[]> {
  return [
    await oneLanguage("js", runs),
    await oneLanguage("python", Math.max(3, Math.ceil(runs / 2))),
    moduleLoad(Math.max(3, runs)),
  ];
}
