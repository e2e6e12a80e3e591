/**
 * Edit core: `applyVerbatimEdit` on a 5 MB file with the anchor near the end, against the least work any verbatim
 * edit must do (one `indexOf` and a string splice) in the same run; plus the cost of a `not_found` diagnosis.
 */
import { applyVerbatimEdit } from "../src/grounding/index.js";
import { type BenchRow, timeMedian } from "./lib.js";

/** Build a ~`bytes` file of JavaScript-like lines whose unique anchor sits 20 lines from the end. */
function bigFile(bytes: number): { content: string; anchor: string } {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `  const value${i} = compute(${i}, "item-${i % 97}"); // keep ${i % 13}`;
    lines.push(line);
    size += line.length + 1;
  }
  const anchorIndex = lines.length - 20;
  lines[anchorIndex] = "  const anchor = loadAnchor(config);";
  return { content: lines.join("\n") + "\n", anchor: lines[anchorIndex]! };
}

export async function benchEditCore(runs: number): Promise<BenchRow[]> {
  const { content, anchor } = bigFile(5 * 1024 * 1024);
  const edit = { code_before: anchor, code_after: `${anchor}\n  console.warn("anchor loaded", anchor);` };
  const ok = applyVerbatimEdit(content, edit);
  if (!ok.ok) throw new Error(`edit-core bench: the edit did not apply: ${ok.message}`);
  const reference = await timeMedian(runs, () => {
    const at = content.indexOf(edit.code_before);
    return content.slice(0, at) + edit.code_after + content.slice(at + edit.code_before.length);
  });
  const apply = await timeMedian(runs, () => applyVerbatimEdit(content, edit));
  const missing = { code_before: "  const anchor = loadAnchor(confg);", code_after: "x" };
  const notFound = await timeMedian(Math.max(3, Math.floor(runs / 2)), () => applyVerbatimEdit(content, missing));
  return [
    {
      section: "edit core",
      name: "applyVerbatimEdit, 5 MB, anchor near end",
      value: apply,
      unit: "ms",
      reference: { name: "indexOf+splice", value: reference },
      ratio: apply / reference,
      ratioMeaning: "slower",
    },
    {
      section: "edit core",
      name: "not_found with nearest-region diagnosis, 5 MB",
      value: notFound,
      unit: "ms",
      reference: { name: "indexOf+splice", value: reference },
      ratio: notFound / reference,
      ratioMeaning: "slower",
    },
  ];
}
