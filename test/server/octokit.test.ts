import nock from "nock";
import { Probot, ProbotOctokit } from "probot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groundfixOctokit, throttleId } from "../../src/server/octokit.js";
import { testPrivateKey, webhookExample } from "../fixtures/github.js";

const privateKey = testPrivateKey();

/**
 * Installation 1's webhook handler makes three writes, then installation 2's makes one (Probot's webhook contexts,
 * throttling on as in production). Returns the order in which the fake GitHub received them.
 */
async function writeOrder(Octokit: typeof ProbotOctokit): Promise<string[]> {
  const order: string[] = [];
  nock("https://api.github.com")
    .persist()
    .post(/^\/app\/installations\/\d+\/access_tokens$/)
    .reply(201, () => ({ token: "t", expires_at: new Date(Date.now() + 3600_000).toISOString() }))
    .post(/^\/repos\/o\/r\/git\/refs$/)
    .reply(201, function (_uri, body: any) {
      order.push(body.ref);
      return {};
    })
    .get("/repos/o/r")
    .reply(200, {});
  const probot = new Probot({ appId: 1, privateKey, logLevel: "fatal", Octokit });
  // Both installation tokens are fetched (and cached) before the measured writes, so the order below depends on the
  // write limiters alone, not on how long signing a JWT and fetching a token take on a loaded machine.
  for (const id of [1, 2]) await (await probot.auth(id)).request("GET /repos/o/r");
  probot.on("issues.labeled", async (context) => {
    const inst = context.payload.installation!.id;
    const writes = inst === 1 ? ["i1-a", "i1-b", "i1-c"] : ["i2-a"];
    await Promise.all(writes.map((ref) => context.octokit.request("POST /repos/o/r/git/refs", { ref, sha: "0" })));
  });
  const first = probot.receive({ id: "d1", name: "issues", payload: webhookExample("issues", "labeled", 1) } as any);
  // Installation 1's three writes are scheduled together; once the first has arrived, the other two wait their turn.
  while (!order.includes("i1-a")) await new Promise((r) => setTimeout(r, 5));
  await Promise.all([
    first,
    probot.receive({ id: "d2", name: "issues", payload: webhookExample("issues", "labeled", 2) } as any),
  ]);
  nock.cleanAll();
  return order;
}

describe("groundfixOctokit", () => {
  beforeAll(() => nock.disableNetConnect());
  afterAll(() => nock.enableNetConnect());

  it("names the limiter per installation", () => {
    expect(throttleId({ installationId: 42 })).toBe("installation-42");
    expect(throttleId({ appId: 1, privateKey: "k" })).toBe("app");
    expect(throttleId(undefined)).toBe("app");
  });

  it("lets one installation's write pass while another installation's writes wait their second", async () => {
    // Probot's own class: webhook contexts share one write limiter, so installation 2 waits behind 1's three writes.
    expect(await writeOrder(ProbotOctokit)).toEqual(["i1-a", "i1-b", "i1-c", "i2-a"]);
    // Per installation: installation 2's write goes out before installation 1's second.
    const order = await writeOrder(groundfixOctokit());
    expect(order.indexOf("i2-a")).toBeLessThan(order.indexOf("i1-b"));
    expect(order.filter((r) => r.startsWith("i1"))).toEqual(["i1-a", "i1-b", "i1-c"]);
  });
});
