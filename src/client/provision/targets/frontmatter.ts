/**
 * YAML frontmatter of skill and agent files (pure). The block between a first line `---` and
 * the next `---` line must parse as a YAML mapping (the `yaml` package); the rest is the body.
 * Targets that convert an agent (Codex TOML, OpenCode's fields) read it here; everything else is
 * copied byte for byte.
 */
import { parse as parseYaml, stringify as stringifyYaml } from "yaml";

export interface Frontmatter {
  data: Record<string, unknown>;
  body: string;
}

const OPEN = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSE = /^---[ \t]*\r?$/m;

/** Splits and parses; `{ error }` says what is wrong (no frontmatter, bad YAML, not a mapping). */
export function parseFrontmatter(text: string): Frontmatter | { error: string } {
  const open = OPEN.exec(text);
  if (!open) return { error: "no YAML frontmatter (the file must start with a --- line)" };
  const rest = text.slice(open[0].length);
  const close = CLOSE.exec(rest);
  if (!close) return { error: "the YAML frontmatter has no closing --- line" };
  const yamlText = rest.slice(0, close.index);
  let data: unknown;
  try {
    data = parseYaml(yamlText);
  } catch (err) {
    const first = ((err as Error).message.split("\n")[0] ?? "").slice(0, 120);
    return { error: `the YAML frontmatter does not parse (${first})` };
  }
  if (data === null || data === undefined) data = {};
  if (typeof data !== "object" || Array.isArray(data)) {
    return { error: "the YAML frontmatter is not a mapping of keys" };
  }
  const after = rest.slice(close.index + close[0].length).replace(/^\n/, "");
  return { data: data as Record<string, unknown>, body: after };
}

/** A Markdown file with `data` as frontmatter (keys in the given order) and `body`. */
export function renderFrontmatter(data: Record<string, unknown>, body: string): string {
  const yaml = Object.keys(data).length === 0 ? "" : stringifyYaml(data, { lineWidth: 0 });
  return `---\n${yaml}---\n${body}`;
}

/** A string field of the frontmatter, trimmed; undefined when absent or not a string. */
export function stringField(data: Record<string, unknown>, key: string): string | undefined {
  const v = data[key];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
}
