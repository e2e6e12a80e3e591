import { describe, expect, it } from "vitest";
import { scanWords, ScanReentryError } from "../../src/tools/search-index.js";
import { makeContext } from "./fixture.js";

const FILES = {
  "a.js": "alpha beta alphabet\nbetamax alpha\n",
  "b.js": "betamax alphabet gamma\n",
  "c.js": "alpha gamma beta\n",
};

/** The (path, word, id) calls of one plain scan of `needles` on a fresh snapshot of FILES. */
async function plain(needles: string[]) {
  const { snapshot } = await makeContext(FILES);
  const out: string[] = [];
  scanWords(snapshot, needles, (file, word, id) => out.push(`${snapshot.paths[file]} ${word} ${id}`));
  return out;
}

describe("scanWords called from inside its own callback", () => {
  it("throws a clear error for the same snapshot, and the outer call's ids stay those of a plain scan", async () => {
    const { snapshot } = await makeContext(FILES);
    const out: string[] = [];
    const inner: unknown[] = [];
    scanWords(snapshot, ["alpha", "beta"], (file, word, id) => {
      // Before: the nested call reset the word table's per-call ids, so the outer call's later ids were wrong.
      try {
        scanWords(snapshot, ["gamma"], () => {});
      } catch (error) {
        inner.push(error);
      }
      out.push(`${snapshot.paths[file]} ${word} ${id}`);
    });
    expect(inner.length).toBe(out.length);
    expect(inner[0]).toBeInstanceOf(ScanReentryError);
    expect(String((inner[0] as Error).message)).toMatch(/scanWords called from inside a scanWords callback/);
    expect(out).toEqual(await plain(["alpha", "beta"]));
  });

  it("is usable after its callback threw; another snapshot may be scanned from inside a callback", async () => {
    const { snapshot } = await makeContext(FILES);
    const other = (await makeContext(FILES)).snapshot;
    expect(() =>
      scanWords(snapshot, ["alpha"], () => {
        throw new Error("callback failed");
      }),
    ).toThrow("callback failed");
    const nested: string[] = [];
    const out: string[] = [];
    scanWords(snapshot, ["beta"], (file, word, id) => {
      out.push(`${snapshot.paths[file]} ${word} ${id}`);
      if (nested.length === 0) scanWords(other, ["gamma"], (f, w) => nested.push(`${other.paths[f]} ${w}`));
    });
    expect(out).toEqual(await plain(["beta"]));
    expect(nested).toEqual(["b.js gamma", "c.js gamma"]);
  });
});
