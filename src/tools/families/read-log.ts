/**
 * Parsing log.md into entries (pure). An entry starts at a `## ` heading or a top-level `- `
 * bullet after the title; following lines up to the next entry belong to it.
 */

export interface LogEntry {
  /** The heading or bullet line without its marker. */
  title: string;
  /** The full text of the entry, marker included. */
  text: string;
}

export function parseLogEntries(text: string): LogEntry[] {
  const lines = text.replace(/\r\n/g, "\n").split("\n");
  let start = 0;
  if (lines[0]?.trim() === "---") {
    const end = lines.findIndex((l, i) => i > 0 && l.trim() === "---");
    if (end > 0) start = end + 1;
  }
  const entries: LogEntry[] = [];
  let current: string[] | null = null;
  const flush = () => {
    if (current) {
      const body = current.join("\n").trimEnd();
      const first = current[0] ?? "";
      entries.push({ title: first.replace(/^(## |- )/, "").trim(), text: body });
    }
    current = null;
  };
  for (const line of lines.slice(start)) {
    if (line.startsWith("## ") || line.startsWith("- ")) {
      flush();
      current = [line];
    } else if (line.startsWith("# ")) {
      flush();
    } else if (current) {
      current.push(line);
    }
  }
  flush();
  return entries;
}
