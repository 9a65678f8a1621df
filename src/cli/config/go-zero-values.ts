/**
 * Go's zero values mean "unset" (docs/decisions.md "Go zero values are unset"): the Go server
 * decodes its YAML into structs, so `ssh_key: ""`, `audit.mode: ""` or `retention_days: 0` are
 * the same as leaving the key out. Its documented schema block (docs/deployment.md) writes them
 * so. This pass removes them from the raw YAML before the schema sees it; a real value is still
 * validated as before, and a key that is neither ours nor Go's is still refused.
 *
 *   `""`, `null`  dropped for every Go key of go-keys.ts (and an empty block: `sops:`)
 *   `0`           dropped where Go reads 0 as "default": audit.max_segment_bytes (no rotation),
 *                 audit.retention_days (keep forever); git.in_window: 0 keeps its meaning
 */
import { GO_KEYS, type GoSection } from "./go-keys.js";

/** Go keys whose `0` is Go's "off / package default" rather than a value. */
const ZERO_IS_UNSET: ReadonlySet<string> = new Set([
  "audit.max_segment_bytes",
  "audit.retention_days",
]);

const BLOCKS: readonly GoSection[] = ["auth", "git", "search", "audit", "sops", "tools", "mcp"];

function keysOf(section: GoSection): string[] {
  return GO_KEYS.filter((k) => k.section === section).map((k) => k.name);
}

function isZero(path: string, value: unknown): boolean {
  return value === "" || value === null || (value === 0 && ZERO_IS_UNSET.has(path));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A copy of `block` without the Go keys of `section` that hold a zero value. */
function withoutZeros(
  block: Record<string, unknown>,
  section: GoSection,
  prefix: string,
): Record<string, unknown> {
  const goKeys = new Set(keysOf(section));
  return Object.fromEntries(
    Object.entries(block).filter(([k, v]) => !(goKeys.has(k) && isZero(`${prefix}${k}`, v))),
  );
}

/** The raw YAML document with Go's zero values removed (the input is not modified). */
export function dropGoZeroValues(raw: unknown): unknown {
  if (!isRecord(raw)) return raw;
  const root = withoutZeros(raw, "", "");
  for (const section of BLOCKS) {
    const block = root[section];
    if (block === null) delete root[section];
    else if (isRecord(block)) root[section] = withoutZeros(block, section, `${section}.`);
  }
  if (Array.isArray(root.kbs))
    root.kbs = root.kbs.map((entry) =>
      isRecord(entry) ? withoutZeros(entry, "kbs[]", "kbs[].") : entry,
    );
  return root;
}
