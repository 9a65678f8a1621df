/** Builds ConceptDoc values for index tests (no store needed). */
import { createHash } from "node:crypto";
import type { ConceptDoc, Frontmatter } from "../../src/kb/core/types.js";

export function doc(
  id: string,
  opts: {
    body?: string;
    frontmatter?: Frontmatter;
    map?: string | null;
    journal?: string | null;
  } = {},
): ConceptDoc {
  const frontmatter: Frontmatter = opts.frontmatter ?? {
    type: "note",
    title: id.split("/").pop() ?? id,
  };
  const body = opts.body ?? `Body of ${id}.`;
  const top = id.includes("/") ? (id.split("/")[0] as string) : null;
  return {
    id,
    path: `data/${id}.md`,
    frontmatter,
    body,
    hash: createHash("sha256").update(JSON.stringify({ frontmatter, body })).digest("hex"),
    type: typeof frontmatter.type === "string" ? frontmatter.type : "",
    title: typeof frontmatter.title === "string" ? frontmatter.title : null,
    expanded: false,
    map: opts.map !== undefined ? opts.map : top,
    journal: opts.journal ?? null,
  };
}
