/**
 * Map and journal descriptors (`_map.md`, legacy `_archive.md`) and the palette/required-field
 * rules they impose on every write path. Pure.
 */
import { KbError } from "../../common/errors.js";
import { parseDocument } from "./frontmatter.js";
import type { FmValue, Frontmatter, MapDescriptor, OntologyMode } from "./types.js";

export const MAP_FILE = "_map.md";
export const LEGACY_MAP_FILE = "_archive.md";

function stringList(value: FmValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  const items = Array.isArray(value) ? value : String(value).split(",");
  return items
    .filter((v) => v !== null)
    .map((v) => String(v).trim())
    .filter((v) => v !== "");
}

function bad(path: string, key: string, message: string): KbError {
  return new KbError("invalid_frontmatter", `${path}: ${key} ${message}`, { path, key });
}

/** Parses a descriptor. `name` is the folder under data/; `path` the KB-root-relative file. */
export function parseMapDescriptor(name: string, path: string, text: string): MapDescriptor {
  const { frontmatter } = parseDocument(text);
  const legacy = path.endsWith(`/${LEGACY_MAP_FILE}`) || path === LEGACY_MAP_FILE;
  let kind: MapDescriptor["kind"] = "map";
  if (!legacy && frontmatter.kind !== undefined && frontmatter.kind !== null) {
    if (frontmatter.kind !== "map" && frontmatter.kind !== "journal") {
      throw bad(path, "kind", `must be map or journal, got ${JSON.stringify(frontmatter.kind)}`);
    }
    kind = frontmatter.kind;
  }
  let ontologyMode: OntologyMode = "emergent";
  const mode = frontmatter.ontology_mode;
  if (mode !== undefined && mode !== null) {
    if (mode !== "strict" && mode !== "emergent" && mode !== "off") {
      throw bad(
        path,
        "ontology_mode",
        `must be strict, emergent or off, got ${JSON.stringify(mode)}`,
      );
    }
    ontologyMode = mode;
  }
  const requiredFieldsByType: Record<string, string[]> = {};
  for (const [key, value] of Object.entries(frontmatter)) {
    if (key.startsWith("required_fields.") && key.length > "required_fields.".length) {
      requiredFieldsByType[key.slice("required_fields.".length)] = stringList(value);
    }
  }
  const title =
    typeof frontmatter.title === "string" && frontmatter.title ? frontmatter.title : name;
  return {
    name,
    kind,
    title,
    conceptTypes: stringList(frontmatter.concept_types),
    ontologyMode,
    requiredFields: stringList(frontmatter.required_fields),
    requiredFieldsByType,
    requireIndexEntry:
      frontmatter.require_index_entry === true || frontmatter.require_index_entry === "true",
    legacy,
    path,
    frontmatter,
  };
}

function isEmpty(value: FmValue | undefined): boolean {
  return (
    value === undefined ||
    value === null ||
    (typeof value === "string" && value.trim() === "") ||
    (Array.isArray(value) && value.length === 0)
  );
}

/**
 * Throws `validation_failed` when `frontmatter` breaks the map's rules: its type outside a
 * strict palette, or a required field (map-wide or for the type) missing or empty.
 */
export function validateAgainstMap(map: MapDescriptor, id: string, frontmatter: Frontmatter): void {
  const type = typeof frontmatter.type === "string" ? frontmatter.type : "";
  if (
    map.ontologyMode === "strict" &&
    map.conceptTypes.length > 0 &&
    !map.conceptTypes.includes(type)
  ) {
    throw new KbError(
      "validation_failed",
      `${id}: type "${type}" is not allowed in strict map "${map.name}"; allowed types: ${map.conceptTypes.join(", ")}`,
      { map: map.name, type, allowed: map.conceptTypes },
    );
  }
  const required = [...map.requiredFields, ...(map.requiredFieldsByType[type] ?? [])];
  const missing = required.filter((f) => isEmpty(frontmatter[f]));
  if (missing.length > 0) {
    throw new KbError(
      "validation_failed",
      `${id}: map "${map.name}" requires field${missing.length > 1 ? "s" : ""} ${missing.join(", ")} for type "${type}" (required: ${[...new Set(required)].join(", ")})`,
      { map: map.name, type, missing, required },
    );
  }
}
