import { ConfigError } from "../../errors.js";

/**
 * JSON provider files are edited structurally but re-serialized in the file's own style: the
 * indentation unit of the original (tabs or N spaces), its trailing newline and a leading UTF-8
 * byte order mark (some Windows editors write one) are kept, and key order is preserved (an
 * entry we replace stays where it was).
 */
export interface JsonFileStyle {
  indent: string;
  trailingNewline: boolean;
  bom: boolean;
}

const BOM = "\uFEFF";

export function detectStyle(text: string | null): JsonFileStyle {
  const bom = text?.startsWith(BOM) ?? false;
  if (text === null || text.trim() === "") return { indent: "  ", trailingNewline: true, bom };
  const m = /\n([ \t]+)\S/.exec(text);
  return { indent: m?.[1] ?? "  ", trailingNewline: text.endsWith("\n"), bom };
}

export function parseJsonObject(text: string | null, file: string): Record<string, unknown> {
  // JSON.parse refuses a BOM; it is not content, so read past it (serializeJson puts it back).
  const body = text?.startsWith(BOM) ? text.slice(1) : text;
  if (body === null || body === undefined || body.trim() === "") return {};
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    throw new ConfigError(
      `${file} is not valid JSON (${(err as Error).message}); fix it by hand, nothing was written`,
    );
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new ConfigError(`${file}: the top level must be a JSON object; nothing was written`);
  }
  return value as Record<string, unknown>;
}

export function serializeJson(value: unknown, style: JsonFileStyle): string {
  const out = `${style.bom ? BOM : ""}${JSON.stringify(value, null, style.indent)}`;
  return style.trailingNewline ? `${out}\n` : out;
}

/**
 * Returns a copy of `container` with `remove` keys dropped and `add` entries set: an added key
 * that already existed is replaced in place, a new one is appended.
 */
export function mergeEntries(
  container: Record<string, unknown>,
  remove: Set<string>,
  add: Map<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(container)) {
    if (add.has(key)) out[key] = add.get(key);
    else if (!remove.has(key)) out[key] = value;
  }
  for (const [key, value] of add) if (!(key in out)) out[key] = value;
  return out;
}

/** True when every field of `expected` is present in `actual` with the same value. */
export function isSubset(expected: unknown, actual: unknown): boolean {
  if (expected === null || typeof expected !== "object") return expected === actual;
  if (actual === null || typeof actual !== "object") return false;
  return Object.entries(expected as Record<string, unknown>).every(([k, v]) =>
    isSubset(v, (actual as Record<string, unknown>)[k]),
  );
}
