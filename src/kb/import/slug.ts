/**
 * Names → id segments. Go's slug rule (lowercase a-z 0-9, every other run → `-`, trimmed), after
 * Unicode compatibility decomposition with the combining marks dropped, so `Café` is `cafe`
 * rather than Go's `caf` (docs/decisions.md "Import"). Pure.
 */
import { MAX_SEGMENT_BYTES, RESERVED_BASENAMES } from "../core/ids.js";

/** Go's fallback for a name with no usable character. */
export const EMPTY_SLUG = "concept";
/** Longest slug: room for a `-<n>` collision suffix inside an id segment. */
const MAX_SLUG = MAX_SEGMENT_BYTES - 8;

/** The slug of `name`, or "" when nothing usable survives. */
export function slugOf(name: string): string {
  const ascii = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase();
  const slug = ascii.replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return slug.slice(0, MAX_SLUG).replace(/-+$/, "");
}

/** True when `slug` is a basename ids never use (index, log, _map, …). */
export function isReserved(slug: string): boolean {
  return RESERVED_BASENAMES.some((r) => r.toLowerCase() === slug);
}

/** An asset file name: the stem slugged, the extension lowercased (`Pasted Image.PNG` → `pasted-image.png`). */
export function assetNameOf(fileName: string): string {
  const dot = fileName.lastIndexOf(".");
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  const ext = dot > 0 ? slugOf(fileName.slice(dot + 1)) : "";
  const base = slugOf(stem) || "file";
  return ext ? `${base}.${ext}` : base;
}

/** `base`, else `base-2`, `base-3`, … : the first that `taken` does not hold. */
export function firstFree(base: string, taken: (candidate: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = withSuffix(base, n);
    if (!taken(candidate)) return candidate;
  }
}

/** `name-2` for a name, `name-2.png` for a file name with an extension. */
function withSuffix(base: string, n: number): string {
  const dot = base.lastIndexOf(".");
  const inLastSegment = dot > base.lastIndexOf("/") + 1;
  return inLastSegment ? `${base.slice(0, dot)}-${n}${base.slice(dot)}` : `${base}-${n}`;
}
