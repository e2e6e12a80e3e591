import { createRequire } from "node:module";
import type * as TS from "typescript";

let loaded: typeof TS | undefined;

/**
 * The TypeScript compiler API, loaded on first use through `createRequire` (a CommonJS `require` of the
 * `typescript` package) instead of a top-level `import`, so a run that never parses a JS/TS file never pays for
 * loading the compiler (about 0.2 s of `require`, more as an ES import). Synchronous; the same module object on
 * every call.
 *
 * @throws Error when the `typescript` package is not installed.
 */
export function typescript(): typeof TS {
  loaded ??= createRequire(import.meta.url)("typescript") as typeof TS;
  return loaded;
}
