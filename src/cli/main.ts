#!/usr/bin/env node
/** The `cartographer` binary: the only module that touches process.argv and process.env. */
import { runCli } from "./program.js";

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  cwd: process.cwd(),
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
});
// Long-running commands (serve) resolve only when they are done serving.
process.exitCode = code;
