/**
 * The lines of a Markdown body that are prose: fenced code blocks are skipped and inline code
 * spans masked (same length, so offsets hold), as the KB's own link reader does. Pure.
 */
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

function maskInlineCode(line: string): string {
  return line.replace(/`+[^`]*`+/g, (m) => " ".repeat(m.length));
}

/**
 * Maps every prose line through `fn(line, masked)`: its return value replaces the line
 * (undefined keeps it). Fenced lines are passed through untouched.
 */
export function mapProseLines(
  body: string,
  fn: (line: string, masked: string) => string | undefined,
): string {
  let open: string | null = null;
  return body
    .split("\n")
    .map((line) => {
      const fence = FENCE.exec(line)?.[1];
      if (open !== null) {
        if (fence && fence[0] === open[0] && fence.length >= open.length && line.trim() === fence)
          open = null;
        return line;
      }
      if (fence) {
        open = fence;
        return line;
      }
      return fn(line, maskInlineCode(line)) ?? line;
    })
    .join("\n");
}
