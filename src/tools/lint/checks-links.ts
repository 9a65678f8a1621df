/** Link checks: broken_link, orphan, orphan_asset, index_incomplete. Pure. */
import type { LintCheck } from "./check.js";

export const brokenLink: LintCheck = {
  name: "broken_link",
  severity: "error",
  explanation: "A concept or index links to a concept id or asset file that does not exist.",
  perDoc: ({ doc, unresolved }, env) => [
    ...unresolved.broken.map((link) => ({
      id: doc.id,
      message: `link ${link.raw} → no concept "${link.target}"`,
    })),
    ...unresolved.assets
      .filter((link) => !env.assetPaths.has(link.target))
      .map((link) => ({ id: doc.id, message: `link ${link.raw} → no asset ${link.target}` })),
  ],
  run: (ctx) =>
    ctx.indexes.flatMap((ix) =>
      ix.links
        .filter((l) =>
          l.kind === "asset" ? !ctx.assetPaths.has(l.target) : !ctx.byId.has(l.target),
        )
        .map((l) => ({ path: ix.path, message: `link ${l.raw} → nothing at "${l.target}"` })),
    ),
};

export const orphan: LintCheck = {
  name: "orphan",
  severity: "warning",
  explanation: "No other concept and no index links to this concept, so readers cannot find it.",
  run: (ctx) => {
    const indexed = new Set(
      ctx.indexes.flatMap((ix) => ix.links.filter((l) => l.kind !== "asset").map((l) => l.target)),
    );
    return ctx.docs
      .filter((d) => {
        const node = ctx.graph.node(d.id);
        return (node === undefined || !ctx.graph.hasInbound(node)) && !indexed.has(d.id);
      })
      .map((d) => ({ id: d.id, message: "no concept or index links here" }));
  },
};

export const orphanAsset: LintCheck = {
  name: "orphan_asset",
  severity: "warning",
  explanation: "An asset file under data/ that no concept or index links to.",
  run: (ctx) => {
    const fromIndexes = new Set(
      ctx.indexes.flatMap((ix) => ix.links.filter((l) => l.kind === "asset").map((l) => l.target)),
    );
    return ctx.assets
      .filter((a) => !ctx.linkedAssets.has(a.path) && !fromIndexes.has(a.path))
      .map((a) => ({ path: a.path, message: "asset is not linked from any concept or index" }));
  },
};

export const indexIncomplete: LintCheck = {
  name: "index_incomplete",
  severity: "warning",
  explanation:
    "A map with require_index_entry: true whose index.md does not link a concept directly in the map.",
  run: (ctx) =>
    ctx.maps
      .filter((m) => m.requireIndexEntry)
      .flatMap((m) => {
        const ix = ctx.indexes.find((i) => i.map === m.name);
        const listed = new Set(ix?.links.map((l) => l.target) ?? []);
        return ctx.docs
          .filter((d) => d.id.split("/").length === 2 && d.id.startsWith(`${m.name}/`))
          .filter((d) => !listed.has(d.id))
          .map((d) => ({ id: d.id, message: `missing from data/${m.name}/index.md` }));
      }),
};
