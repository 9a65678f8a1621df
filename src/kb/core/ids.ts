/**
 * Concept id rules and the id ↔ path mapping (design.md §4). Pure.
 *
 * An id is the path under `data/` without `.md` (`infra/rete/gateway`), or `services/<rest>`
 * for concepts stored under the KB-root `services/` folder.
 */
import { KbError } from "../../common/errors.js";
import type { MapDescriptor, Placement } from "./types.js";

const SEGMENT = /^[a-z0-9._-]+$/;
/** Longest segment and id (UTF-8 bytes): well under NAME_MAX/PATH_MAX once `data/`, `.md` and temp names are added. */
export const MAX_SEGMENT_BYTES = 128;
export const MAX_ID_BYTES = 255;
/** Basenames (without `.md`) that are never concepts. */
export const RESERVED_BASENAMES: readonly string[] = ["index", "log", "_map", "_archive", "AGENTS"];
/** Deepest id a write may create (segments after `services/` for service ids). */
export const MAX_WRITE_DEPTH = 3;
const SERVICES = "services/";

function invalid(id: string, segment: string, rule: string): KbError {
  return new KbError("invalid_id", `id "${id}": segment "${segment}" ${rule}`, {
    id,
    segment,
    rule,
  });
}

/**
 * Throws `invalid_id` naming the bad segment and the rule it breaks. `forWrite` also enforces
 * the depth limit ({@link MAX_WRITE_DEPTH} segments; `services/` does not count).
 */
export function validateId(id: string, opts: { forWrite?: boolean } = {}): void {
  if (typeof id !== "string" || id.length === 0) {
    throw new KbError(
      "invalid_id",
      "id is empty: pass a path under data/ without .md, e.g. infra/gateway",
    );
  }
  if (id.startsWith("data/")) {
    throw invalid(id, "data", 'is a prefix ids never carry: drop "data/"');
  }
  if (id.endsWith(".md")) {
    throw invalid(id, id.split("/").pop() ?? id, 'ends with ".md": ids never carry the extension');
  }
  if (Buffer.byteLength(id) > MAX_ID_BYTES) {
    throw new KbError(
      "invalid_id",
      `id "${id.slice(0, 64)}…" is ${Buffer.byteLength(id)} bytes long; the limit is ${MAX_ID_BYTES}`,
      { rule: "too_long" },
    );
  }
  const segments = id.split("/");
  for (const segment of segments) {
    if (segment === "")
      throw invalid(id, segment, "is empty: no leading, trailing or double slashes");
    if (segment === "." || segment === "..")
      throw invalid(id, segment, "is . or .., which ids never contain");
    if (segment.startsWith("."))
      throw invalid(id, segment, 'starts with ".": hidden files and folders are never concepts');
    if (!SEGMENT.test(segment)) {
      throw invalid(id, segment, "must match [a-z0-9._-]+ (lowercase letters, digits, . _ -)");
    }
    if (Buffer.byteLength(segment) > MAX_SEGMENT_BYTES) {
      throw invalid(id, `${segment.slice(0, 32)}…`, `is longer than ${MAX_SEGMENT_BYTES} bytes`);
    }
  }
  const last = segments[segments.length - 1] ?? "";
  if (RESERVED_BASENAMES.some((r) => r.toLowerCase() === last.toLowerCase())) {
    throw invalid(id, last, `is a reserved basename (${RESERVED_BASENAMES.join(", ")})`);
  }
  const isService = id.startsWith(SERVICES);
  if (isService && segments.length < 2)
    throw invalid(id, "services", "needs a name after services/");
  if (opts.forWrite) {
    const depth = isService ? segments.length - 1 : segments.length;
    if (depth > MAX_WRITE_DEPTH) {
      throw invalid(
        id,
        segments[segments.length - 1] ?? id,
        `is too deep: at most ${MAX_WRITE_DEPTH} segments on write`,
      );
    }
  }
}

/** True when `validateId` accepts `id` (read rules). */
export function isValidId(id: string): boolean {
  try {
    validateId(id);
    return true;
  } catch {
    return false;
  }
}

/** KB-root-relative candidate files of an id: `<id>.md`, then `<id>/index.md`. */
export function candidatePaths(id: string): [string, string] {
  const base = id.startsWith(SERVICES) ? id : `data/${id}`;
  return [`${base}.md`, `${base}/index.md`];
}

/**
 * The concept id of a KB-root-relative path, or null when the file is not a concept
 * (root index/log, reserved basenames, non-.md, hidden or invalid segments).
 * `<dir>/index.md` maps to `<dir>`; the store additionally excludes map/journal folder indexes.
 */
export function pathToId(path: string): string | null {
  const clean = path.replace(/\\/g, "/").replace(/^\.\//, "");
  let rest: string;
  let prefix = "";
  if (clean.startsWith("data/")) rest = clean.slice(5);
  else if (clean.startsWith(SERVICES)) {
    rest = clean.slice(SERVICES.length);
    prefix = SERVICES;
  } else return null;
  if (!rest.endsWith(".md")) return null;
  const parts = rest.slice(0, -3).split("/");
  const base = parts[parts.length - 1] ?? "";
  if (base === "index") {
    parts.pop();
    if (parts.length === 0) return null;
  } else if (RESERVED_BASENAMES.includes(base)) {
    return null;
  }
  const id = prefix + parts.join("/");
  return isValidId(id) ? id : null;
}

/** Map/journal placement of an id: its first segment's descriptor (root-level and services: none). */
export function placementOf(id: string, maps: readonly MapDescriptor[]): Placement {
  const segments = id.split("/");
  if (segments.length < 2 || id.startsWith(SERVICES)) return { map: null, journal: null };
  const desc = maps.find((m) => m.name === segments[0]);
  if (!desc) return { map: null, journal: null };
  return desc.kind === "journal"
    ? { map: null, journal: desc.name }
    : { map: desc.name, journal: null };
}
