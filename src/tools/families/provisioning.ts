import { defineTool } from "../define.js";
import { opt, str } from "../schema.js";
import type { ToolSpec } from "../spec.js";
import {
  type ArtifactKind,
  buildManifest,
  effectiveArtifacts,
  summary,
} from "../support/artifact-manifest.js";
import { skillGet } from "./skills.js";

const artifactManifest = defineTool({
  name: "artifact_manifest",
  description:
    "Every skill, agent, hook, allow-listed MCP descriptor and instructions file for agent tools: files (content or content_base64, executable flag), content_hash, optional Ed25519 signature, revision. Used by `cartographer sync`.",
  readOnly: true,
  advanced: true,
  idempotent: true,
  resource: "collection",
  args: {
    known_revision: opt(
      str(
        "The revision the client last applied: when still current the answer is {kb, revision, unchanged: true} without artifacts.",
      ),
    ),
  },
  auditFields: [],
  handler: async (args, ctx) => buildManifest(ctx, args.known_revision),
});

function kindList(kind: ArtifactKind, name: string, where: string) {
  return defineTool({
    name,
    description: `List the ${where} with source, version, description, content_hash and file names.`,
    readOnly: true,
    advanced: true,
    idempotent: true,
    resource: "collection",
    auditFields: [],
    handler: async (_args, ctx) => {
      const set = await effectiveArtifacts(ctx);
      const items = set.artifacts.filter((a) => a.kind === kind).map(summary);
      const skipped = set.skipped.filter((s) => s.kind === kind);
      return { items, total: items.length, ...(skipped.length > 0 ? { skipped } : {}) };
    },
  });
}

export const provisioningTools: ToolSpec[] = [
  artifactManifest,
  skillGet,
  kindList("agent", "agent_list", "subagents (agents/<name>.md)"),
  kindList("hook", "hook_list", "hooks (hooks/<name>/hook.json + scripts)"),
  kindList(
    "mcp",
    "mcp_list",
    "MCP server descriptors this KB offers (mcp/<name>.json, allow-listed)",
  ),
];
