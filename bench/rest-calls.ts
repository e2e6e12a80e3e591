/**
 * REST calls per run: the app driven end to end through `probot.receive`, GitHub faked at the HTTP layer (the
 * stateful nock fake of the tests), on repositories of 10, 1,000 and 10,000 files, for a PR-producing run and a
 * diagnosis-only run, each in a fresh app (so the installation token and any `GET /app` are counted as a new
 * process pays them). The count must not grow with the repository size or with the files the agent reads. Prints
 * each run's calls in order (method and route) to stderr; `results.json` keeps the counts by route.
 */
import { CRASH_BODY, SHOP_FILES, labeledIssue, startApp } from "../test/app/harness.js";
import { generateRepo } from "./gen-repo.js";
import type { BenchRow } from "./lib.js";

/**
 * The shop repository of the app tests plus `extra - 4` generated files, so the crash still resolves to src/cart.js.
 */
function repoOf(total: number): Record<string, string> {
  const files: Record<string, string> = { ...SHOP_FILES };
  const extra = Math.max(0, total - Object.keys(files).length);
  for (const f of generateRepo(extra + 2, 2_000).slice(2, extra + 2)) files[`vendor/${f.path}`] = f.content;
  return files;
}

const VAGUE_BODY = "Something about checkout feels slow sometimes. No error message, no stack trace.";

async function countRun(
  total: number,
  body: string,
): Promise<{ total: number; byRoute: Record<string, number>; routes: string[]; pr: boolean }> {
  const app = await startApp({ files: repoOf(total) });
  try {
    await app.receive("issues", labeledIssue("groundfix", body));
    const byRoute = app.fake.countByRoute();
    const routes = app.fake.state.calls.map((c) => c.route);
    return { total: routes.length, byRoute, routes, pr: (byRoute["POST /repos/{o}/{r}/pulls"] ?? 0) > 0 };
  } finally {
    app.stop();
  }
}

export async function benchRestCalls(sizes: number[]): Promise<{ rows: BenchRow[]; detail: Record<string, unknown> }> {
  const rows: BenchRow[] = [];
  const detail: Record<string, unknown> = {};
  for (const [kind, body] of [
    ["PR-producing", CRASH_BODY],
    ["diagnosis-only", VAGUE_BODY],
  ] as const) {
    let reference: number | undefined;
    let printed: string | undefined;
    for (const size of sizes) {
      const r = await countRun(size, body);
      detail[`${kind} ${size} files`] = r.byRoute;
      const list = r.routes.map((route, i) => `  ${String(i + 1).padStart(2)}. ${route}`).join("\n");
      if (list !== printed) process.stderr.write(`REST calls, ${kind} run, ${size} files: ${r.total}\n${list}\n`);
      else process.stderr.write(`REST calls, ${kind} run, ${size} files: ${r.total} (the same calls)\n`);
      printed = list;
      reference ??= r.total;
      rows.push({
        section: "REST calls",
        name: `${kind} run, ${size} files${kind === "PR-producing" && !r.pr ? " (NO PR opened)" : ""}`,
        value: r.total,
        unit: "calls",
        reference: { name: `${sizes[0]} files`, value: reference },
        ratio: r.total / reference,
        ratioMeaning: "of the smallest repo",
      });
    }
  }
  return { rows, detail };
}
