import { describe, expect, it } from "vitest";
import { extractSymbols, type SymbolDef } from "../../src/grounding/symbols.js";

const brief = (defs: SymbolDef[]) =>
  defs.map(
    (d) =>
      `${d.line}${d.endLine !== undefined ? `-${d.endLine}` : ""} ` +
      `${d.kind} ${d.container ? `${d.container}.` : ""}${d.name}`,
  );

describe("extractSymbols", () => {
  it("TypeScript: exports, arrow functions, classes with methods, interfaces, types, enums", () => {
    const src = [
      "import { x } from './x';", // 1
      "export interface Options {", // 2
      "  verbose?: boolean;", // 3
      "}", // 4
      "export type Id = string;", // 5
      "export enum Color { Red, Green }", // 6
      "export const parse = async (text: string): Promise<Id> => {", // 7
      "  if (text) { return text; }", // 8
      "  return '';", // 9
      "};", // 10
      "export default class Store<T> extends Base {", // 11
      "  private items: T[] = [];", // 12
      "  constructor(private readonly opts: Options) {", // 13
      "    super();", // 14
      "  }", // 15
      "  async get(id: Id): Promise<T | undefined> {", // 16
      "    for (const i of this.items) { if (i) return i; }", // 17
      "  }", // 18
      "  handle = (e: Event) => {", // 19
      "    console.log('}');", // 20
      "  };", // 21
      "  static create<U>(): Store<U> { return new Store<U>({}); }", // 22
      "}", // 23
      "export function helper(a: number) {", // 24
      "  return a;", // 25
      "}", // 26
      "const LIMIT = 10;", // 27
    ].join("\n");
    expect(brief(extractSymbols("src/store.ts", src))).toEqual([
      "2-4 interface Options",
      "5-5 type Id",
      "6-6 type Color",
      "7-10 function parse",
      "11-23 class Store",
      "13-15 method Store.constructor",
      "16-18 method Store.get",
      "19-21 method Store.handle",
      "22-22 method Store.create",
      "24-26 function helper",
      "27-27 variable LIMIT",
    ]);
  });

  it("JavaScript: CommonJS exports and prototype methods", () => {
    const src =
      "exports.render = function (v) {\n  return v;\n};\nfunction " +
      "View() {}\nView.prototype.draw = function () {\n  return 1;\n};\n";
    expect(brief(extractSymbols("lib/view.js", src)).map((s) => s.replace(/^\S+ /, ""))).toEqual([
      "function render",
      "function View",
      "method View.draw",
    ]);
  });

  it("Python: functions, classes, methods by indentation, constants", () => {
    const src = [
      "MAX_RETRIES = 3", // 1
      "", // 2
      "class Client(Base):", // 3
      "    timeout = 5", // 4
      "    def __init__(self, url):", // 5
      "        self.url = url", // 6
      "", // 7
      "    async def fetch(self, path):", // 8
      "        return path", // 9
      "", // 10
      "def main():", // 11
      "    def inner():", // 12
      "        pass", // 13
      "    return inner", // 14
    ].join("\r\n");
    expect(brief(extractSymbols("app/client.py", src))).toEqual([
      "1-1 variable MAX_RETRIES",
      "3-9 class Client",
      "5-6 method Client.__init__",
      "8-9 method Client.fetch",
      "11-14 function main",
      "12-13 function main.inner",
    ]);
  });

  it("Go: functions, methods with receivers, structs, interfaces, type blocks", () => {
    const src = [
      "package shop", // 1
      "", // 2
      "type Cart struct {", // 3
      "\tItems []Item", // 4
      "}", // 5
      "", // 6
      "type (", // 7
      "\tPricer interface {", // 8
      "\t\tPrice() int", // 9
      "\t}", // 10
      "\tID string", // 11
      ")", // 12
      "", // 13
      "func (c *Cart) Total() int {", // 14
      "\treturn 0", // 15
      "}", // 16
      "", // 17
      "func New[T any](x T) *Cart {", // 18
      "\treturn &Cart{}", // 19
      "}", // 20
      'var ErrEmpty = errors.New("empty")', // 21
    ].join("\n");
    expect(brief(extractSymbols("shop/cart.go", src))).toEqual([
      "3-5 class Cart",
      "8-10 interface Pricer",
      "11-11 type ID",
      "14-16 method Cart.Total",
      "18-20 function New",
      "21-21 variable ErrEmpty",
    ]);
  });

  it("Java: classes, constructors, generic methods; no calls or control flow", () => {
    const src = [
      "package a;", // 1
      "@Service", // 2
      "public final class OrderService implements Svc {", // 3
      "  private final Map<String, Integer> counts = new HashMap<>();", // 4
      "  public OrderService(Repo repo) {", // 5
      "    this.repo = repo;", // 6
      "  }", // 7
      "  @Override", // 8
      "  public <T> List<T> findAll(Class<T> type) throws IOException {", // 9
      "    if (type == null) {", // 10
      "      return list(type);", // 11
      "    }", // 12
      "    return null;", // 13
      "  }", // 14
      "  interface Listener { void on(Event e); }", // 15
      "}", // 16
    ].join("\n");
    expect(brief(extractSymbols("src/main/java/a/OrderService.java", src))).toEqual([
      "3-16 class OrderService",
      "5-7 method OrderService.OrderService",
      "9-14 method OrderService.findAll",
      "15-15 interface OrderService.Listener",
    ]);
  });

  it("Java and C#: methods returning void are methods (they were missing, so their frames had no function)", () => {
    const java = [
      "class CommandLine {", // 1
      "  private static void initParentCommand(Object sub, Object parent) {", // 2
      "    helper(sub);", // 3
      "  }", // 4
      "  void track(int a) { count(a); }", // 5
      "  public synchronized void run() {", // 6
      "    if (done) return;", // 7
      "  }", // 8
      "}", // 9
    ].join("\n");
    expect(brief(extractSymbols("src/main/java/picocli/CommandLine.java", java))).toEqual([
      "1-9 class CommandLine",
      "2-4 method CommandLine.initParentCommand",
      "5-5 method CommandLine.track",
      "6-8 method CommandLine.run",
    ]);
    const cs = "class Parser\n{\n  public void Read()\n  {\n    Next();\n  }\n}\n";
    expect(brief(extractSymbols("Parser.cs", cs))).toEqual(["1-7 class Parser", "3-6 method Parser.Read"]);
  });

  it("Ruby: modules, classes, methods and their ends", () => {
    const src = [
      "module Billing", // 1
      "  class Invoice < Base", // 2
      "    def total", // 3
      "      items.sum(&:price)", // 4
      "    end", // 5
      "", // 6
      "    def self.build(attrs) = new(attrs)", // 7
      "    def paid?", // 8
      "      if state == :paid then true else false end", // 9
      "    end", // 10
      "  end", // 11
      "end", // 12
      "def helper", // 13
      "end", // 14
    ].join("\n");
    expect(brief(extractSymbols("app/invoice.rb", src))).toEqual([
      "1-12 module Billing",
      "2-11 class Billing.Invoice",
      "3-5 method Invoice.total",
      "7-7 method Invoice.build",
      "8-10 method Invoice.paid?",
      "13-14 function helper",
    ]);
  });

  it("Ruby: 240,000 `def` lines and no `end` (a hostile 5 MB file): one pass, each a method of its class", () => {
    // Every `def` stays open, so the block stack grows to 240,000; finding each line's class by walking down that
    // stack was quadratic (12 s for a quarter of this file, minutes for all of it: past the suite's 60 s timeout).
    // Its cost is measured in the bench (`npm run bench -- --only=symbols`), not here.
    const n = 240_000;
    const lines = ["module Outer", "  class Big"];
    for (let i = 0; i < n; i++) lines.push(`    def m${i}(a, b)`);
    lines.push("  class Inner", "    def last", "    end", "  end");
    const defs = extractSymbols("app/hostile.rb", lines.join("\n"));
    expect(defs).toHaveLength(n + 4);
    expect(brief(defs.slice(0, 4))).toEqual([
      "1 module Outer",
      "2 class Outer.Big",
      "3 method Big.m0",
      "4 method Big.m1",
    ]);
    expect(defs.slice(2, n + 2).every((d, i) => d.kind === "method" && d.container === "Big" && d.line === i + 3)).toBe(
      true,
    );
    // a class opened inside the last open method still belongs to the nearest class below it; its own method ends
    expect(brief(defs.slice(n + 2))).toEqual([
      `${n + 3}-${n + 6} class Big.Inner`,
      `${n + 4}-${n + 5} method Inner.last`,
    ]);
  });

  it("C#: namespaces, classes and methods", () => {
    const src =
      "namespace Shop.Core\n{\n  public class Cart\n  {\n    public " +
      "decimal Total(int n)\n    {\n      return n;\n    }\n  }\n}\n";
    expect(brief(extractSymbols("Cart.cs", src))).toEqual([
      "1-10 module Shop.Core",
      "3-9 class Shop.Core.Cart",
      "5-8 method Cart.Total",
    ]);
  });

  it("Java: methods inside enum constants' bodies belong to the constant; the enum's own members still count", () => {
    const src = [
      "enum State {", // 1
      "    Initial {", // 2
      "        boolean process(Token t, Builder tb) {", // 3
      "            if (t == null) { return false; }", // 4
      "            return true;", // 5
      "        }", // 6
      "    },", // 7
      '    PLUS("+") {', // 8
      "        int apply(int a, int b) { return a + b; }", // 9
      "    };", // 10
      "    State() {", // 11
      "    }", // 12
      "    static {", // 13
      "    }", // 14
      "    abstract boolean process(Token t, Builder tb);", // 15
      "    boolean isWhitespace(Token t) {", // 16
      "        return false;", // 17
      "    }", // 18
      "}", // 19
    ].join("\n");
    expect(brief(extractSymbols("src/main/java/a/State.java", src))).toEqual([
      "1-19 class State",
      "2-7 class State.Initial",
      "3-6 method Initial.process",
      "8-10 class State.PLUS",
      "9-9 method PLUS.apply",
      "11-12 method State.State",
      "15-15 method State.process",
      "16-18 method State.isWhitespace",
    ]);
    // in a class (not an enum), a `Name {` line is no constant
    const cls = "class A {\n    Inner {\n        void m() {\n        }\n    }\n}\n";
    expect(brief(extractSymbols("A.java", cls))).toEqual(["1-6 class A"]);
  });

  it("C#: properties (accessors, auto, expression-bodied) and indexers are methods; fields and events not", () => {
    const src = [
      "public class Reader", // 1
      "{", // 2
      "    private int count;", // 3
      "    public int FieldCount", // 4
      "    {", // 5
      "        get", // 6
      "        {", // 7
      "            return csv.Context.Record.Length;", // 8
      "        }", // 9
      "    }", // 10
      "    public string Name { get; set; }", // 11
      "    public int Depth => 0;", // 12
      "    public object this[int i]", // 13
      "    {", // 14
      "        get { return values[i]; }", // 15
      "    }", // 16
      "    public event EventHandler Changed;", // 17
      "    int IReader.Count => count;", // 18
      "    public static Reader Create() => new Reader();", // 19
      "}", // 20
    ].join("\n");
    expect(brief(extractSymbols("src/Reader.cs", src))).toEqual([
      "1-20 class Reader",
      "4-10 method Reader.FieldCount",
      "11-11 method Reader.Name",
      "12-12 method Reader.Depth",
      "13-16 method Reader.this",
      "18-18 method Reader.Count",
      "19-19 method Reader.Create",
    ]);
  });

  it("braces inside strings, template literals and comments do not end a block", () => {
    const src = [
      "export function render(v) {", // 1
      "  const open = \"{{\" + v + '}'; // a } in a comment", // 2
      "  const t = `}${v}`; /* } */ const half = 1 / 2;", // 3
      "  /* a block comment {", // 4
      "     } still inside */", // 5
      '  return open + "\\"}" + t;', // 6
      "}", // 7
      "export function after() {}", // 8
    ].join("\n");
    expect(brief(extractSymbols("src/render.js", src))).toEqual(["1-7 function render", "8-8 function after"]);
  });

  it("comments over several lines hide declarations and braces; CRLF files read like LF files", () => {
    const js = [
      "/* a header comment", // 1
      " * export function notReal() {", // 2
      " * } {{ */", // 3
      "export function real(a) {", // 4
      "  return a; /* } */", // 5
      "}", // 6
      "\u00a0export const indented = () => {", // 7: a no-break space is white space too
      "};", // 8
      "View.prototype.draw = function () {", // 9
      "  return 1;", // 10
      "};", // 11
      "const table = {", // 12
      '  "on:exit": function () {},', // 13
      "  save: async () => {},", // 14
      "};", // 15
      "\u00a0View.prototype.hide = hide;", // 16
    ].join("\n");
    const expected = [
      "4-6 function real",
      "7-8 function indented",
      "9-11 method View.draw",
      "12-15 variable table",
      "13-13 method on:exit",
      "14-14 method save",
      "16-16 method View.hide",
    ];
    expect(brief(extractSymbols("src/a.js", js))).toEqual(expected);
    expect(brief(extractSymbols("src/a.js", js.replace(/\n/g, "\r\n")))).toEqual(expected);
    const py = [
      "class A:",
      "    def f(self,",
      "          x):",
      "        return (x +",
      "  1)",
      "",
      "def g():",
      "    pass",
    ];
    const pyExpected = ["1-5 class A", "2-5 method A.f", "7-8 function g"];
    expect(brief(extractSymbols("a.py", py.join("\n")))).toEqual(pyExpected);
    expect(brief(extractSymbols("a.py", py.join("\r\n")))).toEqual(pyExpected);
    const rb = ["module M", "  class C", "    def a; end", "    def b", "    end", "  end", "end", "X = 1"];
    const rbExpected = ["1-7 module M", "2-6 class M.C", "3-3 method C.a", "4-5 method C.b", "8-8 variable X"];
    expect(brief(extractSymbols("a.rb", rb.join("\n")))).toEqual(rbExpected);
    expect(brief(extractSymbols("a.rb", rb.join("\r\n")))).toEqual(rbExpected);
  });

  it("Python: indented lines other than def and class define nothing", () => {
    const src = "class Cart:\n    total = 0\n    items = []\n    def add(self, x):\n        y = x\n        return y\n";
    expect(brief(extractSymbols("cart.py", src))).toEqual(["1-6 class Cart", "4-6 method Cart.add"]);
  });

  it("ignores other languages and very long lines", () => {
    expect(extractSymbols("README.md", "function notCode() {}\n")).toEqual([]);
    expect(extractSymbols("min.js", `function ${"a".repeat(2000)}() {}\n`)).toEqual([]);
  });

  it("class members: a line holding neither `(` nor `=` defines nothing; a late `(` or `=` still counts", () => {
    const src = [
      "export interface Shape {", // 1
      "  readonly kind: string;", // 2
      "  area(): number;", // 3
      "}", // 4
      "class Box {", // 5
      "  label: string;", // 6
      "  *items() { yield 1; }", // 7
      "  #secret = () => 1;", // 8
      "  handler = x => x;", // 9
      "  static readonly defaults: { width: number; height: number; depth: number } = function () {};", // 10
      "  #size: number;", // 11
      "  *", // 12
      "}", // 13
    ].join("\n");
    expect(brief(extractSymbols("src/shape.ts", src))).toEqual([
      "1-4 interface Shape",
      "3-3 method Shape.area",
      "5-13 class Box",
      "7-7 method Box.items",
      "8-8 method Box.#secret",
      "9-9 method Box.handler",
      "10-10 method Box.defaults",
    ]);
  });

  it("a definition on the last line without a newline, CRLF or not, and after a byte-order mark", () => {
    for (const eol of ["\n", "\r\n"]) {
      const src = ["\ufeffexport function first() {", "}", "export const last = () => 1;"].join(eol);
      expect(brief(extractSymbols("a.ts", src))).toEqual(["1-2 function first", "3-3 function last"]);
      expect(brief(extractSymbols("a.ts", "const a = 1;" + eol + "function end() {}"))).toEqual([
        "1-1 variable a",
        "2-2 function end",
      ]);
      expect(brief(extractSymbols("a.go", "package a" + eol + "func End() {}"))).toEqual(["2-2 function End"]);
      expect(brief(extractSymbols("a.py", "x = 1" + eol + "def end():" + eol + "    pass"))).toEqual([
        "1-1 variable x",
        "2-3 function end",
      ]);
    }
  });

  it("a file of one very long line defines nothing; a definition after a long line is found on its line", () => {
    const long = `function a() { ${"x(); ".repeat(400)}}`;
    expect(extractSymbols("min.js", long)).toEqual([]);
    expect(extractSymbols("min.js", `{${"(".repeat(5000)}`)).toEqual([]);
    // the long line's braces are not counted: the function after it is at the top level and ends on its line
    expect(brief(extractSymbols("min.js", `${long.replace(/\}$/, "")}\nfunction after() {}\n`))).toEqual([
      "2-2 function after",
    ]);
  });
});
