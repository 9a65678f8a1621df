/**
 * The welcome map of the starter KB a first `npm start` creates: three short concepts that say
 * what a KB is and how maps, concepts and links work, linked to each other, so that a new
 * user's first search, graph or concept_list has something to show. Written through the store's
 * own plans (validated like any write) in one commit.
 */
import type { KbStore } from "../core/api.js";

const MAP = "welcome";

const CONCEPTS: { name: string; title: string; body: string }[] = [
  {
    name: "what-is-a-kb",
    title: "What a knowledge base is",
    body: `A knowledge base (KB) is a git repository of Markdown files: every change an agent makes
through Cartographer's tools is validated and committed, so the history of the KB is the
history of what was learned, by whom.

The files live under \`data/\`, grouped in maps. Read on: [maps and concepts](maps-and-concepts.md).
`,
  },
  {
    name: "maps-and-concepts",
    title: "Maps and concepts",
    body: `A **concept** is one Markdown file with YAML frontmatter (\`type\`, \`title\`, anything
else you need). Its id is its path without \`data/\` and \`.md\`: this one is
\`welcome/maps-and-concepts\`.

A **map** is a folder of related concepts with a \`_map.md\` describing it (which types it
takes, which fields are required); a **journal** is a map of dated entries. Concepts point at
each other with links: see [links and search](links-and-search.md).
`,
  },
  {
    name: "links-and-search",
    title: "Links and search",
    body: `Link concepts with relative Markdown links (\`[text](other.md)\`) or wiki links
(\`[[welcome/what-is-a-kb]]\`). Links make the graph that \`graph_neighbors\` walks and that
lint checks for broken targets; moving a concept rewrites the links to it.

Every concept is indexed for search as it is written: ask an agent to search for "links" and
it finds this page. Back to the start: [[welcome/what-is-a-kb]].
`,
  },
];

/** Creates the welcome map and its concepts in one commit; returns the commit sha. */
export async function writeWelcomeMap(store: KbStore): Promise<string | null> {
  const paths = new Set<string>();
  const apply = async (plan: Parameters<KbStore["apply"]>[0]) => {
    for (const p of (await store.apply(plan)).paths) paths.add(p);
  };
  await apply(await store.planMapCreate({ name: MAP, kind: "map", title: "Welcome" }));
  for (const c of CONCEPTS)
    await apply(
      await store.planConceptWrite({
        id: `${MAP}/${c.name}`,
        frontmatter: { type: "Guide", title: c.title },
        body: c.body,
        mode: "create",
      }),
    );
  return store.commit([...paths], "init: welcome map");
}
