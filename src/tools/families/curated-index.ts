/**
 * The curated indexes (`data/index.md`, `data/<map>/index.md`): index_get reads one, index_patch
 * edits one. Each is listed in its family's place of the tool list (read-kb.ts, maps.ts), which
 * the golden tools/list pins.
 */
import { KbError } from "../../common/errors.js";
import { contentHash } from "../../kb/core/hash.js";
import { defineTool } from "../define.js";
import { nonEmptyStr, opt, str } from "../schema.js";
import { EDIT_ARGS, editsFrom } from "../support/edits.js";
import { scopedPath } from "../support/scoped-path.js";
import { applyPlan } from "../support/write-plan.js";

export const indexGet = defineTool({
  name: "index_get",
  contentHashAlias: true,
  // Go v0.5 argument names (docs/migrating-from-go.md).
  // with_hash: ours always returns {…, hash, content_hash, content}.
  aliases: { path: "scope", with_hash: null },
  description:
    "Read a curated index: the root data/index.md, or a map's index with scope. Returns {path, hash, content}. Errors: not_found.",
  args: { scope: opt(nonEmptyStr("Map name; absent = root index")) },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: ["scope"],
  handler: async (args, ctx) => {
    const { scope } = args;
    const path = await scopedPath(ctx, scope, "index.md");
    const content = await ctx.runtime.store.readText(path);
    if (content === null) {
      throw new KbError(
        "not_found",
        `no index at ${path} yet: index_patch with append (scope ${scope ?? "absent"}) starts one`,
      );
    }
    return { scope: scope ?? null, path, hash: contentHash(content), content };
  },
});

export const indexPatch = defineTool({
  name: "index_patch",
  contentHashAlias: true,
  // Go v0.5 argument names (docs/migrating-from-go.md).
  aliases: { path: "scope" },
  description:
    "Edit a curated index.md (scope = map; absent = root): old_string/new_string, edits or append. Errors: old_string_not_found, stale_write.",
  args: { scope: opt(nonEmptyStr()), ...EDIT_ARGS, append: opt(str()), if_match: opt(str()) },
  readOnly: false,
  advanced: false,
  resource: "curated-index",
  auditFields: ["scope"],
  targets: (args) =>
    typeof args.scope === "string" && args.scope !== "" ? [{ id: args.scope, write: true }] : [],
  requiresWholeKb: (args) => typeof args.scope !== "string" || args.scope === "",
  handler: async (args, ctx) => {
    const edits = editsFrom(args);
    const { append } = args;
    if (!edits && append === undefined) {
      throw new KbError(
        "invalid_argument",
        "nothing to patch: pass old_string/new_string, edits or append",
      );
    }
    const plan = await ctx.runtime.store.planIndexPatch({
      scope: args.scope ?? null,
      edits,
      append,
      ifMatch: args.if_match,
    });
    return applyPlan(ctx, plan);
  },
});
