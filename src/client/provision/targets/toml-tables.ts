/**
 * Textual editing of TOML tables (pure). Only the `[mcp_servers.<name>]` tables we own are
 * replaced, appended or removed; every other byte of the file — comments, blank lines, key
 * order, quoting — is left exactly as it was. The caller parses the result back to validate.
 */

interface Section {
  /** Dotted key path of the header, unquoted. */
  path: string[];
  /** Index of the header line. */
  start: number;
  /** Index one past the last content line (trailing comments/blank lines belong to the next). */
  end: number;
}

const HEADER = /^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$/;

/** Splits a dotted TOML key into its parts, honouring "basic" and 'literal' quoted parts. */
export function splitDottedKey(key: string): string[] {
  const parts: string[] = [];
  let i = 0;
  while (i < key.length) {
    while (key[i] === " " || key[i] === "\t") i++;
    let part = "";
    if (key[i] === '"' || key[i] === "'") {
      const quote = key[i];
      i++;
      while (i < key.length && key[i] !== quote) {
        if (quote === '"' && key[i] === "\\" && i + 1 < key.length) {
          part += key[i + 1];
          i += 2;
        } else part += key[i++];
      }
      i++;
    } else {
      while (i < key.length && key[i] !== "." && key[i] !== " " && key[i] !== "\t")
        part += key[i++];
    }
    parts.push(part);
    while (key[i] === " " || key[i] === "\t") i++;
    if (key[i] === ".") i++;
  }
  return parts;
}

function isContent(line: string): boolean {
  const t = line.trim();
  return t !== "" && !t.startsWith("#");
}

function sections(lines: string[]): Section[] {
  const found: Section[] = [];
  let inMultiline: string | null = null;
  lines.forEach((line, index) => {
    // Skip lines inside multi-line strings, where a "[x]" is text, not a header.
    if (inMultiline) {
      if (line.includes(inMultiline)) inMultiline = null;
      return;
    }
    for (const q of ['"""', "'''"]) {
      const count = line.split(q).length - 1;
      if (count % 2 === 1) inMultiline = q;
    }
    const m = HEADER.exec(line);
    if (!m || line.trim().startsWith("#")) return;
    found.push({ path: splitDottedKey(m[1] ?? ""), start: index, end: lines.length });
  });
  for (let i = 0; i < found.length; i++) {
    const s = found[i] as Section;
    let end = i + 1 < found.length ? (found[i + 1] as Section).start : lines.length;
    while (end > s.start + 1 && !isContent(lines[end - 1] ?? "")) end--;
    s.end = end;
  }
  return found;
}

function ownedBy(section: Section, table: string, name: string): boolean {
  return section.path[0] === table && section.path[1] === name;
}

/** Splits keeping a final newline as an empty last element, so join("\n") round-trips. */
function toLines(text: string): string[] {
  return text === "" ? [] : text.split("\n");
}

/** Removes every `[table.name]` and `[table.name.*]` section, and the blank line before it. */
export function removeTomlTables(text: string, table: string, name: string): string {
  let lines = toLines(text);
  for (;;) {
    const s = sections(lines).find((x) => ownedBy(x, table, name));
    if (!s) break;
    let from = s.start;
    if (from > 0 && (lines[from - 1] ?? "").trim() === "") from--;
    lines = [...lines.slice(0, from), ...lines.slice(s.end)];
  }
  return lines.join("\n");
}

/** The bare key a `key = value` line assigns, unquoted; undefined for any other line. */
function assignedKey(line: string): string | undefined {
  const m = /^\s*(?:"([^"]*)"|'([^']*)'|([A-Za-z0-9_-]+))\s*=/.exec(line);
  return m ? (m[1] ?? m[2] ?? m[3]) : undefined;
}

/**
 * Writes `body` (a full `[table.name]` section, without a trailing newline) in place of the
 * existing one, or appends it after a blank line. With `keepOthers`, the old section's lines
 * that assign a key `body` does not own (the user's `enabled_tools`, `tool_timeout_sec` …)
 * and its sub-tables (`[table.name.tools.x]` approvals) are kept; without it the whole old
 * entry, sub-tables included, is replaced.
 */
export function upsertTomlTable(
  text: string,
  table: string,
  name: string,
  body: string,
  keepOthers?: { ownedKeys: string[] },
): string {
  let lines = toLines(text);
  for (;;) {
    if (keepOthers) break;
    const sub = sections(lines).find((x) => ownedBy(x, table, name) && x.path.length > 2);
    if (!sub) break;
    let from = sub.start;
    if (from > 0 && (lines[from - 1] ?? "").trim() === "") from--;
    lines = [...lines.slice(0, from), ...lines.slice(sub.end)];
  }
  const main = sections(lines).find((x) => ownedBy(x, table, name) && x.path.length === 2);
  if (main) {
    const owned = new Set(keepOthers?.ownedKeys ?? []);
    const kept = keepOthers
      ? lines.slice(main.start + 1, main.end).filter((l) => !owned.has(assignedKey(l) ?? ""))
      : [];
    return [
      ...lines.slice(0, main.start),
      ...body.split("\n"),
      ...kept,
      ...lines.slice(main.end),
    ].join("\n");
  }
  const rest = lines.join("\n");
  if (rest === "") return `${body}\n`;
  const base = rest.endsWith("\n") ? rest : `${rest}\n`;
  return `${base}\n${body}\n`;
}

/** A TOML key: bare when it can be, else a basic string. */
export function tomlKey(key: string): string {
  return /^[A-Za-z0-9_-]+$/.test(key) ? key : JSON.stringify(key);
}

/** A TOML basic string (JSON escapes are valid TOML escapes). */
export function tomlString(value: string): string {
  return JSON.stringify(value);
}
