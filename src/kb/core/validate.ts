/** Write-path validation shared by every plan: flat values, `type`, map palette and fields. Pure. */
import { KbError } from "../../common/errors.js";
import { requireType } from "./frontmatter.js";
import { validateId } from "./ids.js";
import { validateAgainstMap } from "./maps.js";
import type { FmValue, Frontmatter, MapDescriptor } from "./types.js";

function isScalar(v: unknown): boolean {
  return (
    v === null ||
    typeof v === "string" ||
    typeof v === "boolean" ||
    (typeof v === "number" && Number.isFinite(v))
  );
}

/** Checks one frontmatter value is a scalar or a flat list of scalars. */
export function checkValue(key: string, value: unknown): FmValue {
  if (isScalar(value)) return value as FmValue;
  if (Array.isArray(value) && value.every(isScalar)) return value as FmValue;
  throw new KbError(
    "invalid_frontmatter",
    `frontmatter.${key}: only scalars and flat lists of scalars are allowed (no nested objects)`,
    { key },
  );
}

/** Checks a frontmatter key is a plain YAML key (it is written verbatim before `:`). */
export function checkKey(key: string): void {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(key) || key === "__proto__") {
    throw new KbError(
      "invalid_frontmatter",
      `frontmatter key ${JSON.stringify(key)} must match [A-Za-z0-9_][A-Za-z0-9_.-]*`,
      { key },
    );
  }
}

/** Validates arbitrary input as flat frontmatter (keys must be simple). */
export function checkFrontmatter(input: Record<string, unknown>): Frontmatter {
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    throw new KbError("invalid_frontmatter", "frontmatter must be an object of key: value pairs");
  }
  const out: Frontmatter = {};
  for (const [key, value] of Object.entries(input)) {
    checkKey(key);
    out[key] = checkValue(key, value);
  }
  return out;
}

/**
 * Everything a concept write must satisfy: write-legal id, not a map folder, non-empty type,
 * and the palette / required fields of its map or journal.
 */
export function validateConceptWrite(
  id: string,
  frontmatter: Frontmatter,
  maps: readonly MapDescriptor[],
): void {
  validateId(id, { forWrite: true });
  if (!id.includes("/") && maps.some((m) => m.name === id)) {
    throw new KbError(
      "invalid_id",
      `id "${id}" names a map/journal folder: put the concept inside it, e.g. ${id}/<name>`,
    );
  }
  requireType(frontmatter);
  const first = id.split("/")[0];
  const map =
    id.includes("/") && !id.startsWith("services/")
      ? maps.find((m) => m.name === first)
      : undefined;
  if (map) validateAgainstMap(map, id, frontmatter);
}
