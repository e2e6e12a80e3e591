import { describe, expect, it } from "vitest";
import { loopVariables, skipsItem } from "../../../src/agent/models/heuristic/loop-skip.js";
import type { CodeLanguage } from "../../../src/agent/models/heuristic/code.js";

/**
 * `skipsItem` on `src`, for a guard before the line marked `<<` (the marker is removed), whose value's root is
 * `root`; the function starts at the first line.
 */
function skipAt(src: string[], root: string, lang: CodeLanguage): boolean {
  const at = src.findIndex((l) => l.endsWith(" <<")) + 1;
  expect(at).toBeGreaterThan(0);
  const text = src.map((l) => l.replace(/ <<$/, ""));
  const lines = new Map(text.map((t, i) => [i + 1, t] as const));
  const width = /^\s*/.exec(text[at - 1] ?? "")?.[0].length ?? 0;
  return skipsItem(lines, at, width, 1, root, lang);
}

describe("loopVariables: the names a loop over items binds", () => {
  it("reads each language's for-each header, never a while or C-style loop", () => {
    expect(loopVariables("\tfor _, d := range f.Decls {", "go")).toEqual(["d"]);
    expect(loopVariables("\tfor k, v := range m {", "go")).toEqual(["k", "v"]);
    expect(loopVariables("\tfor range ticker.C {", "go")).toEqual([]);
    expect(loopVariables("  for (const [key, value] of entries) {", "typescript")).toEqual(["key", "value"]);
    expect(loopVariables("    for name, node in items.items():", "python")).toEqual(["name", "node"]);
    expect(loopVariables("        for (Token t : tokens) {", "java")).toEqual(["t"]);
    expect(loopVariables("        for ((k, v) in map) {", "kotlin")).toEqual(["k", "v"]);
    expect(loopVariables("            foreach (var row in rows)", "csharp")).toEqual(["row"]);
    expect(loopVariables("    lines.each do |line|", "ruby")).toEqual(["line"]);
    expect(loopVariables("\tfor i := 0; i < n; i++ {", "go")).toBeNull();
    expect(loopVariables("\tfor ok {", "go")).toBeNull();
    expect(loopVariables("  for (let i = 0; i < n; i++) {", "javascript")).toBeNull();
    expect(loopVariables("    while node is not None:", "python")).toBeNull();
    expect(loopVariables("    lines.map do |line|", "ruby")).toBeNull();
  });
});

describe("skipsItem: a guard in a loop over items skips the item only where the loop already does", () => {
  const crlfmt = (root: string) => [
    "func checkPath(path string) (int, error) {",
    "\tfor _, d := range file.Decls {",
    "\t\tif f, ok := d.(*ast.FuncDecl); ok {",
    "\t\t\tparams := f.Type.Params",
    `\t\t\tclosing := ${root}.Pos() + 1 <<`,
    "\t\t\tuse(params, closing)",
    "\t\t}",
    "\t}",
    "\treturn 0, nil",
    "}",
  ];

  it("Go: a value of the item (assigned from the loop variable) in a body that is one `if` around everything", () => {
    expect(skipAt(crlfmt("f.Body"), "f", "go")).toBe(true);
    // the loop variable itself
    expect(skipAt(crlfmt("d.Body"), "d", "go")).toBe(true);
  });

  it("attacker: a value from outside the loop is never skipped (every item would be dropped)", () => {
    const src = [
      "\tRun: func(cmd *cobra.Command, args []string) {",
      "\t\tvar projectData *ProjectData",
      "\t\tfor _, ev := range le {",
      "\t\t\tif isAgentuityEnv.MatchString(ev.Key) {",
      "\t\t\t\tcontinue",
      "\t\t\t}",
      "\t\t\tif projectData.Env[ev.Key] == ev.Val { <<",
      "\t\t\t\tcontinue",
      "\t\t\t}",
      "\t\t\tfound = append(found, ev.Key)",
      "\t\t}",
      "\t},",
    ];
    expect(skipAt(src, "projectData", "go")).toBe(false);
    // a name assigned inside the loop from something that is not the item
    const cfg = [...src];
    cfg.splice(3, 0, "\t\t\tcfg := loadConfig(path)");
    cfg[7] = "\t\t\tif cfg.Env[ev.Key] == ev.Val { <<";
    expect(skipAt(cfg, "cfg", "go")).toBe(false);
    // the same loop, the item's own value: skipped (the loop already `continue`s)
    const own = [...src];
    own[6] = "\t\t\tif ev.Meta.Secret { <<";
    expect(skipAt(own, "ev", "go")).toBe(true);
  });

  it("attacker: no skip when the loop does not skip items yet", () => {
    // a plain body (no `continue`, more than one statement at the top)
    const plain = [
      "func sum(items []*Item) int {",
      "\ttotal := 0",
      "\tfor _, it := range items {",
      "\t\tlog.Println(it.ID)",
      "\t\ttotal += it.Price.Value <<",
      "\t}",
      "\treturn total",
      "}",
    ];
    expect(skipAt(plain, "it", "go")).toBe(false);
    // the only `if` has an `else`: the loop handles every item
    const withElse = crlfmt("f.Body");
    withElse.splice(6, 1, "\t\t} else {", "\t\t\tother(d)", "\t\t}");
    expect(skipAt(withElse, "f", "go")).toBe(false);
    // the `continue` belongs to a nested loop, not to the guard's loop
    const nested = [
      "func walk(groups []*Group) {",
      "\tfor _, g := range groups {",
      "\t\tfor _, m := range g.Members {",
      "\t\t\tif m == nil {",
      "\t\t\t\tcontinue",
      "\t\t\t}",
      "\t\t}",
      "\t\tg.Owner.Notify() <<",
      "\t}",
      "}",
    ];
    expect(skipAt(nested, "g", "go")).toBe(false);
  });

  it("attacker: never in a while or C-style loop, nor through a callback or function literal", () => {
    const whileLoop = [
      "def drain(queue):",
      "    while queue:",
      "        job = queue.pop()",
      "        if job.done:",
      "            continue",
      "        job.owner.notify() <<",
    ];
    expect(skipAt(whileLoop, "job", "python")).toBe(false);
    const cStyle = [
      "function drain(jobs) {",
      "  for (let i = 0; i < jobs.length; i++) {",
      "    const job = jobs[i];",
      "    if (job.done) continue;",
      "    job.owner.notify(); <<",
      "  }",
      "}",
    ];
    expect(skipAt(cStyle, "job", "javascript")).toBe(false);
    // a `continue` inside the arrow function would not compile
    const callback = [
      "function drain(groups) {",
      "  for (const g of groups) {",
      "    if (g.done) continue;",
      "    g.jobs.forEach((job) => {",
      "      job.owner.notify(); <<",
      "    });",
      "  }",
      "}",
    ];
    expect(skipAt(callback, "g", "javascript")).toBe(false);
    const literal = [
      "func drain(groups []*Group) {",
      "\tfor _, g := range groups {",
      "\t\tif g.Done {",
      "\t\t\tcontinue",
      "\t\t}",
      "\t\tgo func() {",
      "\t\t\tg.Owner.Notify() <<",
      "\t\t}()",
      "\t}",
      "}",
    ];
    expect(skipAt(literal, "g", "go")).toBe(false);
  });

  it("Python, JavaScript, Java, C# and Ruby loops that already skip items", () => {
    const py = [
      "def names(nodes):",
      "    out = []",
      "    for node in nodes:",
      "        if node.hidden: continue",
      "        out.append(node.label.text) <<",
      "    return out",
    ];
    expect(skipAt(py, "node", "python")).toBe(true);
    const js = [
      "function names(nodes) {",
      "  for (const node of nodes) {",
      "    if (node.hidden) {",
      "      continue;",
      "    }",
      "    out.push(node.label.text); <<",
      "  }",
      "}",
    ];
    expect(skipAt(js, "node", "javascript")).toBe(true);
    const java = [
      "    void names(List<Node> nodes) {",
      "        for (Node node : nodes) {",
      "            if (node.hidden) continue;",
      "            out.add(node.label.text); <<",
      "        }",
      "    }",
    ];
    expect(skipAt(java, "node", "java")).toBe(true);
    const cs = [
      "        void Names(List<Node> nodes)",
      "        {",
      "            foreach (var node in nodes)",
      "            {",
      "                if (node.Hidden) continue;",
      "                Out.Add(node.Label.Text); <<",
      "            }",
      "        }",
    ];
    expect(skipAt(cs, "node", "csharp")).toBe(true);
    const rb = [
      "  def names(nodes)",
      "    nodes.each do |node|",
      "      next if node.hidden",
      "      out << node.label.text <<",
      "    end",
      "  end",
    ];
    expect(skipAt(rb, "node", "ruby")).toBe(true);
  });
});
