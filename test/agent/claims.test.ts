import { beforeAll, describe, expect, it } from "vitest";
import { checkClaims } from "../../src/tools/submit-answer.js";
import type { Snapshot } from "../../src/types.js";
import { buildSnapshot, claimAnswer as answer } from "./helpers.js";

let snap: Snapshot;
beforeAll(async () => {
  snap = await buildSnapshot();
});

describe("checkClaims (claims gate)", () => {
  it("names the functions the file really defines when the claimed one is not there", () => {
    const out = checkClaims(answer({ affected_function: "renderEntry" }), snap);
    expect(out.failures).toEqual([
      'affected_function "renderEntry" is not defined in src/models/log.js; ' +
        "it defines: formatEntry, writeLog. Use one of these names, or null.",
    ]);
    expect(out.affected_file).toBe("src/models/log.js");
    expect(out.affected_function).toBeNull();
  });

  it("quotes the nearest real region for a snippet recalled with the wrong indentation", () => {
    const out = checkClaims(answer({ root_cause_snippet: "  logger.info(formatEntry(entry));\n}" }), snap);
    expect(out.failures[0]).toMatch(
      new RegExp(
        String.raw`^root_cause_snippet is not verbatim text of src\/models\/log\.js` +
          String.raw`\. The closest text is lines 11-12; it differs only in indentation`,
      ),
    );
    expect(out.failures[0]).toContain("  11|     logger.info(formatEntry(entry));");
    expect(out.citation).toBeNull();
  });

  it("verifies a real function and snippet and cites the snippet's lines", () => {
    const out = checkClaims(
      answer({ affected_function: "writeLog", root_cause_snippet: "\n    logger.info(formatEntry(entry));\n" }),
      snap,
    );
    expect(out.failures).toEqual([]);
    expect(out.citation).toEqual({ path: "src/models/log.js", start_line: 11, end_line: 11 });
  });

  it("does not cite secret files", () => {
    expect(checkClaims(answer({ affected_file: ".env" }), snap).failures[0]).toMatch(
      /^affected_file "\.env" is a secret file/,
    );
  });
});
