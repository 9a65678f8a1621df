/**
 * Parsing log.md into entries (pure). The store writes `## <RFC3339>` headings, newest first
 * (src/kb/core/log.ts); hand-written logs may use `- ` bullets. An entry runs from its heading or
 * bullet to the next one.
 */

export interface LogEntry {
  /** The heading or bullet text (for store-written entries, the RFC 3339 time). */
  heading: string;
  /** The entry's text below its heading (empty for one-line bullets). */
  text: string;
}

function stripFrontmatter(lines: string[]): string[] {
  if (lines[0]?.trim() !== "---") return lines;
  const end = lines.findIndex((l, i) => i > 0 && l.trim() === "---");
  return end > 0 ? lines.slice(end + 1) : lines;
}

export function parseLogEntries(text: string): LogEntry[] {
  const lines = stripFrontmatter(text.replace(/\r\n?/g, "\n").split("\n"));
  const entries: LogEntry[] = [];
  let current: { heading: string; lines: string[] } | null = null;
  const flush = () => {
    if (current) entries.push({ heading: current.heading, text: current.lines.join("\n").trim() });
    current = null;
  };
  for (const line of lines) {
    const m = /^(?:## |- )(.*)$/.exec(line);
    if (m) {
      flush();
      current = { heading: (m[1] ?? "").trim(), lines: [] };
    } else if (/^# /.test(line)) flush();
    else current?.lines.push(line);
  }
  flush();
  return entries;
}

/**
 * Newest first: by heading time when every heading is a time (sorting is stable, so entries of
 * the same second keep file order); otherwise file order, which the store writes newest first.
 */
export function newestFirst(entries: LogEntry[]): LogEntry[] {
  const times = entries.map((e) => Date.parse(e.heading));
  if (times.some((t) => Number.isNaN(t))) return entries;
  return entries
    .map((e, i) => ({ e, t: times[i] as number }))
    .sort((a, b) => b.t - a.t)
    .map((x) => x.e);
}
