/**
 * `{{repo:<ref>}}` and `{{path:<name>}}` in a KB's instructions (pure): found, replaced by the
 * local paths the client resolved, and listed in a "Local paths" table at the end of the
 * instructions block, with the command an agent runs for one the table does not list. Text
 * without a placeholder comes back as it was, byte for byte.
 */
import { UNSAFE_CHAR } from "../../common/paths.js";
import type { PlaceholderKind } from "./resolver.js";

/** Go's pattern, kept to one line: a kind, a colon, then anything but braces. */
const PLACEHOLDER = /\{\{(repo|path):([^{}\r\n]+)\}\}/g;

export interface Placeholder {
  /** As written, e.g. `{{repo:cartographer}}`. */
  text: string;
  kind: PlaceholderKind;
  ref: string;
}

/** The distinct placeholders of `text`, in order of first appearance. */
export function placeholdersIn(text: string): Placeholder[] {
  const seen = new Map<string, Placeholder>();
  for (const m of text.matchAll(PLACEHOLDER)) {
    const ref = (m[2] as string).trim();
    if (ref === "") continue;
    const id = `${m[1]}:${ref}`;
    if (!seen.has(id)) seen.set(id, { text: m[0], kind: m[1] as PlaceholderKind, ref });
  }
  return [...seen.values()];
}

/** `kind:ref` of a placeholder: the key of a resolution map and of a table row. */
export const placeholderId = (p: Pick<Placeholder, "kind" | "ref">) => `${p.kind}:${p.ref}`;

/**
 * Why `dir` cannot be written into the block (it would break a code span or the table, or
 * display as something else), or undefined when it can.
 */
export function unwritablePath(dir: string): string | undefined {
  if (UNSAFE_CHAR.test(dir)) return "it contains a control or bidi character";
  if (dir.includes("`")) return "it contains a backtick";
  return undefined;
}

/** `text` with every placeholder whose id is in `resolved` replaced; the others are left. */
export function expandPlaceholders(text: string, resolved: ReadonlyMap<string, string>): string {
  if (resolved.size === 0) return text;
  return text.replace(PLACEHOLDER, (whole, kind: string, ref: string) => {
    return resolved.get(`${kind}:${ref.trim()}`) ?? whole;
  });
}

/**
 * The "Local paths" section (no trailing newline): one row per resolved placeholder, sorted.
 * Empty input → empty string (nothing is appended).
 */
export function localPathsTable(resolved: ReadonlyMap<string, string>): string {
  if (resolved.size === 0) return "";
  const rows = [...resolved.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([id, dir]) => `| \`{{${id}}}\` | \`${dir.replace(/\|/g, "\\|")}\` |`);
  return [
    "### Local paths",
    "",
    "| Placeholder | Local path |",
    "|---|---|",
    ...rows,
    "",
    "A `{{repo:…}}` or `{{path:…}}` placeholder missing from this table (in a concept, say): run `cartographer resolve <kind>:<key>` (e.g. `cartographer resolve repo:name`) for its local path.",
  ].join("\n");
}
