/**
 * Resource URIs (docs/decisions.md "KB-level documents use `~` names"):
 * `cartographer://<kb>/<concept id>` for concepts, and two names no concept id can take (`~` is not
 * an id character) for the KB-level documents: `cartographer://<kb>/~index` (data/index.md),
 * `cartographer://<kb>/~index/<map>` (a map's or journal's curated index, data/<map>/index.md) and
 * `cartographer://<kb>/~instructions` (instructions.md). Pure.
 */

export const INDEX_NAME = "~index";
export const INSTRUCTIONS_NAME = "~instructions";

export type ResourceRef =
  | { kb: string; kind: "concept"; id: string }
  | { kb: string; kind: "index"; map?: string }
  | { kb: string; kind: "instructions" };

export function conceptUri(kb: string, id: string): string {
  return `cartographer://${kb}/${id}`;
}

export function indexUri(kb: string, map?: string): string {
  return map === undefined
    ? `cartographer://${kb}/${INDEX_NAME}`
    : `cartographer://${kb}/${INDEX_NAME}/${map}`;
}

export function instructionsUri(kb: string): string {
  return `cartographer://${kb}/${INSTRUCTIONS_NAME}`;
}

/** The resource a URI names, or null when it is not one of ours (answered as not found). */
export function parseResourceUri(uri: string): ResourceRef | null {
  const prefix = "cartographer://";
  if (!uri.startsWith(prefix)) return null;
  const rest = uri.slice(prefix.length);
  const slash = rest.indexOf("/");
  if (slash <= 0) return null;
  const kb = rest.slice(0, slash);
  const path = rest.slice(slash + 1);
  if (path === "" || path.includes("?") || path.includes("#")) return null;
  if (path === INDEX_NAME) return { kb, kind: "index" };
  if (path.startsWith(`${INDEX_NAME}/`)) {
    const map = path.slice(INDEX_NAME.length + 1);
    return map === "" || map.includes("/") ? null : { kb, kind: "index", map };
  }
  if (path === INSTRUCTIONS_NAME) return { kb, kind: "instructions" };
  return { kb, kind: "concept", id: path };
}

/** The template clients fill to name a concept of `kb` (RFC 6570 reserved expansion: `/` kept). */
export function conceptTemplate(kb: string | null): string {
  return kb === null ? "cartographer://{kb}/{+id}" : `cartographer://${kb}/{+id}`;
}
