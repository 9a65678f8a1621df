/**
 * The one logger. Diagnostics go to stderr (stdout belongs to the protocol in stdio mode and
 * to results in CLI commands that print JSON). Modules take a Logger; only cli/ builds one.
 */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export function stderrLogger(stream: NodeJS.WritableStream = process.stderr): Logger {
  const line = (level: string, message: string) =>
    stream.write(`cartographer ${level}: ${message}\n`);
  return {
    info: (m) => line("info", m),
    warn: (m) => line("warn", m),
    error: (m) => line("error", m),
  };
}

/** A logger that records lines in memory; for tests and for callers that collect warnings. */
export function memoryLogger(): Logger & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    info: (m) => lines.push(`info: ${m}`),
    warn: (m) => lines.push(`warn: ${m}`),
    error: (m) => lines.push(`error: ${m}`),
  };
}

export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
