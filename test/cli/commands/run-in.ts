/** Runs the CLI in this process with captured output; `tty` makes stdout a terminal that wide. */
import { PassThrough } from "node:stream";
import type { CliIo } from "../../../src/cli/io.js";
import { runCli } from "../../../src/cli/program.js";

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

function capture(tty?: number): CliIo["stdout"] & { text: () => string } {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean; columns?: number };
  let text = "";
  stream.on("data", (d) => {
    text += d;
  });
  if (tty !== undefined) {
    stream.isTTY = true;
    stream.columns = tty;
  }
  return Object.assign(stream, { text: () => text });
}

export async function runIn(
  cwd: string,
  env: Record<string, string | undefined>,
  argv: string[],
  tty?: number,
): Promise<RunResult> {
  const stdout = capture(tty);
  const stderr = capture();
  const io: CliIo = { env, cwd, stdout, stderr, stdin: new PassThrough() };
  // The global options go after the command name, as a person types them.
  const [first, ...rest] = argv[0] === "--config" ? argv.slice(2) : argv;
  const config = argv[0] === "--config" ? ["--config", argv[1] as string] : [];
  const code = await runCli([first as string, ...rest, ...config], io);
  await new Promise((r) => setImmediate(r));
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}
