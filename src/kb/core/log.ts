/** Log files (`# Log`, newest entry first, `## <RFC3339>` headings). Pure. */

export const EMPTY_LOG = "# Log\n";

/** RFC 3339 UTC time without milliseconds, e.g. `2024-05-01T10:00:00Z`. */
export function rfc3339(at: Date): string {
  return at.toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** Inserts an entry directly under the `# Log` heading (added when missing). */
export function insertLogEntry(text: string | null, entry: string, at: Date): string {
  const normalized = (text ?? EMPTY_LOG).replace(/\r\n?/g, "\n");
  const block = `## ${rfc3339(at)}\n\n${entry.trim()}\n`;
  const lines = normalized.split("\n");
  const h = lines.findIndex((l) => /^#\s+Log\s*$/i.test(l));
  if (h < 0) return `# Log\n\n${block}\n${normalized.replace(/^\n+/, "")}`.replace(/\n+$/, "\n");
  const before = lines.slice(0, h + 1).join("\n");
  const after = lines
    .slice(h + 1)
    .join("\n")
    .replace(/^\n+/, "");
  return `${before}\n\n${block}${after ? `\n${after}` : ""}`.replace(/\n+$/, "\n");
}
