import { describe, expect, it } from "vitest";
import { scanWords } from "../../src/tools/search-index.js";
import { makeContext } from "./fixture.js";

/** Every (path, word) call of one scan, and the ids. */
async function calls(files: Record<string, string>, needles: string[]) {
  const { snapshot } = await makeContext(files, { maxFileBytes: 1 << 20 });
  const out: { path: string; word: string; id: number }[] = [];
  scanWords(snapshot, needles, (file, word, id) => out.push({ path: snapshot.paths[file] as string, word, id }));
  return out;
}

describe("scanWords against hostile words", () => {
  it("interns a long word met after 60 characters of shorter words (the first word pool)", async () => {
    const a = "foo" + "a".repeat(27); // 30
    const b = "foo" + "b".repeat(27); // 30
    const c = "foo" + "c".repeat(77); // 80
    const out = await calls({ "a.js": `${a} ${b} ${c}\n` }, ["foo"]);
    expect(out.map((x) => x.word)).toEqual([a, b, c]);
  });

  it("takes 80-character words, not 81, at a file's start and end, by CRLF and non-ASCII neighbours", async () => {
    const w80 = "x".repeat(77) + "foo";
    const w81 = "y".repeat(78) + "foo";
    const files = {
      "a.js": `${w80}\r\n${w81}\r\nFOO foo Foo\r\né${"foo"}ß é${"foobar"}\u0161 \u0130fooz\u{1F600}foow`,
      "b.js": `foo`,
      "c.js": `${w80}`,
    };
    const out = await calls(files, ["foo"]);
    expect(out.map((x) => `${x.path} ${x.word}`)).toEqual([
      `a.js ${w80}`,
      "a.js FOO",
      "a.js foo",
      "a.js Foo",
      "a.js foobar",
      "a.js fooz",
      "a.js foow",
      "b.js foo",
      `c.js ${w80}`,
    ]);
  });
});

describe("scanWords past the per-file cap, then from its cache", () => {
  it("reports the first 5,000 distinct words of a file, and the same when a later call takes one needle", async () => {
    const words = Array.from({ length: 6000 }, (_, i) => (i % 2 === 0 ? `foo${i}` : `bar${i}`));
    const files = { "a.js": words.join(" ") + "\n", "b.js": "foo1 bar1 foo0\n" };
    const { snapshot } = await makeContext(files, { maxFileBytes: 1 << 20 });
    const scan = (needles: string[]) => {
      const out: string[] = [];
      scanWords(snapshot, needles, (file, word) => out.push(`${snapshot.paths[file]} ${word}`));
      return out;
    };
    const both = scan(["foo", "bar"]);
    expect(both.slice(0, 5000)).toEqual(words.slice(0, 5000).map((w) => `a.js ${w}`));
    expect(both.slice(5000)).toEqual(["b.js foo1", "b.js bar1", "b.js foo0"]);
    const foo = scan(["foo"]);
    const fooWords = words.filter((w) => w.startsWith("foo"));
    expect(foo).toEqual([...fooWords.map((w) => `a.js ${w}`), "b.js foo1", "b.js foo0"]);
  });
});
