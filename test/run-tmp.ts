/**
 * Vitest setup file: every test worker makes its temporary files in the run's folder that `test/global-setup.ts`
 * provides and removes at the end (`os.tmpdir()` reads `TMPDIR`, and processes a test spawns inherit it).
 */
import { inject } from "vitest";

const runTmp = inject("runTmp");
for (const name of ["TMPDIR", "TMP", "TEMP"]) process.env[name] = runTmp;
