import { describe, expect, it } from "vitest";
import { snapshotFromTar } from "../../src/snapshot/index.js";
import { createReadLog, runTool, verifySymbolInRepo } from "../../src/tools/index.js";
import { checkClaims } from "../../src/tools/submit-answer.js";
import type { Snapshot } from "../../src/types.js";
import { claimAnswer } from "../agent/helpers.js";
import { makeGitHubTarball } from "../snapshot/build-repo.js";

// JavaScript's private methods (`#name`, ECMAScript 2022) next to a public method of the same word, and Ruby's
// `Class#method` notation: a leading `#` is part of the name, a `#` after a name separates.
const SHA = "0123456789abcdef0123456789abcdef01234567";
const FILES = {
  "lib/visitor.js": [
    "class Visitor {",
    "  #printOperation(op) {",
    "    return op.name;",
    "  }",
    "  printOperation(op) {",
    "    return this.#printOperation(op);",
    "  }",
    "  total() {",
    "    return 0;",
    "  }",
    "}",
    "",
  ].join("\n"),
  "lib/cart.rb": ["class Cart", "  def total", "    0", "  end", "end", ""].join("\n"),
};

let cached: Snapshot | undefined;
async function snapshot(): Promise<Snapshot> {
  cached ??= await snapshotFromTar(await makeGitHubTarball(FILES, SHA), { sha: SHA, stripTopFolder: true });
  return cached;
}

async function verify(name: string): Promise<string> {
  return (await runTool(verifySymbolInRepo, { name }, { snapshot: await snapshot(), reads: createReadLog() })).text;
}

describe("verify_symbol_in_repo and JavaScript private names", () => {
  it("finds the private #method where it is defined, not the public method of the same word", async () => {
    expect(await verify("#printOperation")).toBe(
      "FOUND: #printOperation is defined 1 time(s):\nlib/visitor.js:2-4 method Visitor.#printOperation",
    );
    expect(await verify("Visitor.#printOperation")).toBe(
      "FOUND: Visitor.#printOperation is defined 1 time(s):\nlib/visitor.js:2-4 method Visitor.#printOperation",
    );
    // The public name is the public method only.
    expect(await verify("printOperation")).toBe(
      "FOUND: printOperation is defined 1 time(s):\nlib/visitor.js:5-7 method Visitor.printOperation",
    );
  });

  it("does not confirm a private #name that is not defined because a public one of that word is", async () => {
    const text = await verify("#total");
    expect(text).toMatch(/^NOT_FOUND: /);
    expect(text).not.toContain("lib/visitor.js:8");
  });

  it("still reads Ruby's Cart#total as the method total of Cart", async () => {
    expect(await verify("Cart#total")).toBe(
      "FOUND: Cart#total is defined 1 time(s):\nlib/cart.rb:2-4 method Cart.total",
    );
  });
});

describe("submit_answer's affected_function and JavaScript private names", () => {
  it("cites a private #method the file defines", async () => {
    const out = checkClaims(
      claimAnswer({ affected_file: "lib/visitor.js", affected_function: "#printOperation" }),
      await snapshot(),
    );
    expect(out.failures).toEqual([]);
    expect(out.affected_function).toBe("#printOperation");
  });

  it("refuses a private #name the file does not define, naming what it defines", async () => {
    const out = checkClaims(
      claimAnswer({ affected_file: "lib/visitor.js", affected_function: "#total" }),
      await snapshot(),
    );
    expect(out.affected_function).toBeNull();
    expect(out.failures).toEqual([
      'affected_function "#total" is not defined in lib/visitor.js; it defines: ' +
        "Visitor.#printOperation, Visitor.printOperation, Visitor.total. Use one of these names, or null.",
    ]);
  });

  it("accepts Ruby's Cart#total", async () => {
    const out = checkClaims(
      claimAnswer({ affected_file: "lib/cart.rb", affected_function: "Cart#total" }),
      await snapshot(),
    );
    expect(out.failures).toEqual([]);
    expect(out.affected_function).toBe("Cart#total");
  });
});
