import { describe, expect, it } from "vitest";
import { ConfigError, defaultConfig, LIFTABLE_RULES, parseConfig, protectedRules } from "../../src/config/schema.js";

describe("parseConfig", () => {
  it("fills every default for a missing file", () => {
    const cfg = parseConfig(null);
    expect(cfg.trigger_label).toBe("groundfix");
    expect(cfg.trigger_permission).toBe("write");
    expect(cfg.thresholds).toEqual({ comment: 0.4, pull_request: 0.7 });
    expect(cfg.edits.allow).toBe("additions");
    expect(cfg.agent.required_tools).toEqual(["get_file_contents", "grep_codebase", "search_codebase"]);
    expect(protectedRules(cfg).map((r) => r.name)).toContain("github");
    expect(cfg.paths.allow_protected).toEqual([]);
  });

  it("keeps nested defaults when only one nested key is set", () => {
    const cfg = parseConfig({ edits: { max_files: 2 } });
    expect(cfg.edits).toEqual({ allow: "additions", max_files: 2, max_added_lines: 80 });
  });

  it("names a misspelled key instead of ignoring it", () => {
    expect(() => parseConfig({ trigger_lable: "fix-me" })).toThrowError(ConfigError);
    try {
      parseConfig({ edits: { max_file: 3 } });
    } catch (e) {
      expect((e as ConfigError).issues).toEqual(["edits.max_file: unknown key (did you mean max_files?)"]);
    }
  });

  it("suggests the nearest key only for a near miss, one line per unknown key", () => {
    try {
      parseConfig({ trigger_lable: "x", colour: "red", thresholds: { Pull_Request: 0.9, commnt: 0.1 } });
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigError).issues).toEqual([
        "thresholds.Pull_Request: unknown key (did you mean pull_request?)",
        "thresholds.commnt: unknown key (did you mean comment?)",
        "trigger_lable: unknown key (did you mean trigger_label?)",
        "colour: unknown key",
      ]);
    }
  });

  it("quotes the bad key and the reason for a wrong type", () => {
    try {
      parseConfig({ thresholds: { pull_request: "high" } });
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigError).issues[0]).toMatch(/^thresholds\.pull_request: /);
    }
  });

  it("lifts only built-in rules that may be lifted, by name, and refuses unusable globs naming the key", () => {
    expect(protectedRules(parseConfig({ paths: { allow_protected: ["container"] } })).map((r) => r.name)).not.toContain(
      "container",
    );
    expect(LIFTABLE_RULES).not.toContain("groundfix-config");
    expect(() => parseConfig({ paths: { allow_protected: ["groundfix-config"] } })).toThrow(
      /paths\.allow_protected\.0: must name a built-in rule/,
    );
    expect(() => parseConfig({ paths: { deny: ["src/!(x)"] } })).toThrow(/paths\.deny\.0: .*not a usable glob/);
  });

  it("refuses a comment threshold above the pull-request threshold", () => {
    expect(() => parseConfig({ thresholds: { comment: 0.9, pull_request: 0.5 } })).toThrow(/thresholds\.comment/);
  });

  it.each(["../evil/", "/abs/", "a//b/", ".hidden/", "refs.lock/", "no-slash"])(
    "refuses the branch prefix %j, naming the key",
    (prefix) => {
      expect(() => parseConfig({ pull_request: { branch_prefix: prefix } })).toThrow(
        /pull_request\.branch_prefix: must be/,
      );
    },
  );

  it.each(["groundfix/", "bots/groundfix/", "fix_1.2/"])("accepts the branch prefix %j", (prefix) => {
    expect(parseConfig({ pull_request: { branch_prefix: prefix } }).pull_request.branch_prefix).toBe(prefix);
  });

  it("returns a fresh object each time", () => {
    const a = defaultConfig();
    a.paths.deny.push("x");
    expect(defaultConfig().paths.deny).toEqual([]);
  });
});
