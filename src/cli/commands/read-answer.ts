/** What the terminal read commands call tools through, wherever the KB is (read-target.ts). */
import { CliExit, EXIT_USAGE } from "../io.js";

/** One KB to call read tools on; `call` answers the tool's JSON text. */
export interface ReadTarget {
  /** What a message names: `<kb> on <server>` or the KB folder. */
  where: string;
  call(tool: string, args: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

/** Error codes that mean the arguments were wrong: the person fixes the command line. */
const USAGE_CODES = ["invalid_argument", "invalid_id"];

/**
 * A tool's error answer (`<code>: <message>`) as the command's exit: 2 when it refused the
 * arguments, else 1 (not_found, forbidden, …).
 */
export function toolFailure(tool: string, where: string, text: string): CliExit {
  const code = /^([a-z_]+): /.exec(text)?.[1];
  const exit = code !== undefined && USAGE_CODES.includes(code) ? EXIT_USAGE : 1;
  return new CliExit(exit, `${tool} on ${where}: ${text}`);
}
