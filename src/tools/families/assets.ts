/**
 * Assets (binary files under data/, base64 on the wire) and artifact files (the KB-root provisioning
 * folders of docs/provisioning.md, written only when the KB sets `allow_artifact_write: true`). Both use the
 * sha256 of the raw bytes as `if_match`.
 */

import { KbError } from "../../common/errors.js";
import type { AssetInfo } from "../../kb/core/api.js";
import type { Placement } from "../../kb/core/types.js";
import { isVisible } from "../../kb/core/visibility.js";
import { defineTool } from "../define.js";
import { bool, nonEmptyStr, opt, str } from "../schema.js";
import type { ToolContext, ToolSpec, ToolTarget } from "../spec.js";
import { applyPlan } from "../support/write-plan.js";

/** An asset path as a data/-relative id for authorization (its first segment is the map). */
export function assetTargetId(path: string): string {
  return path.startsWith("data/") ? path.slice("data/".length) : path;
}

function assetTarget(write: boolean) {
  return (args: Record<string, unknown>): ToolTarget[] => [
    { id: assetTargetId(String(args.path ?? "")), write },
  ];
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeBase64(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, "");
  if (clean.length % 4 !== 0 || !BASE64.test(clean)) {
    throw new KbError(
      "invalid_argument",
      "'content_base64' must be standard base64 (A-Z a-z 0-9 + /, = padding)",
      {
        argument: "content_base64",
      },
    );
  }
  return new Uint8Array(Buffer.from(clean, "base64"));
}

async function placementOfAsset(ctx: ToolContext): Promise<(path: string) => Placement> {
  const maps = await ctx.runtime.store.maps();
  return (path) => {
    const first = assetTargetId(path).split("/")[0] ?? "";
    const desc = maps.find((m) => m.name === first);
    return {
      map: desc?.kind === "map" ? first : null,
      journal: desc?.kind === "journal" ? first : null,
    };
  };
}

const assetRead = defineTool({
  name: "asset_read",
  description: "Read an asset under data/ as base64 with its size and hash. Errors: not_found.",
  args: { path: nonEmptyStr() },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "exact",
  auditFields: ["path"],
  targets: assetTarget(false),
  handler: async (args, ctx) => {
    const { info, bytes } = await ctx.runtime.store.readAsset(args.path);
    return { ...info, content_base64: Buffer.from(bytes).toString("base64") };
  },
});

const assetList = defineTool({
  name: "asset_list",
  description:
    "List assets (non-Markdown files under data/) with size and hash; prefix filters by path.",
  args: { prefix: opt(nonEmptyStr()) },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "exact",
  auditFields: ["prefix"],
  // A prefix names a folder (a bare map name included): it is judged as a file under it, `/*`
  // being no concept id (so no type, as for assets). Items are filtered by visibility anyway.
  targets: (args) =>
    typeof args.prefix === "string" && args.prefix
      ? [{ id: `${assetTargetId(args.prefix).replace(/\/+$/, "")}/*`, write: false }]
      : [],
  handler: async (args, ctx) => {
    const assets = await ctx.runtime.store.assets(args.prefix);
    const placementOf = await placementOfAsset(ctx);
    // Assets carry no type: a type-restricted rule never shows them (D118, fail closed).
    const items = assets.filter((a) => isVisible(ctx.visibility, placementOf(a.path), null));
    return { items, total: items.length };
  },
});

const assetWrite = defineTool({
  name: "asset_write",
  description:
    "Create or replace an asset under data/ (≤1 MiB) from base64 content. Errors: stale_write (if_match = sha256 of bytes), too_large.",
  args: { path: nonEmptyStr(), content_base64: str(), if_match: opt(str()) },
  readOnly: false,
  advanced: false,
  idempotent: true,
  resource: "exact",
  auditFields: ["path"],
  targets: assetTarget(true),
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planAssetWrite({
      path: args.path,
      bytes: decodeBase64(args.content_base64),
      ifMatch: args.if_match,
    });
    return applyPlan(ctx, plan);
  },
});

const assetDelete = defineTool({
  name: "asset_delete",
  description:
    "Delete an asset. Errors: conflict (still linked from a concept; pass force), not_found, stale_write.",
  args: { path: nonEmptyStr(), if_match: opt(str()), force: opt(bool()) },
  readOnly: false,
  advanced: true,
  destructive: true,
  resource: "exact",
  auditFields: ["path", "force"],
  targets: assetTarget(true),
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planAssetDelete({
      path: args.path,
      ifMatch: args.if_match,
      force: args.force === true,
    });
    return applyPlan(ctx, plan);
  },
});

const STRICT_UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** The text of valid UTF-8 bytes; null otherwise (lossy decoding would garble binary files). */
function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return STRICT_UTF8.decode(bytes);
  } catch {
    return null;
  }
}

const artifactRead = defineTool({
  name: "artifact_read",
  description:
    "Read an artifact file by KB-root path (skills/<n>/SKILL.md, agents/<n>.md, hooks/…, mcp/<n>.json, instructions.md; legacy artifacts/) with its hash: content, or content_base64 when not UTF-8. Errors: not_found.",
  args: { path: nonEmptyStr() },
  readOnly: true,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: ["path"],
  handler: async (args, ctx) => {
    const { info, bytes } = await ctx.runtime.store.readArtifact(args.path);
    const text = utf8OrNull(bytes);
    return text === null
      ? { ...info, content_base64: Buffer.from(bytes).toString("base64") }
      : { ...info, content: text };
  },
});

const artifactList = defineTool({
  name: "artifact_list",
  description:
    "List the artifact files (skills/, agents/, hooks/, mcp/, instructions.md, legacy artifacts/) with size and hash.",
  readOnly: true,
  advanced: true,
  idempotent: true,
  resource: "whole",
  auditFields: [],
  handler: async (_args, ctx) => {
    const items: AssetInfo[] = await ctx.runtime.store.artifacts();
    return { items, total: items.length };
  },
});

const ARTIFACT_ENABLE = {
  enabledFor: (s: { allowArtifactWrite: boolean }) => s.allowArtifactWrite,
  enableKey: "allow_artifact_write",
};

const artifactWrite = defineTool({
  name: "artifact_write",
  description:
    "Create or replace an artifact file (≤256 KiB) by KB-root path: skills/<n>/…, agents/<n>.md, hooks/<n>/…, mcp/<n>.json or instructions.md. Errors: invalid_argument (other paths), stale_write (if_match = sha256 of bytes), too_large.",
  args: { path: nonEmptyStr(), content: str(), if_match: opt(str()) },
  readOnly: false,
  advanced: false,
  idempotent: true,
  resource: "whole",
  auditFields: ["path"],
  ...ARTIFACT_ENABLE,
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planArtifactWrite({
      path: args.path,
      bytes: new TextEncoder().encode(args.content),
      ifMatch: args.if_match,
    });
    return applyPlan(ctx, plan);
  },
});

const artifactDelete = defineTool({
  name: "artifact_delete",
  description: "Delete an artifact. Errors: not_found, stale_write.",
  args: { path: nonEmptyStr(), if_match: opt(str()) },
  readOnly: false,
  advanced: true,
  destructive: true,
  resource: "whole",
  auditFields: ["path"],
  ...ARTIFACT_ENABLE,
  handler: async (args, ctx) => {
    const plan = await ctx.runtime.store.planArtifactDelete({
      path: args.path,
      ifMatch: args.if_match,
    });
    return applyPlan(ctx, plan);
  },
});

export const assetTools: ToolSpec[] = [
  assetRead,
  assetList,
  assetWrite,
  assetDelete,
  artifactRead,
  artifactList,
  artifactWrite,
  artifactDelete,
];
