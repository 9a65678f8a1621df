/**
 * Output for a person at the terminal: rows as aligned columns, and every line cut to the
 * terminal's width when stdout is a TTY (a pipe gets whole lines, for grep and less -S).
 */

/** The width to cut lines to: the TTY's columns, or null (no cut) for a pipe or a file. */
export function lineWidth(stdout: { isTTY?: boolean; columns?: number }): number | null {
  return stdout.isTTY === true && typeof stdout.columns === "number" && stdout.columns > 0
    ? stdout.columns
    : null;
}

/** `text` on one line (newlines and runs of blanks become one space). */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** `line` cut to `width` characters (code points), ending in "…" when something was cut. */
export function fitWidth(line: string, width: number | null): string {
  if (width === null) return line;
  const chars = Array.from(line);
  if (chars.length <= width) return line;
  return `${chars.slice(0, Math.max(0, width - 1)).join("")}…`;
}

/**
 * Rows as columns padded to their widest cell (two spaces apart); the last column is not
 * padded, so it may run on and is what `fitWidth` cuts. Each returned line ends in "\n".
 */
export function columns(rows: readonly (readonly string[])[], width: number | null): string {
  const widths: number[] = [];
  for (const row of rows)
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, Array.from(cell).length);
    });
  return rows
    .map((row) => {
      const cells = row.map((cell, i) =>
        i === row.length - 1 ? cell : cell + " ".repeat((widths[i] ?? 0) - Array.from(cell).length),
      );
      return `${fitWidth(cells.join("  ").trimEnd(), width)}\n`;
    })
    .join("");
}
