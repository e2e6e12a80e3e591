#!/usr/bin/env node
/**
 * The `groundfix` bin (package.json "bin"): `fix`, `review`, `serve`. All logic lives in run.ts; this file only
 * binds the process's streams and sets the exit code.
 */
import { runCli } from "./run.js";

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
process.exitCode = code;
