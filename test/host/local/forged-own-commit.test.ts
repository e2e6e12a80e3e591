import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { deliverWithPlumbing } from "../../../src/host/local/commit.js";
import { makeRepo, sh } from "./git-repo.js";

describe("a forged local own commit (groundfix's committer e-mail and a Groundfix-Run trailer)", () => {
  it("is not counted as groundfix's: only a commit the branch's reflog shows groundfix writing is", async () => {
    const { dir, base } = makeRepo({ "src/app.js": "const a = 1;\n" });
    sh(dir, "checkout", "-q", "-b", "groundfix/fix-a");
    writeFileSync(join(dir, "src/app.js"), "const a = 1;\n// a person's own work\n");
    sh(dir, "add", "-A");
    execFileSync(
      "git",
      [
        "-C",
        dir,
        "-c",
        "user.name=Ada",
        "-c",
        "user.email=groundfix@users.noreply.local",
        "commit",
        "-q",
        "-m",
        "my work\n\nGroundfix-Run: 00000000-forged",
      ],
      { env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: dir } },
    );
    sh(dir, "checkout", "-q", "main");
    const delivery = await deliverWithPlumbing(dir, {
      baseSha: base,
      branch: "groundfix/fix-a",
      message: "groundfix: x\n\nGroundfix-Run: run-2",
      files: [{ path: "src/app.js", content: "const a = 2;\n", mode: "100644" }],
      force: true,
    });
    expect(delivery.kind).toBe("replaced");
    if (delivery.kind !== "replaced") return;
    expect(delivery.commits[0]!.author).toBe("Ada");
    expect(delivery.commits[0]!.ours).toBe(false); // not groundfix's: --force names it in a warning
  });
});
